// Export: atomic writes leave the old file or the new one and never a temporary; CSV quotes what it
// must; JSON parses back with every field; PNG decodes to the requested size and orientation; a
// lesson bundle's step carries its recall questions and answers and, for a @sweep step, the sweep.
#include "app/files/export.h"
#include "app/lessons/lesson_bundle.h"

#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include "temp_dir.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <stb/stb_image.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using fl_test::TempDir;

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// RFC 4180 reader, enough to check our writer: quoted fields, doubled quotes, CRLF records.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(field);
            field.clear();
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            row.push_back(field);
            field.clear();
            rows.push_back(row);
            row.clear();
            ++i;
        } else {
            field += c;
        }
    }
    if (!field.empty() || !row.empty()) {
        row.push_back(field);
        rows.push_back(row);
    }
    return rows;
}

// One measurement from the real simulated backend, plus one failed one with awkward text.
std::vector<kernels::Measurement> sample_measurements() {
    auto backend = kernels::make_sim_backend(*kernels::find_sim_gpu("H100"));
    kernels::Job job;
    job.id = 7;
    job.params.workload = "chain";
    job.params.set("rows", 256);
    job.params.set("hidden", 1024);
    job.params.set("seed", 9007199254740991ULL);  // needs all 53 bits: must not be rounded
    job.variant = "unfused";
    kernels::Measurement good = backend->run(job, kernels::CancelToken{});
    good.job = job;
    if (good.build_type.empty()) good.build_type = kernels::build_type();

    kernels::Measurement bad;
    bad.job.id = 8;
    bad.job.params.workload = "bias_gelu";
    bad.job.variant = "fused";
    bad.job.backend = kernels::BackendKind::gpu;
    bad.ok = false;
    bad.device.name = "Lab \"GPU\", rack 3";
    bad.error = "out of memory, \"cudaMalloc\" failed\nwhile allocating x";
    return {good, bad};
}

size_t column_index(const std::vector<std::string>& header, const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<size_t>(it - header.begin());
}

}  // namespace

TEST_CASE("write_file_atomic: writes, replaces and leaves no temporary file", "[export]") {
    TempDir dir;
    const std::string target = (dir.path / "out.csv").string();
    REQUIRE(app::write_file_atomic(target, "first").empty());
    CHECK(read_file(target) == "first");
    REQUIRE(app::write_file_atomic(target, "second, longer").empty());
    CHECK(read_file(target) == "second, longer");
    REQUIRE(app::write_file_atomic(target, "").empty());
    CHECK(read_file(target).empty());
    CHECK(dir.entries() == std::vector<std::string>{"out.csv"});
}

TEST_CASE("write_file_atomic: a missing folder gives a message and writes nothing", "[export]") {
    TempDir dir;
    const fs::path missing = dir.path / "no_such_dir" / "x.csv";
    const std::string error = app::write_file_atomic(missing.string(), "data");
    CHECK_THAT(error, Catch::StartsWith("cannot write " + missing.string() + ": "));
    CHECK_THAT(error, Catch::Contains("does not exist"));
    CHECK_FALSE(fs::exists(missing));
    CHECK(dir.entries().empty());
    CHECK_THAT(app::check_writable(missing.string()), Catch::Contains("does not exist"));
}

TEST_CASE("write_file_atomic: a folder or a file in the way gives a message", "[export]") {
    TempDir dir;
    fs::create_directories(dir.path / "sub");
    CHECK_THAT(app::write_file_atomic((dir.path / "sub").string(), "x"), Catch::Contains("folder"));
    REQUIRE(app::write_file_atomic((dir.path / "plain").string(), "x").empty());
    const std::string under_file = (dir.path / "plain" / "y.csv").string();
    CHECK_THAT(app::write_file_atomic(under_file, "x"), Catch::Contains("not a folder"));
    CHECK_THAT(app::write_file_atomic("", "x"), Catch::Contains("empty path"));
    CHECK(dir.entries() == std::vector<std::string>{"plain", "sub"});
    CHECK(read_file(dir.path / "plain") == "x");
}

TEST_CASE("write_file_atomic: an existing target survives a failed write", "[export]") {
    TempDir dir;
    const fs::path target = dir.path / "keep.json";
    REQUIRE(app::write_file_atomic(target.string(), "old contents").empty());

    // A read-only folder makes the temporary file impossible to create. Administrators ignore
    // permissions, so this part only runs where the permission really takes effect.
    fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
    const bool read_only_works = !std::ofstream(dir.path / "probe").is_open();
    if (read_only_works) {
        const std::string error = app::write_file_atomic(target.string(), "new contents");
        CHECK_THAT(error, Catch::StartsWith("cannot write " + target.string()));
        CHECK_THAT(app::check_writable(target.string()), Catch::StartsWith("cannot write"));
    } else {
        WARN("permissions do not restrict this user (root?): read-only folder case skipped");
    }
    fs::permissions(dir.path, fs::perms::owner_all, fs::perm_options::replace);
    std::error_code ignored;
    fs::remove(dir.path / "probe", ignored);
    CHECK(read_file(target) == "old contents");
    CHECK(dir.entries() == std::vector<std::string>{"keep.json"});

    // A PNG that cannot be encoded must not touch the existing file either.
    const std::string png_error = app::export_png(target.string(), 4, 4, std::vector<uint8_t>(10));
    CHECK_THAT(png_error, Catch::Contains("needs 64"));
    CHECK(read_file(target) == "old contents");

#ifdef __linux__
    // procfs refuses new files, even for root: the write fails after the checks, at creation.
    const std::string proc_error = app::write_file_atomic("/proc/version", "replaced?");
    CHECK_THAT(proc_error, Catch::StartsWith("cannot write /proc/version: "));
    CHECK_THAT(read_file("/proc/version"), Catch::StartsWith("Linux"));
#endif
}

TEST_CASE("measurements_csv: one header, one row per measurement, quoted fields", "[export]") {
    const auto ms = sample_measurements();
    const std::string csv = app::measurements_csv(ms);
    const auto rows = parse_csv(csv);
    REQUIRE(rows.size() == ms.size() + 1);
    const auto& header = rows[0];
    for (const auto& row : rows) CHECK(row.size() == header.size());
    for (const char* name : {"timestamp", "device", "simulated", "driver", "runtime", "compute_capability",
                             "sm_clock_mhz", "mem_clock_mhz", "build_type", "backend", "workload", "variant", "dtype",
                             "rows", "hidden", "dropout", "seed", "N", "d", "heads", "br", "bc", "causal", "reps", "median_ms", "min_ms", "max_ms",
                             "modeled_bytes_read", "modeled_bytes_written", "modeled_l2_bytes", "modeled_shared_bytes",
                             "min_bytes", "flops", "achieved_gbps", "limiter",
                             "ceiling_gbps", "ceiling_source", "pct_of_ceiling", "achieved_gflops", "checked",
                             "max_abs_error", "rel_l2_error", "check_note", "timing_note", "ok", "refused", "error"})
        CHECK(std::find(header.begin(), header.end(), name) != header.end());

    const auto& good = rows[1];
    CHECK(good[column_index(header, "workload")] == "chain");
    CHECK(good[column_index(header, "variant")] == "unfused");
    CHECK(good[column_index(header, "rows")] == "256");
    CHECK(good[column_index(header, "hidden")] == "1024");
    CHECK(good[column_index(header, "seed")] == "9007199254740991");
    CHECK(good[column_index(header, "simulated")] == "true");
    CHECK(good[column_index(header, "ceiling_source")] == "calibrated copy");  // simulated: the calibration's copy rate
    CHECK(good[column_index(header, "ok")] == "true");
    CHECK(std::stoull(good[column_index(header, "modeled_bytes_read")]) == ms[0].bytes_read);
    CHECK(std::stod(good[column_index(header, "median_ms")]) == Approx(ms[0].time.median_ms));

    const auto& bad = rows[2];
    CHECK(bad[column_index(header, "device")] == "Lab \"GPU\", rack 3");
    CHECK(bad[column_index(header, "error")] == ms[1].error);
    CHECK(bad[column_index(header, "ok")] == "false");
    CHECK(bad[column_index(header, "median_ms")].empty());     // no time for a failed run, not 0
    CHECK(bad[column_index(header, "dropout")].empty());       // bias_gelu has no dropout
    CHECK(bad[column_index(header, "N")].empty());             // nor attention's parameters
    CHECK(good[column_index(header, "N")].empty());
    CHECK(bad[column_index(header, "max_abs_error")].empty()); // not checked: empty, not 0
}

TEST_CASE("measurements_csv / json: attention's parameter columns, refusals marked", "[export][attention]") {
    auto backend = kernels::make_sim_backend(*kernels::find_sim_gpu("H100"));
    kernels::Job job;
    job.params.workload = "attention";
    job.params.set("N", 4096);
    job.params.set("d", 128);
    job.params.set("heads", 32);
    job.params.set("br", 32);
    job.params.set("bc", 16);
    job.params.set("causal", 1);
    job.params.dtype = kernels::DType::f16;
    job.variant = "flash";
    const kernels::Measurement ok = backend->run(job, {});
    REQUIRE(ok.ok);
    job.params.dtype = kernels::DType::f32;
    job.variant = "flash_tc";
    const kernels::Measurement refused = backend->run(job, {});
    REQUIRE(refused.refused);

    const auto rows = parse_csv(app::measurements_csv({ok, refused}));
    REQUIRE(rows.size() == 3);
    const auto& header = rows[0];
    const auto& r = rows[1];
    CHECK(r[column_index(header, "workload")] == "attention");
    CHECK(r[column_index(header, "N")] == "4096");
    CHECK(r[column_index(header, "d")] == "128");
    CHECK(r[column_index(header, "heads")] == "32");
    CHECK(r[column_index(header, "br")] == "32");
    CHECK(r[column_index(header, "bc")] == "16");
    CHECK(r[column_index(header, "causal")] == "1");
    CHECK(r[column_index(header, "rows")].empty());  // not an attention parameter
    CHECK(r[column_index(header, "refused")] == "false");
    CHECK(rows[2][column_index(header, "refused")] == "true");
    CHECK(rows[2][column_index(header, "ok")] == "false");

    const auto doc = nlohmann::json::parse(app::measurements_json({ok}));
    const auto& params = doc["measurements"][0]["params"];
    CHECK(params["N"] == 4096);
    CHECK(params["d"] == 128);
    CHECK(params["heads"] == 32);
    CHECK(params["br"] == 32);
    CHECK(params["bc"] == 16);
    CHECK(params["causal"] == true);
    CHECK_FALSE(params.contains("rows"));
}

TEST_CASE("measurements_json: parses back with the device, params and per-kernel times", "[export]") {
    const auto ms = sample_measurements();
    const auto doc = nlohmann::json::parse(app::measurements_json(ms));
    REQUIRE(doc["measurements"].size() == ms.size());
    CHECK(doc["tool"] == "fusionlab");
    CHECK(doc.contains("exported_at"));

    const auto& good = doc["measurements"][0];
    CHECK(good["ok"] == true);
    CHECK(good["device"]["name"] == ms[0].device.name);
    CHECK(good["device"]["simulated"] == true);
    CHECK(good["backend"] == "simulated");
    CHECK(good["workload"] == "chain");
    CHECK(good["variant"] == "unfused");
    CHECK(good["params"]["rows"] == 256);
    CHECK(good["params"]["hidden"] == 1024);
    CHECK(good["params"]["seed"].get<uint64_t>() == 9007199254740991ULL);
    CHECK(good["params"]["dtype"] == "bf16");
    CHECK(good["time"]["median_ms"].get<double>() == Approx(ms[0].time.median_ms));
    CHECK(good["modeled"]["bytes_read"].get<uint64_t>() == ms[0].bytes_read);
    CHECK(good["modeled"]["bytes_written"].get<uint64_t>() == ms[0].bytes_written);
    CHECK(good["modeled"]["flops"].get<double>() == Approx(ms[0].flops));
    CHECK(good["achieved"]["ceiling_source"] == "calibrated copy");
    CHECK(good["achieved"]["gbps"].get<double>() == Approx(ms[0].achieved_gbps()));
    REQUIRE(good["kernels"].size() == ms[0].kernels.size());
    REQUIRE_FALSE(ms[0].kernels.empty());
    CHECK(good["kernels"][0]["name"] == ms[0].kernels[0].name);
    CHECK(good["kernels"][0]["time"]["median_ms"].get<double>() == Approx(ms[0].kernels[0].time.median_ms));
    CHECK(good["check"]["checked"] == ms[0].checked);
    // The model's limiter travels with every result (a simulated one: the same as its limiter).
    REQUIRE_FALSE(ms[0].model_limiter.empty());
    CHECK(good["model_limiter"] == ms[0].model_limiter);
    CHECK(good["limiter"] == ms[0].limiter);

    const auto& bad = doc["measurements"][1];
    CHECK(bad["ok"] == false);
    CHECK(bad["error"] == ms[1].error);
    CHECK(bad["time"]["median_ms"].is_null());
    CHECK(bad["check"]["max_abs_error"].is_null());
    CHECK_FALSE(bad["params"].contains("dropout"));
}

TEST_CASE("export_csv / export_json write the files", "[export]") {
    TempDir dir;
    const auto ms = sample_measurements();
    REQUIRE(app::export_csv((dir.path / "m.csv").string(), ms).empty());
    REQUIRE(app::export_json((dir.path / "m.json").string(), ms).empty());
    CHECK(parse_csv(read_file(dir.path / "m.csv")).size() == ms.size() + 1);
    CHECK(nlohmann::json::parse(read_file(dir.path / "m.json"))["measurements"].size() == ms.size());
    CHECK(dir.entries() == std::vector<std::string>{"m.csv", "m.json"});
}

TEST_CASE("export_png: a PNG of the right size, top row first", "[export]") {
    TempDir dir;
    const int width = 7, height = 5;
    std::vector<uint8_t> rgba(size_t(width) * height * 4);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            uint8_t* px = &rgba[(size_t(y) * width + x) * 4];
            px[0] = uint8_t(x * 30);
            px[1] = uint8_t(y * 50);
            px[2] = 200;
            px[3] = 255;
        }
    const fs::path path = dir.path / "shot.png";
    REQUIRE(app::export_png(path.string(), width, height, rgba).empty());

    const std::string bytes = read_file(path);
    const std::string signature = "\x89PNG\r\n\x1a\n";
    REQUIRE(bytes.size() > signature.size());
    CHECK(bytes.compare(0, signature.size(), signature) == 0);

    int w = 0, h = 0, channels = 0;
    stbi_uc* pixels = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), int(bytes.size()), &w,
                                            &h, &channels, 4);
    REQUIRE(pixels != nullptr);
    CHECK(w == width);
    CHECK(h == height);
    CHECK(std::equal(rgba.begin(), rgba.end(), pixels));
    stbi_image_free(pixels);
    CHECK(dir.entries() == std::vector<std::string>{"shot.png"});

    CHECK_THAT(app::export_png((dir.path / "empty.png").string(), 0, 5, {}), Catch::Contains("empty"));
    CHECK_FALSE(fs::exists(dir.path / "empty.png"));
}

TEST_CASE("bandwidth_ceiling prefers the measured copy and says which it used", "[export]") {
    kernels::DeviceInfo d;
    CHECK(app::bandwidth_ceiling(d).source == "unavailable");
    CHECK(app::percent_of_ceiling(100, app::bandwidth_ceiling(d)) == 0);
    d.peak_bw_gbps = 4800;
    CHECK(app::bandwidth_ceiling(d).source == "datasheet peak");
    d.measured_copy_gbps = 4200;
    const auto c = app::bandwidth_ceiling(d);
    CHECK(c.source == "measured copy");
    CHECK(c.gbps == 4200);
    CHECK(app::percent_of_ceiling(2100, c) == Approx(50));
}

TEST_CASE("bundle: a step's text carries its recall questions and answers - a sweep step its sweep's data", "[export]") {
    TempDir tmp;
    app::Lesson lesson;
    lesson.name = "09-test";
    lesson.title = "A test lesson";
    kernels::DeviceInfo device;
    device.name = "H100 (simulated)";
    device.simulated = true;
    app::BundleStep step;
    step.index = 6;
    step.title = "Sweep the size";
    step.prose = "The curves cross at N = 2048.\n";
    step.recalls = {{"Why does flash move fewer bytes?", "S and P never leave the chip."},
                    {"What sets naive's time?", "Its DRAM bytes: 2.03 GiB."}};
    kernels::Measurement swept;
    swept.ok = true;
    swept.job.params = kernels::default_params("attention");
    swept.job.variant = "flash_tc";
    swept.job.params.set("N", 4096);
    swept.time.median_ms = 1.25;
    step.sweep = {swept, swept};
    step.sweep[1].job.params.set("N", 8192);
    step.width = 2;
    step.height = 2;
    step.rgba.assign(16, 100);

    const std::string text = app::bundle_step_text(step);
    CHECK(text.find("# Sweep the size") == 0);
    CHECK(text.find("## Recall") != std::string::npos);
    CHECK(text.find("Q1. Why does flash move fewer bytes?\nA1. S and P never leave the chip.") != std::string::npos);
    CHECK(text.find("Q2. What sets naive's time?\nA2. Its DRAM bytes: 2.03 GiB.") != std::string::npos);

    const fs::path dir = tmp.path / "bundle";
    app::BundleWriter w;
    REQUIRE(w.begin(dir.string(), lesson, device).empty());
    REQUIRE(w.add_step(step).empty());
    REQUIRE(w.finish().empty());
    CHECK(read_file(dir / "step-07.txt") == text);
    const std::string sweep_csv = read_file(dir / "step-07-sweep.csv");
    const auto rows = parse_csv(sweep_csv);
    REQUIRE(rows.size() == 3);  // header and the two sizes
    CHECK(sweep_csv.find("8192") != std::string::npos);
    const nlohmann::json sweep_json = nlohmann::json::parse(read_file(dir / "step-07-sweep.json"));
    CHECK(sweep_json.dump().find("flash_tc") != std::string::npos);
    const nlohmann::json index = nlohmann::json::parse(read_file(dir / "lesson.json"));
    CHECK(index["steps"][0]["sweep_measurements"] == 2);
    CHECK(index["steps"][0]["recalls"] == 2);

    // A step without a sweep writes no sweep files.
    app::BundleStep plain = step;
    plain.sweep.clear();
    plain.index = 0;
    app::BundleWriter again;
    REQUIRE(again.begin((tmp.path / "plain").string(), lesson, device).empty());
    REQUIRE(again.add_step(plain).empty());
    REQUIRE(again.finish().empty());
    CHECK_FALSE(fs::exists(tmp.path / "plain" / "step-01-sweep.csv"));
}
