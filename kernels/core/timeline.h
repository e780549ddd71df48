// Kernel timelines and per-kernel rows shared by both backends, the CLI, the export and the
// timeline panel: no CUDA, no GUI.
//   * aggregate_kernel_times(): identical kernel names become one row ("step x1000", mean per
//     kernel), so a run of K = 1000 kernels stays one readable line in tables.
//   * timeline_stats(): busy and idle time of one run's KernelSpans: the gaps between kernels are
//     the launch-overhead lesson.
//   * modeled_timeline(): the simulated backend's timeline: each kernel its modeled time, a launch
//     gap before each.
#pragma once

#include "kernels/core/types.h"

#include <string>
#include <vector>

namespace kernels {

// Kernels sharing a name (in order of first appearance) merge into one row named "name xN" whose
// time is the mean per kernel (median, min and max each divided by N after summing) and whose bytes
// are one kernel's (the mean). Rows with a unique name pass through unchanged.
std::vector<KernelTime> aggregate_kernel_times(const std::vector<KernelTime>& kernels);
// "step x1000" -> 1000; "whole run (5 kernels)" (a run timed without events between kernels) -> 5;
// "gelu" -> 1.
int64_t aggregated_count(const std::string& row_name);
// Kernels launched per run behind (possibly aggregated) rows: the sum of aggregated_count().
int64_t launched_kernels(const std::vector<KernelTime>& rows);

struct TimelineStats {
    int64_t kernels = 0;
    double span_ms = 0;      // first kernel's start to last kernel's end
    double busy_ms = 0;      // sum of kernel durations (overlaps counted once)
    double idle_ms = 0;      // span - busy: the GPU ran none of this run's kernels
    double mean_gap_us = 0;    // idle / (kernels - 1); 0 for one kernel
    double median_gap_us = 0;  // robust to one long stall (a first-use cost of the tracer, a page fault)
    double max_gap_us = 0;
};
TimelineStats timeline_stats(const std::vector<KernelSpan>& spans);

// Each kernel's modeled time (from `kernel_ms`, which excludes launch cost) laid end to end with a
// gap of `gap_us` before every kernel but the first; spans start at 0.
std::vector<KernelSpan> modeled_timeline(const std::vector<std::string>& names, const std::vector<double>& kernel_ms,
                                         const std::vector<uint64_t>& bytes, double gap_us);

}  // namespace kernels
