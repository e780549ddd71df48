// The compute-ceiling cache: a round trip keeps the numbers per device key, other devices' entries
// survive a save, and a corrupt or odd file is ignored with a note instead of failing.
#include "kernels/profiling/ceilings.h"
#include "kernels/core/backend.h"
#include "temp_dir.h"

#include "test_skip.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

using namespace kernels;

namespace {

void write(const std::filesystem::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

}  // namespace

TEST_CASE("ceilings cache: key names device, driver and clocks", "[ceilings]") {
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.driver = "CUDA 13.0 driver";
    d.sm_clock_mhz = 1980;
    d.mem_clock_mhz = 3201;
    const std::string key = ceilings_cache_key(d);
    CHECK(key == "NVIDIA H200 | CUDA 13.0 driver | SM 1980 MHz, memory 3201 MHz");
    DeviceInfo slower = d;
    slower.sm_clock_mhz = 1500;
    CHECK(ceilings_cache_key(slower) != key);
}

TEST_CASE("ceilings cache: save then load round-trips, other keys survive", "[ceilings]") {
    fl_test::TempDir dir;
    const std::string path = (dir.path / "sub" / "ceilings.json").string();
    CHECK_FALSE(load_cached_ceilings(path, "a").found);
    CHECK(load_cached_ceilings(path, "a").note.empty());  // absent is not a problem
    ComputeCeilings a;
    a.fp16_gemm_tflops = 701.5;
    a.bf16_gemm_tflops = 689.25;
    a.fp32_fma_tflops = 51.0;
    a.how = "test";
    REQUIRE(save_cached_ceilings(path, "gpu A", a).empty());
    ComputeCeilings b;
    b.fp32_fma_tflops = 20.0;
    REQUIRE(save_cached_ceilings(path, "gpu B", b).empty());
    const CacheLookup la = load_cached_ceilings(path, "gpu A");
    REQUIRE(la.found);
    CHECK(*la.ceilings.fp16_gemm_tflops == 701.5);
    CHECK(*la.ceilings.bf16_gemm_tflops == 689.25);
    CHECK(*la.ceilings.fp32_fma_tflops == 51.0);
    CHECK(la.ceilings.how.find("from the cache") != std::string::npos);
    const CacheLookup lb = load_cached_ceilings(path, "gpu B");
    REQUIRE(lb.found);
    CHECK_FALSE(lb.ceilings.fp16_gemm_tflops);
    CHECK(*lb.ceilings.fp32_fma_tflops == 20.0);
    CHECK_FALSE(load_cached_ceilings(path, "gpu C").found);

    DeviceInfo d;
    apply_compute_ceilings(d, la.ceilings, "note");
    CHECK(*d.measured_bf16_gemm_tflops == 689.25);
    CHECK(d.compute_ceiling_note == "note");
}

TEST_CASE("ceilings cache: a corrupt file is ignored with a note and replaced on save", "[ceilings]") {
    fl_test::TempDir dir;
    const std::string path = (dir.path / "ceilings.json").string();
    write(path, "{ this is not json");
    CacheLookup l = load_cached_ceilings(path, "gpu");
    CHECK_FALSE(l.found);
    CHECK(l.note.find("corrupt") != std::string::npos);
    write(path, "[1, 2, 3]");
    CHECK(load_cached_ceilings(path, "gpu").note.find("not a JSON object") != std::string::npos);
    write(path, R"({"gpu": {"fp16_gemm_tflops": "fast", "fp32_fma_tflops": -3}})");
    l = load_cached_ceilings(path, "gpu");
    CHECK_FALSE(l.found);
    CHECK(l.note.find("no usable number") != std::string::npos);
    write(path, R"({"gpu": 7})");
    CHECK_FALSE(load_cached_ceilings(path, "gpu").found);
    ComputeCeilings c;
    c.fp32_fma_tflops = 40.0;
    write(path, "garbage");
    REQUIRE(save_cached_ceilings(path, "gpu", c).empty());
    CHECK(load_cached_ceilings(path, "gpu").found);
    CHECK(dir.entries() == std::vector<std::string>{"ceilings.json"});  // no temporary left behind
}

TEST_CASE("ceilings cache: the file is ceilings.json in a fusionlab cache folder", "[ceilings]") {
    const std::string path = ceilings_cache_path();
    if (path.empty()) {
        fl_test::skip("no HOME, XDG_CACHE_HOME or LOCALAPPDATA: nothing is cached");
        return;
    }
    const std::filesystem::path p(path);
    CHECK(p.filename() == "ceilings.json");
    CHECK(p.parent_path().filename().string().find("fusionlab") != std::string::npos);
}
