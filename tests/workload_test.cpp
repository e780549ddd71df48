// Parameter specs, validation messages and the variant registry.
#include "kernels/workload.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

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
            double v = s.integer ? s.min + 3 : (s.min + s.max) / 2;
            if (s.kind == ParamKind::boolean) v = 1;
            if (s.kind == ParamKind::choice) v = s.choices.at(1);
            set_param(p, s.id, v);
            CHECK(get_param(p, s.id) == Approx(v));
            CHECK(s.help[0] != '\0');
            CHECK(check_param_value(s, v).empty());
        }
    }
}

TEST_CASE("variants: unfused and fused exist with their kernel counts", "[variants]") {
    REQUIRE(variants(Workload::chain).size() == 3);
    CHECK(variants(Workload::chain)[2].name == "fused_spill");
    CHECK(variants(Workload::chain)[2].kernels == 1);
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

TEST_CASE("attention: specs for N, d, heads, Br, Bc, causal and seed", "[params][attention]") {
    const auto& specs = param_specs(Workload::attention);
    std::vector<std::string> names;
    for (const ParamSpec& s : specs) names.emplace_back(s.name);
    CHECK(names == std::vector<std::string>{"N", "d", "heads", "br", "bc", "causal", "seed"});
    const ParamSpec* br = find_param_spec(Workload::attention, ParamId::tile_br);
    REQUIRE(br);
    CHECK(br->kind == ParamKind::choice);
    CHECK(br->choices == std::vector<double>{16, 32, 64, 128});
    CHECK(legal_values_text(*br) == "16, 32, 64 or 128");
    CHECK_THAT(check_param_value(*br, 48), Catch::Contains("br = 48") && Catch::Contains("16, 32, 64 or 128"));
    const ParamSpec* causal = find_param_spec(Workload::attention, ParamId::causal);
    REQUIRE(causal);
    CHECK(causal->kind == ParamKind::boolean);
    CHECK_FALSE(check_param_value(*causal, 2).empty());
    CHECK(find_param_spec(Workload::attention, ParamId::rows) == nullptr);
    CHECK(find_param_spec(Workload::chain, ParamId::seq_len) == nullptr);
    // all_param_specs: each parameter once (seed is shared).
    size_t seeds = 0;
    for (const ParamSpec& s : all_param_specs()) seeds += s.id == ParamId::seed;
    CHECK(seeds == 1);
    CHECK(all_param_specs().size() == 15);  // 10 + skip's batch, t, sigma_d + launch's steps and elements
}

TEST_CASE("attention: validate() gives attention's own messages", "[params][attention]") {
    Params p;
    p.workload = Workload::attention;
    CHECK(validate(p).empty());
    p.head_dim = 0;
    CHECK_THAT(validate(p), Catch::Contains("d = 0") && Catch::Contains("1 .. 128"));
    p = Params{};
    p.workload = Workload::attention;
    p.seq_len = 100000;
    CHECK_THAT(validate(p), Catch::Contains("N = 100000"));
    p = Params{};
    p.workload = Workload::attention;
    p.tile_bc = 48;
    CHECK_THAT(validate(p), Catch::Contains("Bc = 48 is not a tile size"));
    p = Params{};
    p.workload = Workload::attention;
    p.batch_heads = 4096;
    p.seq_len = 65536;
    p.head_dim = 128;
    CHECK_THAT(validate(p), Catch::Contains("too large"));
    // Elementwise sizes do not matter to attention.
    p = Params{};
    p.workload = Workload::attention;
    p.rows = 0;
    CHECK(validate(p).empty());
}

TEST_CASE("attention: variants, model dispatch and min bytes", "[variants][attention]") {
    const auto& v = variants(Workload::attention);
    REQUIRE(v.size() == 3);
    CHECK(v[0].name == "naive");
    CHECK(v[0].kernels == 3);
    CHECK(v[1].name == "flash");
    CHECK(v[2].name == "flash_tc");
    Params p;
    p.workload = Workload::attention;
    p.dtype = DType::f16;
    const uint64_t qkvo = 4ull * static_cast<uint64_t>(p.batch_heads * p.seq_len * p.head_dim) * 2;
    CHECK(min_bytes(p) == qkvo);
    const Model naive = model("naive", p);
    REQUIRE(naive.kernels.size() == 3);
    CHECK(naive.kernels[0].tensor_cores);
    CHECK_FALSE(naive.kernels[1].tensor_cores);
    CHECK(naive.kernels[2].tensor_cores);
    CHECK_FALSE(model("flash", p).kernels.at(0).tensor_cores);
    CHECK(model("flash_tc", p).kernels.at(0).tensor_cores);
    p.dtype = DType::f32;
    CHECK_FALSE(model("naive", p).kernels[0].tensor_cores);  // cuBLAS default math: true fp32
}
