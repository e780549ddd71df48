// Philox4x32-10 against the known-answer vectors published with Random123, and the dropout mask.
#include "kernels/core/philox.h"

#include <catch2/catch.hpp>

using namespace kernels;

TEST_CASE("philox4x32-10 matches the Random123 known answers", "[philox]") {
    Philox4 r = philox4x32_10(0, 0, 0, 0, 0, 0);
    CHECK(r.v[0] == 0x6627e8d5u);
    CHECK(r.v[1] == 0xe169c58du);
    CHECK(r.v[2] == 0xbc57ac4cu);
    CHECK(r.v[3] == 0x9b00dbd8u);
    r = philox4x32_10(~0u, ~0u, ~0u, ~0u, ~0u, ~0u);
    CHECK(r.v[0] == 0x408f276du);
    CHECK(r.v[3] == 0x6d5451fdu);
    r = philox4x32_10(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
    CHECK(r.v[0] == 0xd16cfe09u);
    CHECK(r.v[1] == 0x94fdccebu);
    CHECK(r.v[2] == 0x5001e420u);
    CHECK(r.v[3] == 0x24126ea1u);
}

TEST_CASE("dropout keeps about 1-p of the elements, independent of position", "[philox][dropout]") {
    for (double p : {0.1, 0.5, 0.9}) {
        const uint32_t t = dropout_threshold(p);
        const int n = 1 << 18;
        int kept = 0, kept_even = 0;
        for (int i = 0; i < n; ++i) {
            const bool k = dropout_keep(7, static_cast<uint64_t>(i), t);
            kept += k;
            kept_even += k && (i % 2 == 0);
        }
        CAPTURE(p);
        // Binomial sd at n = 2^18 is below 0.001: 0.005 is a wide, still meaningful band.
        CHECK(static_cast<double>(kept) / n == Approx(1 - p).margin(0.005));
        CHECK(static_cast<double>(kept_even) / (n / 2) == Approx(1 - p).margin(0.007));
    }
}

TEST_CASE("dropout edge cases: p = 0 keeps all, the mask depends on the seed", "[philox][dropout]") {
    CHECK(dropout_threshold(0) == 0u);
    CHECK(dropout_threshold(1) == 65536u);
    int same = 0;
    for (uint64_t i = 0; i < 4096; ++i) {
        CHECK(dropout_keep(1, i, 0));
        CHECK_FALSE(dropout_keep(1, i, 65536u));
        same += dropout_keep(1, i, dropout_threshold(0.5)) == dropout_keep(2, i, dropout_threshold(0.5));
    }
    CHECK(same > 1800);
    CHECK(same < 2300);  // two seeds agree on about half the elements, not all
}

TEST_CASE("input_value is uniform on -1..1 and never constant", "[philox][inputs]") {
    double sum = 0, lo = 1, hi = -1;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        const float v = input_value(42, 1, static_cast<uint64_t>(i));
        REQUIRE(v >= -1.0f);
        REQUIRE(v < 1.0f);
        sum += v;
        lo = std::min(lo, static_cast<double>(v));
        hi = std::max(hi, static_cast<double>(v));
    }
    CHECK(sum / n == Approx(0).margin(0.01));
    CHECK(lo < -0.99);
    CHECK(hi > 0.99);
    CHECK(input_value(42, 1, 5) != input_value(42, 2, 5));  // tensors differ
    CHECK(input_value(42, 1, 5) != input_value(43, 1, 5));  // seeds differ
}
