// Parameter specs, validation messages and the variant registry.
#include "kernels/workload.h"

#include <catch2/catch.hpp>

using namespace kernels;

TEST_CASE("default parameters are valid for every workload", "[params]") {
    for (Workload w : kAllWorkloads) {
        Params p;
        p.workload = w;
        CHECK(validate(p).empty());
    }
}

TEST_CASE("out-of-range parameters give a message naming the parameter and range", "[params]") {
    Params p;
    p.rows = 0;
    CHECK_THAT(validate(p), Catch::Contains("rows = 0") && Catch::Contains("between 1 and 1048576"));
    p.rows = -5;
    CHECK_THAT(validate(p), Catch::Contains("rows = -5"));
    p = Params{};
    p.hidden = 99999999;
    CHECK_THAT(validate(p), Catch::Contains("hidden") && Catch::Contains("16384"));
    p = Params{};
    p.dropout_p = 1.0;
    CHECK_THAT(validate(p), Catch::Contains("dropout"));
    p = Params{};
    p.rows = 1048576;
    p.hidden = 16384;
    CHECK_THAT(validate(p), Catch::Contains("too large"));
}

TEST_CASE("bias_gelu ignores dropout, chain checks it", "[params]") {
    Params p;
    p.dropout_p = 5;
    p.workload = Workload::bias_gelu;
    CHECK(validate(p).empty());
    p.workload = Workload::chain;
    CHECK_FALSE(validate(p).empty());
}

TEST_CASE("get_param and set_param round-trip every spec", "[params]") {
    for (Workload w : kAllWorkloads) {
        Params p;
        p.workload = w;
        for (const ParamSpec& s : param_specs(w)) {
            const double v = s.integer ? s.min + 3 : (s.min + s.max) / 2;
            set_param(p, s.id, v);
            CHECK(get_param(p, s.id) == Approx(v));
            CHECK(s.help[0] != '\0');
        }
    }
}

TEST_CASE("variants: unfused and fused exist with their kernel counts", "[variants]") {
    CHECK(variants(Workload::chain).size() == 2);
    CHECK(variants(Workload::chain)[0].kernels == 4);
    CHECK(variants(Workload::bias_gelu)[0].kernels == 2);
    CHECK(has_variant(Workload::chain, "fused"));
    CHECK_FALSE(has_variant(Workload::chain, "flash"));
}

TEST_CASE("workload and dtype names parse back", "[params]") {
    for (Workload w : kAllWorkloads) {
        Workload back{};
        REQUIRE(parse_workload(to_string(w), back));
        CHECK(back == w);
    }
    for (DType t : kAllDTypes) {
        DType back{};
        REQUIRE(parse_dtype(to_string(t), back));
        CHECK(back == t);
    }
    DType d{};
    CHECK_FALSE(parse_dtype("fp8", d));
    Workload w{};
    CHECK_FALSE(parse_workload("nope", w));
}
