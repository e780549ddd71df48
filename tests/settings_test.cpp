// Settings: they survive a round trip; a corrupt or hand-broken file gives defaults plus a message
// naming what was ignored, never a crash; saving is atomic and reports unwritable paths.
#include "app/core/settings.h"

#include "app/core/jobs.h"
#include "kernels/core/registry.h"

#include "temp_dir.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace fs = std::filesystem;

namespace {

using fl_test::TempDir;

app::Settings non_default_settings() {
    app::Settings s;
    s.font_scale = 2.25f;
    s.theme = viz::Theme::light;
    s.params.workload = "bias_gelu";
    s.params.dtype = kernels::DType::f16;
    s.params.set("rows", 2048);
    s.params.set("hidden", 1024);
    s.params.set("seed", 77);
    s.params.set("N", 2048);  // attention's, kept while another workload is selected
    s.params.set("d", 128);
    s.params.set("heads", 8);
    s.params.set("br", 32);
    s.params.set("bc", 16);
    s.params.set("causal", 1);
    s.variants["bias_gelu"] = {"fused"};
    s.variants["attention"] = {"naive", "flash_tc"};
    s.variants["chain"] = {"unfused"};
    s.backend = "A100";
    s.reps = 33;
    s.export_dir = "/tmp/exports with space";
    return s;
}

}  // namespace

TEST_CASE("settings: JSON round trip keeps every field", "[settings]") {
    const app::Settings before = non_default_settings();
    app::Settings after;
    REQUIRE(app::settings_from_json(app::settings_to_json(before), after).empty());
    CHECK(after == before);
}

TEST_CASE("settings: attention selected round-trips, and files without attention keys still load", "[settings][attention]") {
    app::Settings before = non_default_settings();
    before.params.workload = "attention";
    app::Settings after;
    REQUIRE(app::settings_from_json(app::settings_to_json(before), after).empty());
    CHECK(after == before);

    // A settings file from before attention existed: its keys load, attention keeps its defaults.
    const std::string old = R"({"font_scale": 1.5, "params": {"workload": "chain", "dtype": "fp16", "rows": 512,
        "hidden": 256, "dropout": 0.2, "seed": 5}, "variants": {"chain": ["fused"]}, "backend": "H100", "reps": 10})";
    app::Settings loaded;
    CHECK(app::settings_from_json(old, loaded).empty());
    CHECK(loaded.params.get_int("rows") == 512);
    CHECK(loaded.params.get_or("N", -1) == -1);  // never set: attention will read its default
    loaded.params.workload = "attention";
    CHECK(loaded.params.get_int("N") == kernels::default_params("attention").get_int("N"));
    CHECK_FALSE(loaded.params.get_bool("causal"));

    // A bad attention value costs only that value.
    const std::string bad = R"({"params": {"workload": "attention", "br": 48, "N": 4096, "causal": true}})";
    app::Settings partial;
    CHECK_THAT(app::settings_from_json(bad, partial), Catch::Contains("params.br"));
    CHECK(partial.params.get_int("br") == kernels::default_params("attention").get_int("br"));
    CHECK(partial.params.get_int("N") == 4096);
    CHECK(partial.params.get_bool("causal"));
}

TEST_CASE("settings: corrupt text gives defaults and a message", "[settings]") {
    for (const char* text : {"{{{", "", "[1, 2, 3]", "\"just a string\"", "{\"font_scale\": "}) {
        app::Settings s = non_default_settings();
        const std::string message = app::settings_from_json(text, s);
        CAPTURE(text);
        CHECK_FALSE(message.empty());
        CHECK(s == app::Settings{});
    }
}

TEST_CASE("settings: a bad field costs only that field", "[settings]") {
    app::Settings s;
    const std::string message = app::settings_from_json(
        R"({"font_scale": 9, "theme": "purple", "backend": "TPUv9", "reps": -3,
            "params": {"workload": "chain", "rows": 2048, "hidden": 0, "dtype": "fp64"},
            "variants": {"chain": ["fused", "quantum"], "nonsense": ["x"]},
            "export_dir": "/data"})",
        s);
    CHECK(message.find("font_scale") != std::string::npos);
    CHECK(message.find("theme") != std::string::npos);
    CHECK(message.find("backend") != std::string::npos);
    CHECK(message.find("reps") != std::string::npos);
    CHECK(message.find("params.hidden") != std::string::npos);
    CHECK(message.find("params.dtype") != std::string::npos);
    CHECK(message.find("variants.nonsense") != std::string::npos);
    const app::Settings defaults;
    CHECK(s.font_scale == defaults.font_scale);
    CHECK(s.theme == defaults.theme);
    CHECK(s.backend == defaults.backend);
    CHECK(s.reps == defaults.reps);
    CHECK(s.params.get_int("rows") == 2048);                    // valid fields are kept
    CHECK(s.params.get_int("hidden") == defaults.params.get_int("hidden"));
    CHECK(s.export_dir == "/data");
    CHECK(app::selected_variants(s) == std::vector<std::string>{"fused"});
}

TEST_CASE("settings: selected variants default to all of the workload's", "[settings]") {
    app::Settings s;
    std::vector<std::string> all;
    for (const kernels::VariantInfo& v : kernels::variants(s.params.workload)) all.push_back(v.name);
    CHECK(app::selected_variants(s) == all);
}

TEST_CASE("settings: save then load from disk, a missing file is silent", "[settings]") {
    TempDir dir;
    const std::string path = (dir.path / "nested" / "settings.json").string();
    app::Settings loaded = non_default_settings();
    CHECK(app::load_settings(path, loaded).empty());
    CHECK(loaded == app::Settings{});

    REQUIRE(app::save_settings(path, non_default_settings()).empty());
    CHECK(app::load_settings(path, loaded).empty());
    CHECK(loaded == non_default_settings());
    // Only the settings file is left behind: the atomic write's temporary is gone.
    CHECK(std::distance(fs::directory_iterator(dir.path / "nested"), fs::directory_iterator()) == 1);
}

TEST_CASE("settings: a corrupt file on disk loads as defaults with a message naming it", "[settings]") {
    TempDir dir;
    const std::string path = (dir.path / "settings.json").string();
    std::ofstream(path) << "{ \"font_scale\": 2.0, ";  // cut off mid-write by a crash
    app::Settings s;
    const std::string message = app::load_settings(path, s);
    CHECK(message.find("not valid JSON") != std::string::npos);
    CHECK(message.find(path) != std::string::npos);
    CHECK(s == app::Settings{});
}

TEST_CASE("settings: saving under a file reports the error", "[settings]") {
    TempDir dir;
    const fs::path blocker = dir.path / "a_file";
    std::ofstream(blocker) << "x";
    const std::string error = app::save_settings((blocker / "settings.json").string(), app::Settings{});
    CHECK_FALSE(error.empty());
}

TEST_CASE("settings: export file names are new, absolute and carry the workload", "[settings]") {
    TempDir dir;
    app::Settings s;
    s.export_dir = dir.path.string();
    const std::string first = app::export_path(s, "csv");
    CHECK(fs::path(first).is_absolute());
    CHECK(first.find("fusionlab-chain-") != std::string::npos);
    CHECK(fs::path(first).extension() == ".csv");
    std::ofstream(first) << "taken";
    CHECK(app::export_path(s, "csv") != first);
}
