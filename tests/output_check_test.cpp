// The GPU backend's pass/fail rule for an output against the float64 reference (output_check.h).
#include "kernels/core/output_check.h"

#include <catch2/catch.hpp>

#include <cmath>

using kernels::DType;
using kernels::output_matches;

TEST_CASE("output check: relative L2 decides, with an absolute floor for tiny outputs", "[check]") {
    // Ordinary outputs: the relative error decides.
    CHECK(output_matches(DType::bf16, 0.009, 0.5));
    CHECK_FALSE(output_matches(DType::bf16, 0.02, 0.5));
    CHECK(output_matches(DType::f32, 9e-6, 0.5));
    CHECK_FALSE(output_matches(DType::f32, 2e-5, 0.5));
    // The H100 case: chain unfused bf16, rows = hidden = 1, one element whose residual add cancels:
    // relative 0.024, absolute 0.0033 (less than one bf16 half-ulp at 1) is rounding, not a bug.
    CHECK(output_matches(DType::bf16, 0.024428, 0.003260));
    // ...but an absolute error of several bf16 ulps at 2 is not.
    CHECK_FALSE(output_matches(DType::bf16, 0.05, 0.02));
    // fp16 has three more bits: the same 0.0033 is too much for it.
    CHECK_FALSE(output_matches(DType::f16, 0.024428, 0.003260));
    CHECK(output_matches(DType::f16, 0.024428, 0.0015));
    // fp32 keeps its tight floor.
    CHECK(output_matches(DType::f32, 1e-3, 5e-7));
    CHECK_FALSE(output_matches(DType::f32, 1e-3, 2e-6));
    // Poison or NaN never passes.
    CHECK_FALSE(output_matches(DType::bf16, std::nan(""), std::nan("")));
    CHECK_FALSE(output_matches(DType::f32, INFINITY, INFINITY));
}

TEST_CASE("output check: the floors are four half-ulps of 2, never below tolerance/10", "[check]") {
    CHECK(kernels::absolute_tolerance(DType::bf16) == 4 * 0x1p-8);
    CHECK(kernels::absolute_tolerance(DType::f16) == 4 * 0x1p-11);
    CHECK(kernels::absolute_tolerance(DType::f32) == kernels::relative_tolerance(DType::f32) / 10);
}
