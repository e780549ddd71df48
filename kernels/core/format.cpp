#include "kernels/core/format.h"

#include <cmath>
#include <cstdio>

namespace kernels {

static std::string printf_string(const char* fmt, double v, const char* unit) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v, unit);
    return buf;
}

// Three significant digits reads well on a projector and in a table column.
static std::string three_digits(double v, const char* unit) {
    const double a = std::fabs(v);
    if (a >= 100) return printf_string("%.0f %s", v, unit);
    if (a >= 10) return printf_string("%.1f %s", v, unit);
    return printf_string("%.2f %s", v, unit);
}

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (std::fabs(bytes) >= 1024 && u < 4) { bytes /= 1024; ++u; }
    if (u == 0) return printf_string("%.0f %s", bytes, units[0]);
    return three_digits(bytes, units[u]);
}

std::string format_time_ms(double ms) {
    if (std::fabs(ms) < 1e-3) return three_digits(ms * 1e6, "ns");
    if (std::fabs(ms) < 1) return three_digits(ms * 1e3, "us");
    if (std::fabs(ms) < 1000) return printf_string("%.3f %s", ms, "ms");
    return three_digits(ms / 1e3, "s");
}

std::string format_gbps(double gbps) {
    if (std::fabs(gbps) >= 1000) return printf_string("%.0f %s", gbps, "GB/s");
    return three_digits(gbps, "GB/s");
}

static std::string si(double v, const char* unit_suffix) {
    const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
    int p = 0;
    while (std::fabs(v) >= 1000 && p < 5) { v /= 1000; ++p; }
    std::string unit = std::string(prefixes[p]) + unit_suffix;
    return three_digits(v, unit.c_str());
}

std::string format_flops(double flops) { return si(flops, "FLOP"); }
std::string format_rate_flops(double flop_per_s) { return si(flop_per_s, "FLOP/s"); }

std::string format_count(int64_t n) {
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

}  // namespace kernels
