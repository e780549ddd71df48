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

// FUSIONLAB_ROW_REDUCTION: "leader" (v9, the default: the row's first warp alone adds the warps' partials and
// hands the totals over) or "every_warp" (v8: every warp adds them itself after the block barrier); the same
// sums in the same order either way. Anything else is refused with the reason.
inline bool row_reduction_leader() {
    const char* reduction = std::getenv("FUSIONLAB_ROW_REDUCTION");
    if (reduction == nullptr || *reduction == '\0' || std::strcmp(reduction, "leader") == 0) return true;
    if (std::strcmp(reduction, "every_warp") == 0) return false;
    throw std::invalid_argument(std::string("FUSIONLAB_ROW_REDUCTION=") + reduction +
                                ": expected leader (the row's first warp adds the partials, v9) or every_warp (each "
                                "warp adds them, v8)");
}

}  // namespace kernels::elementwise
