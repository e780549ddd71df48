// PyTorch reference rows (app/files/reference.h): the file scripts/torch_reference.py writes is read
// strictly (a malformed field is named by its JSON path and nothing is half-loaded), rows match
// by workload, dtype and the parameters they name, and against a real GPU only its own rows show.
#include "app/files/reference.h"

#include "kernels/core/registry.h"

#include "temp_dir.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <sstream>

namespace {

const std::string kTestFile = std::string(FL_SOURCE_DIR) + "/tests/data/torch_reference_test.json";

std::string test_text() {
    std::ifstream in(kTestFile);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The test file with one edit; returns parse_reference_json's message.
std::string parse_edited(const std::function<void(nlohmann::json&)>& edit, app::ReferenceFile& out) {
    nlohmann::json doc = nlohmann::json::parse(test_text());
    edit(doc);
    out.path = "edited.json";
    return app::parse_reference_json(doc.dump(), out);
}

kernels::Params chain_64x1000() {
    kernels::Params p = kernels::default_params("chain");
    p.set("rows", 64).set("hidden", 1000).set("dropout", 0.1);
    p.dtype = kernels::DType::bf16;
    return p;
}

kernels::DeviceInfo device(const std::string& name, bool simulated) {
    kernels::DeviceInfo d;
    d.name = name;
    d.simulated = simulated;
    return d;
}

}  // namespace

TEST_CASE("reference file: the test file reads back every field, and rows of unknown workloads are counted") {
    app::ReferenceFile f;
    REQUIRE(app::load_reference_json(kTestFile, f).empty());
    REQUIRE(f.rows.size() == 3);
    CHECK(f.skipped_rows == 1);
    CHECK(f.skipped_workloads == "a_future_workload");
    const app::ReferenceRow& r = f.rows[0];
    CHECK(r.label == "PyTorch 9.9 eager");
    CHECK(r.impl == "eager");
    CHECK(r.device == "Test GPU (hand-written test data)");
    CHECK(r.workload == "chain");
    CHECK(r.dtype == kernels::DType::bf16);
    CHECK(r.has_time);
    CHECK(r.time.median_ms == 0.5);
    CHECK(r.time.reps == 50);
    CHECK(r.warmup == 5);
    CHECK(r.command == "hand-written test data");  // the file's command when the row has none
    CHECK(!f.rows[2].has_time);
    CHECK(f.rows[2].error.find("no cuDNN") != std::string::npos);
    CHECK(app::reference_caption(r) == "PyTorch 9.9 eager, measured on Test GPU (hand-written test data), 2026-01-02");
    CHECK(app::reference_short_label(r) == "PyTorch eager");
    CHECK(app::reference_short_label(f.rows[1]) == "torch.compile");
    CHECK(app::reference_short_label(f.rows[2]) == "SDPA cuDNN");
}

TEST_CASE("reference file: a malformed field is named by its JSON path and nothing is loaded") {
    struct Case {
        const char* what;
        std::function<void(nlohmann::json&)> edit;
        const char* message;
    };
    const Case cases[] = {
        {"wrong tool", [](nlohmann::json& d) { d["tool"] = "fusionlab"; }, "$.tool: not a reference file"},
        {"newer format", [](nlohmann::json& d) { d["format"] = 2; }, "$.format: 2 is not a format this build reads"},
        {"no rows", [](nlohmann::json& d) { d.erase("rows"); }, "$.rows: missing"},
        {"rows not a list", [](nlohmann::json& d) { d["rows"] = 3; }, "$.rows: expected a list"},
        {"empty rows", [](nlohmann::json& d) { d["rows"] = nlohmann::json::array(); }, "$.rows: the list is empty"},
        {"no label", [](nlohmann::json& d) { d["rows"][1].erase("label"); }, "$.rows[1].label: missing"},
        {"empty device", [](nlohmann::json& d) { d["rows"][0]["device"] = ""; }, "$.rows[0].device: is empty"},
        {"bad date", [](nlohmann::json& d) { d["rows"][0]["date"] = "yesterday"; }, "$.rows[0].date: 'yesterday' is not a date"},
        {"bad dtype", [](nlohmann::json& d) { d["rows"][0]["dtype"] = "fp8"; }, "$.rows[0].dtype: 'fp8' is not fp32, fp16 or bf16"},
        {"unknown parameter", [](nlohmann::json& d) { d["rows"][0]["params"]["N"] = 4; }, "$.rows[0].params.N: chain has no parameter 'N'"},
        {"parameter out of range", [](nlohmann::json& d) { d["rows"][1]["params"]["rows"] = 0; }, "$.rows[1].params.rows: "},
        {"parameter not a number", [](nlohmann::json& d) { d["rows"][0]["params"]["hidden"] = "big"; }, "$.rows[0].params.hidden: expected a number"},
        {"no time, no error", [](nlohmann::json& d) { d["rows"][0].erase("time"); }, "$.rows[0].time: missing"},
        {"median not a number", [](nlohmann::json& d) { d["rows"][0]["time"]["median_ms"] = "fast"; }, "$.rows[0].time.median_ms: expected a number"},
        {"negative time", [](nlohmann::json& d) { d["rows"][0]["time"]["min_ms"] = -1; }, "$.rows[0].time: times must be greater than 0 ms"},
        {"min above median", [](nlohmann::json& d) { d["rows"][0]["time"]["min_ms"] = 0.6; }, "$.rows[0].time: expected min_ms <= median_ms <= max_ms"},
        {"reps zero", [](nlohmann::json& d) { d["rows"][0]["time"]["reps"] = 0; }, "$.rows[0].time.reps: 0 is out of range"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        app::ReferenceFile f;
        const std::string why = parse_edited(c.edit, f);
        CHECK(why.find(c.message) == 0);
        CHECK(f.rows.empty());
        CHECK(f.skipped_rows == 0);
    }
    app::ReferenceFile f;
    CHECK(app::parse_reference_json("{not json", f).rfind("not JSON", 0) == 0);
    CHECK(f.rows.empty());
}

TEST_CASE("reference file: the file's path starts the message - a missing file says so") {
    app::ReferenceFile f;
    CHECK(app::load_reference_json("/no/such/reference.json", f).rfind("/no/such/reference.json: cannot read", 0) == 0);
    fl_test::TempDir dir;
    const std::string path = (dir.path / "bad.json").string();
    std::ofstream(path) << R"({"tool": "fusionlab-reference", "format": 1, "rows": [{"workload": "chain"}]})";
    const std::string why = app::load_reference_json(path, f);
    CHECK(why == path + ": $.rows[0].label: missing");
    CHECK(f.rows.empty());
}

TEST_CASE("reference rows match workload, dtype and the parameters they name - a real GPU shows only its own") {
    app::ReferenceFile f;
    REQUIRE(app::load_reference_json(kTestFile, f).empty());
    kernels::Params p = chain_64x1000();
    p.set("seed", 99);  // not named by the rows: any seed matches
    std::string why;
    CHECK(app::reference_rows_for(f, p, device("H100 SXM5 80GB (simulated)", true), &why).size() == 2);
    CHECK(app::reference_rows_for(f, p, device("Test GPU (hand-written test data)", false)).size() == 2);
    CHECK(app::reference_rows_for(f, p, device("NVIDIA H200", false), &why).empty());
    CHECK(why.find("measured on Test GPU (hand-written test data), not on this NVIDIA H200") != std::string::npos);

    p.dtype = kernels::DType::f16;
    CHECK(app::reference_rows_for(f, p, device("sim", true), &why).empty());
    CHECK(why.find("no PyTorch reference for these parameters in") == 0);
    p = chain_64x1000();
    p.set("hidden", 1024);
    CHECK(app::reference_rows_for(f, p, device("sim", true)).empty());

    // A row without a time (the backend refused) still matches, to be shown as unavailable.
    kernels::Params a = kernels::default_params("attention");
    a.set("N", 1024).set("d", 64).set("heads", 16).set("causal", 0).set("br", 32);
    a.dtype = kernels::DType::f16;
    const auto rows = app::reference_rows_for(f, a, device("sim", true));
    REQUIRE(rows.size() == 1);
    CHECK(!rows[0]->has_time);

    app::ReferenceFile none;
    app::reference_rows_for(none, p, device("sim", true), &why);
    CHECK(why == app::kNoReferenceHint);
}

TEST_CASE("reference FLOPs are fusionlab's count for the parameters") {
    const kernels::Params p = chain_64x1000();
    CHECK(app::reference_flops(p) == Approx(kernels::model("fused", p).flops()));
    CHECK(app::reference_flops(p) > 0);
}

TEST_CASE("reference file: a number too large for a double is refused as not JSON, never thrown") {
    app::ReferenceFile out;
    CHECK(app::parse_reference_json(R"({"tool": "fusionlab-reference", "rows": [1e999]})", out).rfind("not JSON: ", 0) == 0);
}
