// How a row kernel's warps bring their partial sums together (elementwise v9, kernels/PERF.md): read by the
// launcher (kernels/elementwise/elementwise.cu) and the model (elementwise_model.cpp, whose instruction count
// per element follows it), so both see the same form. A small header of its own: elementwise.h is included
// almost everywhere.
#pragma once

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kernels::elementwise {

// FUSIONLAB_ROW_REDUCTION: "every_warp" (v8, the default: every warp adds the row's partials itself after the
// block barrier) or "leader" (v9: the row's first warp alone adds them and hands the totals over through named
// barriers); the same sums in the same order either way. Anything else is refused with the reason.
// v9 measured 1.5-3 points of the copy ceiling faster on wide rows (PERF.md), but racecheck reports 144 hazards on
// its handover (the other warps' read of a total against the leader's store of the next one, which the named
// barriers order: 2026-11-28 20:28 UTC, H200) and the lead would not ship a default the tools do not pass: it
// stays opt-in until racecheck is clean or the reports are shown to be the tool's.
inline bool row_reduction_leader() {
    const char* reduction = std::getenv("FUSIONLAB_ROW_REDUCTION");
    if (reduction == nullptr || *reduction == '\0' || std::strcmp(reduction, "every_warp") == 0) return false;
    if (std::strcmp(reduction, "leader") == 0) return true;
    throw std::invalid_argument(std::string("FUSIONLAB_ROW_REDUCTION=") + reduction +
                                ": expected every_warp (each warp adds the partials, v8, the default) or leader (the "
                                "row's first warp adds them, v9)");
}

}  // namespace kernels::elementwise
