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

}  // namespace viz
