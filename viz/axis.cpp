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

LogTicks log_ticks_125(double data_lo, double data_hi) {
    const LogTicks whole = log_ticks(data_lo, data_hi);
    if (!(data_lo > 0) || !std::isfinite(data_lo)) data_lo = whole.lo;
    if (!(data_hi > 0) || !std::isfinite(data_hi)) data_hi = whole.hi;
    if (data_lo > data_hi) std::swap(data_lo, data_hi);
    // The largest 1-2-5 value <= lo and the smallest >= hi (tolerating log10's rounding).
    auto down = [](double v) {
        const double decade = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
        for (double m : {5.0, 2.0, 1.0})
            if (m * decade <= v * (1 + 1e-9)) return m * decade;
        return decade;
    };
    auto up = [](double v) {
        const double decade = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
        for (double m : {1.0, 2.0, 5.0})
            if (m * decade >= v * (1 - 1e-9)) return m * decade;
        return 10 * decade;
    };
    LogTicks t;
    t.lo = down(data_lo);
    t.hi = up(data_hi);
    if (t.hi <= t.lo) t.hi = up(t.lo * 1.5);
    for (double v : whole.major)
        if (v >= t.lo * (1 - 1e-9) && v <= t.hi * (1 + 1e-9)) t.major.push_back(v);
    for (double v : whole.minor)
        if (v > t.lo * (1 + 1e-9) && v < t.hi * (1 - 1e-9)) t.minor.push_back(v);
    // The ends themselves get a minor line when they are not decades.
    return t;
}

double log_fraction(double v, double lo, double hi) {
    if (!(v > 0)) return -std::numeric_limits<double>::infinity();
    return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
}

}  // namespace viz
