// Small text helpers the lesson engine's files share (not part of its interface to the app).
#pragma once

#include "kernels/core/registry.h"

#include <string>
#include <vector>

namespace app::lesson_text {

std::string trim(const std::string& s);
// Words separated by spaces or commas: "unfused, fused" -> {"unfused", "fused"}.
std::vector<std::string> words(const std::string& s);
std::string join(const std::vector<std::string>& items, const std::string& sep);
// The legal names, comma-separated, for messages.
std::string variant_names(std::string w);
std::string param_names(std::string w);
std::string workload_names();
const kernels::ParamSpec* spec_named(std::string w, const std::string& name);
// The whole text as a number (strtod); false for empty text or trailing characters.
bool parse_number(const std::string& text, double& out);
std::string printf_text(const char* format, double v);
std::string lower_text(const std::string& s);

}  // namespace app::lesson_text
