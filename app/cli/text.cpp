// Small text helpers the commands share (app/cli/text.h).
#include "app/cli/text.h"

#include "kernels/core/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace app::cli {

std::string printf_string(const char* format, ...) {
    va_list args;
    va_start(args, format);
    char buffer[512];
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return n < 0 ? std::string() : std::string(buffer);
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += separator;
        out += items[i];
    }
    return out;
}

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::string printable(const std::string& s) {
    std::string out;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (u < 0x20 || u == 0x7F) out += printf_string("\\x%02X", unsigned(u));
        else out += c;
    }
    return out;
}

size_t display_width(const std::string& s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string pad_right(const std::string& s, size_t width) {
    const size_t w = display_width(s);
    return w >= width ? s : s + std::string(width - w, ' ');
}

std::string pad_left(const std::string& s, size_t width) {
    const size_t w = display_width(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}

std::string number_text(double v) {
    if (v == std::floor(v) && std::fabs(v) < 9e18) return printf_string("%lld", static_cast<long long>(v));
    return printf_string("%g", v);
}

std::string clock_text(int mhz) { return mhz > 0 ? std::to_string(mhz) + " MHz" : std::string("n/a"); }


std::string shape_text(const kernels::Params& p, const std::string& variant) {
    return kernels::workload_def(p).describe(p, variant);
}

}  // namespace app::cli
