// Reading exports back: what measurements_json writes parses back to the same measurements (every
// field the panels draw), and a damaged or hand-edited file is refused with the JSON path of the
// problem instead of reaching the GUI.
#include "app/files/results_import.h"

#include "app/files/export.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include "temp_dir.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

namespace {

std::vector<kernels::Measurement> simulated_attention() {
    auto backend = kernels::make_sim_backend(*kernels::find_sim_gpu("H200"));
    std::vector<kernels::Measurement> out;
    for (const kernels::VariantInfo& v : kernels::variants("attention")) {
        kernels::Job job;
        job.params.workload = "attention";
        job.params.set("N", 2048);
        job.params.set("d", 128);
        job.params.set("causal", 1);
        job.params.dtype = kernels::DType::f16;
        job.variant = v.name;
        out.push_back(backend->run(job, kernels::CancelToken{}));
    }
    // A timeline as the GPU backend records one (the simulated backend may leave it empty).
    out[0].timeline = {{"gemm_qk", 0.0, 0.5, 100}, {"softmax", 0.51, 0.9, 200}};
    out[0].timeline_source = "CUDA events around each kernel";
    // Measured ceilings as a GPU backend reports them (the simulated device has none).
    for (kernels::Measurement& m : out) m.device.measured_bf16_gemm_tflops = 790.2;
    return out;
}

std::string edited(const std::string& text, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json doc = nlohmann::json::parse(text);
    edit(doc);
    return doc.dump();
}

}  // namespace

TEST_CASE("an export parses back to the measurements it was written from") {
    const std::vector<kernels::Measurement> original = simulated_attention();
    std::vector<kernels::Measurement> back;
    REQUIRE(app::parse_measurements_json(app::measurements_json(original), back).empty());
    REQUIRE(back.size() == original.size());
    for (size_t i = 0; i < back.size(); ++i) {
        const kernels::Measurement& a = original[i];
        const kernels::Measurement& b = back[i];
        CHECK(b.job.params == a.job.params);
        CHECK(b.job.variant == a.job.variant);
        CHECK(b.job.backend == a.job.backend);
        CHECK(b.ok == a.ok);
        CHECK(b.refused == a.refused);
        CHECK(b.error == a.error);
        CHECK(b.device.name == a.device.name);
        CHECK(b.device.simulated == a.device.simulated);
        CHECK(b.device.cc_major == a.device.cc_major);
        CHECK(b.device.l2_bytes == a.device.l2_bytes);
        CHECK(b.device.peak_bw_gbps == Approx(a.device.peak_bw_gbps));
        REQUIRE(b.device.measured_bf16_gemm_tflops.has_value());
        CHECK(*b.device.measured_bf16_gemm_tflops == Approx(790.2));
        CHECK(b.device.graph_kernel_us == Approx(a.device.graph_kernel_us));
        CHECK(b.time.median_ms == Approx(a.time.median_ms));
        CHECK(b.time.reps == a.time.reps);
        CHECK(b.bytes_read == a.bytes_read);
        CHECK(b.bytes_written == a.bytes_written);
        CHECK(b.min_bytes == a.min_bytes);
        CHECK(b.flops == Approx(a.flops));
        REQUIRE(b.kernels.size() == a.kernels.size());
        for (size_t k = 0; k < b.kernels.size(); ++k) {
            CHECK(b.kernels[k].name == a.kernels[k].name);
            CHECK(b.kernels[k].bytes == a.kernels[k].bytes);
            CHECK(b.kernels[k].time.median_ms == Approx(a.kernels[k].time.median_ms));
        }
        CHECK(b.measured_bytes.has_value() == a.measured_bytes.has_value());
        CHECK(b.measured_bytes_note == a.measured_bytes_note);
        CHECK(b.timing_note == a.timing_note);
        CHECK(b.model_limiter == a.model_limiter);
        CHECK(b.model_limiter_resource == a.model_limiter_resource);  // decoded from the file's words
        CHECK(b.model_limiter_resource != kernels::Limiter::unknown);
        CHECK(b.timeline_source == a.timeline_source);
        REQUIRE(b.timeline.size() == a.timeline.size());
        for (size_t k = 0; k < b.timeline.size(); ++k) {
            CHECK(b.timeline[k].name == a.timeline[k].name);
            CHECK(b.timeline[k].end_ms == Approx(a.timeline[k].end_ms));
        }
    }
}

TEST_CASE("a timeline in an export parses back in order") {
    nlohmann::json doc = nlohmann::json::parse(app::measurements_json(simulated_attention()));
    doc["measurements"][0]["timeline"] = {
        {"source", "CUDA events around each kernel"},
        {"spans",
         {{{"name", "gemm_qk"}, {"start_ms", 0.0}, {"end_ms", 0.5}, {"modeled_bytes", 100}},
          {{"name", "softmax"}, {"start_ms", 0.51}, {"end_ms", 0.9}, {"modeled_bytes", 200}}}}};
    std::vector<kernels::Measurement> back;
    REQUIRE(app::parse_measurements_json(doc.dump(), back).empty());
    REQUIRE(back[0].timeline.size() == 2);
    CHECK(back[0].timeline[1].name == "softmax");
    CHECK(back[0].timeline[1].start_ms == Approx(0.51));
    CHECK(back[0].timeline[1].bytes == 200);
    CHECK(back[0].timeline_source == "CUDA events around each kernel");
}

TEST_CASE("a damaged export is refused with the path of the problem") {
    const std::string good = app::measurements_json(simulated_attention());
    std::vector<kernels::Measurement> out;
    auto error_of = [&](const std::string& text) {
        const std::string why = app::parse_measurements_json(text, out);
        CHECK(out.empty());
        return why;
    };
    CHECK_THAT(error_of("{not json"), Catch::Contains("not JSON"));
    CHECK_THAT(error_of(R"({"tool": "other", "measurements": []})"), Catch::Contains("not a fusionlab export"));
    CHECK_THAT(error_of(R"({"tool": "fusionlab", "measurements": []})"), Catch::Contains("empty"));
    CHECK_THAT(error_of(edited(good, [](auto& d) { d["measurements"][1]["workload"] = "matmul"; })),
               Catch::Contains("$.measurements[1].workload") && Catch::Contains("matmul"));
    CHECK_THAT(error_of(edited(good, [](auto& d) { d["measurements"][0]["variant"] = "fused"; })),
               Catch::Contains("$.measurements[0].variant"));
    CHECK_THAT(error_of(edited(good, [](auto& d) { d["measurements"][0]["params"]["N"] = 0; })),
               Catch::Contains("$.measurements[0].params.N"));
    CHECK_THAT(error_of(edited(good, [](auto& d) { d["measurements"][0]["params"]["dtype"] = "int4"; })),
               Catch::Contains("params.dtype"));
    CHECK_THAT(error_of(edited(good, [](auto& d) { d["measurements"][0]["time"]["median_ms"] = "fast"; })),
               Catch::Contains("time.median_ms") && Catch::Contains("number"));
    CHECK_THAT(error_of(edited(good, [](auto& d) { d["measurements"][0]["backend"] = "gpu"; })),
               Catch::Contains("device.simulated"));
    CHECK_THAT(error_of(edited(good, [](auto& d) {
                   d["measurements"][0]["timeline"]["spans"] = {{{"name", "k"}, {"start_ms", 2.0}, {"end_ms", 1.0}}};
               })),
               Catch::Contains("timeline.spans[0]") && Catch::Contains("before"));
    CHECK_THAT(error_of(edited(good, [](auto& d) { d["measurements"][0]["modeled"]["bytes_read"] = -5; })),
               Catch::Contains("modeled.bytes_read"));
}

TEST_CASE("loading a file names it when it cannot be read or parsed") {
    fl_test::TempDir dir;
    std::vector<kernels::Measurement> out;
    const std::string missing = (dir.path / "missing.json").string();
    CHECK_THAT(app::load_measurements_json(missing, out), Catch::StartsWith(missing) && Catch::Contains("cannot read"));
    const std::string bad = (dir.path / "bad.json").string();
    std::ofstream(bad) << "[1, 2";
    CHECK_THAT(app::load_measurements_json(bad, out), Catch::StartsWith(bad) && Catch::Contains("not JSON"));
    const std::string good = (dir.path / "good.json").string();
    std::ofstream(good) << app::measurements_json(simulated_attention());
    CHECK(app::load_measurements_json(good, out).empty());
    CHECK(out.size() == kernels::variants("attention").size());
}

TEST_CASE("an export with a number too large for a double is refused as not JSON, never thrown") {
    std::vector<kernels::Measurement> out;
    CHECK(app::parse_measurements_json(R"({"tool": "fusionlab", "measurements": [5e428800]})", out).rfind("not JSON: ", 0) == 0);
    CHECK(out.empty());
}
