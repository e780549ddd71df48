// Small text helpers the lesson engine's files share (app/lessons/text_helpers.h).
#include "app/lessons/text_helpers.h"

#include "kernels/core/registry.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace app::lesson_text {

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

// Words separated by spaces or commas: "unfused, fused" -> {"unfused", "fused"}.
std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::string word;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
            if (!word.empty()) out.push_back(word);
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) out.push_back(word);
    return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::string variant_names(std::string w) {
    std::vector<std::string> names;
    for (const auto& v : kernels::variants(w)) names.push_back(v.name);
    return join(names, ", ");
}

std::string param_names(std::string w) {
    std::vector<std::string> names;
    for (const auto& spec : kernels::param_specs(w)) names.push_back(spec.name);
    return join(names, ", ");
}

std::string workload_names() { return join(kernels::workload_names(), ", "); }

const kernels::ParamSpec* spec_named(std::string w, const std::string& name) {
    for (const auto& spec : kernels::param_specs(w))
        if (name == spec.name) return &spec;
    return nullptr;
}

bool parse_number(const std::string& text, double& out) {
    if (text.empty()) return false;
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return end && *end == '\0';
}

std::string printf_text(const char* format, double v) {
    char text[64];
    std::snprintf(text, sizeof text, format, v);
    return text;
}

std::string lower_text(const std::string& s) {
    std::string out;
    for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace app::lesson_text
