// Parameter specs, validation messages and the variant registry.
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace kernels;

TEST_CASE("default parameters are valid for every workload", "[params]") {
    for (const WorkloadDef* w : workloads()) {
        Params p;
        p.workload = w->name;
        CHECK(validate(p).empty());
        CHECK(p == default_params(w->name));  // unset values read as the spec's defaults
    }
}

TEST_CASE("a parameter the workload does not take fails loudly, and equality ignores it", "[params]") {
    Params p;  // chain
    CHECK_THROWS_WITH(p.get("N"), Catch::Contains("chain takes no parameter 'N'"));
    Params q = p;
    q.set("N", 4096);  // kept for when the user goes back to attention, ignored by the chain
    CHECK(p == q);
    q.set("rows", 1024);
    CHECK_FALSE(p == q);
    CHECK(q.get_int("rows") == 1024);
}

TEST_CASE("out-of-range parameters give a message naming the parameter and range", "[params]") {
    Params p;
    p.set("rows", 0);
    CHECK_THAT(validate(p), Catch::Contains("rows = 0") && Catch::Contains("between 1 and 1048576"));
    p.set("rows", -5);
    CHECK_THAT(validate(p), Catch::Contains("rows = -5"));
    p = Params{};
    p.set("hidden", 99999999);
    CHECK_THAT(validate(p), Catch::Contains("hidden") && Catch::Contains("65536"));
    p = Params{};
    p.set("dropout", 1.0);
    CHECK_THAT(validate(p), Catch::Contains("dropout"));
    p = Params{};
    p.set("rows", 1048576);
    p.set("hidden", 16384);
    CHECK_THAT(validate(p), Catch::Contains("too large"));
}

TEST_CASE("bias_gelu ignores dropout, chain checks it", "[params]") {
    Params p;
    p.set("dropout", 5);
    p.workload = "bias_gelu";
    CHECK(validate(p).empty());
    p.workload = "chain";
    CHECK_FALSE(validate(p).empty());
}

TEST_CASE("get and set round-trip every spec, and every default is legal", "[params]") {
    for (const WorkloadDef* w : workloads()) {
        Params p;
        p.workload = w->name;
        for (const ParamSpec& s : w->params) {
            CHECK(check_param_value(s, s.default_value).empty());
            double v = s.integer ? s.min + 3 : (s.min + s.max) / 2;
            if (s.kind == ParamKind::boolean) v = 1;
            if (s.kind == ParamKind::choice) v = s.choices.at(1);
            p.set(s.name, v);
            CHECK(p.get(s.name) == Approx(v));
            CHECK_FALSE(s.help.empty());
            CHECK(check_param_value(s, v).empty());
        }
    }
}

TEST_CASE("variants: unfused and fused exist with their kernel counts", "[variants]") {
    REQUIRE(variants("chain").size() == 3);
    CHECK(variants("chain")[2].name == "fused_spill");
    CHECK(variants("chain")[2].kernels == 1);
    CHECK(variants("chain")[0].kernels == 4);
    CHECK(variants("bias_gelu")[0].kernels == 2);
    CHECK(has_variant("chain", "fused"));
    CHECK_FALSE(has_variant("chain", "flash"));
}

TEST_CASE("workload and dtype names parse back", "[params]") {
    for (const WorkloadDef* w : workloads()) CHECK(find_workload(w->name) == w);
    CHECK(find_workload("ATTENTION") == &workload_def("attention"));  // case-insensitive
    CHECK_THROWS_WITH(workload_def("nope"), Catch::Contains("unknown workload 'nope'") && Catch::Contains("launch"));
    for (DType t : kAllDTypes) {
        DType back{};
        REQUIRE(parse_dtype(to_string(t), back));
        CHECK(back == t);
    }
    DType d{};
    CHECK_FALSE(parse_dtype("fp8", d));
    CHECK(find_workload("nope") == nullptr);
}

TEST_CASE("attention: specs for N, d, heads, Br, Bc, causal and seed", "[params][attention]") {
    const auto& specs = param_specs("attention");
    std::vector<std::string> names;
    for (const ParamSpec& s : specs) names.emplace_back(s.name);
    CHECK(names == std::vector<std::string>{"N", "d", "heads", "br", "bc", "causal", "seed"});
    const ParamSpec* br = find_param_spec("attention", "br");
    REQUIRE(br);
    CHECK(br->kind == ParamKind::choice);
    // 0 is `auto` (the default: the tile picked for the shape and device).
    CHECK(br->choices == std::vector<double>{0, 16, 32, 64, 128, 192});
    CHECK(legal_values_text(*br) == "auto, 16, 32, 64, 128 or 192");
    CHECK_THAT(check_param_value(*br, 48), Catch::Contains("br = 48") && Catch::Contains("auto, 16, 32, 64, 128 or 192"));
    const ParamSpec* causal = find_param_spec("attention", "causal");
    REQUIRE(causal);
    CHECK(causal->kind == ParamKind::boolean);
    CHECK_FALSE(check_param_value(*causal, 2).empty());
    CHECK(find_param_spec("attention", "rows") == nullptr);
    CHECK(find_param_spec("chain", "N") == nullptr);
    // all_param_specs: each parameter once (seed is shared).
    size_t seeds = 0;
    for (const ParamSpec& s : all_param_specs()) seeds += s.name == "seed";
    CHECK(seeds == 1);
    CHECK(all_param_specs().size() == 22);  // 10 + skip's batch, t, sigma_d + launch's steps and elements + ffn's M, d_model, d_ff
                                            // + decode's kv_len, kv_heads, page, splits
}

TEST_CASE("attention: validate() names the parameter and what is legal", "[params][attention]") {
    Params p;
    p.workload = "attention";
    CHECK(validate(p).empty());
    p.set("d", 0);
    CHECK_THAT(validate(p), Catch::Contains("d = 0") && Catch::Contains("between 1 and 128"));
    p = Params{};
    p.workload = "attention";
    p.set("N", 100000);
    CHECK_THAT(validate(p), Catch::Contains("N = 100000"));
    p = Params{};
    p.workload = "attention";
    p.set("bc", 48);
    CHECK_THAT(validate(p), Catch::Contains("bc = 48 is not one of the choices") && Catch::Contains("16, 32, 64, 80, 128 or 176"));
    p = Params{};
    p.workload = "attention";
    p.set("heads", 4096);
    p.set("N", 65536);
    p.set("d", 128);
    CHECK_THAT(validate(p), Catch::Contains("too large"));
    // Elementwise sizes do not matter to attention.
    p = Params{};
    p.workload = "attention";
    p.set("rows", 0);
    CHECK(validate(p).empty());
}

TEST_CASE("attention: variants, model dispatch and min bytes", "[variants][attention]") {
    const auto& v = variants("attention");
    REQUIRE(v.size() == 4);
    CHECK(v[0].name == "naive");
    CHECK(v[0].kernels == 3);
    CHECK(v[1].name == "flash");
    CHECK(v[2].name == "flash_tc");
    CHECK(v[2].improves_on == "naive");
    CHECK(v[3].name == "flash_wgmma");
    CHECK(v[3].improves_on == "flash_tc");  // the ladder's last step: mma.sync -> wgmma
    Params p;
    p.workload = "attention";
    p.dtype = DType::f16;
    const uint64_t qkvo = 4ull * static_cast<uint64_t>(p.get_int("heads") * p.get_int("N") * p.get_int("d")) * 2;
    CHECK(min_bytes(p) == qkvo);
    const Model naive = model("naive", p);
    REQUIRE(naive.kernels.size() == 3);
    CHECK(naive.kernels[0].tensor_cores);
    CHECK_FALSE(naive.kernels[1].tensor_cores);
    CHECK(naive.kernels[2].tensor_cores);
    CHECK_FALSE(model("flash", p).kernels.at(0).tensor_cores);
    CHECK(model("flash_tc", p).kernels.at(0).tensor_cores);
    CHECK(model("flash_wgmma", p).kernels.at(0).tensor_cores);
    CHECK_FALSE(model("flash_wgmma", p).kernels.at(0).mma_sync);  // priced at the GEMM rate
    p.dtype = DType::f32;
    CHECK_FALSE(model("naive", p).kernels[0].tensor_cores);  // cuBLAS default math: true fp32
}

TEST_CASE("describe: one line per parameter set, from the workload's definition", "[params]") {
    Params p;  // chain
    CHECK(describe(p, "fused") == "chain fused: 4096 x 4096, 128 threads x 4 chunks per row, bf16");
    CHECK(describe(p) == "chain: 4096 x 4096, bf16");
    p = default_params("attention");
    p.dtype = DType::f16;
    CHECK(describe(p, "flash") == "attention flash: 16 heads, N=1024, d=64, tile 64x64, fp16");
    CHECK(describe(p, "flash_tc") == "attention flash_tc: 16 heads, N=1024, d=64, tile 64x64 (4 warps x 16 rows), fp16");
    CHECK(describe(p) == "attention: 16 heads, N=1024, d=64, fp16");
    p = default_params("launch");
    CHECK(describe(p) == "launch: K=100, n=65536, bf16");
    p = default_params("skip");
    CHECK(describe(p, "teaching_fused") == "skip teaching_fused: 4x4 heads, N=1024, d=64, t=1, sigma_d=0.5, tile 64x64, bf16");
    for (const WorkloadDef* w : workloads()) {
        CHECK_FALSE(w->description.empty());
        CHECK_FALSE(w->title.empty());
        CHECK(w->decode);
        CHECK(w->schedule);
        CHECK(w->min_bytes);
        CHECK(w->describe);
        CHECK(w->footprint);
    }
}
