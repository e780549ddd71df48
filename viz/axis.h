// Axis arithmetic shared by every chart: "nice" tick values (1, 2, 5 x 10^k) so a value axis
// reads 0, 50, 100, 150 rather than 0, 47.3, 94.6. Plain math, no ImGui.
#pragma once

#include <vector>

namespace viz {

struct Ticks {
    double step = 1;            // distance between ticks
    double max = 1;             // axis end: the first tick >= the data maximum
    std::vector<double> values; // 0, step, 2*step, ..., max
};

// The nice number (1, 2, 5 or 10 times a power of ten) nearest to x (round) or >= x (ceiling).
double nice_number(double x, bool round);

// Ticks for an axis from 0 to at least `data_max`, with at most `max_ticks` + 1 marks.
// data_max <= 0 or non-finite gives the axis 0..1.
Ticks zero_based_ticks(double data_max, int max_ticks);

// Log axis (roofline, sweep): the range widened to whole decades, a major tick at each decade
// and minor ticks at 2 and 5 times each decade. lo, hi > 0; lo > hi is swapped; a degenerate or
// invalid range becomes the decade around the valid end (or 1..10).
struct LogTicks {
    double lo = 1, hi = 10;               // axis ends: powers of ten, lo < hi
    std::vector<double> major;            // 10^k for every k in [log10 lo, log10 hi]
    std::vector<double> minor;            // 2 x 10^k and 5 x 10^k inside (lo, hi)
};
LogTicks log_ticks(double data_lo, double data_hi);
// The same ticks, but the ends snapped outwards to the 1-2-5 sequence (2e15 rather than 1e16) so a
// plot wastes less than a decade at either end; major ticks stay at the decades inside.
LogTicks log_ticks_125(double data_lo, double data_hi);

// Where v falls on a log axis from lo to hi, 0..1 (outside: < 0 or > 1). v <= 0 maps to -inf.
double log_fraction(double v, double lo, double hi);

}  // namespace viz
