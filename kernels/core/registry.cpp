// The registry's lookups and the questions every workload answers through its WorkloadDef
// (kernels/core/registry.h). The list itself is kernels/core/workload_list.cpp.
//
// [SECTION] Parameter values: Params, checks, legal values
// [SECTION] Registry lookups
// [SECTION] Validation
// [SECTION] Variants, schedule, model, refusals, description
#include "kernels/core/registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kernels {

// =============================================================================================
// [SECTION] Parameter values
// =============================================================================================
std::string param_number_text(double v) {
    char buf[48];
    if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

const ParamSpec& seed_param() {
    static const ParamSpec seed{"seed", "seed", 0, 9007199254740991.0, true, false,
                                "Seeds the random inputs (and the chain's dropout mask). Same seed, same numbers, on "
                                "GPU and CPU.",
                                1234};
    return seed;
}

uint64_t seed_of(const Params& p) { return static_cast<uint64_t>(std::llround(std::max(p.get("seed"), 0.0))); }

double Params::get(const std::string& name) const {
    const ParamSpec* spec = find_param_spec(workload, name);
    if (!spec)
        throw std::logic_error("workload " + workload + " takes no parameter '" + name + "'");
    return get(*spec);
}

double Params::get(const ParamSpec& spec) const {
    const auto it = values.find(spec.name);
    return it != values.end() ? it->second : spec.default_value;
}

int64_t Params::get_int(const std::string& name) const { return static_cast<int64_t>(std::llround(get(name))); }

bool Params::operator==(const Params& other) const {
    if (workload != other.workload || dtype != other.dtype) return false;
    const WorkloadDef* def = find_workload(workload);
    if (!def) return values == other.values;
    for (const ParamSpec& s : def->params)
        if (get(s) != other.get(s)) return false;
    return true;
}

std::string param_value_text(const ParamSpec& spec, double v) {
    return spec.auto_choice && v == 0 ? "auto" : param_number_text(v);  // 0: kAutoValue (kernels/sim/auto_choice.h)
}

bool parse_param_word(const ParamSpec& spec, const std::string& text, double& out) {
    if (!spec.auto_choice || text != "auto") return false;
    out = 0;  // kAutoValue
    return true;
}

std::string legal_values_text(const ParamSpec& spec) {
    switch (spec.kind) {
    case ParamKind::boolean: return "0 or 1";
    case ParamKind::choice: {
        std::string text;
        for (size_t i = 0; i < spec.choices.size(); ++i) {
            if (i > 0) text += i + 1 == spec.choices.size() ? " or " : ", ";
            text += param_value_text(spec, spec.choices[i]);
        }
        return text;
    }
    case ParamKind::number: break;
    }
    return param_number_text(spec.min) + " .. " + param_number_text(spec.max);
}

std::string check_param_value(const ParamSpec& spec, double value) {
    const std::string named = spec.name + " = " + param_number_text(value);
    if (!std::isfinite(value)) return spec.name + " is not a finite number";
    switch (spec.kind) {
    case ParamKind::boolean:
        if (value != 0 && value != 1) return named + " is not a switch: it must be 0 or 1";
        return "";
    case ParamKind::choice:
        if (std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end())
            return named + " is not one of the choices: it must be " + legal_values_text(spec);
        return "";
    case ParamKind::number: break;
    }
    if (value < spec.min || value > spec.max)
        return named + " is out of range: it must be between " + param_number_text(spec.min) + " and " +
               param_number_text(spec.max);
    if (spec.integer && value != std::floor(value)) return named + " is not a whole number";
    return "";
}

const ParamSpec* WorkloadDef::find_param(const std::string& param) const {
    for (const ParamSpec& s : params)
        if (s.name == param) return &s;
    return nullptr;
}

const VariantInfo* WorkloadDef::find_variant(const std::string& variant) const {
    for (const VariantInfo& v : variants)
        if (v.name == variant) return &v;
    return nullptr;
}

// =============================================================================================
// [SECTION] Registry lookups
// =============================================================================================
static std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

const WorkloadDef* find_workload(const std::string& name) {
    for (const WorkloadDef* w : workloads())  // the registry's own spelling: no copy (Params::get asks often)
        if (w->name == name) return w;
    const std::string key = lower(name);
    for (const WorkloadDef* w : workloads())
        if (w->name == key) return w;
    return nullptr;
}

const WorkloadDef& workload_def(const std::string& name) {
    if (const WorkloadDef* w = find_workload(name)) return *w;
    throw std::invalid_argument("unknown workload '" + name + "' (legal: " + workload_names_text() + ")");
}

std::vector<std::string> workload_names() {
    std::vector<std::string> names;
    for (const WorkloadDef* w : workloads()) names.push_back(w->name);
    return names;
}

bool parse_workload(const std::string& text, std::string& out) {
    const WorkloadDef* w = find_workload(text);
    if (w) out = w->name;
    return w != nullptr;
}

std::string workload_names_text() {
    std::string text;
    const auto& list = workloads();
    for (size_t i = 0; i < list.size(); ++i) {
        if (i > 0) text += i + 1 == list.size() ? " or " : ", ";
        text += list[i]->name;
    }
    return text;
}

const std::vector<ParamSpec>& param_specs(const std::string& workload) { return workload_def(workload).params; }

const std::vector<ParamSpec>& all_param_specs() {
    static const std::vector<ParamSpec> all = [] {
        std::vector<ParamSpec> specs;
        for (const WorkloadDef* w : workloads())
            for (const ParamSpec& s : w->params)
                if (std::none_of(specs.begin(), specs.end(), [&](const ParamSpec& t) { return t.name == s.name; }))
                    specs.push_back(s);
        return specs;
    }();
    return all;
}

const ParamSpec* find_param_spec(const std::string& workload, const std::string& param) {
    const WorkloadDef* w = find_workload(workload);
    return w ? w->find_param(param) : nullptr;
}

Params default_params(const std::string& workload) {
    Params p;
    p.workload = workload_def(workload).name;
    for (const ParamSpec& s : workload_def(workload).params)
        p.values[s.name] = s.default_value;
    return p;
}

// =============================================================================================
// [SECTION] Validation
// =============================================================================================
std::string validate(const Params& p) {
    const WorkloadDef* w = find_workload(p.workload);
    if (!w) return "unknown workload '" + p.workload + "' (legal: " + workload_names_text() + ")";
    return validate(*w, p);
}

std::string check_param_values(const WorkloadDef& w, const Params& p) {
    for (const ParamSpec& s : w.params)
        if (std::string bad = check_param_value(s, p.get(s)); !bad.empty()) return bad;
    return "";
}

std::string validate(const WorkloadDef& w, const Params& p) {
    if (std::string bad = check_param_values(w, p); !bad.empty()) return bad;
    return w.validate ? w.validate(*w.decode(p)) : "";
}


// =============================================================================================
// [SECTION] Variants, schedule, model, refusals, description
// =============================================================================================
const std::vector<VariantInfo>& variants(const std::string& workload) { return workload_def(workload).variants; }

bool has_variant(const std::string& workload, const std::string& variant) {
    const WorkloadDef* w = find_workload(workload);
    return w && w->find_variant(variant) != nullptr;
}

std::string unknown_variant_message(const std::string& workload, const std::string& variant) {
    std::string legal;
    const auto& list = variants(workload);
    for (size_t i = 0; i < list.size(); ++i) {
        if (i > 0) legal += i + 1 == list.size() ? " or " : ", ";
        legal += list[i].name;
    }
    return "unknown variant '" + variant + "' for workload " + workload + " (legal: " + legal + ")";
}

Schedule schedule(const std::string& variant, const Params& p) {
    const WorkloadDef& w = workload_def(p);
    return w.schedule(variant, *w.decode(p));
}

Model model(const std::string& variant, const Params& p, uint64_t l2_bytes) {
    return model(workload_def(p), variant, p, l2_bytes);
}

Model model(const Schedule& s, const std::string& variant, const Params& p, uint64_t l2_bytes) {
    return model(workload_def(p), s, variant, p, l2_bytes);
}

Model model(const WorkloadDef& w, const std::string& variant, const Params& p, uint64_t l2_bytes) {
    return model(w, variant, *w.decode(p), l2_bytes);
}

Model model(const WorkloadDef& w, const Schedule& s, const std::string& variant, const Params& p, uint64_t l2_bytes) {
    return model(w, s, variant, *w.decode(p), l2_bytes);
}

Model model(const WorkloadDef& w, const std::string& variant, const DecodedParams& decoded, uint64_t l2_bytes) {
    return model(w, w.schedule(variant, decoded), variant, decoded, l2_bytes);
}

Model model(const WorkloadDef& w, const Schedule& s, const std::string& variant, const DecodedParams& decoded,
            uint64_t l2_bytes) {
    Model m = model_from_schedule(s);
    std::function<uint64_t(const std::string&)> footprint;
    if (w.footprint)
        footprint = [&](const std::string& buffer) { return w.footprint(decoded, buffer).bytes; };
    apply_l2_reuse(m, l2_bytes, footprint);
    if (w.l2_reuse) w.l2_reuse(variant, decoded, l2_bytes, m);
    return m;
}

uint64_t min_bytes(const Params& p) {
    const WorkloadDef& w = workload_def(p);
    return w.min_bytes(*w.decode(p));
}

std::string device_refusal(const std::string& variant, const Params& p, const DeviceBudget& device) {
    return device_refusal(workload_def(p), variant, p, device);
}

std::string device_refusal(const WorkloadDef& w, const std::string& variant, const Params& p, const DeviceBudget& device) {
    return w.device_refusal ? w.device_refusal(variant, *w.decode(p), device) : "";
}

std::string device_refusal(const WorkloadDef& w, const std::string& variant, const DecodedParams& decoded,
                           const DeviceBudget& device) {
    return w.device_refusal ? w.device_refusal(variant, decoded, device) : "";
}

std::string describe(const Params& p, const std::string& variant) {
    const WorkloadDef* w = find_workload(p.workload);
    if (!w) return p.workload;
    return w->name + (variant.empty() ? std::string() : " " + variant) + ": " + w->describe(p, variant) + ", " +
           to_string(p.dtype);
}

}  // namespace kernels
