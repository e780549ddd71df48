// [SECTION] Field readers: each names the JSON path it failed on
// [SECTION] One row
// [SECTION] Entry points
// [SECTION] Matching and labels
#include "app/files/reference.h"

#include "app/platform/platform_file.h"
#include "kernels/core/registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace app {

namespace {

using json_t = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// [SECTION] Field readers
// ---------------------------------------------------------------------------------------------
struct ReferenceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw ReferenceError(path + ": " + what); }

const json_t* find(const json_t& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string text(const json_t& obj, const char* key, const std::string& path, bool required) {
    const json_t* v = find(obj, key);
    if (!v) {
        if (required) fail(path + "." + key, "missing");
        return "";
    }
    if (!v->is_string()) fail(path + "." + key, "expected text");
    std::string s = v->get<std::string>();
    if (required && s.empty()) fail(path + "." + key, "is empty");
    return s;
}

double number(const json_t& obj, const char* key, const std::string& path) {
    const json_t* v = find(obj, key);
    if (!v) fail(path + "." + key, "missing");
    if (!v->is_number()) fail(path + "." + key, "expected a number");
    const double d = v->get<double>();
    if (!std::isfinite(d)) fail(path + "." + key, "expected a finite number");
    return d;
}

// "2026-11-25" or "2026-11-25T09:51:17Z": the day must be there, digits where digits belong.
void check_date(const std::string& date, const std::string& path) {
    bool ok = date.size() >= 10;
    for (size_t i = 0; ok && i < 10; ++i)
        ok = i == 4 || i == 7 ? date[i] == '-' : std::isdigit(static_cast<unsigned char>(date[i])) != 0;
    if (!ok) fail(path, "'" + date + "' is not a date (YYYY-MM-DD, UTC)");
}

kernels::TimeStats read_time(const json_t& j, const std::string& path) {
    if (!j.is_object()) fail(path, "expected an object");
    kernels::TimeStats t;
    t.median_ms = number(j, "median_ms", path);
    t.min_ms = number(j, "min_ms", path);
    t.max_ms = number(j, "max_ms", path);
    const json_t* reps = find(j, "reps");
    if (!reps) fail(path + ".reps", "missing");
    if (!reps->is_number_integer() && !reps->is_number_unsigned()) fail(path + ".reps", "expected a whole number");
    const int64_t r = reps->get<int64_t>();
    if (r < 1 || r > kernels::kMaxReps) fail(path + ".reps", std::to_string(r) + " is out of range (legal: 1..1000)");
    t.reps = static_cast<int>(r);
    if (!(t.median_ms > 0) || !(t.min_ms > 0) || !(t.max_ms > 0)) fail(path, "times must be greater than 0 ms");
    if (!(t.min_ms <= t.median_ms && t.median_ms <= t.max_ms)) fail(path, "expected min_ms <= median_ms <= max_ms");
    return t;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] One row
// ---------------------------------------------------------------------------------------------
// Returns false for a row of a workload this build does not have (skipped, not an error).
bool read_row(const json_t& j, const std::string& path, const std::string& file_command, ReferenceRow& r) {
    if (!j.is_object()) fail(path, "expected an object");
    const std::string workload = text(j, "workload", path, true);
    if (!kernels::parse_workload(workload, r.workload)) {
        r.workload = workload;
        return false;
    }
    r.label = text(j, "label", path, true);
    r.framework = text(j, "framework", path, true);
    r.framework_version = text(j, "framework_version", path, true);
    r.impl = text(j, "impl", path, true);
    r.device = text(j, "device", path, true);
    r.driver = text(j, "driver", path, false);
    r.date = text(j, "date", path, true);
    check_date(r.date, path + ".date");
    r.command = text(j, "command", path, false);
    if (r.command.empty()) r.command = file_command;
    const std::string dtype = text(j, "dtype", path, true);
    if (!kernels::parse_dtype(dtype, r.dtype)) fail(path + ".dtype", "'" + dtype + "' is not fp32, fp16 or bf16");

    // Each parameter by its fusionlab name, in its legal range; together they must pass the
    // workload's own checks (with the defaults for the parameters the row does not name).
    const json_t* params = find(j, "params");
    if (!params) fail(path + ".params", "missing");
    if (!params->is_object()) fail(path + ".params", "expected an object");
    kernels::Params p = kernels::default_params(r.workload);
    p.dtype = r.dtype;
    for (const auto& [name, value] : params->items()) {
        const std::string at = path + ".params." + name;
        const kernels::ParamSpec* spec = kernels::find_param_spec(r.workload, name);
        if (!spec) fail(at, r.workload + " has no parameter '" + name + "'");
        if (!value.is_number() && !value.is_boolean()) fail(at, "expected a number");
        const double v = value.is_boolean() ? (value.get<bool>() ? 1.0 : 0.0) : value.get<double>();
        if (std::string why = kernels::check_param_value(*spec, v); !why.empty()) fail(at, why);
        r.params.emplace_back(name, v);
        p.set(name, v);
    }
    if (std::string why = kernels::validate(p); !why.empty()) fail(path + ".params", why);

    r.note = text(j, "note", path, false);
    r.error = text(j, "error", path, false);
    if (const json_t* w = find(j, "warmup")) {
        if (!w->is_number_integer() && !w->is_number_unsigned()) fail(path + ".warmup", "expected a whole number");
        r.warmup = static_cast<int>(std::clamp<int64_t>(w->get<int64_t>(), 0, 1000000));
    }
    const json_t* time = find(j, "time");
    if (time) {
        r.time = read_time(*time, path + ".time");
        r.has_time = true;
    } else if (r.error.empty()) {
        fail(path + ".time", "missing (a row without a time says why in \"error\")");
    }
    return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Entry points
// ---------------------------------------------------------------------------------------------
std::string parse_reference_json(const std::string& input, ReferenceFile& out) {
    const std::string path = out.path;
    out = ReferenceFile{};
    out.path = path;
    json_t doc;
    try {
        doc = json_t::parse(input);
    } catch (const json_t::exception& e) {  // a syntax error, or a number too large for a double (out_of_range)
        return std::string("not JSON: ") + e.what();
    }
    try {
        if (!doc.is_object()) fail("$", "expected an object");
        if (text(doc, "tool", "$", false) != "fusionlab-reference")
            fail("$.tool", "not a reference file (expected \"fusionlab-reference\": scripts/torch_reference.py writes one)");
        const json_t* format = find(doc, "format");
        if (!format || !format->is_number_integer()) fail("$.format", "missing or not a whole number");
        if (format->get<int64_t>() != 1)
            fail("$.format", std::to_string(format->get<int64_t>()) + " is not a format this build reads (1)");
        const std::string command = text(doc, "command", "$", false);
        const json_t* rows = find(doc, "rows");
        if (!rows) fail("$.rows", "missing");
        if (!rows->is_array()) fail("$.rows", "expected a list");
        ReferenceFile read;
        read.path = path;
        for (size_t i = 0; i < rows->size(); ++i) {
            ReferenceRow r;
            if (read_row((*rows)[i], "$.rows[" + std::to_string(i) + "]", command, r)) {
                read.rows.push_back(std::move(r));
            } else {
                ++read.skipped_rows;
                if (read.skipped_workloads.find(r.workload) == std::string::npos)
                    read.skipped_workloads += (read.skipped_workloads.empty() ? "" : ", ") + r.workload;
            }
        }
        if (rows->empty()) fail("$.rows", "the list is empty");
        out = std::move(read);
        return "";
    } catch (const ReferenceError& e) {
        return e.what();
    } catch (const json_t::exception& e) {  // a number too large for its field, and the like
        return std::string("malformed: ") + e.what();
    }
}

std::string load_reference_json(const std::string& path, ReferenceFile& out) {
    out = ReferenceFile{};
    std::string body;  // bounded: regular files of at most the reference limit only (platform_file.h)
    if (const platform::ReadResult read = platform::read_user_file(path, platform::UserFile::reference, body); !read.ok())
        return read.message;
    out.path = path;
    if (std::string why = parse_reference_json(body, out); !why.empty()) {
        out = ReferenceFile{};
        return path + ": " + why;
    }
    return "";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Matching and labels
// ---------------------------------------------------------------------------------------------
bool reference_matches(const ReferenceRow& row, const kernels::Params& p) {
    if (row.workload != p.workload || row.dtype != p.dtype) return false;
    for (const auto& [name, value] : row.params) {
        if (!kernels::find_param_spec(p.workload, name)) return false;
        const double mine = p.get(name);
        if (std::fabs(mine - value) > 1e-9 * std::max(1.0, std::fabs(value))) return false;
    }
    return true;
}

std::vector<const ReferenceRow*> reference_rows_for(const ReferenceFile& file, const kernels::Params& p,
                                                    const kernels::DeviceInfo& device, std::string* why_none) {
    std::vector<const ReferenceRow*> shown;
    std::string elsewhere;  // a device the file has rows of for these parameters, when not this GPU
    for (const ReferenceRow& r : file.rows) {
        if (!reference_matches(r, p)) continue;
        if (!device.simulated && r.device != device.name) {
            elsewhere = r.device;
            continue;
        }
        shown.push_back(&r);
    }
    if (why_none && shown.empty()) {
        if (file.path.empty() && file.rows.empty()) *why_none = kNoReferenceHint;
        else if (!elsewhere.empty())
            *why_none = "the PyTorch reference for these parameters was measured on " + elsewhere + ", not on this " +
                        device.name + ": run scripts/torch_reference.py here for rows to compare";
        else
            *why_none = "no PyTorch reference for these parameters in " + file.path +
                        ": run scripts/torch_reference.py with them on a GPU machine";
    }
    return shown;
}

std::string reference_short_label(const ReferenceRow& row) {
    static const std::pair<const char*, const char*> kShort[] = {
        {"eager", "eager"},           {"compile", "torch.compile"}, {"sdpa_flash", "SDPA flash"},
        {"sdpa_cudnn", "SDPA cuDNN"}, {"sdpa_mem_efficient", "SDPA mem-eff"}, {"cuda_graph", "CUDA graph"}};
    for (const auto& [impl, words] : kShort)
        if (row.impl == impl) return row.impl == "eager" ? row.framework + " eager" : std::string(words);
    return row.framework + " " + row.impl;
}

std::string reference_day(const ReferenceRow& row) { return row.date.substr(0, 10); }

std::string reference_caption(const ReferenceRow& row) {
    return row.label + ", measured on " + row.device + ", " + reference_day(row);
}

std::string reference_source(const std::vector<const ReferenceRow*>& rows) {
    if (rows.empty()) return "";
    const ReferenceRow& first = *rows.front();
    for (const ReferenceRow* r : rows)
        if (r->framework_version != first.framework_version || r->device != first.device ||
            reference_day(*r) != reference_day(first))
            return first.framework + ", several devices or dates (hover)";
    return first.framework + " " + first.framework_version.substr(0, first.framework_version.find('+')) +
           ", measured on " + first.device + ", " + reference_day(first);
}

double reference_flops(const kernels::Params& p) {
    thread_local kernels::Params cached_params;
    thread_local double cached = -1;
    if (cached >= 0 && cached_params == p) return cached;
    double flops = 0;
    const auto& vs = kernels::variants(p.workload);
    for (auto it = vs.rbegin(); it != vs.rend() && flops <= 0; ++it) {
        try {
            flops = kernels::model(it->name, p).flops();
        } catch (const std::exception&) {
            flops = 0;  // this variant does not take p (a tile it lacks): try the one before
        }
    }
    cached_params = p;
    cached = flops;
    return flops;
}

}  // namespace app
