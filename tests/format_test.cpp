#include "kernels/core/format.h"
#include "kernels/core/types.h"

#include <catch2/catch.hpp>

using namespace kernels;

TEST_CASE("format helpers pick readable units", "[format]") {
    CHECK(format_bytes(512) == "512 B");
    CHECK(format_bytes(384.0 * 1024 * 1024) == "384 MiB");
    CHECK(format_bytes(1.5 * 1024 * 1024 * 1024) == "1.50 GiB");
    CHECK(format_time_ms(0.0914) == "91.4 us");
    CHECK(format_time_ms(1.2345) == "1.234 ms");
    CHECK(format_gbps(3912.4) == "3912 GB/s");
    CHECK(format_rate_flops(285e12) == "285 TFLOP/s");
    CHECK(format_count(1048576) == "1,048,576");
    CHECK(format_count(-12) == "-12");
}

TEST_CASE("summarize gives median, min, max of the samples", "[timing]") {
    TimeStats s = summarize({3, 1, 2, 10});
    CHECK(s.reps == 4);
    CHECK(s.median_ms == 2.5);
    CHECK(s.min_ms == 1);
    CHECK(s.max_ms == 10);
    CHECK(summarize({}).reps == 0);
    CHECK(summarize({5}).median_ms == 5);
}
