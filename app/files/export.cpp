// Export of measurements and images. Every file goes through write_file_atomic: temporary file in
// the target's folder, checked flush and close, then a rename over the target, so readers see the
// old file or the new one, never half of one.
//
// Index:
//   [SECTION] Atomic writes
//   [SECTION] Shared helpers (ceiling, numbers, parameters)
//   [SECTION] CSV
//   [SECTION] JSON
//   [SECTION] PNG
#include "app/files/export.h"

#include "kernels/core/backend.h"
#include "kernels/core/timeline.h"
#include "viz/model/roofline.h"
#include "kernels/core/registry.h"

#include <nlohmann/json.hpp>
#include <stb/stb_image_write.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

namespace app {
namespace fs = std::filesystem;
// Keys stay in the order written here (device before params before times), easier to read.
using json_t = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// [SECTION] Atomic writes
// ---------------------------------------------------------------------------------------------
namespace {

std::string cannot_write(const std::string& path, const std::string& reason) {
    return "cannot write " + path + ": " + reason;
}

std::string errno_text(int err, const char* fallback) {
    return err != 0 ? std::string(std::strerror(err)) : std::string(fallback);
}

// Checks the parts of a target path that make every write fail, with a reason a user can act on.
std::string check_target(const std::string& path) {
    if (path.empty()) return cannot_write(path, "empty path");
    const fs::path target(path);
    if (!target.has_filename()) return cannot_write(path, "the path names a folder, not a file");
    std::error_code ec;
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const auto folder_status = fs::status(folder, ec);
    if (!fs::exists(folder_status)) return cannot_write(path, "folder " + folder.string() + " does not exist");
    if (!fs::is_directory(folder_status)) return cannot_write(path, folder.string() + " is not a folder");
    if (fs::is_directory(fs::status(target, ec))) return cannot_write(path, "it is a folder");
    return "";
}

// A name in the target's folder that no other writer (thread or process) picks at the same time.
fs::path temp_path_for(const fs::path& target) {
    static std::atomic<uint64_t> counter{0};
    std::random_device entropy;
    const uint64_t salt = (uint64_t{entropy()} << 32) ^ entropy() ^
                          std::hash<std::thread::id>{}(std::this_thread::get_id()) ^ counter.fetch_add(1);
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".%016llx.tmp", static_cast<unsigned long long>(salt));
    fs::path temp = target;
    temp += suffix;
    return temp;
}

void remove_quietly(const fs::path& p) {
    std::error_code ignored;
    fs::remove(p, ignored);
}

// Writes a new file at `temp` ("x": fails if it exists). Returns "" or the reason.
std::string write_new_file(const fs::path& temp, const std::string& bytes) {
    errno = 0;
    std::FILE* file = std::fopen(temp.string().c_str(), "wbx");
    if (!file) return errno_text(errno, "cannot create a temporary file in that folder");
    errno = 0;
    const size_t written = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), file);
    const bool write_ok = written == bytes.size();
    const int write_err = errno;
    const bool flush_ok = std::fflush(file) == 0;
    const int flush_err = errno;
    const bool close_ok = std::fclose(file) == 0;
    const int close_err = errno;
    if (!write_ok) return errno_text(write_err, "short write");
    if (!flush_ok) return errno_text(flush_err, "flush failed");
    if (!close_ok) return errno_text(close_err, "close failed");
    return "";
}

}  // namespace

std::string check_writable(const std::string& path) {
    if (std::string problem = check_target(path); !problem.empty()) return problem;
    const fs::path probe = temp_path_for(fs::path(path));
    const std::string reason = write_new_file(probe, "");
    remove_quietly(probe);
    return reason.empty() ? "" : cannot_write(path, reason);
}

std::string write_file_atomic(const std::string& path, const std::string& bytes) {
    if (std::string problem = check_target(path); !problem.empty()) return problem;
    const fs::path target(path);
    const fs::path temp = temp_path_for(target);
    if (std::string reason = write_new_file(temp, bytes); !reason.empty()) {
        remove_quietly(temp);
        return cannot_write(path, reason);
    }
    std::error_code ec;
    fs::rename(temp, target, ec);  // replaces an existing target in one step
    if (ec) {
        remove_quietly(temp);
        return cannot_write(path, ec.message());
    }
    return "";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Shared helpers (ceiling, numbers, parameters)
// ---------------------------------------------------------------------------------------------
BandwidthCeiling bandwidth_ceiling(const kernels::DeviceInfo& d) {
    // The roofline's DRAM roof (viz/model/roofline.h), so "% of ceiling" and the roof are one number:
    // a simulated GPU's calibrated copy, so a simulated kernel at the copy ceiling reads 100 %.
    const kernels::MemoryRoof roof = kernels::memory_roof(d);
    if (!(roof.bytes_per_s > 0)) return {0, "unavailable"};
    const char* source = roof.kind == "measured" ? "measured copy" : roof.kind == "calibrated" ? "calibrated copy"
                       : roof.kind == "datasheet-scaled" ? "datasheet-scaled copy" : "datasheet peak";
    return {roof.bytes_per_s / 1e9, source};
}

double percent_of_ceiling(double gbps, const BandwidthCeiling& c) {
    return c.gbps > 0 ? 100.0 * gbps / c.gbps : 0.0;
}

namespace {

// Enough digits that a value read back equals the measured double to ~1e-9.
std::string number(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

std::string utc_timestamp() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    if (const std::tm* t = std::gmtime(&now)) utc = *t;
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string compute_capability(const kernels::DeviceInfo& d) {
    return std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
}

double min_bytes_gbps(const kernels::Measurement& m) {
    return m.time.median_ms > 0 ? static_cast<double>(m.min_bytes) / (m.time.median_ms * 1e6) : 0.0;
}

double kernel_gbps(const kernels::KernelTime& k) {
    return k.time.median_ms > 0 ? static_cast<double>(k.bytes) / (k.time.median_ms * 1e6) : 0.0;
}

// A parameter's value as its spec says it is: whole numbers (seed: up to 2^53 - 1, exact in a
// double) without a decimal point, switches as 0/1 (CSV) or true/false (JSON), others as numbers.
std::string param_text(const kernels::Params& p, const kernels::ParamSpec& spec) {
    if (spec.kind == kernels::ParamKind::boolean) return p.get_bool(spec.name) ? "1" : "0";
    if (spec.integer) return std::to_string(p.get_int(spec.name));
    return number(p.get(spec.name));
}

json_t param_json(const kernels::Params& p, const kernels::ParamSpec& spec) {
    if (spec.kind == kernels::ParamKind::boolean) return p.get_bool(spec.name);
    if (spec.integer) return p.get_int(spec.name);
    return p.get(spec.name);
}


}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] CSV
// ---------------------------------------------------------------------------------------------
namespace {

// RFC 4180: quote when the field holds a separator, a quote or a line break; double the quotes.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string kernel_times_text(const kernels::Measurement& m) {
    std::string out;
    for (const auto& k : m.kernels) {
        if (!out.empty()) out += ';';
        out += k.name + "=" + number(k.time.median_ms) + "ms/" + std::to_string(k.bytes) + "B";
    }
    return out;
}

struct CsvColumn {
    const char* name;
    std::function<std::string(const kernels::Measurement&, const std::string& timestamp)> value;
};

std::string if_ok(const kernels::Measurement& m, const std::string& s) { return m.ok ? s : ""; }

std::vector<CsvColumn> fixed_columns_before_params();  // timestamp .. dtype
std::vector<CsvColumn> fixed_columns_after_params();   // reps .. error

// One column per parameter of any workload (kernels::all_param_specs(), named by the spec), after
// dtype; a workload that does not take a parameter leaves its cell empty.
std::vector<CsvColumn> param_columns() {
    std::vector<CsvColumn> columns;
    for (const auto& spec : kernels::all_param_specs()) {
        // Only the parameters the workload reads: bias_gelu has no dropout, so its cell stays empty.
        const std::string id = spec.name;
        columns.push_back({spec.name.c_str(), [id](const kernels::Measurement& m, const std::string&) {
                               const kernels::ParamSpec* own = kernels::find_param_spec(m.job.params.workload, id);
                               return own ? param_text(m.ran_params(), *own) : std::string();
                           }});
    }
    return columns;
}

const std::vector<CsvColumn>& csv_columns() {
    static const std::vector<CsvColumn> columns = [] {
        std::vector<CsvColumn> all = fixed_columns_before_params();
        for (auto& c : param_columns()) all.push_back(std::move(c));
        for (auto& c : fixed_columns_after_params()) all.push_back(std::move(c));
        return all;
    }();
    return columns;
}

std::vector<CsvColumn> fixed_columns_before_params() {
    using M = kernels::Measurement;
    using S = const std::string&;
    return {
        {"timestamp", [](const M&, S ts) { return ts; }},
        {"device", [](const M& m, S) { return m.device.name; }},
        {"simulated", [](const M& m, S) { return std::string(m.device.simulated ? "true" : "false"); }},
        {"driver", [](const M& m, S) { return m.device.driver; }},
        {"runtime", [](const M& m, S) { return m.device.runtime; }},
        {"compute_capability", [](const M& m, S) { return compute_capability(m.device); }},
        {"sm_clock_mhz", [](const M& m, S) { return std::to_string(m.device.sm_clock_mhz); }},
        {"mem_clock_mhz", [](const M& m, S) { return std::to_string(m.device.mem_clock_mhz); }},
        {"build_type", [](const M& m, S) { return m.build_type; }},
        {"backend", [](const M& m, S) { return std::string(kernels::to_string(m.job.backend)); }},
        // Where the numbers come from: "recorded on NVIDIA H100 80GB HBM3, 2026-11-25", "simulated on
        // H100 SXM5 80GB", "measured on ..."; recorded_date is set for recorded rows only.
        {"source", [](const M& m, S) { return m.source_label(); }},
        {"recorded_date", [](const M& m, S) { return m.recorded_date; }},
        {"workload", [](const M& m, S) { return m.job.params.workload; }},
        {"variant", [](const M& m, S) { return m.job.variant; }},
        {"dtype", [](const M& m, S) { return std::string(kernels::to_string(m.job.params.dtype)); }},
    };
}

// The compute ceiling a measurement is held to (viz/model/roofline.h): tensor or FP32, measured or datasheet.
kernels::Roof compute_roof(const kernels::Measurement& m) {
    const kernels::RoofSet roofs = kernels::roofs_for(m.device, m.job.params.dtype);
    return kernels::roof_for_variant(roofs, m.job.variant, m.job.params);
}

std::vector<CsvColumn> fixed_columns_after_params() {
    using M = kernels::Measurement;
    using S = const std::string&;
    return {
        {"reps", [](const M& m, S) { return if_ok(m, std::to_string(m.time.reps)); }},
        {"median_ms", [](const M& m, S) { return if_ok(m, number(m.time.median_ms)); }},
        {"min_ms", [](const M& m, S) { return if_ok(m, number(m.time.min_ms)); }},
        {"max_ms", [](const M& m, S) { return if_ok(m, number(m.time.max_ms)); }},
        {"kernel_times", [](const M& m, S) { return if_ok(m, kernel_times_text(m)); }},
        {"modeled_bytes_read", [](const M& m, S) { return std::to_string(m.bytes_read); }},
        {"modeled_bytes_written", [](const M& m, S) { return std::to_string(m.bytes_written); }},
        // modeled_bytes_* are DRAM bytes (the L2 reuse model); these are the other two levels.
        {"modeled_l2_bytes", [](const M& m, S) { return std::to_string(m.l2_bytes_read + m.l2_bytes_written); }},
        {"modeled_shared_bytes", [](const M& m, S) { return std::to_string(m.shared_bytes); }},
        {"min_bytes", [](const M& m, S) { return std::to_string(m.min_bytes); }},
        {"flops", [](const M& m, S) { return number(m.flops); }},
        {"measured_bytes",
         [](const M& m, S) { return m.measured_bytes ? std::to_string(*m.measured_bytes) : std::string(); }},
        {"measured_bytes_read",
         [](const M& m, S) { return m.measured_bytes_read ? std::to_string(*m.measured_bytes_read) : std::string(); }},
        {"measured_bytes_written",
         [](const M& m, S) {
             return m.measured_bytes_written ? std::to_string(*m.measured_bytes_written) : std::string();
         }},
        {"measured_bytes_note", [](const M& m, S) { return m.measured_bytes_note; }},
        {"achieved_gbps", [](const M& m, S) { return if_ok(m, number(m.achieved_gbps())); }},
        {"min_bytes_gbps", [](const M& m, S) { return if_ok(m, number(min_bytes_gbps(m))); }},
        {"ceiling_gbps", [](const M& m, S) { return number(bandwidth_ceiling(m.device).gbps); }},
        {"ceiling_source", [](const M& m, S) { return bandwidth_ceiling(m.device).source; }},
        {"pct_of_ceiling",
         [](const M& m, S) {
             const auto c = bandwidth_ceiling(m.device);
             return if_ok(m, c.gbps > 0 ? number(percent_of_ceiling(m.achieved_gbps(), c)) : std::string());
         }},
        {"achieved_gflops", [](const M& m, S) { return if_ok(m, number(m.achieved_gflops())); }},
        {"compute_roof_tflops", [](const M& m, S) { return number(compute_roof(m).flops_per_s / 1e12); }},
        {"compute_roof_source", [](const M& m, S) { return compute_roof(m).name + ": " + compute_roof(m).source; }},
        {"pct_of_compute_roof",
         [](const M& m, S) {
             const kernels::Roof r = compute_roof(m);
             return if_ok(m, r.flops_per_s > 0 ? number(100 * m.achieved_gflops() * 1e9 / r.flops_per_s) : std::string());
         }},
        {"wall_ms", [](const M& m, S) { return m.wall_ms > 0 ? number(m.wall_ms) : std::string(); }},
        {"checked", [](const M& m, S) { return std::string(m.checked ? "true" : "false"); }},
        {"max_abs_error", [](const M& m, S) { return m.checked ? number(m.max_abs_error) : std::string(); }},
        {"rel_l2_error", [](const M& m, S) { return m.checked ? number(m.rel_l2_error) : std::string(); }},
        {"check_note", [](const M& m, S) { return m.check_note; }},
        {"timing_note", [](const M& m, S) { return m.timing_note; }},
        {"limiter", [](const M& m, S) { return m.limiter; }},
        {"ok", [](const M& m, S) { return std::string(m.ok ? "true" : "false"); }},
        {"refused", [](const M& m, S) { return std::string(m.refused ? "true" : "false"); }},
        {"error", [](const M& m, S) { return m.error; }},
    };
}

}  // namespace

std::string measurements_csv(const std::vector<kernels::Measurement>& ms) {
    const std::string timestamp = utc_timestamp();
    const auto& columns = csv_columns();
    std::string out;
    for (size_t i = 0; i < columns.size(); ++i) {
        if (i) out += ',';
        out += columns[i].name;
    }
    out += "\r\n";  // RFC 4180 line ends; spreadsheets and csv readers accept them everywhere
    for (const auto& m : ms) {
        for (size_t i = 0; i < columns.size(); ++i) {
            if (i) out += ',';
            out += csv_field(columns[i].value(m, timestamp));
        }
        out += "\r\n";
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] JSON
// ---------------------------------------------------------------------------------------------
namespace {

json_t optional_number(bool present, double v) { return present ? json_t(v) : json_t(); }

}  // namespace

json_t device_json_object(const kernels::DeviceInfo& d) {
    return {
        {"name", d.name},
        {"simulated", d.simulated},
        {"driver", d.driver},
        {"runtime", d.runtime},
        {"compute_capability", compute_capability(d)},
        {"sm_count", d.sm_count},
        {"sm_clock_mhz", d.sm_clock_mhz},
        {"mem_clock_mhz", d.mem_clock_mhz},
        {"mem_bus_bits", d.mem_bus_bits},
        {"global_mem_bytes", d.global_mem_bytes},
        {"l2_bytes", d.l2_bytes},
        {"smem_per_block", d.smem_per_block},
        {"smem_per_block_optin", d.smem_per_block_optin},
        {"peak_bw_gbps", d.peak_bw_gbps},
        {"peak_fp32_tflops", d.peak_fp32_tflops},
        {"peak_tensor_tflops", d.peak_tensor_tflops},
        {"launch_overhead_us", d.launch_overhead_us},
        {"graph_kernel_us", d.graph_kernel_us},
        {"measured_copy_gbps", d.measured_copy_gbps ? json_t(*d.measured_copy_gbps) : json_t()},
        {"ceiling_note", d.ceiling_note},
        {"measured_fp16_gemm_tflops", d.measured_fp16_gemm_tflops ? json_t(*d.measured_fp16_gemm_tflops) : json_t()},
        {"measured_bf16_gemm_tflops", d.measured_bf16_gemm_tflops ? json_t(*d.measured_bf16_gemm_tflops) : json_t()},
        {"measured_fp32_fma_tflops", d.measured_fp32_fma_tflops ? json_t(*d.measured_fp32_fma_tflops) : json_t()},
        {"compute_ceiling_note", d.compute_ceiling_note},
    };
}

namespace {

json_t params_json(const kernels::Params& p) {
    json_t out = {{"dtype", kernels::to_string(p.dtype)}};
    for (const auto& spec : kernels::param_specs(p.workload)) out[spec.name] = param_json(p, spec);
    return out;
}

json_t time_json(const kernels::TimeStats& t, bool ok) {
    return {{"median_ms", optional_number(ok, t.median_ms)},
            {"min_ms", optional_number(ok, t.min_ms)},
            {"max_ms", optional_number(ok, t.max_ms)},
            {"reps", t.reps}};
}

// One run's kernels on the GPU clock (or modeled), with the busy/idle summary the gaps give.
// Compact: the spans and their source only (the summary is recomputed from the spans).
json_t timeline_json(const kernels::Measurement& m, bool compact) {
    json_t spans = json_t::array();
    for (const auto& k : m.timeline)
        spans.push_back({{"name", k.name}, {"start_ms", k.start_ms}, {"end_ms", k.end_ms}, {"modeled_bytes", k.bytes}});
    if (compact) return {{"source", m.timeline_source}, {"spans", spans}};
    const kernels::TimelineStats st = kernels::timeline_stats(m.timeline);
    return {{"source", m.timeline_source},
            {"kernels", st.kernels},
            {"span_ms", st.span_ms},
            {"busy_ms", st.busy_ms},
            {"idle_ms", st.idle_ms},
            {"mean_gap_us", st.mean_gap_us},
            {"median_gap_us", st.median_gap_us},
            {"max_gap_us", st.max_gap_us},
            {"spans", spans}};
}

}  // namespace

json_t measurement_json_object(const kernels::Measurement& m, bool compact) {
    const BandwidthCeiling ceiling = bandwidth_ceiling(m.device);
    const kernels::Roof roof = compute_roof(m);
    json_t kernels_out = json_t::array();
    for (const auto& k : m.kernels) {
        json_t one = {{"name", k.name}, {"time", time_json(k.time, m.ok)}, {"modeled_bytes", k.bytes}};
        if (!compact) {
            const double gbps = kernel_gbps(k);
            one["achieved_gbps"] = optional_number(m.ok, gbps);
            one["pct_of_ceiling"] = optional_number(m.ok && ceiling.gbps > 0, percent_of_ceiling(gbps, ceiling));
        }
        kernels_out.push_back(std::move(one));
    }
    json_t out;
    if (!compact) out["job_id"] = m.job.id;
    out["ok"] = m.ok;
    out["refused"] = m.refused;
    out["error"] = m.error;
    if (!compact) out["device"] = device_json_object(m.device);
    if (!compact) out["build_type"] = m.build_type;
    out["backend"] = kernels::to_string(m.job.backend);
    // A recorded row: the day its numbers were measured on `device` (a recording, not this run).
    if (m.recorded()) out["recorded_date"] = m.recorded_date;
    out["workload"] = m.job.params.workload;
    out["variant"] = m.job.variant;
    // The parameters the kernels ran (an auto tile as resolved), so a recording or an import finds
    // the point by the tile that was measured; the pick's reason beside it.
    out["params"] = params_json(m.ran_params());
    if (!m.auto_choice.empty()) out["auto_choice"] = m.auto_choice;
    out["time"] = time_json(m.time, m.ok);
    out["kernels"] = kernels_out;
    if (!compact) {
        out["modeled"] = {{"bytes_read", m.bytes_read},  // DRAM <-> L2 (the L2 reuse model)
                          {"bytes_written", m.bytes_written},
                          {"bytes", m.bytes()},
                          {"l2_bytes_read", m.l2_bytes_read},  // L2 <-> SM
                          {"l2_bytes_written", m.l2_bytes_written},
                          {"shared_bytes", m.shared_bytes},
                          {"dram_model", m.dram_model_note},
                          {"min_bytes", m.min_bytes},
                          {"flops", m.flops}};
        out["limiter"] = m.limiter;
        out["model_limiter"] = m.model_limiter;  // the model's claim on every backend, beside a measurement too
    }
    out["measured_bytes"] = {{"bytes", m.measured_bytes ? json_t(*m.measured_bytes) : json_t()},
                             {"bytes_read", m.measured_bytes_read ? json_t(*m.measured_bytes_read) : json_t()},
                             {"bytes_written", m.measured_bytes_written ? json_t(*m.measured_bytes_written) : json_t()},
                             {"note", m.measured_bytes_note}};
    if (!compact) {
        out["achieved"] = {{"gbps", optional_number(m.ok, m.achieved_gbps())},
                           {"min_bytes_gbps", optional_number(m.ok, min_bytes_gbps(m))},
                           {"gflops", optional_number(m.ok, m.achieved_gflops())},
                           {"ceiling_gbps", optional_number(ceiling.gbps > 0, ceiling.gbps)},
                           {"ceiling_source", ceiling.source},
                           {"pct_of_ceiling", optional_number(m.ok && ceiling.gbps > 0,
                                                              percent_of_ceiling(m.achieved_gbps(), ceiling))},
                           {"compute_roof_tflops", optional_number(roof.flops_per_s > 0, roof.flops_per_s / 1e12)},
                           {"compute_roof_source", roof.name + ": " + roof.source},
                           {"pct_of_compute_roof", optional_number(m.ok && roof.flops_per_s > 0,
                                                                   100 * m.achieved_gflops() * 1e9 / roof.flops_per_s)}};
    }
    out["wall_ms"] = optional_number(m.wall_ms > 0, m.wall_ms);
    out["check"] = {{"checked", m.checked},
                    {"max_abs_error", optional_number(m.checked, m.max_abs_error)},
                    {"rel_l2_error", optional_number(m.checked, m.rel_l2_error)},
                    {"checked_elements", m.checked_elements},
                    {"note", m.check_note}};
    out["timing_note"] = m.timing_note;
    out["timeline"] = timeline_json(m, compact);
    return out;
}

std::string measurements_json(const std::vector<kernels::Measurement>& ms) {
    json_t doc = {{"tool", "fusionlab"},
                          {"exported_at", utc_timestamp()},
                          {"build_type", kernels::build_type()},
                          {"measurements", json_t::array()}};
    for (const auto& m : ms) doc["measurements"].push_back(measurement_json_object(m));
    // Replace invalid UTF-8 (a device name or an error string from a driver) instead of throwing.
    return doc.dump(2, ' ', false, json_t::error_handler_t::replace) + "\n";
}

std::string export_csv(const std::string& path, const std::vector<kernels::Measurement>& ms) {
    return write_file_atomic(path, measurements_csv(ms));
}

std::string export_json(const std::string& path, const std::vector<kernels::Measurement>& ms) {
    return write_file_atomic(path, measurements_json(ms));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] PNG
// ---------------------------------------------------------------------------------------------
namespace {
void append_to_string(void* context, void* data, int size) {
    if (size > 0) static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
}
}  // namespace

std::string export_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba) {
    if (width <= 0 || height <= 0)
        return cannot_write(path, "image size " + std::to_string(width) + "x" + std::to_string(height) + " is empty");
    const uint64_t expected = uint64_t(width) * uint64_t(height) * 4u;
    if (rgba.size() != expected)
        return cannot_write(path, "pixel buffer holds " + std::to_string(rgba.size()) + " bytes, a " +
                                      std::to_string(width) + "x" + std::to_string(height) + " RGBA image needs " +
                                      std::to_string(expected));
    if (uint64_t(width) * 4u > uint64_t(INT32_MAX)) return cannot_write(path, "image too wide for PNG encoding");
    // Our rows are already top to bottom; the flag is global in stb, so set it for this call.
    stbi_flip_vertically_on_write(0);
    std::string png;
    const int ok = stbi_write_png_to_func(append_to_string, &png, width, height, 4, rgba.data(), width * 4);
    if (!ok || png.empty()) return cannot_write(path, "PNG encoding failed");
    return write_file_atomic(path, png);
}

}  // namespace app
