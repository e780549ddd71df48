// Recordings of real GPUs (app/recordings/recording_file.h) and the recorded backend (app/recordings/recorded_backend.h):
// a recording loads whole or not at all, with the file and the field named; it round-trips; the
// backend answers with the recorded measurement where the recording has the point and with the
// simulated GPU elsewhere, and every view, export and lesson number says which.
#include "app/files/export.h"
#include "app/core/jobs.h"
#include "app/lessons/expressions.h"
#include "app/lessons/model/lesson.h"
#include "app/core/panels_state.h"
#include "app/cli/record.h"
#include "app/recordings/recorded_backend.h"
#include "app/recordings/auto_pick.h"
#include "app/recordings/recording_file.h"
#include "app/files/results_import.h"
#include "app/core/runner.h"
#include "app/core/settings.h"
#include "app/lessons/lesson_files.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include "temp_dir.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

// A hand-made recording of three points (from the simulated H100's numbers, so nothing in it is a
// measurement; its device says so): chain 8192 x 8192 bf16, attention N = 4096 fp16, launch stream.
const std::string kFixtureDir = std::string(FL_SOURCE_DIR) + "/tests/data/recordings";
const std::string kFixture = kFixtureDir + "/h100-2026-01-02/recording.json";
const std::string kShipped = std::string(FL_SOURCE_DIR) + "/assets/recordings/h100-2026-11-27/recording.json";

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::shared_ptr<const app::Recording> fixture() {
    auto r = std::make_shared<app::Recording>();
    const std::string why = app::load_recording(kFixture, *r);
    INFO(why);
    REQUIRE(why.empty());
    return r;
}

std::string edited(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json doc = nlohmann::json::parse(read_text(kFixture));
    edit(doc);
    return doc.dump();
}

kernels::Params chain_8192() {
    kernels::Params p = kernels::default_params("chain");
    p.dtype = kernels::DType::bf16;
    p.set("rows", 8192).set("hidden", 8192);
    return p;
}

kernels::Job recorded_job(const kernels::Params& p, const std::string& variant) {
    kernels::Job job;
    job.params = p;
    job.variant = variant;
    job.backend = kernels::BackendKind::recorded;
    job.recording = "h100-2026-01-02";
    job.sim_gpu = "H100";
    return job;
}

// FUSIONLAB_RECORDINGS for one test, put back after it.
struct RecordingsFolder {
    std::string saved;
    bool had = false;
    explicit RecordingsFolder(const std::string& dir) {
        if (const char* old = std::getenv("FUSIONLAB_RECORDINGS")) had = true, saved = old;
        ::setenv("FUSIONLAB_RECORDINGS", dir.c_str(), 1);
    }
    ~RecordingsFolder() {
        if (had) ::setenv("FUSIONLAB_RECORDINGS", saved.c_str(), 1);
        else ::unsetenv("FUSIONLAB_RECORDINGS");
    }
};

}  // namespace

TEST_CASE("the fixture recording loads whole: header, device, every measurement recorded on its date", "[recording]") {
    const auto r = fixture();
    CHECK(r->key == "h100-2026-01-02");
    CHECK(r->card == "H100");
    CHECK(r->date == "2026-01-02");
    CHECK(r->label() == "H100 (recorded 2026-01-02)");
    CHECK(r->path == kFixture);
    CHECK(r->reps == 10);
    CHECK(r->points == 3);
    CHECK(r->cut == std::vector<std::string>{"test fixture: only three points"});
    CHECK_FALSE(r->rehearsal);
    CHECK(r->device.name == "H100 test fixture (not a measurement)");
    CHECK_FALSE(r->device.simulated);
    REQUIRE(r->measurements.size() == 7);
    for (const kernels::Measurement& m : r->measurements) {
        CHECK(m.ok);
        CHECK(m.recorded_date == "2026-01-02");
        CHECK(m.device.name == r->device.name);
        CHECK(m.checked);
        CHECK(m.measured_bytes.has_value());
        CHECK_FALSE(m.timeline.empty());
    }
    CHECK(r->find(chain_8192(), "fused") != nullptr);
    CHECK(r->find(chain_8192(), "no_such_variant") == nullptr);
    kernels::Params other = chain_8192();
    other.set("rows", 4096);
    CHECK(r->find(other, "fused") == nullptr);
    other = chain_8192();
    other.dtype = kernels::DType::f16;  // same sizes, another dtype: another point
    CHECK(r->find(other, "fused") == nullptr);
    other = chain_8192();
    other.set("N", 77);  // a parameter chain does not take changes nothing
    CHECK(r->find(other, "fused") != nullptr);
}

TEST_CASE("a fixture recording round-trips: written and read back, every field the panels draw is the same", "[recording]") {
    const auto a = fixture();
    const std::string text = app::recording_to_json(*a);
    app::Recording b;
    REQUIRE(app::parse_recording_json(text, b) == "");
    CHECK(b.key == a->key);
    CHECK(b.command == a->command);
    CHECK(b.started_at == a->started_at);
    CHECK(b.finished_at == a->finished_at);
    CHECK(b.reps == a->reps);
    CHECK(b.points == a->points);
    CHECK(b.cut == a->cut);
    CHECK(b.device.name == a->device.name);
    CHECK(b.device.driver == a->device.driver);
    CHECK(b.device.sm_clock_mhz == a->device.sm_clock_mhz);
    CHECK(b.device.global_mem_bytes == a->device.global_mem_bytes);
    REQUIRE(b.device.measured_copy_gbps.has_value());
    CHECK(*b.device.measured_copy_gbps == Approx(*a->device.measured_copy_gbps));
    REQUIRE(b.measurements.size() == a->measurements.size());
    for (size_t i = 0; i < b.measurements.size(); ++i) {
        const kernels::Measurement& x = a->measurements[i];
        const kernels::Measurement& y = b.measurements[i];
        CHECK(y.job.params == x.job.params);
        CHECK(y.job.variant == x.job.variant);
        CHECK(y.time.median_ms == Approx(x.time.median_ms).epsilon(1e-6));
        CHECK(y.time.min_ms == Approx(x.time.min_ms).epsilon(1e-6));
        CHECK(y.time.max_ms == Approx(x.time.max_ms).epsilon(1e-6));
        CHECK(y.time.reps == x.time.reps);
        REQUIRE(y.kernels.size() == x.kernels.size());
        for (size_t k = 0; k < y.kernels.size(); ++k) {
            CHECK(y.kernels[k].name == x.kernels[k].name);
            CHECK(y.kernels[k].time.median_ms == Approx(x.kernels[k].time.median_ms).epsilon(1e-6));
        }
        CHECK(y.measured_bytes == x.measured_bytes);
        CHECK(y.measured_bytes_read == x.measured_bytes_read);
        CHECK(y.measured_bytes_written == x.measured_bytes_written);
        CHECK(y.checked == x.checked);
        CHECK(y.max_abs_error == Approx(x.max_abs_error));
        CHECK(y.rel_l2_error == Approx(x.rel_l2_error));
        CHECK(y.checked_elements == x.checked_elements);
        CHECK(y.timing_note == x.timing_note);
        CHECK(y.timeline_source == x.timeline_source);
        REQUIRE(y.timeline.size() == x.timeline.size());
        for (size_t s = 0; s < y.timeline.size(); ++s) {
            CHECK(y.timeline[s].name == x.timeline[s].name);
            CHECK(y.timeline[s].end_ms == Approx(x.timeline[s].end_ms).epsilon(1e-6));
        }
        CHECK(y.recorded_date == "2026-01-02");
    }
    // Writing what was read gives the same text: nothing drifts across saves.
    CHECK(app::recording_to_json(b) == text);
}

TEST_CASE("recorded backend: the recording where it has the point, the simulated GPU elsewhere, each labelled",
          "[recording]") {
    const auto r = fixture();
    std::string why;
    const auto backend = app::make_recorded_backend(r, &why);
    REQUIRE(backend);
    CHECK(backend->device().name == r->device.name);

    const kernels::Measurement* stored = r->find(chain_8192(), "fused");
    REQUIRE(stored);
    const kernels::Job job = recorded_job(chain_8192(), "fused");
    CHECK(backend->unavailable_reason(job).empty());
    const kernels::Measurement m = backend->run(job, kernels::CancelToken{});
    REQUIRE(m.ok);
    CHECK(m.recorded());
    CHECK(m.recorded_date == "2026-01-02");
    CHECK(m.device.name == r->device.name);
    CHECK_FALSE(m.device.simulated);
    CHECK(m.time.median_ms == Approx(stored->time.median_ms));
    CHECK(m.measured_bytes == stored->measured_bytes);
    CHECK(m.checked);
    CHECK(m.job.backend == kernels::BackendKind::recorded);
    CHECK(m.source_label() == "recorded on H100 test fixture (not a measurement), 2026-01-02");
    CHECK(m.source_tag() == "recorded 2026-01-02");
    CHECK(m.timing_note.rfind("recorded on H100 test fixture (not a measurement), 2026-01-02", 0) == 0);
    // The modeled side is this build's model for the recorded GPU, as a GPU run here would report it.
    const kernels::Model model = kernels::model("fused", chain_8192(), static_cast<uint64_t>(r->device.l2_bytes));
    CHECK(m.bytes_read == model.dram_read());
    CHECK(m.flops == Approx(model.flops()));
    CHECK(m.limiter.empty());

    kernels::Params other = chain_8192();
    other.set("rows", 4096);
    const kernels::Measurement fallback = backend->run(recorded_job(other, "fused"), kernels::CancelToken{});
    REQUIRE(fallback.ok);
    CHECK_FALSE(fallback.recorded());
    CHECK(fallback.device.simulated);
    CHECK(fallback.source_tag() == "simulated");
    CHECK(fallback.source_label() == "simulated on H100 SXM5 80GB");
    CHECK(fallback.timing_note.find("not in the recording H100 (recorded 2026-01-02)") != std::string::npos);
    CHECK(fallback.job.backend == kernels::BackendKind::recorded);

    // Not in the recording and beyond the recorded GPU's memory: refused with its numbers.
    kernels::Params huge = kernels::default_params("attention");
    huge.dtype = kernels::DType::f16;
    huge.set("N", 32768).set("heads", 64);
    const kernels::Measurement refused = backend->run(recorded_job(huge, "naive"), kernels::CancelToken{});
    CHECK_FALSE(refused.ok);
    CHECK(refused.refused);
    CHECK(refused.error.find("naive needs") != std::string::npos);
    CHECK(backend->unavailable_reason(recorded_job(huge, "naive")) == refused.error);
}

TEST_CASE("labels: charts and captions say recorded with the date, simulated, or both", "[recording]") {
    const auto r = fixture();
    const auto backend = app::make_recorded_backend(r);
    const kernels::Measurement rec = backend->run(recorded_job(chain_8192(), "fused"), kernels::CancelToken{});
    kernels::Params other = chain_8192();
    other.set("rows", 4096);
    const kernels::Measurement sim = backend->run(recorded_job(other, "unfused"), kernels::CancelToken{});
    kernels::Measurement here = rec;  // as if measured on this machine
    here.recorded_date.clear();
    CHECK(app::results_watermark({&rec}) == "RECORDED 2026-01-02");
    CHECK(app::results_watermark({&sim}) == "SIMULATED");
    CHECK(app::results_watermark({&rec, &sim}) == "RECORDED 2026-01-02 + SIMULATED");
    CHECK(app::results_watermark({&here}).empty());
    CHECK(app::results_source_caption({&rec}) == "recorded 2026-01-02");
    CHECK(app::results_source_caption({&sim, &rec}) == "recorded 2026-01-02 + model estimate");
    CHECK(app::results_source_caption({&sim}) == "model estimate");
    CHECK(here.source_label() == "measured on H100 test fixture (not a measurement)");
    CHECK(here.source_tag().empty());
}

TEST_CASE("exports say recorded with the device and date, and read back as recorded rows", "[recording][export]") {
    const auto r = fixture();
    const auto backend = app::make_recorded_backend(r);
    kernels::Params other = chain_8192();
    other.set("rows", 4096);
    const std::vector<kernels::Measurement> rows = {backend->run(recorded_job(chain_8192(), "fused"), kernels::CancelToken{}),
                                                    backend->run(recorded_job(other, "fused"), kernels::CancelToken{})};
    const std::string csv = app::measurements_csv(rows);
    CHECK(csv.find("recorded,\"recorded on H100 test fixture (not a measurement), 2026-01-02\",2026-01-02,") !=
          std::string::npos);
    CHECK(csv.find("recorded,simulated on H100 SXM5 80GB,,") != std::string::npos);

    const std::string json = app::measurements_json(rows);
    const nlohmann::json doc = nlohmann::json::parse(json);
    CHECK(doc["measurements"][0]["backend"] == "recorded");
    CHECK(doc["measurements"][0]["recorded_date"] == "2026-01-02");
    CHECK_FALSE(doc["measurements"][1].contains("recorded_date"));

    std::vector<kernels::Measurement> back;
    REQUIRE(app::parse_measurements_json(json, back) == "");
    REQUIRE(back.size() == 2);
    CHECK(back[0].recorded());
    CHECK(back[0].recorded_date == "2026-01-02");
    CHECK(back[0].job.backend == kernels::BackendKind::recorded);
    CHECK_FALSE(back[0].device.simulated);
    CHECK_FALSE(back[1].recorded());
    CHECK(back[1].device.simulated);

    // A date on a row that is not a recorded one, or a recorded real-GPU row without one, is refused.
    nlohmann::json bad = doc;
    bad["measurements"][1]["recorded_date"] = "2026-01-02";
    CHECK(app::parse_measurements_json(bad.dump(), back).find("$.measurements[1].recorded_date") == 0);
    bad = doc;
    bad["measurements"][0].erase("recorded_date");
    CHECK(app::parse_measurements_json(bad.dump(), back).find("$.measurements[0].recorded_date: missing") == 0);
    CHECK(back.empty());
}

TEST_CASE("malformed recordings: one message naming the field, and nothing is loaded", "[recording]") {
    const std::string good = read_text(kFixture);
    std::string huge_number = good;  // out_of_range from the JSON reader itself, not a parse_error
    huge_number.replace(huge_number.find("\"reps\":10"), 9, "\"reps\":5e428800");
    struct Case {
        const char* what;
        std::string text;
        const char* message;  // the message starts with this
    };
    const std::vector<Case> cases = {
        {"not JSON", "{\"tool\": \"fusionlab\", oops}", "not JSON"},
        {"truncated", good.substr(0, good.size() / 2), "not JSON (truncated? it ends too early)"},
        {"a number too large for a double", huge_number, "not JSON: "},
        {"an export, not a recording", edited([](auto& d) { d.erase("recording"); }), "$.recording: missing"},
        {"another tool", edited([](auto& d) { d["tool"] = "other"; }), "$.tool: not a fusionlab file"},
        {"newer format", edited([](auto& d) { d["recording"]["format"] = 2; }), "$.recording.format: 2 is not a format"},
        {"unknown card", edited([](auto& d) { d["recording"]["card"] = "B200"; }), "$.recording.card: 'B200' is not a GPU"},
        {"bad date", edited([](auto& d) { d["recording"]["date"] = "2026-13-01"; }), "$.recording.date: '2026-13-01'"},
        {"no command", edited([](auto& d) { d["recording"].erase("command"); }), "$.recording.command: missing"},
        {"no reps", edited([](auto& d) { d["recording"]["reps"] = 0; }), "$.recording.reps: 0 is out of range"},
        {"reps as text", edited([](auto& d) { d["recording"]["reps"] = "10"; }), "$.recording.reps: expected a whole number"},
        {"cut not a list", edited([](auto& d) { d["recording"]["cut"] = 3; }), "$.recording.cut: expected a list"},
        {"a rehearsal", edited([](auto& d) { d["recording"]["rehearsal"] = true; }), "$.recording.rehearsal: true"},
        {"no device", edited([](auto& d) { d.erase("device"); }), "$.device: missing"},
        {"device a list", edited([](auto& d) { d["device"] = nlohmann::json::array(); }), "$.device: expected an object"},
        {"simulated device", edited([](auto& d) { d["device"]["simulated"] = true; }), "$.device.simulated: true"},
        {"device clock as text", edited([](auto& d) { d["device"]["sm_clock_mhz"] = "fast"; }),
         "$.device.sm_clock_mhz: expected a whole number"},
        {"no measurements", edited([](auto& d) { d["measurements"] = nlohmann::json::array(); }),
         "$.measurements: the list is empty"},
        {"time as text", edited([](auto& d) { d["measurements"][1]["time"]["median_ms"] = "1 ms"; }),
         "$.measurements[1].time.median_ms: expected a number"},
        {"min above median", edited([](auto& d) { d["measurements"][0]["time"]["min_ms"] = 99.0; }),
         "$.measurements[0].time: expected 0 < min_ms <= median_ms <= max_ms"},
        {"unknown workload", edited([](auto& d) { d["measurements"][0]["workload"] = "matmul"; }),
         "$.measurements[0].workload: 'matmul' is not a workload"},
        {"unknown variant", edited([](auto& d) { d["measurements"][0]["variant"] = "fastest"; }),
         "$.measurements[0].variant: 'fastest' is not a variant of chain"},
        {"size out of range", edited([](auto& d) { d["measurements"][0]["params"]["rows"] = 0; }),
         "$.measurements[0].params.rows"},
        {"a failed run", edited([](auto& d) { d["measurements"][2]["ok"] = false; }), "$.measurements[2].ok: false"},
        {"a simulated row", edited([](auto& d) { d["measurements"][0]["backend"] = "simulated"; }),
         "$.measurements[0].device.simulated: disagrees with backend 'simulated'"},
        {"twice the same point", edited([](auto& d) { d["measurements"][1] = d["measurements"][0]; }),
         "$.measurements[1]: a second measurement of chain unfused"},
        {"timeline backwards", edited([](auto& d) { d["measurements"][0]["timeline"]["spans"][0]["end_ms"] = -1.0; }),
         "$.measurements[0].timeline.spans[0]: end_ms is before start_ms"},
        {"negative counter bytes", edited([](auto& d) { d["measurements"][0]["measured_bytes"]["bytes"] = -5; }),
         "$.measurements[0].measured_bytes.bytes: expected a value >= 0"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        app::Recording out;
        out.key = "untouched";
        const std::string why = app::parse_recording_json(c.text, out);
        INFO(why);
        CHECK(why.rfind(c.message, 0) == 0);
        CHECK(out.key == "untouched");  // nothing half-loaded
        CHECK(out.measurements.empty());
    }

    // From a file, the message starts with its path.
    fl_test::TempDir dir;
    const fs::path broken = dir.path / "h100-2026-01-03" / "recording.json";
    write_text(broken, good.substr(0, 100));
    app::Recording out;
    const std::string why = app::load_recording(broken.string(), out);
    CHECK(why.rfind(broken.string() + ": not JSON (truncated?", 0) == 0);
    CHECK(app::load_recording((dir.path / "missing.json").string(), out).find(": cannot read: ") != std::string::npos);
}

TEST_CASE("a folder of recordings: readable ones load, a broken one is named, the rest goes on", "[recording]") {
    fl_test::TempDir dir;
    const std::string good = read_text(kFixture);
    write_text(dir.path / "h100-2026-01-02" / "recording.json", good);
    write_text(dir.path / "h200-2026-01-03" / "recording.json", good.substr(0, good.size() - 40));
    write_text(dir.path / "copy" / "recording.json", good);  // the same key again
    write_text(dir.path / "notes" / "README.md", "not a recording");
    const app::RecordingCatalog c = app::load_recordings(dir.path.string());
    REQUIRE(c.recordings.size() == 1);
    CHECK(c.recordings[0]->key == "h100-2026-01-02");
    REQUIRE(c.errors.size() == 2);
    const std::string all = c.errors[0] + "\n" + c.errors[1];
    CHECK(all.find((dir.path / "h200-2026-01-03" / "recording.json").string() + ": not JSON") != std::string::npos);
    CHECK(all.find("a second recording h100-2026-01-02") != std::string::npos);

    CHECK(app::find_recording(c, "h100-2026-01-02") == c.recordings[0]);
    CHECK(app::find_recording(c, "H100-2026-01-02") == c.recordings[0]);
    CHECK(app::find_recording(c, "H100 (recorded 2026-01-02)") == c.recordings[0]);
    CHECK(app::find_recording(c, "h100") == c.recordings[0]);  // the card's newest
    CHECK(app::find_recording(c, "h200") == nullptr);
    CHECK(app::load_recordings((dir.path / "none").string()).recordings.empty());
}

TEST_CASE("backend words of --backend: gpu, a simulated GPU, a recording by key, label or recorded:card", "[recording][cli]") {
    const RecordingsFolder folder(kFixtureDir);
    std::string why;
    CHECK(app::backend_setting("gpu", &why) == "gpu");
    CHECK(app::backend_setting("H100", &why) == "H100");  // the card alone is the simulated GPU
    CHECK(app::backend_setting("sim:h200", &why) == "H200");
    CHECK(app::backend_setting("h100-2026-01-02", &why) == "recorded:h100-2026-01-02");
    CHECK(app::backend_setting("H100 (recorded 2026-01-02)", &why) == "recorded:h100-2026-01-02");
    CHECK(app::backend_setting("recorded:h100", &why) == "recorded:h100-2026-01-02");
    CHECK(app::backend_setting("recorded:h200", &why).empty());
    CHECK(app::backend_setting("sim:h100-2026-01-02", &why).empty());
    CHECK(app::backend_setting("nope", &why).empty());
    CHECK(why.find("legal: gpu, V100") != std::string::npos);
    CHECK(why.find("h100-2026-01-02") != std::string::npos);
    CHECK(app::backend_setting_label("recorded:h100-2026-01-02") == "H100 (recorded 2026-01-02)");
    CHECK(app::backend_setting_label("H200") == "simulated H200");
}

TEST_CASE("the runner answers a recorded batch - settings resolve to the recording and keep it", "[recording][runner]") {
    const RecordingsFolder folder(kFixtureDir);
    app::Settings s;
    s.backend = "recorded:h100-2026-01-02";
    s.params = chain_8192();
    app::Runner runner;
    const app::ResolvedBackend b = app::resolve_backend(s, runner);
    REQUIRE(b.ready);
    CHECK(b.kind == kernels::BackendKind::recorded);
    CHECK(b.recording == "h100-2026-01-02");
    CHECK(b.recording_date == "2026-01-02");
    CHECK(b.sim_key == "H100");
    CHECK(b.device.name == "H100 test fixture (not a measurement)");
    CHECK(app::recording_line(b).rfind("H100 (recorded 2026-01-02): measured on H100 test fixture", 0) == 0);
    const std::vector<kernels::Job> batch = app::make_batch(s, b);
    REQUIRE(batch.size() == 3);
    for (const kernels::Job& j : batch) CHECK(j.recording == "h100-2026-01-02");
    const std::vector<kernels::Measurement> results = runner.run_blocking(batch);
    REQUIRE(results.size() == 3);
    for (const kernels::Measurement& m : results) {
        CHECK(m.ok);
        CHECK(m.recorded());
        CHECK_FALSE(app::is_stale(m, s, b));
    }
    app::Settings other = s;
    other.backend = "H100";
    CHECK(app::is_stale(results[0], other, app::resolve_backend(other, runner)));

    // The settings file keeps a recording that exists and drops one that does not.
    app::Settings loaded;
    CHECK(app::settings_from_json(app::settings_to_json(s), loaded).empty());
    CHECK(loaded.backend == "recorded:h100-2026-01-02");
    app::Settings gone;
    const std::string note = app::settings_from_json(R"({"backend": "recorded:h100-1999-01-01"})", gone);
    CHECK(note.find("backend") != std::string::npos);
    CHECK(gone.backend.empty());
    // A recording that disappeared since: the automatic choice (here the simulated H100).
    app::Settings stale_setting;
    stale_setting.backend = "recorded:h100-1999-01-01";
    runner.wait_until_probed();
    CHECK(app::resolve_backend(stale_setting, runner).kind != kernels::BackendKind::recorded);
}

TEST_CASE("lesson numbers say recorded with the date, and a recorded backend's fallbacks are found", "[recording][lesson]") {
    const auto r = fixture();
    const auto backend = app::make_recorded_backend(r);
    std::vector<kernels::Measurement> results = {backend->run(recorded_job(chain_8192(), "fused"), kernels::CancelToken{})};
    app::ExprContext ctx;
    ctx.params = chain_8192();
    ctx.selected = {"unfused", "fused"};
    ctx.device = &r->device;
    ctx.results = &results;
    const app::ExprValue v = app::evaluate(app::LessonExpr{"measured.time", {"fused"}, "measured.time fused", {}, {}}, ctx);
    REQUIRE(v.state == app::ExprValue::State::value);
    CHECK(v.text.find("(recorded 2026-01-02)") != std::string::npos);
    CHECK(v.recorded == "recorded on H100 test fixture (not a measurement), 2026-01-02");
    CHECK_FALSE(v.simulated);

    // The recording lacks unfused at 4096 rows: its simulated answer counts for the lesson too.
    kernels::Params other = chain_8192();
    other.set("rows", 4096);
    results = {backend->run(recorded_job(other, "unfused"), kernels::CancelToken{})};
    ctx.params = other;
    const app::LessonExpr e{"measured.time", {"unfused"}, "measured.time unfused", {}, {}};
    CHECK(app::evaluate(e, ctx).state != app::ExprValue::State::value);  // its device is not the recording's
    ctx.fallback_device = &kernels::find_sim_gpu("H100")->info;
    const app::ExprValue fallback = app::evaluate(e, ctx);
    REQUIRE(fallback.state == app::ExprValue::State::value);
    CHECK(fallback.simulated);
    CHECK(fallback.text.find("(simulated)") != std::string::npos);
}

TEST_CASE("recording points: every lesson step's parameters and the GUI's default sweeps, once each", "[recording][record]") {
    std::vector<app::Lesson> lessons;
    std::vector<app::LessonError> errors;
    app::load_all_lessons(lessons, errors);
    REQUIRE(errors.empty());
    REQUIRE_FALSE(lessons.empty());
    const std::vector<app::RecordPoint> points = app::recording_points(lessons);
    std::set<std::string> keys;
    for (const app::RecordPoint& p : points) {
        CHECK(keys.insert(app::point_key(p.params, "")).second);  // no point twice
        CHECK(kernels::validate(p.params).empty());
        CHECK_FALSE(p.origins.empty());
    }
    for (const app::Lesson& l : lessons)
        for (const app::LessonStep& step : l.steps) {
            INFO(l.name << ": " << step.title);
            const auto it = std::find_if(points.begin(), points.end(), [&](const app::RecordPoint& p) {
                return p.params == step.state.params;
            });
            REQUIRE(it != points.end());
            for (const std::string& v : step.state.variants)
                CHECK(std::find(it->shown.begin(), it->shown.end(), v) != it->shown.end());
        }
    // The sweep view's default sweeps from each workload's defaults: attention's N, and each tile size.
    for (double n : {256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0}) {
        kernels::Params p = kernels::default_params("attention");
        p.set("N", n);
        CHECK(keys.count(app::point_key(p, "")) == 1);
    }
    for (double br : {16.0, 32.0, 64.0, 128.0}) {
        kernels::Params p = kernels::default_params("attention");
        p.set("br", br);
        CHECK(keys.count(app::point_key(p, "")) == 1);
    }
    // A tile choice no variant takes at the defaults' other sizes is left out, by the variants' own refusals:
    // skip's default d is 64, where Bc = 176 (flash_wgmma's d = 128 tile) is refused by all seven variants on
    // every simulated GPU. attention's Bc = 176 stays: naive has no tile and takes it.
    const auto refused_everywhere = [](const kernels::Params& p) {
        for (const kernels::VariantInfo& v : kernels::variants(p.workload))
            for (const kernels::SimGpu& gpu : kernels::sim_gpus())
                if (kernels::device_refusal(v.name, p, kernels::total_memory_budget(gpu.info)).empty()) return false;
        return true;
    };
    kernels::Params skip176 = kernels::default_params("skip");
    skip176.set("bc", 176);
    REQUIRE(skip176.get("d") == 64);
    CHECK(refused_everywhere(skip176));
    CHECK(keys.count(app::point_key(skip176, "")) == 0);
    kernels::Params skip128 = kernels::default_params("skip");
    skip128.set("bc", 128);
    CHECK_FALSE(refused_everywhere(skip128));
    CHECK(keys.count(app::point_key(skip128, "")) == 1);
    kernels::Params attention176 = kernels::default_params("attention");
    attention176.set("bc", 176);
    CHECK_FALSE(refused_everywhere(attention176));
    CHECK(keys.count(app::point_key(attention176, "")) == 1);
    size_t tile_points = 0;
    for (const app::RecordPoint& p : points)
        for (const std::string& origin : p.origins)
            for (const kernels::ParamSpec& spec : kernels::param_specs(p.params.workload))
                if (spec.kind == kernels::ParamKind::choice && spec.log_scale && origin == "sweep " + p.params.workload + " " + spec.name) {
                    INFO(origin << ": " << kernels::describe(p.params));
                    CHECK_FALSE(refused_everywhere(p.params));  // a tile sweep's point has a variant that runs it
                    ++tile_points;
                }
    CHECK(tile_points > 10);
    CHECK(app::record_reps(10, 1.0) == 10);
    CHECK(app::record_reps(10, 250.0) == 4);
    CHECK(app::record_reps(10, 3000.0) == app::kMinRecordReps);
}

namespace {

// A shipped recording loads, is of its card, stays small, and has every variant a lesson step shows
// (or the recorded GPU refuses it). A lesson changed since the recording falls back to the simulated
// GPU (and is listed here): re-record.
// The newest recordings of each card (2026-11-28, taken with this session's kernels) are held to it;
// the 2026-11-27 ones stay for the simulator's fit and its held-out study (tests/sim_accuracy_test.cpp).
void check_shipped_recording(const std::string& path, const std::string& card) {
    INFO(path);
    app::Recording r;
    const std::string why = app::load_recording(path, r);
    INFO(why);
    REQUIRE(why.empty());
    CHECK(r.card == card);
    CHECK(r.device.name.find(card) != std::string::npos);
    CHECK(fs::file_size(path) < (4u << 20));  // a few MiB at most
    std::vector<app::Lesson> lessons;
    std::vector<app::LessonError> errors;
    app::load_all_lessons(lessons, errors);
    size_t shown = 0, covered = 0;
    for (const app::Lesson& l : lessons)
        for (const app::LessonStep& step : l.steps)
            for (const std::string& v : step.state.variants) {
                ++shown;
                const bool refused =
                    !kernels::device_refusal(v, step.state.params, kernels::total_memory_budget(r.device)).empty();
                // The step's `auto` tile resolved as the recorded backend resolves it (among this
                // card's recorded tiles), so the lookup asks for the tile a class would see.
                const kernels::Params ran = app::pick_auto_for(v, step.state.params, r.device).params;
                if (r.find(ran, v) || refused) ++covered;
                else WARN("not in the recording: " << l.name << " step \"" << step.title << "\" " << v);
            }
    CHECK(covered >= shown * 9 / 10);
}

}  // namespace

TEST_CASE("the newest H100 and H200 recordings load and cover the lessons", "[recording]") {
    check_shipped_recording(std::string(FL_SOURCE_DIR) + "/assets/recordings/h100-2026-11-28/recording.json", "H100");
    check_shipped_recording(std::string(FL_SOURCE_DIR) + "/assets/recordings/h200-2026-11-28/recording.json", "H200");
}
