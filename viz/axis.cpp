#include "viz/axis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace viz {

double nice_number(double x, bool round) {
    if (!(x > 0) || !std::isfinite(x)) return 1;
    const double exponent = std::floor(std::log10(x));
    const double power = std::pow(10.0, exponent);
    const double fraction = x / power;  // in [1, 10)
    double nice;
    if (round) nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
    else nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
    return nice * power;
}

Ticks zero_based_ticks(double data_max, int max_ticks) {
    Ticks t;
    max_ticks = std::max(1, max_ticks);
    if (!(data_max > 0) || !std::isfinite(data_max)) data_max = 1;
    t.step = nice_number(data_max / max_ticks, false);
    // ceil() of an exact multiple can land one step high through rounding error: nudge down.
    const double count = std::ceil(data_max / t.step * (1 - 1e-12));
    t.max = count * t.step;
    for (int i = 0; i <= static_cast<int>(count); ++i) t.values.push_back(i * t.step);
    return t;
}

LogTicks log_ticks(double data_lo, double data_hi) {
    const bool lo_ok = data_lo > 0 && std::isfinite(data_lo), hi_ok = data_hi > 0 && std::isfinite(data_hi);
    if (!lo_ok && !hi_ok) data_lo = data_hi = 1;
    else if (!lo_ok) data_lo = data_hi;
    else if (!hi_ok) data_hi = data_lo;
    if (data_lo > data_hi) std::swap(data_lo, data_hi);
    // Exact powers of ten must not widen by a decade through log10's rounding: nudge inwards.
    int k_lo = static_cast<int>(std::floor(std::log10(data_lo) + 1e-9));
    int k_hi = static_cast<int>(std::ceil(std::log10(data_hi) - 1e-9));
    if (k_hi <= k_lo) k_hi = k_lo + 1;
    LogTicks t;
    t.lo = std::pow(10.0, k_lo);
    t.hi = std::pow(10.0, k_hi);
    for (int k = k_lo; k <= k_hi; ++k) {
        const double decade = std::pow(10.0, k);
        t.major.push_back(decade);
        if (k < k_hi) {
            t.minor.push_back(2 * decade);
            t.minor.push_back(5 * decade);
        }
    }
    return t;
}

double log_fraction(double v, double lo, double hi) {
    if (!(v > 0)) return -std::numeric_limits<double>::infinity();
    return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
}

}  // namespace viz
