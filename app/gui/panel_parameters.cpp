// The parameters panel: one control per ParamSpec of the workload (slider, typed box, checkbox or
// choice), the workload, variant, dtype, backend and repetition controls, and the message that says
// why the current parameters are not measured.
//
// Index:
//   [SECTION] Parameters panel pieces
//   [SECTION] Panel
#include "app/gui/panel_parameters.h"

#include "app/core/panels_state.h"
#include "app/recordings/recording_file.h"
#include "app/gui/panel_helpers.h"
#include "app/recordings/auto_pick.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace app {

namespace {

using kernels::Measurement;
using viz::current_theme;
using viz::em;
using viz::error_color;
using viz::tooltip;
using viz::color_swatch;
using viz::label_above;
using viz::section_heading;
using viz::wrapped_colored;

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters panel pieces
// ---------------------------------------------------------------------------------------------

std::string param_help(const kernels::ParamSpec& spec) {
    if (spec.kind != kernels::ParamKind::number)
        return std::string(spec.help) + "\n\nValues: " + kernels::legal_values_text(spec) + ".";
    char range[128];
    std::snprintf(range, sizeof range, "\n\nRange: %.17g to %.17g.", spec.min, spec.max);
    std::string help = std::string(spec.help) + range;
    if (spec.log_scale) help += " The slider moves in powers of two; type any value in the box.";
    return help;
}

bool param_slider(const kernels::ParamSpec& spec, double& value) {
    if (spec.log_scale) {
        const int lo = static_cast<int>(std::ceil(std::log2(std::max(spec.min, 1.0))));
        const int hi = static_cast<int>(std::floor(std::log2(spec.max)));
        int exponent = std::clamp(static_cast<int>(std::lround(std::log2(std::max(value, 1.0)))), lo, hi);
        if (!ImGui::SliderInt("##slider", &exponent, lo, hi, "2^%d", ImGuiSliderFlags_AlwaysClamp)) return false;
        value = std::ldexp(1.0, exponent);
        return true;
    }
    if (spec.integer) {
        int64_t v = std::llround(value);
        const int64_t lo = std::llround(spec.min), hi = std::llround(spec.max);
        if (!ImGui::SliderScalar("##slider", ImGuiDataType_S64, &v, &lo, &hi, nullptr, ImGuiSliderFlags_AlwaysClamp))
            return false;
        value = static_cast<double>(v);
        return true;
    }
    return ImGui::SliderScalar("##slider", ImGuiDataType_Double, &value, &spec.min, &spec.max, "%.3f",
                               ImGuiSliderFlags_AlwaysClamp);
}

// The typed box accepts anything; out-of-range values reach validate() and show in red.
bool param_typed(const kernels::ParamSpec& spec, double& value) {
    if (spec.integer) {
        int64_t v = std::llround(value);
        if (!ImGui::InputScalar("##typed", ImGuiDataType_S64, &v)) return false;
        value = static_cast<double>(v);
        return true;
    }
    return ImGui::InputDouble("##typed", &value, 0.0, 0.0, "%.4g");
}

// A switch (causal): one checkbox with the label beside it.
bool param_checkbox(kernels::Params& params, const kernels::ParamSpec& spec) {
    const std::string help = param_help(spec);
    bool on = params.get(spec.name) != 0;
    const bool changed = ImGui::Checkbox(spec.label.c_str(), &on);
    tooltip(help);
    if (changed) params.set(spec.name, on ? 1 : 0);
    return changed;
}

// "auto" for an auto parameter at auto (kernels/sim/auto_choice.h), else the number.
std::string choice_text(const kernels::ParamSpec& spec, double v) {
    if (spec.auto_choice && v == kernels::kAutoValue) return "auto";
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

// One of a few listed values (tile sizes): a combo box, so only legal values can be picked.
bool param_choice_combo(kernels::Params& params, const kernels::ParamSpec& spec) {
    const std::string help = param_help(spec);
    label_above(spec.label.c_str(), help);
    const double value = params.get(spec.name);
    ImGui::SetNextItemWidth(-FLT_MIN);
    bool changed = false;
    if (ImGui::BeginCombo("##choice", choice_text(spec, value).c_str())) {
        for (double choice : spec.choices)
            if (ImGui::Selectable(choice_text(spec, choice).c_str(), choice == value) && choice != value) {
                params.set(spec.name, choice);
                changed = true;
            }
        ImGui::EndCombo();
    }
    tooltip(help);
    return changed;
}

bool param_control(kernels::Params& params, const kernels::ParamSpec& spec) {
    ImGui::PushID(spec.name.c_str());
    if (spec.kind != kernels::ParamKind::number) {
        const bool changed = spec.kind == kernels::ParamKind::boolean ? param_checkbox(params, spec)
                                                                      : param_choice_combo(params, spec);
        ImGui::PopID();
        return changed;
    }
    const std::string help = param_help(spec);
    label_above(spec.label.c_str(), help);
    double value = params.get(spec.name);
    const float full = ImGui::GetContentRegionAvail().x;
    const bool one_line = full >= em() * 14;
    const float input_w = one_line ? std::max(em() * 6.5f, full * 0.4f) : full;
    const float slider_w = one_line ? full - input_w - ImGui::GetStyle().ItemSpacing.x : full;
    ImGui::SetNextItemWidth(slider_w);
    bool changed = param_slider(spec, value);
    tooltip(help);
    if (one_line) ImGui::SameLine();
    ImGui::SetNextItemWidth(input_w);
    changed |= param_typed(spec, value);
    tooltip("Type an exact value. Values outside the range are not measured; the reason shows in red below.");
    if (changed) params.set(spec.name, value);
    ImGui::PopID();
    return changed;
}

bool workload_combo(Settings& s) {
    label_above("workload", kernels::workload_def(s.params.workload).description);
    ImGui::SetNextItemWidth(-FLT_MIN);
    bool changed = false;
    if (ImGui::BeginCombo("##workload", s.params.workload.c_str())) {
        for (const std::string& w : kernels::workload_names()) {
            if (ImGui::Selectable(w.c_str(), w == s.params.workload) && w != s.params.workload) {
                // Shared sizes carry over; the new workload reads the fields its specs name.
                s.params.workload = w;
                changed = true;
            }
            tooltip(kernels::workload_def(w).description);
        }
        ImGui::EndCombo();
    }
    tooltip(kernels::workload_def(s.params.workload).description);
    return changed;
}

// A variant the device cannot run with these parameters is shown disabled with the reason, never
// hidden: the refusal (a tile larger than shared memory, S and P larger than GPU memory) is the lesson.
bool variant_checkboxes(Settings& s, const ResolvedBackend& backend, bool params_valid,
                        const ValidationCache& validation) {
    const std::string w = s.params.workload;
    label_above("variants", "Implementations of the same function. Each selected variant is measured "
                            "and shown side by side; the colour matches the charts.");
    std::vector<std::string> chosen = selected_variants(s);
    bool changed = false;
    for (const kernels::VariantInfo& v : kernels::variants(w)) {
        bool on = std::find(chosen.begin(), chosen.end(), v.name) != chosen.end();
        color_swatch(variant_series(w, v.name));
        const bool last_one = on && chosen.size() == 1;  // keep at least one variant selected
        const std::string refusal = backend.ready && params_valid
                                        ? validation.refusal(s.params, backend.device, v.name)
                                        : std::string();
        ImGui::BeginDisabled(last_one || !refusal.empty());
        if (ImGui::Checkbox(v.name.c_str(), &on)) {
            std::vector<std::string> next;
            for (const kernels::VariantInfo& other : kernels::variants(w)) {
                const bool keep = other.name == v.name ? on
                                  : std::find(chosen.begin(), chosen.end(), other.name) != chosen.end();
                if (keep) next.push_back(other.name);
            }
            s.variants[w] = next;
            changed = true;
        }
        ImGui::EndDisabled();
        // The schedule knows launches that depend on the parameters (K steps): built only under the mouse.
        const size_t launches = params_valid && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)
                                    ? kernels::schedule(v.name, s.params).kernels.size()
                                    : static_cast<size_t>(v.kernels);
        tooltip(v.description + "\nKernel launches per run: " + std::to_string(launches) +
                (last_one ? "\n(At least one variant stays selected.)" : "") +
                (refusal.empty() ? "" : "\n\nCannot run on " + plain_device_name(backend.device) + ": " + refusal));
        if (!refusal.empty()) {
            ImGui::Indent(em() * 1.5f);
            wrapped_colored(error_color(), "cannot run: " + refusal);
            ImGui::Unindent(em() * 1.5f);
        } else if (on && backend.ready && params_valid && kernels::has_auto(s.params)) {
            // What auto resolves to for this variant on this device, the numbers under the mouse.
            const kernels::AutoPick pick = pick_auto_for(v.name, s.params, backend.device,
                                                         backend.kind == kernels::BackendKind::recorded ? backend.recording : "");
            if (pick.resolved) {
                ImGui::Indent(em() * 1.5f);
                ImGui::TextDisabled("auto: %s", pick.label.c_str());
                ImGui::Unindent(em() * 1.5f);
                tooltip(pick.why);
            }
        }
    }
    return changed;
}

bool dtype_combo(kernels::Params& p) {
    const std::string help =
        "Element type of every tensor in HBM: fp32 is 4 bytes, fp16 and bf16 are 2. Halving the element "
        "size halves the bytes, and so the time of a memory-bound kernel. Arithmetic runs in fp32 registers.";
    label_above("dtype", help);
    ImGui::SetNextItemWidth(-FLT_MIN);
    bool changed = false;
    if (ImGui::BeginCombo("##dtype", kernels::to_string(p.dtype))) {
        for (kernels::DType t : kernels::kAllDTypes)
            if (ImGui::Selectable(kernels::to_string(t), t == p.dtype) && t != p.dtype) {
                p.dtype = t;
                changed = true;
            }
        ImGui::EndCombo();
    }
    tooltip(help);
    return changed;
}

std::string backend_label(const ResolvedBackend& b) {
    if (!b.ready) return "probing for a CUDA GPU...";
    if (b.kind == kernels::BackendKind::gpu) return "GPU: " + b.device.name;
    if (b.kind == kernels::BackendKind::recorded) return b.sim_key + " (recorded " + b.recording_date + ")";
    return "Simulated: " + plain_device_name(b.device);
}

bool backend_combo(Settings& s, const Runner& runner, const ResolvedBackend& current) {
    const std::string help =
        "Where the numbers come from.\nGPU: the real kernels, timed with CUDA events.\n"
        "Recorded: measurements taken on a real GPU for every lesson step and the sweeps (assets/recordings), "
        "shown labelled recorded with the GPU and the date; parameters the recording lacks fall back to the "
        "simulated GPU of that kind, labelled simulated.\n"
        "Simulated: a calibrated GPU; each kernel takes the time of its slowest resource (DRAM, L2, shared "
        "memory, tensor cores, FP32, SFU) + launch cost. Pick one any time, also when a GPU is present, to "
        "compare generations.";
    label_above("backend", help);
    ImGui::SetNextItemWidth(-FLT_MIN);
    bool changed = false;
    if (ImGui::BeginCombo("##backend", backend_label(current).c_str())) {
        if (runner.gpu_available()) {
            const bool selected = current.kind == kernels::BackendKind::gpu;
            if (ImGui::Selectable(("GPU: " + runner.gpu_device().name).c_str(), selected) && !selected) {
                s.backend = "gpu";
                changed = true;
            }
        } else {
            // The reason up to its first ';' (what is missing: "cuBLAS 13 not installed (libcublas.so.13:
            // ...)"); what to install is the rest, in the tooltip, so the list keeps a sane width.
            const std::string why = runner.gpu_status();
            ImGui::Selectable(("GPU: none (" + why.substr(0, why.find(';')) + ")").c_str(), false,
                              ImGuiSelectableFlags_Disabled);
            tooltip("Why no GPU: " + why);
        }
        // Recordings of real GPUs found at start-up (assets/recordings); an unreadable file is listed
        // disabled with the reason, never half-loaded.
        const auto catalog = recordings();
        for (const auto& r : catalog->recordings) {
            const bool selected = current.kind == kernels::BackendKind::recorded && current.recording == r->key;
            if (ImGui::Selectable(r->label().c_str(), selected) && !selected) {
                s.backend = kRecordedBackendPrefix + r->key;
                changed = true;
            }
            tooltip("Measured on " + r->device.name + " (driver " + r->device.driver + ") on " + r->date + ": " +
                    std::to_string(r->measurements.size()) + " measurements, every lesson step and the sweeps. "
                    "Other parameters: the simulated " + r->card + ".\n" + r->path);
        }
        for (const std::string& e : catalog->errors) {
            ImGui::Selectable("recording not loaded (hover)", false, ImGuiSelectableFlags_Disabled);
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) viz::tooltip_box(e);
        }
        for (const kernels::SimGpu& g : kernels::sim_gpus()) {
            const bool selected = current.kind == kernels::BackendKind::simulated && current.sim_key == g.key;
            if (ImGui::Selectable(("Simulated: " + plain_device_name(g.info)).c_str(), selected) && !selected) {
                s.backend = g.key;
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    tooltip(help);
    return changed;
}

bool reps_control(Settings& s) {
    const std::string help =
        "Timed repetitions per variant after warm-up; the table shows their median, min and max. "
        "A GPU always times at least 20. The simulated backend computes a single estimate.";
    ImGui::PushID("reps");
    label_above("repetitions", help);
    const float full = ImGui::GetContentRegionAvail().x;
    const bool one_line = full >= em() * 14;
    const float input_w = one_line ? std::max(em() * 6.5f, full * 0.4f) : full;
    ImGui::SetNextItemWidth(one_line ? full - input_w - ImGui::GetStyle().ItemSpacing.x : full);
    bool changed = ImGui::SliderInt("##slider", &s.reps, kMinReps, kMaxReps, "%d",
                                    ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    tooltip(help);
    if (one_line) ImGui::SameLine();
    ImGui::SetNextItemWidth(input_w);
    changed |= ImGui::InputInt("##typed", &s.reps, 0, 0);
    tooltip(help);
    s.reps = std::clamp(s.reps, kMinReps, kMaxReps);
    ImGui::PopID();
    return changed;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Panel
// ---------------------------------------------------------------------------------------------

void draw_parameters_panel(AppState& state, const Runner& runner, const ResolvedBackend& backend) {
    section_heading("Parameters");
    Settings& s = state.settings;
    bool changed = workload_combo(s);
    changed |= variant_checkboxes(s, backend, params_error(state).empty(), state.validation);
    for (const kernels::ParamSpec& spec : kernels::param_specs(s.params.workload))
        changed |= param_control(s.params, spec);
    changed |= dtype_combo(s.params);
    changed |= backend_combo(s, runner, backend);
    changed |= reps_control(s);
    if (changed) mark_changed(state, ImGui::GetTime());

    // Checked as the value is typed (once per change: params_error keeps the answer) so the
    // message appears at once.
    const std::string& why = params_error(state);
    if (!why.empty()) wrapped_colored(error_color(), why + " \xE2\x80\x94 not measured");
}

void draw_step_controls(AppState& state, const std::vector<std::string>& names, const Runner& runner,
                        const ResolvedBackend& backend) {
    Settings& s = state.settings;
    bool changed = false;
    for (const std::string& name : names) {
        if (name == "workload") changed |= workload_combo(s);
        else if (name == "variants") changed |= variant_checkboxes(s, backend, params_error(state).empty(), state.validation);
        else if (name == "dtype") changed |= dtype_combo(s.params);
        else if (name == "backend") changed |= backend_combo(s, runner, backend);
        else
            for (const kernels::ParamSpec& spec : kernels::param_specs(s.params.workload))
                if (name == spec.name) changed |= param_control(s.params, spec);
    }
    if (changed) mark_changed(state, ImGui::GetTime());
    if (const std::string& why = params_error(state); !why.empty())
        wrapped_colored(error_color(), why + " \xE2\x80\x94 not measured");
}

}  // namespace app
