// Settings <-> JSON, tolerant of hand edits: every field is checked on its own, so one bad value
// costs only that value (reported), never the rest of the file and never a crash.
#include "app/core/settings.h"

#include "app/files/config_file.h"

#include "app/files/export.h"
#include "app/platform/platform.h"
#include "app/platform/platform_file.h"
#include "app/core/jobs.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace app {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> selected_variants(const Settings& s) {
    const std::string w = s.params.workload;
    std::vector<std::string> chosen;
    if (auto it = s.variants.find(w); it != s.variants.end())
        for (const std::string& v : it->second)
            if (kernels::has_variant(w, v)) chosen.push_back(v);
    if (chosen.empty())
        for (const kernels::VariantInfo& v : kernels::variants(w)) chosen.push_back(v.name);
    return chosen;
}

std::string settings_to_json(const Settings& s) {
    json params = json::object();
    params["workload"] = s.params.workload;
    params["dtype"] = kernels::to_string(s.params.dtype);
    // Every workload's parameters, so switching workloads in the GUI keeps what was set for each.
    for (const kernels::ParamSpec& spec : kernels::all_param_specs()) {
        const double value = s.params.get_or(spec.name, spec.default_value);
        if (spec.kind == kernels::ParamKind::boolean) params[spec.name] = value != 0;
        else if (spec.integer) params[spec.name] = std::llround(value);  // 4096, not 4096.0; seed up to 2^53 - 1
        else params[spec.name] = value;
    }

    json doc = json::object();
    doc["font_scale"] = s.font_scale;
    doc["theme"] = viz::to_string(s.theme);
    doc["params"] = params;
    doc["variants"] = s.variants;
    doc["backend"] = s.backend;
    doc["reps"] = s.reps;
    doc["export_dir"] = s.export_dir;
    doc["predictions"] = s.predictions;
    return doc.dump(2) + "\n";
}

namespace {

// Collects the names of fields that were present but unusable.
struct Ignored {
    std::vector<std::string> fields;
    void add(const std::string& f) { fields.push_back(f); }
    std::string message() const {
        if (fields.empty()) return {};
        std::string m = "settings: ignored invalid ";
        for (size_t i = 0; i < fields.size(); ++i) m += (i ? ", " : "") + fields[i];
        return m + " (using defaults for those)";
    }
};

void read_params(const json& j, kernels::Params& p, Ignored& ignored) {
    if (!j.is_object()) { ignored.add("params"); return; }
    kernels::Params parsed;  // defaults
    if (auto it = j.find("workload"); it != j.end()) {
        std::string w;
        if (it->is_string() && kernels::parse_workload(it->get<std::string>(), w)) parsed.workload = w;
        else ignored.add("params.workload");
    }
    if (auto it = j.find("dtype"); it != j.end()) {
        kernels::DType t;
        if (it->is_string() && kernels::parse_dtype(it->get<std::string>(), t)) parsed.dtype = t;
        else ignored.add("params.dtype");
    }
    // Files written before a parameter existed simply lack it: it keeps its default.
    for (const kernels::ParamSpec& spec : kernels::all_param_specs()) {
        auto it = j.find(spec.name);
        if (it == j.end()) continue;
        double value = 0;
        bool usable = false;
        if (it->is_boolean() && spec.kind == kernels::ParamKind::boolean) {
            value = it->get<bool>() ? 1 : 0;
            usable = true;
        } else if (it->is_number()) {
            value = it->get<double>();
            usable = kernels::check_param_value(spec, value).empty();
        }
        if (usable) parsed.set(spec.name, value);
        else ignored.add(std::string("params.") + spec.name);
    }
    // Each value may be in range while the combination is not (total size limit).
    if (!kernels::validate(parsed).empty()) {
        ignored.add("params (" + kernels::validate(parsed) + ")");
        const std::string w = parsed.workload;
        parsed = kernels::Params{};
        parsed.workload = w;
    }
    p = parsed;
}

void read_variants(const json& j, std::map<std::string, std::vector<std::string>>& out, Ignored& ignored) {
    if (!j.is_object()) { ignored.add("variants"); return; }
    for (const auto& [name, list] : j.items()) {
        std::string w;
        if (!kernels::parse_workload(name, w) || !list.is_array()) { ignored.add("variants." + name); continue; }
        std::vector<std::string> chosen;
        for (const json& v : list) {
            if (v.is_string() && kernels::has_variant(w, v.get<std::string>())) chosen.push_back(v.get<std::string>());
            else ignored.add("variants." + name + " entry");
        }
        out[w] = chosen;
    }
}

}  // namespace

std::string settings_from_json(const std::string& text, Settings& out) {
    out = Settings{};
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return "settings file is not valid JSON: using defaults";
    if (!doc.is_object()) return "settings file does not hold a JSON object: using defaults";

    Ignored ignored;
    if (auto it = doc.find("font_scale"); it != doc.end()) {
        if (it->is_number() && it->get<double>() >= kMinFontScale && it->get<double>() <= kMaxFontScale)
            out.font_scale = it->get<float>();
        else ignored.add("font_scale");
    }
    if (auto it = doc.find("theme"); it != doc.end()) {
        if (!it->is_string() || !viz::parse_theme(it->get<std::string>(), out.theme)) ignored.add("theme");
    }
    if (auto it = doc.find("params"); it != doc.end()) read_params(*it, out.params, ignored);
    if (auto it = doc.find("variants"); it != doc.end()) read_variants(*it, out.variants, ignored);
    if (auto it = doc.find("backend"); it != doc.end()) {
        // "", "gpu", a simulated GPU's key or "recorded:" + a recording found at start-up.
        const bool usable = it->is_string() && (it->get<std::string>().empty() || it->get<std::string>() == "gpu" ||
                                                kernels::find_sim_gpu(it->get<std::string>()) != nullptr ||
                                                (it->get<std::string>().rfind(kRecordedBackendPrefix, 0) == 0 &&
                                                 !backend_setting(it->get<std::string>(), nullptr).empty()));
        if (usable) out.backend = it->get<std::string>();
        else ignored.add("backend");
    }
    if (auto it = doc.find("reps"); it != doc.end()) {
        if (it->is_number_integer() && it->get<int64_t>() >= kMinReps && it->get<int64_t>() <= kMaxReps)
            out.reps = it->get<int>();
        else ignored.add("reps");
    }
    if (auto it = doc.find("export_dir"); it != doc.end()) {
        if (it->is_string()) out.export_dir = it->get<std::string>();
        else ignored.add("export_dir");
    }
    if (auto it = doc.find("predictions"); it != doc.end()) {
        if (it->is_boolean()) out.predictions = it->get<bool>();
        else ignored.add("predictions");
    }
    return ignored.message();
}

std::string default_settings_path() {
    const fs::path dir = platform::config_dir();
    return dir.empty() ? std::string() : (dir / "settings.json").string();
}

std::string load_settings(const std::string& path, Settings& out) {
    out = Settings{};
    if (path.empty()) return "no configuration folder (HOME not set): settings will not be saved";
    std::string text;  // bounded: a settings path may name a FIFO, a device, a huge file (platform_file.h)
    const platform::ReadResult read = platform::read_user_file(path, platform::UserFile::settings, text);
    if (read.failure == platform::ReadFailure::not_found) return {};  // a first run: defaults
    if (!read.ok()) return read.message + ": using defaults";
    const std::string problem = settings_from_json(text, out);
    return problem.empty() ? problem : problem + " [" + path + "]";
}

std::string save_settings(const std::string& path, const Settings& s) {
    return write_config_file(path, "settings", settings_to_json(s));
}

}  // namespace app
