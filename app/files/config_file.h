// Writing a file of the configuration folder (settings.json, answers.json): the folder made first,
// then the bytes written whole (write_file_atomic).
#pragma once

#include <string>

namespace app {

// "" or why not: `what` names the file in the message ("settings", "answers") when `path` is empty
// (no configuration folder) or its folder cannot be made.
std::string write_config_file(const std::string& path, const std::string& what, const std::string& bytes);

}  // namespace app
