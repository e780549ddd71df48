// Parameter sets the simulator and traffic tests price: one attention, chain or launch shape each.
#pragma once

#include "kernels/core/types.h"

#include <cstdint>

namespace test_params {

inline kernels::Params attention(int64_t heads, int64_t N, int64_t d, int br = 64, int bc = 64) {
    kernels::Params p;
    p.workload = "attention";
    p.dtype = kernels::DType::f16;
    p.set("heads", static_cast<double>(heads)).set("N", static_cast<double>(N)).set("d", static_cast<double>(d));
    p.set("br", br).set("bc", bc);
    return p;
}

inline kernels::Params chain(int64_t rows, int64_t hidden) {
    kernels::Params p;
    p.workload = "chain";
    p.dtype = kernels::DType::bf16;
    p.set("rows", static_cast<double>(rows)).set("hidden", static_cast<double>(hidden));
    return p;
}

inline kernels::Params launch(int64_t steps, int64_t elements) {
    kernels::Params p;
    p.workload = "launch";
    p.dtype = kernels::DType::f32;
    p.set("steps", static_cast<double>(steps)).set("elements", static_cast<double>(elements));
    return p;
}

}  // namespace test_params
