// The compute-ceiling cache (no CUDA): where it lives, its key, reading it (a bad file is ignored
// with a note) and writing it atomically. The measuring is in ceilings.cu.
#include "kernels/profiling/ceilings.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace kernels {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

json to_json(const ComputeCeilings& c) {
    json j = json::object();
    if (c.fp16_gemm_tflops) j["fp16_gemm_tflops"] = *c.fp16_gemm_tflops;
    if (c.bf16_gemm_tflops) j["bf16_gemm_tflops"] = *c.bf16_gemm_tflops;
    if (c.fp32_fma_tflops) j["fp32_fma_tflops"] = *c.fp32_fma_tflops;
    j["how"] = c.how;
    char stamp[32] = "";
    const std::time_t now = std::time(nullptr);
    if (const std::tm* utc = std::gmtime(&now)) std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", utc);
    j["measured_at"] = stamp;
    return j;
}

// A positive finite number under `name`, or nothing.
std::optional<double> positive(const json& j, const char* name) {
    if (!j.contains(name) || !j[name].is_number()) return std::nullopt;
    const double v = j[name].get<double>();
    if (!(v > 0) || v > 1e6) return std::nullopt;
    return v;
}

// The whole cache file as a JSON object; `note` says why a file that exists was not usable.
json read_cache(const std::string& path, std::string* note) {
    std::error_code ec;
    if (path.empty() || !fs::exists(path, ec)) return json::object();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *note = "ceiling cache " + path + " cannot be read: measuring again";
        return json::object();
    }
    std::ostringstream text;
    text << in.rdbuf();
    json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
        *note = "ceiling cache " + path + " is not a JSON object (corrupt?): ignored, measuring again";
        return json::object();
    }
    return j;
}

}  // namespace

std::string ceilings_cache_path() {
    fs::path dir;
    if (const std::string v = env("FUSIONLAB_CACHE_DIR"); !v.empty()) dir = v;
    else if (const std::string x = env("XDG_CACHE_HOME"); !x.empty()) dir = fs::path(x) / "fusionlab";
    else if (const std::string h = env("HOME"); !h.empty()) dir = fs::path(h) / ".cache" / "fusionlab";
    else if (const std::string l = env("LOCALAPPDATA"); !l.empty()) dir = fs::path(l) / "fusionlab";
    else return "";
    return (dir / "ceilings.json").string();
}

std::string ceilings_cache_key(const DeviceInfo& d) {
    return d.name + " | " + d.driver + " | SM " + std::to_string(d.sm_clock_mhz) + " MHz, memory " +
           std::to_string(d.mem_clock_mhz) + " MHz";
}

CacheLookup load_cached_ceilings(const std::string& path, const std::string& key) {
    CacheLookup r;
    const json all = read_cache(path, &r.note);
    if (!all.contains(key)) return r;
    const json& e = all[key];
    if (!e.is_object()) {
        r.note = "ceiling cache " + path + ": the entry for this device is not an object: ignored, measuring again";
        return r;
    }
    r.ceilings.fp16_gemm_tflops = positive(e, "fp16_gemm_tflops");
    r.ceilings.bf16_gemm_tflops = positive(e, "bf16_gemm_tflops");
    r.ceilings.fp32_fma_tflops = positive(e, "fp32_fma_tflops");
    if (!r.ceilings.fp16_gemm_tflops && !r.ceilings.bf16_gemm_tflops && !r.ceilings.fp32_fma_tflops) {
        r.note = "ceiling cache " + path + ": the entry for this device holds no usable number: measuring again";
        return r;
    }
    const std::string how = e.contains("how") && e["how"].is_string() ? e["how"].get<std::string>() : "";
    const std::string when = e.contains("measured_at") && e["measured_at"].is_string() ? e["measured_at"].get<std::string>() : "";
    r.ceilings.how = how + " [from the cache " + path + (when.empty() ? "" : ", measured " + when) + "]";
    r.found = true;
    return r;
}

std::string save_cached_ceilings(const std::string& path, const std::string& key, const ComputeCeilings& c) {
    if (path.empty()) return "no cache folder (set XDG_CACHE_HOME or HOME): ceilings not cached";
    std::string ignored;
    json all = read_cache(path, &ignored);
    all[key] = to_json(c);
    std::error_code ec;
    const fs::path target(path);
    if (!target.parent_path().empty()) fs::create_directories(target.parent_path(), ec);
    if (ec) return "cannot create " + target.parent_path().string() + ": " + ec.message();
    const fs::path temp = target.string() + ".tmp" + std::to_string(std::rand());
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) return "cannot write " + temp.string();
        out << all.dump(2) << "\n";
        if (!out) return "cannot write " + temp.string();
    }
    fs::rename(temp, target, ec);
    if (ec) {
        fs::remove(temp, ec);
        return "cannot replace " + path + ": " + ec.message();
    }
    return "";
}

void apply_compute_ceilings(DeviceInfo& d, const ComputeCeilings& c, const std::string& note) {
    d.measured_fp16_gemm_tflops = c.fp16_gemm_tflops;
    d.measured_bf16_gemm_tflops = c.bf16_gemm_tflops;
    d.measured_fp32_fma_tflops = c.fp32_fma_tflops;
    d.compute_ceiling_note = note;
}

}  // namespace kernels
