// Parsing the command line (app/cli/cli.h parse_command_line). CLI11 reads the words; our own
// parsers turn them into values so every bad input gets one line naming the option, the value and
// the legal range (exit 2), whatever part of the input was wrong. Running the commands is in the
// other files of app/cli/ (app/cli/commands.h).
//
// Index:
//   [SECTION] Names and ranges for messages and --help
//   [SECTION] Value parsers
//   [SECTION] Command-line definition and checks
#include "app/cli/cli.h"

#include "app/cli/text.h"
#include "app/files/export.h"
#include "app/core/gui_options.h"
#include "app/core/jobs.h"
#include "app/lessons/model/lesson.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/lesson_player.h"
#include "app/lessons/parser.h"
#include "app/files/reference.h"
#include "app/files/results_import.h"
#include "app/core/views.h"
#include "app/cli/record.h"
#include "app/recordings/recording_file.h"
#include "kernels/core/registry.h"
#include "viz/model/memory_player.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace app::cli {

// ---------------------------------------------------------------------------------------------
// [SECTION] Names and ranges for messages and --help
// ---------------------------------------------------------------------------------------------
namespace {

std::string legal_text(const kernels::ParamSpec& spec) {
    if (spec.kind != kernels::ParamKind::number) return kernels::legal_values_text(spec);
    return number_text(spec.min) + ".." + number_text(spec.max);
}

std::string sim_gpu_keys() {
    std::vector<std::string> keys;
    for (const auto& gpu : kernels::sim_gpus()) keys.push_back(gpu.key);
    return join(keys, ", ");
}

// "--N: N (sequence length) (attention; 1..65536)" for --help.
std::string param_option_help(const kernels::ParamSpec& spec) {
    std::vector<std::string> users;
    for (const std::string& w : kernels::workload_names())
        if (kernels::find_param_spec(w, spec.name)) users.emplace_back(w);
    return std::string(spec.label) + " (" + join(users, ", ") + "; " + legal_text(spec) + ")";
}

std::string variant_names() {
    std::vector<std::string> names;
    for (const std::string& w : kernels::workload_names())
        for (const auto& v : kernels::variants(w))
            if (std::find(names.begin(), names.end(), v.name) == names.end()) names.push_back(v.name);
    return join(names, ", ");
}

std::string workload_names() {
    std::vector<std::string> names;
    return join(kernels::workload_names(), ", ");
}

const kernels::ParamSpec* find_spec(std::string w, std::string id) { return kernels::find_param_spec(w, id); }

// Splits each value at commas ourselves (CLI11's delimiter drops empty items, and "1,,2" is a
// typo to report); "--rows 64 128" and "--rows '64, 128'" work too.
std::vector<std::string> list_items(const std::vector<std::string>& values) {
    std::vector<std::string> items;
    for (const auto& value : values) {
        if (trim(value).empty()) {
            items.emplace_back();  // "1,,2" or "": reported as an empty value, never skipped
            continue;
        }
        std::stringstream stream(value);
        std::string item;
        while (std::getline(stream, item, ',')) items.push_back(trim(item));
        if (!value.empty() && value.back() == ',') items.emplace_back();
    }
    return items;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Value parsers
// ---------------------------------------------------------------------------------------------
namespace {

bool parse_whole(const std::string& text, int64_t& out) {
    const std::string t = trim(text);
    if (t.empty()) return false;
    const char* first = t.data() + (t[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(first, t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size();
}

bool parse_unsigned(const std::string& text, uint64_t& out) {
    const std::string t = trim(text);
    if (t.empty() || t[0] == '-') return false;
    const char* first = t.data() + (t[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(first, t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size();
}

bool parse_real(const std::string& text, double& out) {
    const std::string t = trim(text);
    if (t.empty()) return false;
    const char* first = t.data() + (t[0] == '+' ? 1 : 0);
#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 170000
    // libc++ before 17 (emscripten 3.1.6's: the browser build, web/README.md) has no floating-point
    // from_chars. strtod, refusing what from_chars would not read: a second sign, a leading space, hex.
    if (*first == '+' || std::isspace(static_cast<unsigned char>(*first)) || t.find_first_of("xX") != std::string::npos)
        return false;
    char* end = nullptr;
    errno = 0;
    out = std::strtod(first, &end);
    return errno == 0 && end == t.data() + t.size() && std::isfinite(out);
#else
    const auto [end, ec] = std::from_chars(first, t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size() && std::isfinite(out);
#endif
}

// The legal range of a parameter for the selected workloads: the tightest one, so every swept
// combination is valid. Returns nullopt when no selected workload takes the parameter.
std::optional<kernels::ParamSpec> spec_for(std::string id, const std::vector<std::string>& workloads) {
    std::optional<kernels::ParamSpec> merged;
    for (auto w : workloads) {
        const kernels::ParamSpec* spec = find_spec(w, id);
        if (!spec) continue;
        if (!merged) {
            merged = *spec;
        } else {
            merged->min = std::max(merged->min, spec->min);
            merged->max = std::min(merged->max, spec->max);
        }
    }
    return merged;
}

std::string bad_value(const std::string& option, const std::string& value, const std::string& what,
                      const std::string& legal) {
    if (trim(value).empty()) return option + " has an empty value (legal: " + legal + ")";
    return option + " '" + printable(value) + "' " + what + " (legal: " + legal + ")";
}

// One value of a spec'd parameter: whole numbers (no "1e3") for integer specs, 0/1 (or
// true/false, on/off) for switches, then the spec's own check (range, listed choices) for every
// selected workload that takes it.
std::string parse_param_value(const std::string& option, const std::string& text, std::string id,
                              const std::vector<std::string>& workloads, double& out) {
    const auto spec = spec_for(id, workloads);
    const std::string legal = spec ? legal_text(*spec) : std::string("a number");
    if (spec && kernels::parse_param_word(*spec, trim(text), out)) return "";  // "auto"
    if (spec && spec->kind == kernels::ParamKind::boolean) {
        const std::string t = trim(text);
        if (t == "1" || t == "true" || t == "on") out = 1;
        else if (t == "0" || t == "false" || t == "off") out = 0;
        else return bad_value(option, text, "is not a switch", legal);
        return "";
    }
    if (spec && spec->integer) {
        if (spec->name == "seed") {
            uint64_t whole = 0;  // the full unsigned range parses; the spec's range decides
            if (!parse_unsigned(text, whole)) return bad_value(option, text, "is not a whole number", legal);
            out = static_cast<double>(whole);
        } else {
            int64_t whole = 0;
            if (!parse_whole(text, whole)) return bad_value(option, text, "is not a whole number", legal);
            out = static_cast<double>(whole);
        }
    } else if (!parse_real(text, out)) {
        return bad_value(option, text, "is not a number", legal);
    }
    if (!spec) return "";
    for (auto w : workloads)
        if (const kernels::ParamSpec* own = find_spec(w, id); own && !kernels::check_param_value(*own, out).empty())
            return bad_value(option, text, own->kind == kernels::ParamKind::choice ? "is not one of the choices"
                                                                                 : "is out of range",
                             legal);
    return "";
}

// A whole number in lo..hi; `unit` follows the range in the message ("1..86400 seconds").
std::string parse_whole_in_range(const std::string& option, const std::string& text, int64_t lo, int64_t hi,
                                 int64_t& out, const std::string& unit = "") {
    const std::string legal = std::to_string(lo) + ".." + std::to_string(hi) + (unit.empty() ? "" : " " + unit);
    int64_t value = 0;
    if (!parse_whole(text, value)) return bad_value(option, text, "is not a whole number", legal);
    if (value < lo || value > hi) return bad_value(option, text, "is out of range", legal);
    out = value;
    return "";
}

std::string parse_reps(const std::string& option, const std::string& text, int& out) {
    int64_t value = 0;
    std::string why = parse_whole_in_range(option, text, kernels::kMinReps, kernels::kMaxReps, value);
    if (why.empty()) out = static_cast<int>(value);
    return why;
}

// A comma list of names of one enum (workloads, dtypes), with "all" for every value when allowed.
// Duplicates are dropped; an unknown name is an error naming the legal ones.
template <typename T, typename Parse, typename Name>
std::string parse_name_list(const std::string& option, const std::vector<std::string>& values, bool allow_all,
                            const std::vector<T>& all, Parse parse, Name name_of, const char* what,
                            std::vector<T>& out) {
    std::vector<std::string> names;
    for (const T& v : all) names.emplace_back(name_of(v));
    const std::string legal = join(names, ", ") + (allow_all ? ", all" : "");
    out.clear();
    for (const auto& item : list_items(values)) {
        if (allow_all && item == "all") {
            out.assign(std::begin(all), std::end(all));
            continue;
        }
        T v{};
        if (!parse(item, v)) return bad_value(option, item, what, legal);
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    if (out.empty()) return option + " needs a value (legal: " + legal + ")";
    return "";
}

std::string parse_workloads(const std::string& option, const std::vector<std::string>& values, bool allow_all,
                            std::vector<std::string>& out) {
    return parse_name_list(option, values, allow_all, kernels::workload_names(), kernels::parse_workload,
                           [](const std::string& w) { return w; }, "is not a workload", out);
}

std::string parse_dtypes(const std::string& option, const std::vector<std::string>& values, bool allow_all,
                         std::vector<kernels::DType>& out) {
    const std::vector<kernels::DType> all(std::begin(kernels::kAllDTypes), std::end(kernels::kAllDTypes));
    return parse_name_list(option, values, allow_all, all, kernels::parse_dtype,
                           [](kernels::DType t) { return std::string(kernels::to_string(t)); }, "is not a dtype", out);
}

// "all" -> empty (every variant); otherwise each name must exist for every selected workload.
std::string parse_variants(const std::string& option, const std::vector<std::string>& values,
                           const std::vector<std::string>& workloads, std::vector<std::string>& out) {
    std::vector<std::string> legal_names;
    for (auto w : workloads)
        for (const auto& v : kernels::variants(w))
            if (std::find(legal_names.begin(), legal_names.end(), v.name) == legal_names.end())
                legal_names.push_back(v.name);
    const std::string legal = join(legal_names, ", ") + ", all";
    out.clear();
    bool all = false;
    for (const auto& item : list_items(values)) {
        if (item == "all") {
            all = true;
            continue;
        }
        for (auto w : workloads)
            if (!kernels::has_variant(w, item))
                return bad_value(option, item, std::string("is not a variant of ") + w, legal);
        if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
    if (all) out.clear();
    else if (out.empty()) return option + " needs a value (legal: " + legal + ")";
    return "";
}

std::string parse_sim_gpu(const std::string& option, const std::string& text, std::string& out) {
    const kernels::SimGpu* gpu = kernels::find_sim_gpu(trim(text));
    if (!gpu) return bad_value(option, text, "is not a simulated GPU", sim_gpu_keys());
    out = gpu->key;
    return "";
}

// --backend: "gpu", a simulated GPU, or a recording (app/core/jobs.h backend_setting).
std::string parse_backend(const std::string& option, const std::string& text, std::string& out) {
    std::string why;
    const std::string setting = backend_setting(text, &why);
    if (setting.empty()) return option + " '" + printable(text) + "' " + why;
    out = setting;
    return "";
}

std::string parse_font_scale(const std::string& option, const std::string& text, float& out) {
    const std::string legal = printf_string("%g..%g", double(kMinFontScale), double(kMaxFontScale));
    double value = 0;
    if (!parse_real(text, value)) return bad_value(option, text, "is not a number", legal);
    if (value < kMinFontScale || value > kMaxFontScale) return bad_value(option, text, "is out of range", legal);
    out = static_cast<float>(value);
    return "";
}

}  // namespace

namespace {

// --soak SECONDS (1..86400), --soak-seed N (whole, >= 0), --soak-size WxH, --soak-passes P (1..10);
// seed, size and passes need --soak.
std::string parse_soak(const std::string& seconds, const std::string& seed, const std::string& size,
                       const std::string& passes, GuiOptions& o) {
    if (seconds.empty()) {
        if (!seed.empty() || !size.empty() || !passes.empty())
            return "--soak-seed, --soak-size and --soak-passes need --soak SECONDS";
        return "";
    }
    int64_t whole = 0;
    if (std::string why = parse_whole_in_range("--soak", seconds, 1, 86400, whole, "seconds"); !why.empty()) return why;
    o.soak_seconds = double(whole);
    if (!seed.empty()) {
        uint64_t value = 0;
        if (!parse_unsigned(seed, value)) return bad_value("--soak-seed", seed, "is not a whole number", "0..2^64-1");
        o.soak_seed = value;
    }
    if (!passes.empty()) {
        int64_t value = 0;
        if (std::string why = parse_whole_in_range("--soak-passes", passes, 1, 10, value); !why.empty()) return why;
        o.soak_passes = static_cast<int>(value);
    }
    if (!size.empty()) return parse_size("--soak-size", size, o.soak_width, o.soak_height);
    return "";
}

}  // namespace

std::string parse_param_list(const std::string& option, const std::vector<std::string>& values,
                             std::string id, const std::vector<std::string>& workloads,
                             std::vector<double>& out) {
    const auto spec = spec_for(id, workloads);
    const std::string legal = spec ? legal_text(*spec) : std::string("a number");
    out.clear();
    for (const auto& item : list_items(values)) {
        double value = 0;
        if (std::string problem = parse_param_value(option, item, id, workloads, value); !problem.empty())
            return problem;
        if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
    }
    if (out.empty()) return option + " needs a value (legal: " + legal + ")";
    return "";
}

const std::vector<double>* given_values(const BenchOptions& o, std::string id) {
    for (const auto& given : o.params)
        if (given.id == id) return &given.values;
    return nullptr;
}

std::vector<kernels::Params> sweep_params(const BenchOptions& o, std::string w, kernels::DType t) {
    kernels::Params base;
    base.workload = w;
    base.dtype = t;
    std::vector<kernels::Params> sweep{base};
    for (const auto& spec : kernels::param_specs(w)) {
        const std::vector<double>* values = given_values(o, spec.name);
        if (!values) continue;
        std::vector<kernels::Params> next;
        for (const auto& p : sweep)
            for (double v : *values) {
                kernels::Params q = p;
                q.set(spec.name, v);
                next.push_back(q);
            }
        sweep = std::move(next);
    }
    return sweep;
}

std::string parse_size(const std::string& option, const std::string& text, int& width, int& height) {
    const std::string legal = printf_string("WIDTHxHEIGHT, each %d..%d, e.g. 1280x720", kMinShotSide, kMaxShotSide);
    const std::string t = trim(text);
    const auto x = t.find_first_of("xX");
    int64_t w = 0, h = 0;
    if (x == std::string::npos || !parse_whole(t.substr(0, x), w) || !parse_whole(t.substr(x + 1), h))
        return bad_value(option, text, "is not a size", legal);
    if (w < kMinShotSide || w > kMaxShotSide || h < kMinShotSide || h > kMaxShotSide)
        return bad_value(option, text, "is out of range", legal);
    width = static_cast<int>(w);
    height = static_cast<int>(h);
    return "";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Command-line definition and checks
// ---------------------------------------------------------------------------------------------
namespace {

// The raw words CLI11 collects; converted and checked by our parsers after CLI11 is done.
struct RawArgs {
    std::string gui_backend;
    std::string gui_sim, gui_font_scale, gui_results, gui_reference, gui_lesson;
    bool gui_classroom = false;
    std::string lessons_action;
    std::vector<std::string> lessons_files;
    exercises::ExercisesOptions exercises;
    std::string lessons_csv, lessons_answers;
    bool lessons_no_devices = false;
    std::string gui_soak, gui_soak_seed, gui_soak_size, gui_soak_passes;  // hidden: the soak test (tests/tools/soak_driver.h)
    std::string info_sim;
    bool info_sim_heldout = false;
    std::string info_repository;
    std::string info_points_csv;
    struct {
        std::vector<std::string> workload{"all"}, variant{"all"}, dtype;
        std::map<std::string, std::vector<std::string>> params;  // spec name -> words given
        std::string reps, csv, json, sim, repeat, reference, backend;
        bool kernels = false;
        bool interactive = false;
    } bench;
    struct {
        std::string out, reps, warmup, budget, sim, via;
        bool list = false;
    } record;
    struct Shot {
        std::string out, size, font_scale, theme = "dark", workload = "chain", dtype, sim, reps, backend;
        std::map<std::string, std::string> params;  // spec name -> word given
        std::string view = "results", variant, compare, step, results, reference;
        std::string lesson;
        std::string exercise, exercise_kernel, exercise_hints;
        bool exercise_run = false;
        bool all_steps = false, classroom = false, predictions_posed = false;
        std::string chart, frames;
        bool view_only = false;
    } shot;
};

// Every parser below returns "" or the message; the first message wins.
struct Checker {
    std::string error;
    void operator()(const std::string& message) {
        if (error.empty()) error = message;
    }
};

// --reference FILE: read now, so a malformed file is bad input (exit 2) before anything runs.
std::string check_reference(const std::string& file, std::string& out) {
    if (file.empty()) return "";
    ReferenceFile read;
    if (std::string why = load_reference_json(file, read); !why.empty()) return "--reference " + why;
    out = file;
    return "";
}

// Parameter sets one bench sweep may hold per workload (each is one run of every variant).
constexpr double kMaxSweepParamSets = 100000;

std::string check_bench(const RawArgs& raw, BenchOptions& o) {
    Checker check;
    const auto& b = raw.bench;
    const kernels::Params defaults;
    check(parse_workloads("--workload", b.workload, true, o.workloads));
    if (!check.error.empty()) return check.error;  // every later range depends on the workloads
    check(parse_variants("--variant", b.variant, o.workloads, o.variants));
    if (b.dtype.empty()) o.dtypes = {defaults.dtype};
    else check(parse_dtypes("--dtype", b.dtype, true, o.dtypes));
    for (const auto& spec : kernels::all_param_specs()) {
        const auto given = b.params.find(spec.name);
        if (given == b.params.end() || given->second.empty()) continue;
        ParamValues values{spec.name, {}};
        check(parse_param_list(std::string("--") + spec.name, given->second, spec.name, o.workloads, values.values));
        o.params.push_back(std::move(values));
    }
    if (!b.reps.empty()) check(parse_reps("--reps", b.reps, o.reps));
    if (!b.sim.empty()) check(parse_sim_gpu("--sim", b.sim, o.sim_gpu));
    if (!b.sim.empty() && !b.backend.empty()) check("--sim and --backend: give one of them");
    if (!b.backend.empty()) check(parse_backend("--backend", b.backend, o.backend));
    else if (!o.sim_gpu.empty()) o.backend = o.sim_gpu;
    check(check_reference(b.reference, o.reference));
    o.per_kernel = b.kernels;
    o.interactive = b.interactive;
    if (!b.repeat.empty()) {
        int64_t value = 0;
        if (std::string why = parse_whole_in_range("--repeat", b.repeat, 1, 100, value); !why.empty()) check(why);
        else o.repeat = static_cast<int>(value);
    }
    if (!check.error.empty()) return check.error;

    // A sweep is the product of the lists: refuse one too long to ever finish before building it
    // (a few long lists multiply to billions of parameter sets and would exhaust memory here).
    for (auto w : o.workloads) {
        double runs = static_cast<double>(o.dtypes.size());
        std::string lists;
        for (const auto& spec : kernels::param_specs(w))
            if (const std::vector<double>* values = given_values(o, spec.name); values && values->size() > 1) {
                runs *= static_cast<double>(values->size());
                lists += std::string(lists.empty() ? "" : ", ") + "--" + spec.name;
            }
        if (runs > kMaxSweepParamSets)
            return std::string("the sweep of ") + w + " has " + number_text(runs) +
                   " parameter sets (the product of " + (lists.empty() ? std::string("--dtype") : lists) +
                   "): at most " + number_text(kMaxSweepParamSets) + "; shorten the lists";
    }

    // Each value is in its range; the combinations must also pass the total-size limits.
    for (auto w : o.workloads)
        for (auto t : o.dtypes)
            for (const auto& p : sweep_params(o, w, t))
                if (std::string problem = kernels::validate(p); !problem.empty())
                    return w + " " + shape_text(p, "") + ": " + problem;

    // A typo in an export path must fail now, not after a long sweep.
    o.csv = b.csv;
    o.json = b.json;
    if (!o.csv.empty())
        if (std::string problem = check_writable(o.csv); !problem.empty()) return "--csv: " + problem;
    if (!o.json.empty())
        if (std::string problem = check_writable(o.json); !problem.empty()) return "--json: " + problem;
    return "";
}

// One value where bench would take a list (shot measures one configuration).
std::string parse_one_param(const std::string& option, const std::string& text, std::string id,
                            const std::vector<std::string>& workloads, kernels::Params& params) {
    std::vector<double> values;
    if (std::string problem = parse_param_list(option, {text}, id, workloads, values); !problem.empty())
        return problem;
    if (values.size() != 1) return option + " takes one value here, not a list";
    params.set(id, values[0]);
    return "";
}

// --view, --variant, --compare, --step: the memory animation's variant(s) and step.
std::string check_shot_view(const std::string& view, const std::string& variant, const std::string& compare,
                            const std::string& step, ShotOptions& o) {
    if (!find_view(view)) return bad_value("--view", view, "is not a view", view_ids_text());
    o.view = view;
    const bool memory = view == "memory";
    if (!memory && (!variant.empty() || !compare.empty() || !step.empty()))
        return "--variant, --compare and --step choose what the memory animation shows: add --view memory";
    const std::string w = o.params.workload;
    for (const auto& [option, name] : {std::pair<const char*, const std::string&>{"--variant", variant}, {"--compare", compare}})
        if (!name.empty() && !kernels::has_variant(w, name))
            return bad_value(option, name, std::string("is not a variant of ") + w, variant_names());
    if (!compare.empty() && compare == (variant.empty() ? kernels::variants(w).front().name : variant))
        return "--compare " + compare + " is the variant already shown: compare with another one";
    o.variant = variant;
    o.compare = compare;
    if (!memory) return "";
    // A variant that cannot take these parameters (flash_tc in fp32) has no schedule to show.
    const std::string shown = variant.empty() ? kernels::variants(w).front().name : variant;
    size_t steps = 0;
    for (const std::string& v : {shown, compare}) {
        if (v.empty()) continue;
        try {
            const size_t n = kernels::MemoryPlayer(v, o.params).step_count();
            if (v == shown) steps = n;
        } catch (const std::invalid_argument& e) {
            return std::string(v == shown ? "--variant " : "--compare ") + v + ": " + e.what();
        }
    }
    if (step.empty()) return "";
    int64_t value = 0;
    if (!parse_whole(trim(step), value) || value < 0 || static_cast<uint64_t>(value) > steps)
        return bad_value("--step", step, "is out of range",
                         "0 .. " + std::to_string(steps) + " (" + shown + " has " + std::to_string(steps) +
                             " steps with these parameters)");
    o.step = value;
    return "";
}

// What `shot` and `shot --lesson` both take: the picture (size, font scale, theme; classroom
// fonts follow the height unless --font-scale is given), the backend, repetitions and reference rows.
void check_shot_common(const RawArgs::Shot& s, ShotOptions& o, Checker& check) {
    if (!s.size.empty()) check(parse_size("--size", s.size, o.width, o.height));
    if (!s.font_scale.empty()) check(parse_font_scale("--font-scale", s.font_scale, o.font_scale));
    else if (s.classroom) o.font_scale = classroom_font_scale(static_cast<float>(o.height));
    if (s.theme != "dark" && s.theme != "light") check(bad_value("--theme", s.theme, "is not a theme", "dark, light"));
    o.theme = s.theme;
    if (!s.sim.empty()) check(parse_sim_gpu("--sim", s.sim, o.sim_gpu));
    if (!s.sim.empty() && !s.backend.empty()) check("--sim and --backend: give one of them");
    if (!s.backend.empty()) check(parse_backend("--backend", s.backend, o.backend));
    if (!s.reps.empty()) check(parse_reps("--reps", s.reps, o.reps));
    check(check_reference(s.reference, o.reference));
}

// `shot --lesson NAME [--step K | --all-steps] --out DIR`: the lesson sets workload, parameters
// and view, so those options are refused; --step counts the lesson's steps from 1.
std::string check_lesson_shot(const RawArgs& raw, ShotOptions& o) {
    Checker check;
    const auto& s = raw.shot;
    for (const auto& [name, value] : s.params)
        if (!value.empty()) return "--" + name + " is set by the lesson: drop it when using --lesson";
    if (!s.dtype.empty() || !s.variant.empty() || !s.compare.empty() || s.view != "results")
        return "--dtype, --variant, --compare and --view are set by the lesson: drop them when using --lesson";
    if (!s.chart.empty() || s.view_only || !s.frames.empty())
        return "--chart, --view-only and --frames make one picture: drop them when using --lesson (a bundle holds each "
               "step's whole window)";
    check_shot_common(s, o, check);
    if (!check.error.empty()) return check.error;
    std::vector<Lesson> lessons;
    std::vector<LessonError> errors;
    load_all_lessons(lessons, errors);
    std::string why;
    const Lesson* lesson = find_lesson(lessons, s.lesson, &why);
    if (!lesson) {
        // A lesson that exists but does not parse: its first error says why (by name or number).
        for (const LessonError& e : errors) {
            const std::string stem = std::filesystem::path(e.file).stem().string();
            const bool numbered = !s.lesson.empty() && s.lesson.find_first_not_of("0123456789") == std::string::npos;
            if (stem == s.lesson || (numbered && std::atoi(stem.c_str()) == std::atoi(s.lesson.c_str()) && std::isdigit(static_cast<unsigned char>(stem[0]))))
                return e.text();
        }
        return "--lesson: " + why;
    }
    o.lesson = lesson->name;
    o.all_steps = s.all_steps;
    o.classroom = s.classroom;
    o.predictions_posed = s.predictions_posed;
    const int n = static_cast<int>(lesson->steps.size());
    if (s.all_steps && !s.step.empty()) return "--step and --all-steps: give one of them";
    if (!s.step.empty()) {
        int64_t k = 0;
        if (!parse_whole(trim(s.step), k) || k < 1 || k > n)
            return bad_value("--step", s.step, "is not a step of " + lesson->name, "1 .. " + std::to_string(n));
        o.lesson_step = static_cast<int>(k - 1);
    }
    if (trim(s.out).empty()) return "--out DIR (the bundle folder) is required";
    o.out = s.out;
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::absolute(s.out, ec);
    const std::filesystem::path parent = target.parent_path();
    if (!std::filesystem::is_directory(parent, ec)) return "--out: folder " + parent.string() + " does not exist";
    if (std::filesystem::exists(target, ec) && !std::filesystem::is_directory(target, ec))
        return "--out: " + target.string() + " exists and is not a folder (a lesson bundle is a folder)";
    return "";
}

std::string check_shot(const RawArgs& raw, ShotOptions& o) {
    Checker check;
    const auto& s = raw.shot;
    if (!s.lesson.empty()) return check_lesson_shot(raw, o);
    if (s.all_steps) return "--all-steps needs --lesson NAME";
    if (s.predictions_posed && s.exercise.empty()) return "--predictions-posed needs --lesson NAME or --exercise NAME";
    if (s.classroom && s.exercise.empty()) return "--classroom needs --lesson NAME or --exercise NAME";
    std::vector<std::string> workloads;
    check(parse_workloads("--workload", {s.workload}, false, workloads));
    if (!check.error.empty()) return check.error;
    if (workloads.size() != 1) return "--workload takes one workload (legal: " + workload_names() + ")";
    o.params.workload = workloads[0];
    check_shot_common(s, o, check);
    for (const auto& spec : kernels::all_param_specs()) {
        const auto given = s.params.find(spec.name);
        if (given == s.params.end() || given->second.empty()) continue;
        check(parse_one_param(std::string("--") + spec.name, given->second, spec.name, workloads, o.params));
    }
    if (!s.dtype.empty()) {
        std::vector<kernels::DType> dtypes;
        check(parse_dtypes("--dtype", {s.dtype}, false, dtypes));
        if (dtypes.size() == 1) o.params.dtype = dtypes[0];
        else if (!dtypes.empty()) check("--dtype takes one dtype here, not a list");
    }
    if (!s.exercise_kernel.empty() && s.exercise.empty()) check("--exercise-kernel needs --exercise NAME");
    if (s.exercise_run && s.exercise_kernel.empty()) check("--exercise-run needs --exercise NAME --exercise-kernel FILE");
    if (s.exercise_run && !s.results.empty()) check("--exercise-run measures; give it or --results, not both");
    if (!s.exercise_hints.empty()) {
        int64_t hints = 0;
        check(parse_whole_in_range("--exercise-hints", s.exercise_hints, 0, 20, hints));
        o.exercise_hints = static_cast<int>(hints);
    }
    o.exercise = s.exercise;
    o.exercise_kernel = s.exercise_kernel;
    o.exercise_run = s.exercise_run;
    o.classroom = s.classroom;
    o.predictions_posed = s.predictions_posed;
    if (!check.error.empty()) return check.error;
    if (std::string problem = kernels::validate(o.params); !problem.empty()) return problem;
    if (!s.results.empty()) {
        // The file decides what is shown: its first parameter set (checked here, so a malformed
        // file is bad input, exit 2, before any window opens).
        std::vector<kernels::Measurement> imported;
        if (std::string why = load_measurements_json(s.results, imported); !why.empty()) return "--results " + why;
        o.results = s.results;
        o.params = imported.front().job.params;
    }
    // --chart: the view is the chart's own (an explicit --view must agree).
    std::string view = s.view;
    if (!s.chart.empty()) {
        const ChartInfo* chart = find_chart(s.chart);
        if (!chart) return bad_value("--chart", s.chart, "is not a chart", chart_ids_text());
        if (view != "results" && view != chart->view)
            return "--chart " + s.chart + " is drawn in the " + chart->view + " view, not " + view + ": drop --view";
        if (s.view_only) return "--chart and --view-only: give one of them (a chart alone, or its whole view)";
        view = chart->view;
        o.chart = chart->id;
    }
    if (std::string problem = check_shot_view(view, s.variant, s.compare, s.step, o); !problem.empty()) return problem;
    // Checked last so `shot --size 12x` names the size first; CLI11 does not require it for that reason.
    if (trim(s.out).empty()) return "--out FILE.png is required";
    o.out = s.out;
    o.view_only = s.view_only;
    // The picture's kind from --out's extension.
    std::string extension = std::filesystem::path(o.out).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension == ".svg") {
        if (o.chart.empty())
            return "--out " + o.out + ": an SVG holds one chart: add --chart NAME (" + chart_ids_text() + ")";
        o.format = "svg";
    } else if (extension == ".gif") {
        if (view != "memory" || !o.chart.empty())
            return "--out " + o.out + ": a GIF is the memory animation: use --view memory (with --variant and --compare "
                   "to choose one variant or a pair)";
        if (!s.step.empty()) return "--step shows one step; a GIF plays them all: drop --step (or write a .png)";
        o.format = "gif";
        o.gif_frames = kDefaultShotGifFrames;
        if (!s.frames.empty()) {
            int64_t n = 0;
            if (!parse_whole(trim(s.frames), n) || n < 2 || n > kMaxShotGifFrames)
                return bad_value("--frames", s.frames, "is out of range", std::string("2 .. ").append(std::to_string(kMaxShotGifFrames)));
            o.gif_frames = static_cast<int>(n);
        }
    } else if (extension != ".png") {
        return "--out " + o.out + ": the file's extension says what to write: .png, .svg (with --chart) or .gif "
               "(with --view memory)";
    }
    if (!s.frames.empty() && o.format != "gif") return "--frames counts a GIF's frames: give --out F.gif";
    if (std::string problem = check_writable(o.out); !problem.empty()) return "--out: " + problem;
    return "";
}

std::string check_record(const RawArgs& raw, const std::vector<std::string>& args, RecordOptions& o) {
    Checker check;
    const auto& r = raw.record;
    if (!r.reps.empty()) check(parse_reps("--reps", r.reps, o.reps));
    if (!r.warmup.empty()) {
        int64_t value = 0;
        if (std::string why = parse_whole_in_range("--warmup", r.warmup, 0, 100, value); !why.empty()) check(why);
        else o.warmup = static_cast<int>(value);
    }
    if (!r.budget.empty()) {
        double value = 0;
        if (!parse_real(trim(r.budget), value)) check(bad_value("--budget", r.budget, "is not a number", "1..86400 s"));
        else if (value < 1 || value > 86400) check(bad_value("--budget", r.budget, "is out of range", "1..86400 s"));
        else o.budget_s = value;
    }
    if (!r.sim.empty()) check(parse_sim_gpu("--sim", r.sim, o.sim_gpu));
    o.list = r.list;
    if (!check.error.empty()) return check.error;
    if (!o.list) {
        if (trim(r.out).empty()) return "--out DIR is required (the recording goes to DIR/<card>-<date>/)";
        std::error_code ec;
        if (!std::filesystem::is_directory(r.out, ec)) return "--out: folder " + r.out + " does not exist";
        o.out = r.out;
    }
    // The header keeps the exact command: the script that ran it, then fusionlab's own words.
    std::string words = "fusionlab";
    for (const std::string& a : args) words += " " + (a.find_first_of(" \"'") == std::string::npos ? a : "'" + a + "'");
    o.command = r.via.empty() ? words : r.via + ": " + words;
    return "";
}

// --backend's help names the recordings this binary finds (their keys and labels, by date), not
// a date written into the source.
std::string backend_option_help() {
    std::string examples;
    for (const auto& r : recordings()->recordings)
        examples += (examples.empty() ? "" : ", ") + r->key + ", \"" + r->label() + "\"";
    if (const auto& all = recordings()->recordings; !all.empty()) {
        std::string card = all.front()->card;
        for (char& c : card) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        examples += ", recorded:" + card;
    }
    return "gpu, a simulated GPU (H100), or a recording of a real GPU (" +
           (examples.empty() ? std::string("none found in this build") : examples) + "); `fusionlab info` lists them";
}

void define_bench(CLI::App& app, RawArgs& raw) {
    CLI::App* bench = app.add_subcommand("bench", "Sweep workloads x variants x sizes; print a table, write CSV/JSON");
    auto& b = raw.bench;
    bench->add_option("--workload", b.workload, workload_names() + " or all (comma list)")->type_name("LIST");
    bench->add_option("--variant", b.variant, "all, or variant names (comma list): " + variant_names())
        ->type_name("LIST");
    bench->add_option("--dtype", b.dtype, "fp32, fp16, bf16 or all (comma list)")->type_name("LIST");
    for (const auto& spec : kernels::all_param_specs())
        bench->add_option(std::string("--") + spec.name, b.params[spec.name], param_option_help(spec) + "; comma list")
            ->type_name("LIST");
    bench->add_option("--reps", b.reps, "timed repetitions (the GPU uses at least 20)")->type_name("N");
    bench->add_option("--csv", b.csv, "write the measurements as CSV to this file")->type_name("FILE");
    bench->add_option("--json", b.json, "write the measurements as JSON to this file")->type_name("FILE");
    bench->add_option("--sim", b.sim, "use this simulated GPU (see `fusionlab info`)")->type_name("GPU");
    bench->add_option("--backend", b.backend, backend_option_help())->type_name("NAME");
    bench->add_flag("--kernels", b.kernels, "add a row per kernel with its own bandwidth");
    bench->add_option("--reference", b.reference,
                      "print the PyTorch rows of this file (scripts/torch_reference.py) that match, under the table")
        ->type_name("FILE");
    bench
        ->add_option("--repeat", b.repeat, "run the whole sweep K times in one process, same order (1..100; default 1)")
        ->type_name("K");
    bench->add_flag("--interactive", b.interactive,
                    "time like the GUI's first live pass: " + std::to_string(kernels::kQuickReps) +
                        " reps, 1 warm-up, no counters (see the wall ms column)");
}

void define_shot(CLI::App& app, RawArgs& raw) {
    CLI::App* shot = app.add_subcommand("shot", "Measure, render the main window headless and save it as PNG");
    auto& s = raw.shot;
    shot->add_option("--out", s.out, "PNG file to write (required)")->type_name("FILE");
    shot->add_option("--size", s.size, "WIDTHxHEIGHT (default 1280x720)")->type_name("WxH");
    shot->add_option("--font-scale", s.font_scale, "1 to 3 (default 1)")->type_name("S");
    shot->add_option("--theme", s.theme, "dark or light")->type_name("NAME");
    shot->add_option("--workload", s.workload, workload_names())->type_name("NAME");
    shot->add_option("--dtype", s.dtype, "fp32, fp16 or bf16")->type_name("NAME");
    for (const auto& spec : kernels::all_param_specs())
        shot->add_option(std::string("--") + spec.name, s.params[spec.name], param_option_help(spec))->type_name("V");
    shot->add_option("--sim", s.sim, "use this simulated GPU")->type_name("GPU");
    shot->add_option("--backend", s.backend, "gpu, a simulated GPU or a recording (see bench --help)")->type_name("NAME");
    shot->add_option("--reps", s.reps, "timed repetitions")->type_name("N");
    shot->add_option("--view", s.view, "the tab to show: " + view_ids_text() + " (default results)")->type_name("NAME");
    shot->add_option("--variant", s.variant, "memory view: the variant to show (default: the first)")->type_name("NAME");
    shot->add_option("--compare", s.compare, "memory view: a second variant side by side")->type_name("NAME");
    shot->add_option("--results", s.results,
                     "draw the measurements of this JSON export (`bench --json` on a GPU machine) instead of "
                     "measuring; its workload and parameters replace --workload and the sizes")
        ->type_name("FILE");
    shot->add_option("--reference", s.reference,
                     "draw the PyTorch reference rows of this file (scripts/torch_reference.py) beside the results")
        ->type_name("FILE");
    shot->add_option("--step", s.step, "memory view: the schedule step to show (default: the middle); with --lesson: "
                                       "the lesson step, from 1")->type_name("N");
    shot->add_option("--lesson", s.lesson, "write a lesson bundle (PNG, CSV, JSON per step) into the --out folder")
        ->type_name("NAME");
    shot->add_flag("--all-steps", s.all_steps, "with --lesson: every step of the lesson");
    shot->add_option("--exercise", s.exercise, "the exercise pane open at this exercise (see `exercises list`)")
        ->type_name("NAME");
    shot->add_option("--exercise-kernel", s.exercise_kernel,
                     "with --exercise: this file in the editor, compile-checked (errors marked on their lines)")
        ->type_name("FILE");
    shot->add_option("--exercise-hints", s.exercise_hints, "with --exercise: this many hints open")->type_name("N");
    shot->add_flag("--exercise-run", s.exercise_run,
                   "with --exercise-kernel: run it on the GPU as the pane's Run button does (its own `exercises run` "
                   "process), its rows and verdict in the pane and `yours` in every view");
    shot->add_flag("--classroom", s.classroom, "with --lesson or --exercise: the presenter view (large fonts)");
    shot->add_flag("--predictions-posed", s.predictions_posed,
                   "with --lesson or --exercise: predictions as first posed, numbers hidden (default: revealed)");
    shot->add_option("--chart", s.chart, "one chart alone: " + chart_ids_text() + "; --out F.png or F.svg")
        ->type_name("NAME");
    shot->add_flag("--view-only", s.view_only, "the --view's page alone, without the rest of the window");
    std::string frames_help = "--view memory --out F.gif: frames of the animation (2 .. ";
    frames_help.append(std::to_string(kMaxShotGifFrames)).append(", default ").append(std::to_string(kDefaultShotGifFrames)).append(")");
    shot->add_option("--frames", s.frames, frames_help)->type_name("N");
}

void define_record(CLI::App& app, RawArgs& raw) {
    CLI::App* record = app.add_subcommand(
        "record", "Measure every lesson step and the GUI's sweeps on this GPU into a recording (scripts/record_gpu.sh)");
    auto& r = raw.record;
    record->add_option("--out", r.out, "folder; writes OUT/<card>-<date>/recording.json (required unless --list)")
        ->type_name("DIR");
    record->add_option("--reps", r.reps, "timed repetitions per variant, taken as asked (default 10)")->type_name("N");
    record->add_option("--warmup", r.warmup, "warm-up runs per variant (default 2)")->type_name("N");
    record->add_option("--budget", r.budget, "seconds: start no point expected to end later (default: no limit)")
        ->type_name("S");
    record->add_option("--sim", r.sim, "rehearse on this simulated GPU (a file the app will not load)")->type_name("GPU");
    record->add_flag("--list", r.list, "print the points and the time they should take; measure nothing");
    record->add_option("--via", r.via, "how this command was started (the script), for the recording's header")
        ->type_name("TEXT");
}

// `exercises check|list|run` (app/exercises/exercise_cli.h).
void define_exercises(CLI::App& app, RawArgs& raw) {
    CLI::App* ex = app.add_subcommand("exercises", "Kernel exercises: check, list, or run a submission on the GPU");
    ex->require_subcommand(1, 1);
    CLI::App* check = ex->add_subcommand("check", "Validate exercise files and compile their starters and solutions (exit 2)");
    check->add_option("files", raw.exercises.files, "exercise files (default: every shipped exercise)")->type_name("FILE");
    check->callback([&raw] { raw.exercises.action = "check"; });
    CLI::App* list = ex->add_subcommand("list", "The shipped exercises: name, workload, dtype, title");
    list->callback([&raw] { raw.exercises.action = "list"; });
    CLI::App* run = ex->add_subcommand(
        "run", "Compile, check and time one submission beside the built-in variants (exit 0 correct and within the "
               "goals, 1 with the reason)");
    run->add_option("name", raw.exercises.name, "the exercise (see `exercises list`) or an .exercise file")->type_name("NAME");
    run->add_option("--kernel", raw.exercises.kernel, "the file with your kernel")->type_name("FILE");
    run->add_flag("--solution", raw.exercises.solution, "run the exercise's reference solution instead");
    run->add_option("--json", raw.exercises.json, "write the measurements (the compared variants and yours) here")
        ->type_name("FILE");
    run->callback([&raw] { raw.exercises.action = "run"; });
}

void define_lessons(CLI::App& app, RawArgs& raw) {
    CLI::App* lessons = app.add_subcommand("lessons", "Check or list lesson files");
    lessons->require_subcommand(1, 1);
    CLI::App* check = lessons->add_subcommand("check", "Validate lesson files; errors as file:line: message (exit 2)");
    check->add_option("files", raw.lessons_files, "lesson files (default: every shipped lesson)")->type_name("FILE");
    check->add_flag("--no-devices", raw.lessons_no_devices,
                    "skip playing each prediction on every simulated GPU and recording (syntax only)");
    check->callback([&raw] { raw.lessons_action = "check"; });
    CLI::App* answers = lessons->add_subcommand("answers", "A student's answers to the predictions, as CSV for the teacher");
    answers->add_option("--csv", raw.lessons_csv, "CSV file to write (- for standard output)")->type_name("FILE")->required();
    answers->add_option("--answers", raw.lessons_answers, "answers file to read (default: answers.json in the settings folder)")
        ->type_name("FILE");
    answers->callback([&raw] { raw.lessons_action = "answers"; });
    CLI::App* list = lessons->add_subcommand("list", "The shipped lessons: name, steps, title");
    list->callback([&raw] { raw.lessons_action = "list"; });
}

}  // namespace

ParsedCommand parse_command_line(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    ParsedCommand cmd;
    RawArgs raw;
    CLI::App app("fusionlab: runs unfused and fused GPU kernels side by side and shows where the time goes.\n"
                 "Without a command it opens the GUI.",
                 "fusionlab");
    app.require_subcommand(0, 1);
    app.add_option("--sim", raw.gui_sim, "start the GUI on this simulated GPU")->type_name("GPU");
    app.add_option("--backend", raw.gui_backend,
                   "start the GUI on this backend: gpu, a simulated GPU, or a recording (see bench --help)")
        ->type_name("NAME");
    app.add_option("--font-scale", raw.gui_font_scale, "GUI font scale, 1 to 3 (projectors: 2)")->type_name("S");
    app.add_option("--results", raw.gui_results, "open the GUI on the measurements of this JSON export")->type_name("FILE");
    app.add_option("--reference", raw.gui_reference,
                   "show the PyTorch reference rows of this file (scripts/torch_reference.py) beside the results")
        ->type_name("FILE");
    app.add_flag("--classroom", raw.gui_classroom, "start in classroom mode (lesson pane, presenter fonts; F5 toggles)");
    app.add_option("--lesson", raw.gui_lesson, "open this lesson (name or number; see `fusionlab lessons list`)")
        ->type_name("NAME");
    // Hidden (group ""): the soak test scripts/soak.sh runs; not something a user needs in --help.
    app.add_option("--soak", raw.gui_soak, "soak test: random GUI actions for SECONDS, then exit")->group("");
    app.add_option("--soak-seed", raw.gui_soak_seed, "soak test: seed of the random actions")->group("");
    app.add_option("--soak-size", raw.gui_soak_size, "soak test: window WIDTHxHEIGHT")->group("");
    app.add_option("--soak-passes", raw.gui_soak_passes, "soak test: replay the same actions P times")->group("");
    CLI::App* info = app.add_subcommand("info", "Device, driver, clocks, measured ceilings, simulated GPUs");
    info->add_option("--sim", raw.info_sim, "describe this simulated GPU")->type_name("GPU");
    info->add_flag("--sim-heldout", raw.info_sim_heldout,
                   "the simulator on the points it was not fitted on: the error per card and workload, the fit of its "
                   "constants on the other two thirds, and the error with them (kernels/PERF.md, \"Held out\")");
    info->add_option("--repository", raw.info_repository,
                     "with --sim-heldout: a source tree whose assets/recordings and bench tables (assets/measurements) to use")
        ->type_name("DIR");
    info->add_option("--points-csv", raw.info_points_csv,
                     "with --sim-heldout: write every point of the study (card, source, variant, parameters, held out or "
                     "fitted, measured and simulated ms on the built-in constants) to FILE as CSV")
        ->type_name("FILE");
    define_bench(app, raw);
    define_shot(app, raw);
    define_lessons(app, raw);
    define_exercises(app, raw);
    define_record(app, raw);

    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants them last-first
        app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        cmd.exit_code = app.exit(e, out, err);
        return cmd;
    } catch (const CLI::CallForAllHelp& e) {
        cmd.exit_code = app.exit(e, out, err);
        return cmd;
    } catch (const CLI::ParseError& e) {
        err << "fusionlab: " << printable(e.what()) << " (see fusionlab --help)\n";
        cmd.exit_code = kExitUsage;
        return cmd;
    }

    std::string problem;
    std::string prefix = "fusionlab";
    if (app.got_subcommand("bench")) {
        cmd.command = Command::bench;
        prefix = "fusionlab bench";
        problem = check_bench(raw, cmd.bench);
    } else if (app.got_subcommand("shot")) {
        cmd.command = Command::shot;
        prefix = "fusionlab shot";
        problem = check_shot(raw, cmd.shot);
    } else if (app.got_subcommand("lessons")) {
        cmd.command = Command::lessons;
        prefix = "fusionlab lessons";
        cmd.lessons.action = raw.lessons_action;
        cmd.lessons.files = raw.lessons_files;
        cmd.lessons.csv = raw.lessons_csv;
        cmd.lessons.answers = raw.lessons_answers;
        cmd.lessons.no_devices = raw.lessons_no_devices;
    } else if (app.got_subcommand("exercises")) {
        cmd.command = Command::exercises;
        prefix = "fusionlab exercises";
        cmd.exercises = raw.exercises;
    } else if (app.got_subcommand("record")) {
        cmd.command = Command::record;
        prefix = "fusionlab record";
        problem = check_record(raw, args, cmd.record);
    } else if (app.got_subcommand("info")) {
        cmd.command = Command::info;
        prefix = "fusionlab info";
        if (!raw.info_sim.empty()) problem = parse_sim_gpu("--sim", raw.info_sim, cmd.info.sim_gpu);
        cmd.info.sim_heldout = raw.info_sim_heldout;
        cmd.info.repository = raw.info_repository;
        if (problem.empty() && !raw.info_repository.empty() && !raw.info_sim_heldout)
            problem = "--repository goes with --sim-heldout";
        cmd.info.points_csv = raw.info_points_csv;
        if (problem.empty() && !raw.info_points_csv.empty() && !raw.info_sim_heldout)
            problem = "--points-csv goes with --sim-heldout";
        if (problem.empty() && raw.info_sim_heldout && !raw.info_sim.empty()) problem = "--sim and --sim-heldout: give one of them";
        if (problem.empty() && !raw.info_repository.empty() &&
            !std::filesystem::is_directory(std::filesystem::path(raw.info_repository) / "assets" / "measurements"))
            problem = "--repository '" + raw.info_repository + "': no assets/measurements folder there (give the fusionlab source tree)";
    } else {
        cmd.command = Command::gui;
        Checker check;
        if (!raw.gui_sim.empty()) check(parse_sim_gpu("--sim", raw.gui_sim, cmd.gui.sim_gpu));
        if (!raw.gui_sim.empty() && !raw.gui_backend.empty()) check("--sim and --backend: give one of them");
        if (!raw.gui_backend.empty()) check(parse_backend("--backend", raw.gui_backend, cmd.gui.backend));
        if (!raw.gui_font_scale.empty()) check(parse_font_scale("--font-scale", raw.gui_font_scale, cmd.gui.font_scale));
        if (!raw.gui_results.empty()) {
            std::vector<kernels::Measurement> imported;
            if (std::string why = load_measurements_json(raw.gui_results, imported); !why.empty())
                check("--results " + why);
            cmd.gui.results = raw.gui_results;
        }
        check(check_reference(raw.gui_reference, cmd.gui.reference));
        cmd.gui.classroom = raw.gui_classroom;
        if (!raw.gui_lesson.empty()) {
            std::vector<Lesson> lessons;
            std::vector<LessonError> errors;
            load_all_lessons(lessons, errors);
            std::string why;
            if (const Lesson* l = find_lesson(lessons, raw.gui_lesson, &why)) cmd.gui.lesson = l->name;
            else check("--lesson: " + why);
        }
        check(parse_soak(raw.gui_soak, raw.gui_soak_seed, raw.gui_soak_size, raw.gui_soak_passes, cmd.gui));
        problem = check.error;
    }
    if (!problem.empty()) {
        err << prefix << ": " << printable(problem) << "\n";
        cmd.exit_code = kExitUsage;
    }
    return cmd;
}

}  // namespace app::cli
