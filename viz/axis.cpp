#include "viz/axis.h"

#include <algorithm>
#include <cmath>

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

}  // namespace viz
