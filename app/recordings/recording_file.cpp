// [SECTION] The recording
// [SECTION] Reading and writing
// [SECTION] Finding recordings
#include "app/recordings/recording_file.h"

#include "app/files/export.h"
#include "app/files/json_fields.h"
#include "app/platform/platform.h"
#include "app/platform/platform_file.h"
#include "app/files/results_import.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#ifndef FUSIONLAB_RECORDINGS_DIR
#define FUSIONLAB_RECORDINGS_DIR ""
#endif

namespace app {

namespace fs = std::filesystem;
using json_t = nlohmann::json;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

}  // namespace

// =============================================================================================
// [SECTION] The recording
// =============================================================================================

std::string Recording::label() const { return card + " (recorded " + date + ")"; }

std::string point_key(const kernels::Params& p, const std::string& variant) {
    std::string key = p.workload + "|" + variant + "|" + kernels::to_string(p.dtype);
    for (const kernels::ParamSpec& spec : kernels::param_specs(p.workload))
        key += "|" + spec.name + "=" + kernels::param_number_text(p.get(spec.name));
    return key;
}

void Recording::index() {
    by_point_.clear();
    for (size_t i = 0; i < measurements.size(); ++i)
        by_point_.emplace(point_key(measurements[i].job.params, measurements[i].job.variant), i);
}

const kernels::Measurement* Recording::find(const kernels::Params& p, const std::string& variant) const {
    if (!kernels::find_workload(p.workload)) return nullptr;
    const auto it = by_point_.find(point_key(p, variant));
    return it == by_point_.end() ? nullptr : &measurements[it->second];
}

std::string recording_key(const std::string& card, const std::string& date) { return lower(card) + "-" + date; }

std::string card_of_device(const std::string& device_name) {
    // The longest key that the name contains ("H200" in "NVIDIA H200", never "H20" of another part).
    std::string best;
    for (const kernels::SimGpu& g : kernels::sim_gpus())
        if (device_name.find(g.key) != std::string::npos && g.key.size() > best.size()) best = g.key;
    return best;
}

// =============================================================================================
// [SECTION] Reading and writing
// =============================================================================================
namespace {

// Seven significant digits: far below the run-to-run spread of any time here, and the JSON's
// shortest round-trip printing then writes "0.1234567" instead of seventeen digits.
double rounded(double v) {
    if (!std::isfinite(v) || v == 0) return v;
    char text[32];
    std::snprintf(text, sizeof text, "%.7g", v);
    return std::strtod(text, nullptr);
}

kernels::TimeStats rounded(kernels::TimeStats t) {
    t.median_ms = rounded(t.median_ms);
    t.min_ms = rounded(t.min_ms);
    t.max_ms = rounded(t.max_ms);
    return t;
}

kernels::Measurement rounded_for_file(kernels::Measurement m) {
    m.time = rounded(m.time);
    for (kernels::KernelTime& k : m.kernels) k.time = rounded(k.time);
    for (kernels::KernelSpan& s : m.timeline) {
        s.start_ms = rounded(s.start_ms);
        s.end_ms = rounded(s.end_ms);
    }
    m.max_abs_error = rounded(m.max_abs_error);
    m.rel_l2_error = rounded(m.rel_l2_error);
    m.wall_ms = rounded(m.wall_ms);
    return m;
}

using json_fields::fail;
using json_fields::member;
using RecordingError = json_fields::FieldError;

std::string text(const json_t& obj, const char* key, const std::string& path, bool required) {
    if (!required && !json_fields::optional_member(obj, key)) return "";
    const json_t& v = member(obj, key, path);
    if (!v.is_string()) fail(path + "." + key, "expected text");
    return v.get<std::string>();
}

int64_t whole(const json_t& obj, const char* key, const std::string& path, int64_t lo, int64_t hi) {
    const json_t& v = member(obj, key, path);
    if (!v.is_number_integer() && !v.is_number_unsigned()) fail(path + "." + key, "expected a whole number");
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
        fail(path + "." + key, std::to_string(v.get<uint64_t>()) + " is out of range (" + std::to_string(lo) + " .. " +
                                   std::to_string(hi) + ")");
    const int64_t n = v.get<int64_t>();
    if (n < lo || n > hi)
        fail(path + "." + key,
             std::to_string(n) + " is out of range (" + std::to_string(lo) + " .. " + std::to_string(hi) + ")");
    return n;
}

// YYYY-MM-DD with a month 1..12 and a day 1..31.
bool is_date(const std::string& d) {
    if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
    for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
        if (!std::isdigit(static_cast<unsigned char>(d[i]))) return false;
    const int month = std::atoi(d.substr(5, 2).c_str()), day = std::atoi(d.substr(8, 2).c_str());
    return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

std::string sim_keys_text() {
    std::string out;
    for (const kernels::SimGpu& g : kernels::sim_gpus()) out += (out.empty() ? "" : ", ") + g.key;
    return out;
}

void read_header(const json_t& doc, Recording& r, bool allow_rehearsal) {
    if (!doc.is_object()) fail("$", "expected an object");
    if (text(doc, "tool", "$", false) != "fusionlab") fail("$.tool", "not a fusionlab file");
    if (!doc.contains("recording"))
        fail("$.recording", "missing (not a recording; a bench export opens with --results instead)");
    const json_t& h = member(doc, "recording", "$");
    const std::string at = "$.recording";
    if (!h.is_object()) fail(at, "expected an object");
    const int64_t format = whole(h, "format", at, 0, 1000000);
    if (format != kRecordingFormat)
        fail(at + ".format", std::to_string(format) + " is not a format this build reads (" +
                                 std::to_string(kRecordingFormat) + ")");
    const std::string card = text(h, "card", at, true);
    const kernels::SimGpu* gpu = kernels::find_sim_gpu(card);
    if (!gpu) fail(at + ".card", "'" + card + "' is not a GPU this build simulates (legal: " + sim_keys_text() + ")");
    r.card = gpu->key;
    r.date = text(h, "date", at, true);
    if (!is_date(r.date)) fail(at + ".date", "'" + r.date + "' is not a date YYYY-MM-DD");
    r.command = text(h, "command", at, true);
    if (r.command.empty()) fail(at + ".command", "empty (a recording says how it was made)");
    r.started_at = text(h, "started_at", at, false);
    r.finished_at = text(h, "finished_at", at, false);
    r.build_type = text(h, "build_type", at, false);
    r.reps = static_cast<int>(whole(h, "reps", at, kernels::kMinReps, kernels::kMaxReps));
    r.points = static_cast<int>(whole(h, "points", at, 0, 10000000));
    if (h.contains("cut") && !h.at("cut").is_null()) {
        const json_t& cut = h.at("cut");
        if (!cut.is_array()) fail(at + ".cut", "expected a list");
        for (size_t i = 0; i < cut.size(); ++i) {
            if (!cut[i].is_string()) fail(at + ".cut[" + std::to_string(i) + "]", "expected text");
            r.cut.push_back(cut[i].get<std::string>());
        }
    }
    if (h.contains("rehearsal") && !h.at("rehearsal").is_null()) {
        if (!h.at("rehearsal").is_boolean()) fail(at + ".rehearsal", "expected true or false");
        r.rehearsal = h.at("rehearsal").get<bool>();
    }
    if (r.rehearsal && !allow_rehearsal)
        fail(at + ".rehearsal", "true: a rehearsal on a simulated GPU (fusionlab record --sim), not a recording of one");
    r.key = recording_key(r.card, r.date);
}

void read_body(const json_t& doc, Recording& r) {
    if (!doc.contains("device")) fail("$.device", "missing");
    if (std::string why = read_device_json(doc.at("device"), "$.device", r.device); !why.empty()) throw RecordingError(why);
    if (r.device.name.empty()) fail("$.device.name", "missing (the GPU the numbers were measured on)");
    if (r.device.simulated != r.rehearsal)
        fail("$.device.simulated", r.rehearsal ? "false in a rehearsal" : "true: a recording holds measurements of a real GPU");
    const kernels::BackendKind expected = r.rehearsal ? kernels::BackendKind::simulated : kernels::BackendKind::gpu;
    const json_t& list = member(doc, "measurements", "$");
    if (std::string why = read_measurement_list(list, "$.measurements", &r.device, r.measurements); !why.empty())
        throw RecordingError(why);
    if (r.measurements.empty()) fail("$.measurements", "the list is empty");
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < r.measurements.size(); ++i) {
        kernels::Measurement& m = r.measurements[i];
        const std::string at = "$.measurements[" + std::to_string(i) + "]";
        if (m.job.backend != expected)
            fail(at + ".backend", std::string("'") + kernels::to_string(m.job.backend) + "': a " +
                                      (r.rehearsal ? "rehearsal" : "recording") + " holds " + kernels::to_string(expected) +
                                      " measurements of its device");
        if (!m.ok) fail(at + ".ok", "false: a recording holds measurements that ran (its header's cut says what did not)");
        if (!(m.time.median_ms > 0) || m.time.min_ms > m.time.median_ms || m.time.median_ms > m.time.max_ms)
            fail(at + ".time", "expected 0 < min_ms <= median_ms <= max_ms");
        if (m.time.reps < 1 && !r.rehearsal) fail(at + ".time.reps", "expected at least 1 timed repetition");
        const auto [it, fresh] = seen.emplace(point_key(m.job.params, m.job.variant), i);
        if (!fresh)
            fail(at, "a second measurement of " + kernels::describe(m.job.params, m.job.variant) + " (the first is [" +
                         std::to_string(it->second) + "])");
        if (!r.rehearsal) m.recorded_date = r.date;
    }
}

}  // namespace

std::string recording_to_json(const Recording& r) {
    nlohmann::ordered_json header = {
        {"format", kRecordingFormat}, {"card", r.card},       {"date", r.date},
        {"command", r.command},       {"started_at", r.started_at}, {"finished_at", r.finished_at},
        {"build_type", r.build_type}, {"reps", r.reps},       {"points", r.points},
        {"cut", r.cut},
    };
    if (r.rehearsal) header["rehearsal"] = true;
    const auto dump = [](const nlohmann::ordered_json& j) { return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace); };
    std::string out = "{\"tool\":\"fusionlab\",\n\"recording\":" + dump(header) + ",\n\"device\":" + dump(device_json_object(r.device)) +
                      ",\n\"measurements\":[\n";
    for (size_t i = 0; i < r.measurements.size(); ++i) {
        kernels::Measurement m = rounded_for_file(r.measurements[i]);
        m.recorded_date.clear();  // the header's date says it once
        if (m.job.backend == kernels::BackendKind::recorded) m.job.backend = kernels::BackendKind::gpu;
        out += dump(measurement_json_object(m, true)) + (i + 1 < r.measurements.size() ? ",\n" : "\n");
    }
    return out + "]}\n";
}

std::string parse_recording_json(const std::string& text, Recording& out, bool allow_rehearsal) {
    json_t doc;
    try {
        doc = json_t::parse(text);
    } catch (const json_t::parse_error& e) {
        // An error at the very end of the text: the file stops mid-way (a copy cut short, a full disk).
        const bool at_end = e.byte + 1 >= text.size() || std::string(e.what()).find("end of input") != std::string::npos;
        return std::string("not JSON") + (at_end ? " (truncated? it ends too early)" : "") + ": " + e.what();
    } catch (const json_t::exception& e) {  // a number too large for a double (out_of_range 406)
        return std::string("not JSON: ") + e.what();
    }
    Recording r;
    try {
        read_header(doc, r, allow_rehearsal);
        read_body(doc, r);
    } catch (const RecordingError& e) {
        return e.what();
    } catch (const json_t::exception& e) {
        return std::string("malformed: ") + e.what();
    }
    r.index();
    out = std::move(r);
    return "";
}

std::string load_recording(const std::string& path, Recording& out, bool allow_rehearsal) {
    std::string text;  // bounded: regular files of at most the recording limit only (platform_file.h)
    if (const platform::ReadResult read = platform::read_user_file(path, platform::UserFile::recording, text); !read.ok())
        return read.message;
    Recording r;
    if (std::string why = parse_recording_json(text, r, allow_rehearsal); !why.empty()) return path + ": " + why;
    r.path = path;
    out = std::move(r);
    return "";
}

// =============================================================================================
// [SECTION] Finding recordings
// =============================================================================================

std::string recordings_dir(std::string* why_not) {
    return platform::data_dir(
        "FUSIONLAB_RECORDINGS", "assets/recordings", FUSIONLAB_RECORDINGS_DIR,
        [](const std::string& dir) {
            std::error_code ec;
            return fs::is_directory(dir, ec);
        },
        "recordings", "assets/recordings/", why_not);
}

RecordingCatalog load_recordings(const std::string& dir) {
    RecordingCatalog c;
    c.dir = dir;
    if (dir.empty()) return c;
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code inner;
        if (!it->is_directory(inner)) continue;
        const fs::path file = it->path() / kRecordingFile;
        // symlink_status: a recording.json that is a loop of links is named by the reader, not skipped.
        if (fs::exists(fs::symlink_status(file, inner))) files.push_back(file);
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
        auto r = std::make_shared<Recording>();
        if (std::string why = load_recording(file.string(), *r); !why.empty()) {
            c.errors.push_back(why);
            continue;
        }
        const auto same = std::find_if(c.recordings.begin(), c.recordings.end(),
                                       [&](const auto& other) { return other->key == r->key; });
        if (same != c.recordings.end()) {
            c.errors.push_back(file.string() + ": $.recording: a second recording " + r->key + " (the first is " +
                               (*same)->path + ")");
            continue;
        }
        c.recordings.push_back(std::move(r));
    }
    std::sort(c.recordings.begin(), c.recordings.end(), [](const auto& a, const auto& b) {
        return a->card != b->card ? a->card < b->card : a->date > b->date;  // newest first within a card
    });
    return c;
}

std::shared_ptr<const RecordingCatalog> recordings() {
    // By the value of $FUSIONLAB_RECORDINGS: the GUI asks every frame, and the folder is looked for
    // (and read) once per value, not once per frame.
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const RecordingCatalog>> loaded;
    const char* env = std::getenv("FUSIONLAB_RECORDINGS");
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = loaded[env ? env : ""];
    if (!slot) slot = std::make_shared<const RecordingCatalog>(load_recordings(recordings_dir()));
    return slot;
}

std::shared_ptr<const Recording> find_recording(const RecordingCatalog& catalog, const std::string& name) {
    const std::string want = lower(name);
    for (const auto& r : catalog.recordings)
        if (lower(r->key) == want || lower(r->label()) == want) return r;
    for (const auto& r : catalog.recordings)  // newest first within a card
        if (lower(r->card) == want) return r;
    return nullptr;
}

std::shared_ptr<const Recording> find_recording(const std::string& name) { return find_recording(*recordings(), name); }

}  // namespace app
