#include "app/files/config_file.h"

#include "app/files/export.h"

#include <filesystem>
#include <system_error>

namespace app {

std::string write_config_file(const std::string& path, const std::string& what, const std::string& bytes) {
    namespace fs = std::filesystem;
    if (path.empty()) return what + " not saved: no configuration folder";
    std::error_code ec;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (ec) return "cannot create " + parent.string() + ": " + ec.message();
    return write_file_atomic(path, bytes);
}

}  // namespace app
