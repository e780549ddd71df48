// The launch workload's arithmetic on the CPU (kernels/launch/launch_emulate.cpp): its reference
// follows each variant's rounding, so the error is 0 as on the GPU; bf16 stream and fused differ
// (rounding between kernels stalls the stream); the GPU check's elements; the time limit.
#include "kernels/sim/emulate.h"
#include "kernels/launch/launch.h"

#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>

using namespace kernels;
using namespace kernels::launch;

TEST_CASE("emulated launch: 0 error against its per-variant reference, as the GPU check reads", "[emulate][launch]") {
    for (DType t : {DType::f32, DType::f16, DType::bf16})
        for (const char* v : {"stream", "graph", "fused"}) {
            LaunchParams p;
            p.dtype = t;
            p.steps = 100;
            p.elements = 3000;
            const EmulatedCheck e = emulate(v, p, EmulationBudget{kFullCheck, 30.0, {}});
            REQUIRE(e.computed);
            CHECK(e.rows == 3000);
            CHECK(e.max_abs <= 1e-7);  // a double-rounding tie of one FMA at most
            CHECK_THAT(e.note, Catch::StartsWith("all 3000 elements of y vs the float64 CPU reference (rounded"));
        }
}

TEST_CASE("emulated launch in bf16: rounding after every kernel stalls the stream", "[emulate][launch]") {
    LaunchParams p;
    p.dtype = DType::bf16;
    p.steps = 1000;
    p.elements = 256;
    int differ = 0;
    for (int64_t i = 0; i < p.elements; ++i) differ += emulate_value("stream", p, i) != emulate_value("fused", p, i);
    CHECK(differ > p.elements / 2);
    p.dtype = DType::f32;
    p.steps = 1;
    for (int64_t i = 0; i < p.elements; ++i) CHECK(emulate_value("stream", p, i) == emulate_value("fused", p, i));
}

TEST_CASE("elements_checked counts elements_to_check without listing them", "[emulate][launch]") {
    for (int64_t steps : {1, 7, 100, 1000})
        for (int64_t n : std::initializer_list<int64_t>{1, 2, 255, 65536, 1000003, int64_t{1} << 24}) {
            LaunchParams p;
            p.steps = steps;
            p.elements = n;
            for (int64_t work : std::initializer_list<int64_t>{50'000'000, 1000, 1})
                CHECK(elements_checked(p, work) == static_cast<int64_t>(elements_to_check(p, work).size()));
        }
}

TEST_CASE("emulated launch compares the GPU check's elements - the time limit gives the reason", "[emulate][launch]") {
    LaunchParams p;
    p.dtype = DType::f32;
    p.steps = 1000;
    p.elements = int64_t{1} << 24;
    const EmulatedCheck e = emulate("stream", p, EmulationBudget{kFullCheck, 0.5, {}});
    CHECK_FALSE(e.computed);
    CHECK(e.rows == static_cast<int64_t>(elements_to_check(p).size()));
    CHECK_THAT(e.why_not, Catch::StartsWith("not emulated: ~") && Catch::Contains("sampled elements"));
}
