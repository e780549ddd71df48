// [SECTION] Field readers: each names the JSON path it failed on
// [SECTION] One measurement
// [SECTION] Entry points
#include "app/files/results_import.h"

#include "app/files/json_fields.h"
#include "app/platform/platform_file.h"
#include "kernels/core/registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace app {

namespace {

using json_t = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// [SECTION] Field readers
// ---------------------------------------------------------------------------------------------
using json_fields::fail;
using json_fields::member;
using json_fields::optional_member;
using ImportError = json_fields::FieldError;

std::string text_or(const json_t& obj, const char* key, const std::string& path, std::string fallback = {}) {
    const json_t* v = optional_member(obj, key);
    if (!v) return fallback;
    if (!v->is_string()) fail(path + "." + key, "expected text");
    return v->get<std::string>();
}

double number_or(const json_t& obj, const char* key, const std::string& path, double fallback = 0) {
    const json_t* v = optional_member(obj, key);
    if (!v) return fallback;
    if (v->is_boolean()) return v->get<bool>() ? 1 : 0;
    if (!v->is_number()) fail(path + "." + key, "expected a number");
    return v->get<double>();
}

template <typename Int>
Int integer_or(const json_t& obj, const char* key, const std::string& path, Int fallback = 0) {
    const json_t* v = optional_member(obj, key);
    if (!v) return fallback;
    if (!v->is_number_integer() && !v->is_number_unsigned()) fail(path + "." + key, "expected a whole number");
    if constexpr (std::is_unsigned_v<Int>) {
        if (v->is_number_integer() && v->get<int64_t>() < 0) fail(path + "." + key, "expected a value >= 0");
    }
    return v->get<Int>();
}

bool flag_or(const json_t& obj, const char* key, const std::string& path, bool fallback = false) {
    const json_t* v = optional_member(obj, key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(path + "." + key, "expected true or false");
    return v->get<bool>();
}

std::optional<double> optional_number(const json_t& obj, const char* key, const std::string& path) {
    if (!optional_member(obj, key)) return std::nullopt;
    return number_or(obj, key, path);
}

std::optional<uint64_t> optional_bytes(const json_t& obj, const char* key, const std::string& path) {
    if (!optional_member(obj, key)) return std::nullopt;
    return integer_or<uint64_t>(obj, key, path);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] One measurement
// ---------------------------------------------------------------------------------------------
kernels::DeviceInfo read_device(const json_t& j, const std::string& path) {
    kernels::DeviceInfo d;
    d.name = text_or(j, "name", path);
    d.simulated = flag_or(j, "simulated", path);
    d.driver = text_or(j, "driver", path);
    d.runtime = text_or(j, "runtime", path);
    const std::string cc = text_or(j, "compute_capability", path, "0.0");
    if (std::sscanf(cc.c_str(), "%d.%d", &d.cc_major, &d.cc_minor) != 2)
        fail(path + ".compute_capability", "'" + cc + "' is not MAJOR.MINOR");
    d.sm_count = integer_or<int>(j, "sm_count", path);
    d.sm_clock_mhz = integer_or<int>(j, "sm_clock_mhz", path);
    d.mem_clock_mhz = integer_or<int>(j, "mem_clock_mhz", path);
    d.mem_bus_bits = integer_or<int>(j, "mem_bus_bits", path);
    d.global_mem_bytes = integer_or<int64_t>(j, "global_mem_bytes", path);
    d.l2_bytes = integer_or<int64_t>(j, "l2_bytes", path);
    d.smem_per_block = integer_or<int>(j, "smem_per_block", path);
    d.smem_per_block_optin = integer_or<int>(j, "smem_per_block_optin", path);
    d.peak_bw_gbps = number_or(j, "peak_bw_gbps", path);
    d.peak_fp32_tflops = number_or(j, "peak_fp32_tflops", path);
    d.peak_tensor_tflops = number_or(j, "peak_tensor_tflops", path);
    d.launch_overhead_us = number_or(j, "launch_overhead_us", path);
    d.measured_copy_gbps = optional_number(j, "measured_copy_gbps", path);
    d.ceiling_note = text_or(j, "ceiling_note", path);
    d.measured_fp16_gemm_tflops = optional_number(j, "measured_fp16_gemm_tflops", path);
    d.measured_bf16_gemm_tflops = optional_number(j, "measured_bf16_gemm_tflops", path);
    d.measured_fp32_fma_tflops = optional_number(j, "measured_fp32_fma_tflops", path);
    d.compute_ceiling_note = text_or(j, "compute_ceiling_note", path);
    d.graph_kernel_us = number_or(j, "graph_kernel_us", path, d.graph_kernel_us);
    return d;
}

// The parameters an export lists are the spec'd ones of its workload: each is checked against
// the spec, so a hand-edited file cannot smuggle an impossible size into the GUI.
kernels::Params read_params(const json_t& j, std::string w, const std::string& path) {
    kernels::Params p;
    p.workload = w;
    const std::string dtype = text_or(j, "dtype", path, kernels::to_string(p.dtype));
    if (!kernels::parse_dtype(dtype, p.dtype)) fail(path + ".dtype", "'" + dtype + "' is not fp32, fp16 or bf16");
    for (const kernels::ParamSpec& spec : kernels::param_specs(w)) {
        if (!optional_member(j, spec.name.c_str())) continue;  // older exports: keep the default
        const double value = number_or(j, spec.name.c_str(), path);
        if (std::string why = kernels::check_param_value(spec, value); !why.empty()) fail(path + "." + spec.name, why);
        p.set(spec.name, value);
    }
    if (std::string why = kernels::validate(p); !why.empty()) fail(path, why);
    return p;
}

kernels::TimeStats read_time(const json_t& j, const std::string& path) {
    kernels::TimeStats t;
    t.median_ms = number_or(j, "median_ms", path);
    t.min_ms = number_or(j, "min_ms", path);
    t.max_ms = number_or(j, "max_ms", path);
    t.reps = integer_or<int>(j, "reps", path);
    if (t.median_ms < 0 || t.min_ms < 0 || t.max_ms < 0) fail(path, "times must not be negative");
    return t;
}

void read_kernels(const json_t& j, const std::string& path, kernels::Measurement& m) {
    if (!j.is_array()) fail(path, "expected a list");
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = path + "[" + std::to_string(i) + "]";
        kernels::KernelTime k;
        k.name = text_or(j[i], "name", at);
        if (const json_t* t = optional_member(j[i], "time")) k.time = read_time(*t, at + ".time");
        k.bytes = integer_or<uint64_t>(j[i], "modeled_bytes", at);
        m.kernels.push_back(std::move(k));
    }
}

// The export's "timeline": {"source": ..., "spans": [{name, start_ms, end_ms, modeled_bytes}], and
// summary numbers that are recomputed from the spans, so they are not read}.
void read_timeline(const json_t& t, const std::string& tpath, kernels::Measurement& m) {
    m.timeline_source = text_or(t, "source", tpath);
    const json_t* spans = optional_member(t, "spans");
    if (!spans) return;
    const json_t& j = *spans;
    const std::string path = tpath + ".spans";
    if (!j.is_array()) fail(path, "expected a list");
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = path + "[" + std::to_string(i) + "]";
        kernels::KernelSpan s;
        s.name = text_or(j[i], "name", at);
        s.start_ms = number_or(j[i], "start_ms", at);
        s.end_ms = number_or(j[i], "end_ms", at);
        s.bytes = integer_or<uint64_t>(j[i], "modeled_bytes", at);
        if (!(s.end_ms >= s.start_ms)) fail(at, "end_ms is before start_ms");
        m.timeline.push_back(std::move(s));
    }
}

kernels::Measurement read_measurement(const json_t& j, const std::string& path, const kernels::DeviceInfo* device) {
    kernels::Measurement m;
    const json_t& w = member(j, "workload", path);
    if (!w.is_string()) fail(path + ".workload", "expected text");
    const std::string workload = w.get<std::string>();
    std::string wl{};
    if (!kernels::parse_workload(workload, wl)) fail(path + ".workload", "'" + workload + "' is not a workload of this build");
    m.job.variant = text_or(j, "variant", path);
    // `yours`: a student's kernel measured by `fusionlab exercises run` (app/exercises/), kept beside ours.
    if (!kernels::has_variant(wl, m.job.variant) && m.job.variant != kernels::kStudentVariant)
        fail(path + ".variant", "'" + m.job.variant + "' is not a variant of " + wl);
    m.job.params = read_params(member(j, "params", path), wl, path + ".params");
    const std::string backend = text_or(j, "backend", path, "simulated");
    if (!kernels::parse_backend_kind(backend, m.job.backend))
        fail(path + ".backend", "'" + backend + "' is not gpu, simulated or recorded");
    m.job.id = integer_or<uint64_t>(j, "job_id", path);
    m.ok = flag_or(j, "ok", path);
    m.refused = flag_or(j, "refused", path);
    m.error = text_or(j, "error", path);
    if (device && !optional_member(j, "device")) m.device = *device;
    else m.device = read_device(member(j, "device", path), path + ".device");
    m.recorded_date = text_or(j, "recorded_date", path);
    if (m.recorded() && (m.job.backend != kernels::BackendKind::recorded || m.device.simulated))
        fail(path + ".recorded_date", "only a recorded row of a real GPU has one (backend '" + backend + "')");
    // A recorded backend answers with the recording's GPU (recorded_date set) or, where the recording
    // lacks the parameters, with the simulated GPU of its kind.
    if (m.job.backend != kernels::BackendKind::recorded &&
        m.device.simulated != (m.job.backend == kernels::BackendKind::simulated))
        fail(path + ".device.simulated", "disagrees with backend '" + backend + "'");
    if (m.job.backend == kernels::BackendKind::recorded && !m.device.simulated && !m.recorded())
        fail(path + ".recorded_date", "missing (a recorded row of a real GPU says when it was measured)");
    m.build_type = text_or(j, "build_type", path);
    if (const json_t* t = optional_member(j, "time")) m.time = read_time(*t, path + ".time");
    m.job.reps = std::max(m.time.reps, kernels::kMinReps);
    if (const json_t* k = optional_member(j, "kernels")) read_kernels(*k, path + ".kernels", m);
    if (const json_t* mod = optional_member(j, "modeled")) {
        m.bytes_read = integer_or<uint64_t>(*mod, "bytes_read", path + ".modeled");
        m.bytes_written = integer_or<uint64_t>(*mod, "bytes_written", path + ".modeled");
        m.min_bytes = integer_or<uint64_t>(*mod, "min_bytes", path + ".modeled");
        m.flops = number_or(*mod, "flops", path + ".modeled");
        m.shared_bytes = integer_or<uint64_t>(*mod, "shared_bytes", path + ".modeled");
        m.dram_model_note = text_or(*mod, "dram_model", path + ".modeled");
        if (optional_member(*mod, "l2_bytes_read")) {
            m.l2_bytes_read = integer_or<uint64_t>(*mod, "l2_bytes_read", path + ".modeled");
            m.l2_bytes_written = integer_or<uint64_t>(*mod, "l2_bytes_written", path + ".modeled");
        } else {
            // A recording from before the three levels: its modeled bytes are L2 <-> SM bytes. DRAM
            // bytes come from this build's L2 reuse model for the recorded GPU's L2, and say so.
            m.l2_bytes_read = m.bytes_read;
            m.l2_bytes_written = m.bytes_written;
            try {
                if (kernels::validate(m.job.params).empty() && kernels::has_variant(m.job.params.workload, m.job.variant)) {
                    const kernels::Model model = kernels::model(
                        m.job.variant, m.job.params, static_cast<uint64_t>(std::max<int64_t>(m.device.l2_bytes, 0)));
                    m.bytes_read = model.dram_read();
                    m.bytes_written = model.dram_written();
                    m.shared_bytes = model.shared_bytes();
                    m.dram_model_note = model.l2_note + " (recomputed: the recording predates the DRAM model)";
                }
            } catch (const std::exception&) {
                // The recording's parameters are not valid in this build: keep its numbers.
            }
        }
    }
    m.model_variant = text_or(j, "model_variant", path);
    if (m.job.variant == kernels::kStudentVariant && !kernels::has_variant(wl, m.model_variant))
        fail(path + ".model_variant", "yours is modeled as a variant of " + wl + ", not '" + m.model_variant + "'");
    m.limiter = text_or(j, "limiter", path);
    m.model_limiter = text_or(j, "model_limiter", path, m.model_limiter);  // optional: files before 2026-11-27 lack it
    m.model_limiter_resource = kernels::limiter_of_text(m.model_limiter);  // the text's words, decoded once here
    if (const json_t* mb = optional_member(j, "measured_bytes")) {
        m.measured_bytes = optional_bytes(*mb, "bytes", path + ".measured_bytes");
        m.measured_bytes_read = optional_bytes(*mb, "bytes_read", path + ".measured_bytes");
        m.measured_bytes_written = optional_bytes(*mb, "bytes_written", path + ".measured_bytes");
        m.measured_bytes_note = text_or(*mb, "note", path + ".measured_bytes", m.measured_bytes_note);
    }
    if (const json_t* c = optional_member(j, "check")) {
        m.checked = flag_or(*c, "checked", path + ".check");
        m.max_abs_error = number_or(*c, "max_abs_error", path + ".check");
        m.rel_l2_error = number_or(*c, "rel_l2_error", path + ".check");
        m.checked_elements = integer_or<int64_t>(*c, "checked_elements", path + ".check");
        m.check_note = text_or(*c, "note", path + ".check");
    }
    m.timing_note = text_or(j, "timing_note", path);
    if (const json_t* t = optional_member(j, "timeline")) read_timeline(*t, path + ".timeline", m);
    return m;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Entry points
// ---------------------------------------------------------------------------------------------
std::string parse_measurements_json(const std::string& text, std::vector<kernels::Measurement>& out) {
    out.clear();
    json_t doc;
    try {
        doc = json_t::parse(text);
    } catch (const json_t::exception& e) {  // a syntax error, or a number too large for a double (out_of_range)
        return std::string("not JSON: ") + e.what();
    }
    try {
        if (text_or(doc, "tool", "$") != "fusionlab") fail("$.tool", "not a fusionlab export");
        const json_t& list = member(doc, "measurements", "$");
        if (!list.is_array()) fail("$.measurements", "expected a list");
        std::vector<kernels::Measurement> read;
        for (size_t i = 0; i < list.size(); ++i)
            read.push_back(read_measurement(list[i], "$.measurements[" + std::to_string(i) + "]", nullptr));
        if (read.empty()) fail("$.measurements", "the list is empty");
        out = std::move(read);
        return "";
    } catch (const ImportError& e) {
        return e.what();
    } catch (const json_t::exception& e) {  // a number too large for its field, and the like
        return std::string("malformed: ") + e.what();
    }
}

std::string read_device_json(const nlohmann::json& j, const std::string& path, kernels::DeviceInfo& out) {
    try {
        if (!j.is_object()) fail(path, "expected an object");
        out = read_device(j, path);
        return "";
    } catch (const ImportError& e) {
        return e.what();
    } catch (const json_t::exception& e) {
        return path + ": malformed: " + e.what();
    }
}

std::string read_measurement_list(const nlohmann::json& list, const std::string& path,
                                  const kernels::DeviceInfo* device, std::vector<kernels::Measurement>& out) {
    try {
        if (!list.is_array()) fail(path, "expected a list");
        std::vector<kernels::Measurement> read;
        read.reserve(list.size());
        for (size_t i = 0; i < list.size(); ++i)
            read.push_back(read_measurement(list[i], path + "[" + std::to_string(i) + "]", device));
        out = std::move(read);
        return "";
    } catch (const ImportError& e) {
        return e.what();
    } catch (const json_t::exception& e) {
        return path + ": malformed: " + e.what();
    }
}

std::string load_measurements_json(const std::string& path, std::vector<kernels::Measurement>& out) {
    out.clear();
    std::string text;  // bounded: regular files of at most the results limit only (platform_file.h)
    if (const platform::ReadResult read = platform::read_user_file(path, platform::UserFile::results, text); !read.ok())
        return read.message;
    if (std::string why = parse_measurements_json(text, out); !why.empty()) return path + ": " + why;
    return "";
}

}  // namespace app
