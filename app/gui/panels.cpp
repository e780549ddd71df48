// [SECTION] Small helpers: sizes, colours, tooltips, headings
// [SECTION] Main window layout
// [SECTION] Banner
// [SECTION] Parameters panel
// [SECTION] Toolbar (export, font scale, theme) and export folder
// [SECTION] Results table
// [SECTION] Charts
// [SECTION] Status line and shortcuts
#include "app/gui/panels.h"

#include "app/core/export.h"
#include "app/core/lesson_player.h"
#include "app/gui/panel_lesson.h"
#include "app/gui/panel_memory.h"
#include "app/gui/panel_roofline.h"
#include "app/gui/panel_sweep.h"
#include "app/gui/panel_timeline.h"
#include "kernels/common/timeline.h"
#include "kernels/launch/launch.h"
#include "app/core/views.h"
#include "kernels/common/backend.h"
#include "kernels/common/dram_counters.h"
#include "kernels/common/format.h"
#include "kernels/roofline.h"
#include "kernels/workload.h"
#include "viz/bar_chart.h"
#include "viz/highlight.h"
#include "viz/palette.h"
#include "viz/theme.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#define GLFW_INCLUDE_NONE  // key codes only; no GL header here
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <functional>
#include <filesystem>
#include <map>
#include <string>

namespace app {

namespace {

using kernels::Measurement;

// ---------------------------------------------------------------------------------------------
// [SECTION] Small helpers
// ---------------------------------------------------------------------------------------------

// One "em": every size is a multiple of the font size, so projector scaling needs no extra code.
float em() { return ImGui::GetFontSize(); }

bool light_theme() { return ImGui::GetStyle().Colors[ImGuiCol_WindowBg].x > 0.5f; }
ImVec4 error_color() { return light_theme() ? ImVec4(0.69f, 0.0f, 0.0f, 1) : ImVec4(1.0f, 0.45f, 0.45f, 1); }
ImVec4 success_color() { return light_theme() ? ImVec4(0.0f, 0.42f, 0.1f, 1) : ImVec4(0.5f, 0.9f, 0.55f, 1); }
viz::Theme current_theme() { return light_theme() ? viz::Theme::light : viz::Theme::dark; }

// Explains the item just drawn when the mouse rests on it.
void tooltip(const std::string& text) {
    // Disabled items too: a disabled variant's tooltip is where it says why it cannot run.
    if (text.empty() || !ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(em() * 34);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void wrapped_colored(const ImVec4& color, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

void section_heading(const char* title) {
    ImGui::PushFont(viz::heading_font());
    ImGui::TextUnformatted(title);
    ImGui::PopFont();
    ImGui::Separator();
}

// A label on its own line above a full-width control: survives narrow panels at 3x fonts.
void label_above(const char* label, const std::string& help) {
    ImGui::TextUnformatted(label);
    tooltip(help);
}

// A filled square in a series colour, aligned with the text line that follows it.
void color_swatch(int series) {
    const float side = std::round(em() * 0.8f);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float dy = (ImGui::GetTextLineHeight() - side) * 0.5f;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(ImVec2(at.x, at.y + dy), ImVec2(at.x + side, at.y + dy + side),
                        viz::series_color(series, current_theme()));
    draw->AddRect(ImVec2(at.x, at.y + dy), ImVec2(at.x + side, at.y + dy + side), ImGui::GetColorU32(ImGuiCol_Text));
    ImGui::Dummy(ImVec2(side, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
}

// The colour index of a variant: its position in the workload's variant list, so a variant
// keeps its colour whatever else is selected.
int variant_series(kernels::Workload w, const std::string& variant) {
    const auto& all = kernels::variants(w);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == variant) return static_cast<int>(i);
    return 0;
}

const kernels::VariantInfo* variant_info(kernels::Workload w, const std::string& variant) {
    for (const kernels::VariantInfo& v : kernels::variants(w))
        if (v.name == variant) return &v;
    return nullptr;
}

std::string workload_description(kernels::Workload w) {
    switch (w) {
    case kernels::Workload::chain:
        return "LayerNorm -> GELU -> Dropout -> residual add on a rows x hidden activation, as after a "
               "transformer block's attention. Unfused: 4 kernels, each reading and writing HBM. "
               "Fused: 1 kernel keeps each row on chip.";
    case kernels::Workload::bias_gelu:
        return "y = GELU(x + bias), the MLP epilogue. Unfused: a bias kernel, then a GELU kernel "
               "(the sum makes a round trip through HBM). Fused: one kernel.";
    case kernels::Workload::attention:
        return "O = softmax(Q K^T / sqrt(d)) V for each of batch x heads problems. naive: 3 kernels, the N x N "
               "scores S and probabilities P written to HBM and read back. flash: one kernel streams tiles of K "
               "and V through shared memory with an online softmax, so S and P never leave the chip. flash_tc: "
               "the same loop on tensor cores.";
    case kernels::Workload::skip:
        return "Consistency-model skip connection out = c_skip(t) x + c_out(t) attention(q, k, v), one t per batch "
               "element. two_pass: the attention kernel writes attn_out to HBM and a skip kernel reads it back with "
               "x. fused: the attention kernel's epilogue loads the x tile and writes out once, so attn_out never "
               "reaches HBM. teaching_*: the same on the teaching kernel.";
    case kernels::Workload::launch:
        return "K dependent steps y = y*a + b on one vector. stream: K kernel launches, each a driver call and a "
               "gap on the GPU. graph: the K kernels captured once as a CUDA graph and replayed (smaller gaps). "
               "fused: one kernel applies the K steps in registers. See the Timeline tab for the gaps.";
    }
    return {};
}

std::string percent_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f %%", value);
    return text;
}

std::string scientific_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2e", value);
    return text;
}

std::string ratio_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", value);
    return text;
}

// A lesson step pointing at the item just drawn (an id of app/core/lesson.cpp's highlight_ids()):
// ring it. Drawn in the window's draw list, clipped to the window, so it scrolls with the item.
void ring_if_highlighted(const AppState& state, const char* id) {
    if (state.highlight != id) return;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    draw->PushClipRect(pos, ImVec2(pos.x + size.x, pos.y + size.y), false);
    const float pulse = highlight_pulse(state, ImGui::GetTime());
    // Kept inside the window: an item flush with the pane's edge still gets its whole ring.
    const float margin = em() * 0.35f;
    const ImVec2 a(std::max(ImGui::GetItemRectMin().x, pos.x + margin), std::max(ImGui::GetItemRectMin().y, pos.y + margin));
    const ImVec2 b(std::min(ImGui::GetItemRectMax().x, pos.x + size.x - margin),
                   std::min(ImGui::GetItemRectMax().y, pos.y + size.y - margin));
    viz::draw_highlight_ring(draw, a, b, em(), pulse);
    draw->PopClipRect();
}

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
    bool on = kernels::get_param(params, spec.id) != 0;
    const bool changed = ImGui::Checkbox(spec.label, &on);
    tooltip(help);
    if (changed) kernels::set_param(params, spec.id, on ? 1 : 0);
    return changed;
}

std::string choice_text(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

// One of a few listed values (tile sizes): a combo box, so only legal values can be picked.
bool param_choice_combo(kernels::Params& params, const kernels::ParamSpec& spec) {
    const std::string help = param_help(spec);
    label_above(spec.label, help);
    const double value = kernels::get_param(params, spec.id);
    ImGui::SetNextItemWidth(-FLT_MIN);
    bool changed = false;
    if (ImGui::BeginCombo("##choice", choice_text(value).c_str())) {
        for (double choice : spec.choices)
            if (ImGui::Selectable(choice_text(choice).c_str(), choice == value) && choice != value) {
                kernels::set_param(params, spec.id, choice);
                changed = true;
            }
        ImGui::EndCombo();
    }
    tooltip(help);
    return changed;
}

bool param_control(kernels::Params& params, const kernels::ParamSpec& spec) {
    ImGui::PushID(spec.name);
    if (spec.kind != kernels::ParamKind::number) {
        const bool changed = spec.kind == kernels::ParamKind::boolean ? param_checkbox(params, spec)
                                                                      : param_choice_combo(params, spec);
        ImGui::PopID();
        return changed;
    }
    const std::string help = param_help(spec);
    label_above(spec.label, help);
    double value = kernels::get_param(params, spec.id);
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
    if (changed) kernels::set_param(params, spec.id, value);
    ImGui::PopID();
    return changed;
}

bool workload_combo(Settings& s) {
    label_above("workload", workload_description(s.params.workload));
    ImGui::SetNextItemWidth(-FLT_MIN);
    bool changed = false;
    if (ImGui::BeginCombo("##workload", kernels::to_string(s.params.workload))) {
        for (kernels::Workload w : kernels::kAllWorkloads) {
            if (ImGui::Selectable(kernels::to_string(w), w == s.params.workload) && w != s.params.workload) {
                // Shared sizes carry over; the new workload reads the fields its specs name.
                s.params.workload = w;
                changed = true;
            }
            tooltip(workload_description(w));
        }
        ImGui::EndCombo();
    }
    tooltip(workload_description(s.params.workload));
    return changed;
}

// A variant the device cannot run with these parameters is shown disabled with the reason, never
// hidden: the refusal (a tile larger than shared memory, S and P larger than GPU memory) is the lesson.
bool variant_checkboxes(Settings& s, const ResolvedBackend& backend) {
    const kernels::Workload w = s.params.workload;
    label_above("variants", "Implementations of the same function. Each selected variant is measured "
                            "and shown side by side; the colour matches the charts.");
    std::vector<std::string> chosen = selected_variants(s);
    bool changed = false;
    for (const kernels::VariantInfo& v : kernels::variants(w)) {
        bool on = std::find(chosen.begin(), chosen.end(), v.name) != chosen.end();
        color_swatch(variant_series(w, v.name));
        const bool last_one = on && chosen.size() == 1;  // keep at least one variant selected
        const std::string refusal = backend.ready && kernels::validate(s.params).empty()
                                        ? kernels::device_refusal(v.name, s.params, backend.device)
                                        : std::string();
        ImGui::BeginDisabled(last_one || !refusal.empty());
        if (ImGui::Checkbox(v.name.c_str(), &on)) {
            std::vector<std::string> next;
            for (const kernels::VariantInfo& other : kernels::variants(w)) {
                const bool keep = other.name == v.name ? on
                                  : std::find(chosen.begin(), chosen.end(), other.name) != chosen.end();
                if (keep) next.push_back(other.name);
            }
            s.variants[kernels::to_string(w)] = next;
            changed = true;
        }
        ImGui::EndDisabled();
        const int64_t launches =
            w == kernels::Workload::launch ? kernels::launch::kernel_count(v.name, s.params) : v.kernels;
        tooltip(v.description + "\nKernel launches per run: " + std::to_string(launches) +
                (last_one ? "\n(At least one variant stays selected.)" : "") +
                (refusal.empty() ? "" : "\n\nCannot run on " + plain_device_name(backend.device) + ": " + refusal));
        if (!refusal.empty()) {
            ImGui::Indent(em() * 1.5f);
            wrapped_colored(error_color(), "cannot run: " + refusal);
            ImGui::Unindent(em() * 1.5f);
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
    return "Simulated: " + plain_device_name(b.device);
}

bool backend_combo(Settings& s, const Runner& runner, const ResolvedBackend& current) {
    const std::string help =
        "Where the numbers come from.\nGPU: the real kernels, timed with CUDA events.\n"
        "Simulated: a datasheet GPU; time = sum over kernels of max(bytes / bandwidth, FLOPs / peak) "
        "+ launch cost. Pick one any time, also when a GPU is present, to compare generations.";
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
            ImGui::Selectable(("GPU: none (" + runner.gpu_status() + ")").c_str(), false,
                              ImGuiSelectableFlags_Disabled);
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

// ---------------------------------------------------------------------------------------------
// [SECTION] Results table pieces
// ---------------------------------------------------------------------------------------------

// Right-aligns a value in its table cell so digits line up down a column.
void cell_text(const std::string& text) {
    const float w = ImGui::CalcTextSize(text.c_str()).x;
    const float free = ImGui::GetContentRegionAvail().x - w;
    if (free > 0) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + free);
    ImGui::TextUnformatted(text.c_str());
}

using CellFn = std::function<void(const Measurement&)>;

// One metric, one row: the name (hover: what it is and its formula), then a cell per variant.
void metric_row(const char* name, const std::string& help, const std::vector<const Measurement*>& shown,
                const std::vector<bool>& stale, const CellFn& cell) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(name);
    tooltip(help);
    for (size_t i = 0; i < shown.size(); ++i) {
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        if (!shown[i]->ok) {
            cell_text("-");
            continue;
        }
        if (stale[i]) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        cell(*shown[i]);
        if (stale[i]) ImGui::PopStyleColor();
    }
}

// stale_note: what a greyed column means now ("updating", or "earlier parameters" when the
// current ones are invalid and will not be measured).
void variant_header_row(const std::vector<const Measurement*>& shown, const std::vector<bool>& stale,
                        const std::string& stale_note) {
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    ImGui::TableSetColumnIndex(0);
    ImGui::TableHeader("metric");
    for (size_t i = 0; i < shown.size(); ++i) {
        const Measurement& m = *shown[i];
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        ImGui::PushID(static_cast<int>(i));
        color_swatch(variant_series(m.job.params.workload, m.job.variant));
        const std::string title = m.job.variant + (stale[i] ? " (" + stale_note + ")" : "");
        ImGui::TableHeader(title.c_str());
        const kernels::VariantInfo* info = variant_info(m.job.params.workload, m.job.variant);
        tooltip((info ? info->description : m.job.variant) +
                (stale[i] ? "\nGreyed: measured with earlier settings (" + stale_note + ")." : std::string()));
        ImGui::PopID();
    }
}

void error_row(const std::vector<const Measurement*>& shown) {
    bool any = false;
    for (const Measurement* m : shown) any |= !m->ok;
    if (!any) return;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted("error");
    for (size_t i = 0; i < shown.size(); ++i) {
        if (shown[i]->ok) continue;
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        wrapped_colored(error_color(), (shown[i]->refused ? "refused: " : "") + shown[i]->error);
    }
}

std::string ceiling_help(const ResolvedBackend& backend) {
    const BandwidthCeiling c = bandwidth_ceiling(backend.device);
    std::string help = "Achieved bandwidth / ceiling x 100. The ceiling is the measured device-to-device copy "
                       "bandwidth on a GPU, the datasheet peak bandwidth on a simulated GPU.";
    if (c.gbps > 0) help += "\nNow: " + c.source + ", " + kernels::format_gbps(c.gbps) + ".";
    else help += "\nNow: no ceiling available (" + backend.device.ceiling_note + ").";
    return help;
}

void per_kernel_cell(const Measurement& m) {
    const BandwidthCeiling ceiling = bandwidth_ceiling(m.device);
    for (size_t k = 0; k < m.kernels.size(); ++k) {
        const kernels::KernelTime& kt = m.kernels[k];
        ImGui::PushID(static_cast<int>(k));
        const std::string line = kt.name + "  " + kernels::format_time_ms(kt.time.median_ms);
        cell_text(line);
        const double gbps = kt.time.median_ms > 0 ? static_cast<double>(kt.bytes) / (kt.time.median_ms * 1e6) : 0;
        std::string detail = kt.name + "\nmedian " + kernels::format_time_ms(kt.time.median_ms) + ", min " +
                             kernels::format_time_ms(kt.time.min_ms) + ", max " +
                             kernels::format_time_ms(kt.time.max_ms) + "\nmodeled bytes " +
                             kernels::format_bytes(static_cast<double>(kt.bytes)) + "\nachieved " +
                             kernels::format_gbps(gbps);
        if (ceiling.gbps > 0) detail += " = " + percent_text(percent_of_ceiling(gbps, ceiling)) + " of " + ceiling.source;
        tooltip(detail);
        ImGui::PopID();
    }
}

void results_rows(const std::vector<const Measurement*>& shown, const std::vector<bool>& stale,
                  const ResolvedBackend& backend) {
    const bool simulated = backend.kind == kernels::BackendKind::simulated;
    metric_row("kernels", "Kernel launches per run. Unfused code launches one kernel per operation and passes "
                          "each intermediate through HBM.", shown, stale,
               [](const Measurement& m) { cell_text(std::to_string(kernels::launched_kernels(m.kernels))); });
    metric_row("time (median)",
               simulated ? "Model estimate: sum over kernels of max(bytes / bandwidth, FLOPs / peak) + launch cost."
                         : "Median wall time of one run (all the variant's kernels), from CUDA events, after warm-up.",
               shown, stale, [](const Measurement& m) {
                   cell_text(kernels::format_time_ms(m.time.median_ms));
                   tooltip(m.timing_note + (m.time.reps > 0 ? "\nrepetitions: " + std::to_string(m.time.reps) : ""));
               });
    const std::string spread_help = "Fastest and slowest repetition. A wide range means noise (clocks, other work). "
                                    "Simulated: one estimate, so min = max = median.";
    metric_row("time min", spread_help, shown, stale,
               [](const Measurement& m) { cell_text(kernels::format_time_ms(m.time.min_ms)); });
    metric_row("time max", spread_help, shown, stale,
               [](const Measurement& m) { cell_text(kernels::format_time_ms(m.time.max_ms)); });
    metric_row("HBM bytes (model)", "Bytes read + written in HBM, from the model: every tensor every kernel touches, "
                                    "summed over kernels and buffers.", shown, stale, [](const Measurement& m) {
                   cell_text(kernels::format_bytes(static_cast<double>(m.bytes())));
                   tooltip("read " + kernels::format_bytes(static_cast<double>(m.bytes_read)) + ", written " +
                           kernels::format_bytes(static_cast<double>(m.bytes_written)) + "\n= " +
                           kernels::format_count(static_cast<int64_t>(m.bytes())) + " bytes");
               });
    metric_row("minimum bytes", "The fewest bytes any implementation must move: each input read once and the "
                                "output written once.", shown, stale, [](const Measurement& m) {
                   cell_text(kernels::format_bytes(static_cast<double>(m.min_bytes)));
               });
    metric_row("bytes / minimum", "HBM bytes (model) / minimum bytes: how much extra traffic the variant causes. "
                                  "Fusion drives it towards 1.", shown, stale, [](const Measurement& m) {
                   cell_text(m.min_bytes ? ratio_text(static_cast<double>(m.bytes()) / static_cast<double>(m.min_bytes))
                                         : std::string("n/a"));
               });
    metric_row("FLOPs", "Floating-point operations counted by the model. Fusion saves bytes, not arithmetic: "
                        "every variant does the same work.", shown, stale,
               [](const Measurement& m) { cell_text(kernels::format_flops(m.flops)); });
    metric_row("bandwidth", "Achieved bandwidth = HBM bytes (model) / median time.", shown, stale, [](const Measurement& m) {
        cell_text(kernels::format_gbps(m.achieved_gbps()));
        tooltip("compute: " + kernels::format_rate_flops(m.achieved_gflops() * 1e9));
    });
    metric_row("% of ceiling", ceiling_help(backend), shown, stale, [](const Measurement& m) {
        const BandwidthCeiling c = bandwidth_ceiling(m.device);
        cell_text(c.gbps > 0 ? percent_text(percent_of_ceiling(m.achieved_gbps(), c)) : "n/a");
        tooltip(c.gbps > 0 ? kernels::format_gbps(m.achieved_gbps()) + " / " + kernels::format_gbps(c.gbps) + " (" +
                                 c.source + ")"
                           : "no ceiling: " + m.device.ceiling_note);
    });
    metric_row("% of compute roof", "Achieved FLOP/s / the compute ceiling the variant is held to x 100: the tensor "
                                    "GEMM roof for variants on tensor cores (cuBLAS fp16/bf16, flash_tc), the FP32 FMA "
                                    "roof otherwise. Measured ceilings on a GPU (cuBLAS GEMM, FMA-chain kernel, cached "
                                    "per device), datasheet values on a simulated GPU.",
               shown, stale, [](const Measurement& m) {
                   const kernels::RoofSet roofs = kernels::roofs_for(m.device, m.job.params.dtype);
                   const kernels::Roof& roof = kernels::roof_for_variant(roofs, m.job.variant, m.job.params);
                   const double achieved = m.achieved_gflops() * 1e9;
                   cell_text(roof.flops_per_s > 0 ? percent_text(100 * achieved / roof.flops_per_s) : "n/a");
                   tooltip(kernels::format_rate_flops(achieved) + " / " + roof.name + " " +
                           kernels::format_rate_flops(roof.flops_per_s) + "\n" + roof.source +
                           (m.device.simulated ? "" : "\n" + m.device.compute_ceiling_note));
               });
    metric_row("wall time", "From the runner receiving the batch to this result: queueing behind the batch's earlier "
                            "variants, buffer allocation, the check against the CPU reference, warm-up, the timed reps "
                            "and the counters pass. What you wait for after a change.",
               shown, stale, [](const Measurement& m) {
                   cell_text(m.wall_ms > 0 ? kernels::format_time_ms(m.wall_ms) : std::string("n/a"));
                   tooltip(m.job.quick ? "quick pass: " + std::to_string(m.time.reps) + " reps, no counters; the full "
                                         "pass follows"
                                       : "full pass: " + std::to_string(m.time.reps) + " reps" +
                                             (m.job.measure_counters ? " + counters" : ""));
               });
    metric_row("max error", "Error versus the reference: the largest |output - reference| over the checked elements; the reference "
                                         "is the float64 CPU implementation on the same inputs.",
               shown, stale, [](const Measurement& m) {
                   if (m.checked) {
                       cell_text(scientific_text(m.max_abs_error));
                       tooltip("relative L2 error " + scientific_text(m.rel_l2_error) + " over " +
                               kernels::format_count(m.checked_elements) + " elements (" + m.check_note + ")");
                   } else {
                       cell_text(m.device.simulated ? "n/a: simulated" : "n/a");
                       tooltip(m.check_note);
                   }
               });
    metric_row("DRAM (counters)", "Measured DRAM bytes (read + written), counted by the GPU's hardware counters over one "
                                  "run after an L2 flush, and their ratio to the modeled bytes. Below 1x: L2 served "
                                  "some re-reads, or written lines were still in L2 when the run ended.",
               shown, stale, [](const Measurement& m) {
                   if (!m.measured_bytes) {
                       cell_text("n/a");
                       tooltip(m.measured_bytes_note);
                       return;
                   }
                   cell_text(kernels::measured_vs_modeled(*m.measured_bytes, m.bytes()));
                   std::string detail = kernels::explain_traffic_gap(m) + "\n\n";
                   if (m.measured_bytes_read && m.measured_bytes_written)
                       detail += "read " + kernels::measured_vs_modeled(*m.measured_bytes_read, m.bytes_read) +
                                ", written " + kernels::measured_vs_modeled(*m.measured_bytes_written, m.bytes_written) +
                                "\n";
                   tooltip(detail + m.measured_bytes_note);
               });
    metric_row("per kernel", "Each kernel of the variant with its median time. Hover a line for min/max, its "
                             "modeled bytes and achieved bandwidth.", shown, stale, per_kernel_cell);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Chart data
// ---------------------------------------------------------------------------------------------

bool any_simulated(const std::vector<const Measurement*>& shown) {
    for (const Measurement* m : shown)
        if (m->device.simulated) return true;
    return false;
}

std::string watermark_text(const std::vector<const Measurement*>& shown) {
    return shown.empty() ? std::string() : shown.front()->device.simulated ? "SIMULATED" : "";
}

// Bytes of one variant split into series (buffers or kernels), in a stable legend order.
struct ByteSeries {
    std::vector<std::string> names;
    std::vector<viz::StackedBar> bars;
    std::vector<std::vector<std::string>> details;  // tooltip per bar and segment
};

int series_index(const std::vector<std::string>& names, const std::string& name) {
    return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
}

// Legend order follows the data flow: inputs (only read), intermediates (written, then read back),
// outputs (only written); first appearance within each group. Kernels: launch order.
std::vector<std::string> series_order(const std::vector<kernels::Model>& models, bool by_kernel) {
    std::vector<std::string> names;
    std::map<std::string, std::pair<bool, bool>> read_written;
    std::map<std::string, uint64_t> bytes;
    for (const kernels::Model& model : models)
        for (const kernels::KernelModel& k : model.kernels) {
            if (by_kernel) {
                if (std::find(names.begin(), names.end(), k.name) == names.end()) names.push_back(k.name);
                continue;
            }
            for (const kernels::BufferTraffic& b : k.buffers) {
                if (std::find(names.begin(), names.end(), b.buffer) == names.end()) names.push_back(b.buffer);
                read_written[b.buffer].first |= b.bytes_read > 0;
                read_written[b.buffer].second |= b.bytes_written > 0;
                bytes[b.buffer] += b.bytes_read + b.bytes_written;
            }
        }
    if (!by_kernel) {
        // Within a group the big tensors come first: they get the most distinct colours.
        auto rank = [&](const std::string& n) {
            const auto [read, written] = read_written[n];
            return !written ? 0 : read ? 1 : 2;
        };
        std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
            return rank(a) != rank(b) ? rank(a) < rank(b) : bytes[a] > bytes[b];
        });
    }
    return names;
}

ByteSeries byte_series(const std::vector<const Measurement*>& shown, bool by_kernel) {
    ByteSeries out;
    std::vector<kernels::Model> models;
    for (const Measurement* m : shown) models.push_back(kernels::model(m->job.variant, m->job.params));
    out.names = series_order(models, by_kernel);
    for (size_t v = 0; v < shown.size(); ++v) {
        // Per series: bytes read, bytes written, and which kernels touched it.
        std::vector<uint64_t> read(out.names.size(), 0), written(out.names.size(), 0);
        std::vector<std::string> touched_by(out.names.size());
        for (const kernels::KernelModel& k : models[v].kernels) {
            if (by_kernel) {
                const size_t s = static_cast<size_t>(series_index(out.names, k.name));
                read[s] += k.bytes_read();
                written[s] += k.bytes_written();
                continue;
            }
            for (const kernels::BufferTraffic& b : k.buffers) {
                const size_t s = static_cast<size_t>(series_index(out.names, b.buffer));
                read[s] += b.bytes_read;
                written[s] += b.bytes_written;
                std::string& who = touched_by[s];
                if (b.bytes_written) who += (who.empty() ? "" : ", ") + ("written by " + k.name);
                if (b.bytes_read) who += (who.empty() ? "" : ", ") + ("read by " + k.name);
            }
        }
        viz::StackedBar bar;
        bar.label = shown[v]->job.variant;
        std::vector<std::string> details;
        uint64_t total = 0;
        for (size_t s = 0; s < out.names.size(); ++s) {
            const uint64_t bytes = read[s] + written[s];
            if (!bytes) continue;
            total += bytes;
            const std::string text = kernels::format_bytes(static_cast<double>(bytes));
            bar.segments.push_back({static_cast<int>(s), static_cast<double>(bytes), text});
            details.push_back(out.names[s] + ": " + text + "\nread " + kernels::format_bytes(static_cast<double>(read[s])) +
                              ", written " + kernels::format_bytes(static_cast<double>(written[s])) +
                              (touched_by[s].empty() ? std::string() : "\n" + touched_by[s]));
        }
        bar.total_text = kernels::format_bytes(static_cast<double>(total));
        out.bars.push_back(bar);
        out.details.push_back(details);
    }
    return out;
}

// Axis ticks for bytes are nice numbers of one binary unit (0, 50, 100 MiB), not of bytes.
struct ByteUnit {
    double size = 1;
    const char* name = "B";
};

ByteUnit byte_unit(double max_bytes) {
    static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    ByteUnit unit;
    for (int i = 1; i < 5 && max_bytes >= std::ldexp(1.0, 10 * i); ++i) unit = {std::ldexp(1.0, 10 * i), kNames[i]};
    return unit;
}

void chart_tooltip(const std::string& text) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(em() * 34);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Main window layout
// ---------------------------------------------------------------------------------------------

namespace {

// What the collapsed parameters header says, so a projector audience knows what is measured.
std::string parameters_summary(const Settings& s, const ResolvedBackend& backend) {
    const kernels::Params& p = s.params;
    const std::string shape =
        p.workload == kernels::Workload::launch
            ? "K " + std::to_string(p.steps) + " steps, " + std::to_string(p.elements) + " elements"
        : p.workload == kernels::Workload::attention || p.workload == kernels::Workload::skip
            ? std::to_string(p.batch_heads) + " heads, N " + std::to_string(p.seq_len) + ", d " +
                  std::to_string(p.head_dim) + (p.causal ? ", causal" : "")
            : std::to_string(p.rows) + " x " + std::to_string(p.hidden);
    std::string text = std::string(kernels::to_string(p.workload)) + ", " + shape + ", " + kernels::to_string(p.dtype);
    if (backend.ready)
        text += backend.kind == kernels::BackendKind::gpu ? ", GPU" : ", simulated " + backend.sim_key;
    return text;
}

// Height the results table will take: its rows are text lines, one per metric plus the extra
// lines of the per-kernel row.
float estimated_table_height(const AppState& state) {
    size_t kernel_lines = 1;
    for (const Measurement* m : visible_results(state)) kernel_lines = std::max(kernel_lines, m->kernels.size());
    const ImGuiStyle& style = ImGui::GetStyle();
    const float row = ImGui::GetTextLineHeight() + style.CellPadding.y * 2 + 1;
    constexpr int kMetricRows = 14;  // header + the metric rows of results_rows()
    return row * static_cast<float>(kMetricRows) + ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(kernel_lines - 1);
}

void draw_charts(AppState& state) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float width = ImGui::GetContentRegionAvail().x;
    // Charts take the height the table leaves, within reason: taller bars read better from afar,
    // but a bar chart of two bars stretched over a whole screen does not.
    const float bytes_extra = ImGui::GetFrameHeightWithSpacing() + em() * 2.5f;  // legend, radio row
    const float spare = ImGui::GetContentRegionAvail().y - estimated_table_height(state) - style.ItemSpacing.y * 4;
    if (width < em() * 44) {  // side by side only when each chart keeps ~22 em
        ImGui::BeginGroup();
        draw_time_chart(state, width, 0);
        ImGui::EndGroup();
        ring_if_highlighted(state, "results.time_chart");
        ImGui::Spacing();
        ImGui::BeginGroup();
        draw_bytes_chart(state, width, 0);
        ImGui::EndGroup();
        ring_if_highlighted(state, "results.bytes_chart");
        return;
    }
    const float plot_h = std::min(spare - bytes_extra, em() * 16);
    const float half = (width - style.ItemSpacing.x * 2) * 0.5f;
    ImGui::BeginGroup();
    draw_time_chart(state, half, plot_h);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.time_chart");
    ImGui::SameLine(0, style.ItemSpacing.x * 2);
    ImGui::BeginGroup();
    draw_bytes_chart(state, half, plot_h);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.bytes_chart");
}

// One sentence that says what the numbers mean: how much faster the fastest variant is than the
// slowest, and the reason the lesson claims (fewer bytes, fewer launches) as numbers.
std::string takeaway(const std::vector<const Measurement*>& shown) {
    const Measurement* fast = nullptr;
    const Measurement* slow = nullptr;
    for (const Measurement* m : shown) {
        if (!m->ok || !(m->time.median_ms > 0)) continue;
        if (!fast || m->time.median_ms < fast->time.median_ms) fast = m;
        if (!slow || m->time.median_ms > slow->time.median_ms) slow = m;
    }
    if (!fast || fast == slow) return {};
    std::string text = fast->job.variant + " is " + ratio_text(slow->time.median_ms / fast->time.median_ms) +
                       " faster than " + slow->job.variant + (fast->device.simulated ? " (model estimate)" : "");
    if (fast->bytes() && fast->bytes() < slow->bytes())
        text += ": it moves " + kernels::format_bytes(static_cast<double>(fast->bytes())) + " of HBM traffic instead of " +
                kernels::format_bytes(static_cast<double>(slow->bytes())) + " (" +
                ratio_text(static_cast<double>(slow->bytes()) / static_cast<double>(fast->bytes())) + " fewer bytes)";
    const int64_t fast_kernels = kernels::launched_kernels(fast->kernels), slow_kernels = kernels::launched_kernels(slow->kernels);
    if (fast_kernels < slow_kernels)
        text += std::string(fast->bytes() < slow->bytes() ? " in " : ": ") + std::to_string(fast_kernels) +
                (fast_kernels == 1 ? " kernel" : " kernels") + " instead of " + std::to_string(slow_kernels);
    return text + ".";
}

void draw_results_page(AppState& state, const ResolvedBackend& backend) {
    ImGui::PushFont(viz::heading_font());
    ImGui::TextUnformatted("Results");
    ImGui::PopFont();
    if (!state.lesson.classroom) draw_toolbar(state);  // the presenter view shows only the step's controls
    ImGui::Separator();
    if (const std::string text = takeaway(visible_results(state)); !text.empty()) {
        ImGui::PushFont(viz::bold_font());
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopFont();
        ring_if_highlighted(state, "results.takeaway");
        tooltip("Time is what the user feels; bytes and launches are why. A memory-bound kernel's time is about "
                "its HBM bytes / bandwidth, so moving fewer bytes (no intermediates written and read back) and "
                "launching fewer kernels is what fusion buys.");
    }
    // Charts first: they are what a room reads from afar; the table holds the exact numbers.
    draw_charts(state);
    ImGui::Spacing();
    ImGui::BeginGroup();
    draw_results_table(state, backend);
    ImGui::EndGroup();
    ring_if_highlighted(state, "results.table");
}

// The views of app/core/views.h share the right-hand side as tabs; each id draws one page.
void draw_view(const std::string& id, AppState& state, const ResolvedBackend& backend) {
    if (id == "results") draw_results_page(state, backend);
    else if (id == "memory") draw_memory_panel(state, backend);
    else if (id == "timeline") draw_timeline_panel(state, backend);
    else if (id == "roofline") draw_roofline_panel(state, backend);
    else if (id == "sweep") draw_sweep_panel(state, backend);
}

void draw_results_area(AppState& state, const ResolvedBackend& backend) {
    if (!ImGui::BeginTabBar("views")) return;
    for (const ViewInfo& view : views()) {
        const bool requested = state.requested_view == view.id;
        const ImGuiTabItemFlags flags = requested ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(view.label, nullptr, flags);
        if (state.interactive && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view.help);
        if (!open) continue;
        state.active_view = view.id;
        state.memory.tab_active = state.active_view == "memory";
        draw_view(view.id, state, backend);
        ImGui::EndTabItem();
    }
    if (state.interactive) state.requested_view.clear();  // shots keep it for every frame
    ImGui::EndTabBar();
}

}  // namespace

void draw_main_window(AppState& state, Runner& runner) {
    const ResolvedBackend backend = current_backend(state, runner);
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->Pos);
    ImGui::SetNextWindowSize(viewport->Size);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
    ImGui::Begin("fusionlab", nullptr, flags);

    draw_banner(state, runner, backend);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float status_h = ImGui::GetTextLineHeight() + style.ItemSpacing.y * 3;
    const float body_h = std::max(ImGui::GetContentRegionAvail().y - status_h, em() * 4);
    const float total_w = ImGui::GetContentRegionAvail().x;

    if (state.lesson.open) {
        // A lesson: its pane on the left, the step's view on the right (app/gui/panel_lesson.cpp).
        draw_lesson_layout(state, runner, backend, body_h);
    } else if (total_w >= em() * 50) {
        // Wide: controls on the left, results on the right, each scrolling on its own. The memory
        // animation may hide the controls to take the whole width (its panel names the parameters).
        if (!(state.memory.tab_active && state.memory.full_width)) {
            const float controls_w = std::clamp(em() * 20, em() * 15, total_w * 0.33f);
            ImGui::BeginChild("controls", ImVec2(controls_w, body_h), true);
            draw_lesson_launcher(state);
            draw_parameters_panel(state, runner, backend);
            ImGui::Spacing();
            draw_export_folder(state);
            ImGui::EndChild();
            ImGui::SameLine();
        }
        ImGui::BeginChild("results", ImVec2(0, body_h), false);
        draw_results_area(state, backend);
        ImGui::EndChild();
    } else {
        // Narrow (large fonts on a small screen): one column; the parameters fold away behind a
        // header that still says what is being measured.
        ImGui::BeginChild("page", ImVec2(0, body_h), false);
        const std::string header = "Parameters: " + parameters_summary(state.settings, backend) + "###parameters";
        draw_lesson_launcher(state);
        if (ImGui::CollapsingHeader(header.c_str())) {
            ImGui::Indent(em() * 0.5f);
            draw_parameters_panel(state, runner, backend);
            ImGui::Spacing();
            draw_export_folder(state);
            ImGui::Unindent(em() * 0.5f);
        }
        draw_results_area(state, backend);
        ImGui::EndChild();
    }

    draw_status_line(state, runner, backend);
    ImGui::End();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Banner
// ---------------------------------------------------------------------------------------------

namespace {

// The first clause of a long reason ("this build has no CUDA kernels"); the rest goes to a tooltip.
std::string first_clause(const std::string& reason) {
    const size_t cut = reason.find_first_of(";(:");
    std::string head = reason.substr(0, cut);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    return head.empty() ? reason : head;
}

}  // namespace

void draw_banner(const AppState& state, const Runner& runner, const ResolvedBackend& backend) {
    std::vector<std::string> lines;
    if (backend.ready && backend.kind == kernels::BackendKind::simulated)
        lines.push_back("SIMULATED \xE2\x80\x94 " + plain_device_name(backend.device) +
                        ": times are model estimates, not measurements");
    const bool imported = !state.imported_from.empty();
    if (imported)
        lines.push_back("IMPORTED \xE2\x80\x94 measured on " + plain_device_name(backend.device) +
                        (backend.device.simulated || backend.device.driver.empty() ? "" : " (" + backend.device.driver + ")") + ", read from " +
                        std::filesystem::path(state.imported_from).filename().string() +
                        "; change a parameter to measure here");
    const bool no_gpu = runner.gpu_probed() && !runner.gpu_available() && !imported;
    // The reason can be a long driver error: the banner names it in a few words, the tooltip in full.
    if (no_gpu) {
        std::string why = first_clause(runner.gpu_status());
        if (why.size() > 40) why = "hover for why";
        lines.push_back("No CUDA GPU: " + why + " \xE2\x80\x94 simulated mode");
    }
    if (lines.empty()) return;

    // Black on Okabe-Ito yellow: the highest-contrast pair that still reads as a warning on both
    // themes and on a washed-out projector. Bold text, body size: loud but not a third of the screen.
    ImFont* font = viz::bold_font();
    const float pad = std::round(em() * 0.4f);
    const float width = ImGui::GetContentRegionAvail().x;
    float height = pad * 2;
    std::vector<float> line_heights;
    for (const std::string& line : lines) {
        const float h = font->CalcTextSizeA(font->FontSize, FLT_MAX, width - pad * 2, line.c_str()).y;
        line_heights.push_back(h);
        height += h;
    }
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(at, ImVec2(at.x + width, at.y + height), viz::rgb(viz::kOkabeIto[3]));
    draw->AddRect(at, ImVec2(at.x + width, at.y + height), IM_COL32(0, 0, 0, 255), 0, 0, std::max(1.0f, em() / 10));
    float y = at.y + pad;
    for (size_t i = 0; i < lines.size(); ++i) {
        draw->AddText(font, font->FontSize, ImVec2(at.x + pad, y), IM_COL32(0, 0, 0, 255), lines[i].c_str(), nullptr,
                      width - pad * 2);
        y += line_heights[i];
    }
    ImGui::Dummy(ImVec2(width, height));
    tooltip("Simulated numbers come from the same byte and FLOP model as a GPU run, divided by the datasheet "
            "bandwidth and peak: they show trends, not this machine's speed. Every export and screenshot made "
            "from them says so." + (no_gpu ? "\n\nWhy no GPU: " + runner.gpu_status() : std::string()));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters panel
// ---------------------------------------------------------------------------------------------

void draw_parameters_panel(AppState& state, const Runner& runner, const ResolvedBackend& backend) {
    section_heading("Parameters");
    Settings& s = state.settings;
    bool changed = workload_combo(s);
    changed |= variant_checkboxes(s, backend);
    for (const kernels::ParamSpec& spec : kernels::param_specs(s.params.workload))
        changed |= param_control(s.params, spec);
    changed |= dtype_combo(s.params);
    changed |= backend_combo(s, runner, backend);
    changed |= reps_control(s);
    if (changed) mark_changed(state, ImGui::GetTime());

    // Checked live (it is cheap) so the message appears as the value is typed.
    const std::string why = kernels::validate(s.params);
    if (!why.empty()) wrapped_colored(error_color(), why + " \xE2\x80\x94 not measured");
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Toolbar (export, font scale, theme) and export folder
// ---------------------------------------------------------------------------------------------

namespace {

// Keeps toolbar items on one line while they fit, wrapping to the next line when they do not
// (at 3x fonts a toolbar is wider than the pane).
void same_line_if_fits(float next_width) {
    const float last_right = ImGui::GetItemRectMax().x;
    const float limit = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (last_right + ImGui::GetStyle().ItemSpacing.x * 2 + next_width <= limit) ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 2);
}

float button_width(const char* label) {
    return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
}

void export_buttons(AppState& state) {
    same_line_if_fits(button_width("Export CSV"));
    if (ImGui::Button("Export CSV")) state.export_message = export_results(state, "csv");
    tooltip("One row per variant: device, driver, clocks, build, backend, parameters, times, bytes, FLOPs, "
            "rates and error. Written to the export folder (left panel), atomically.");
    same_line_if_fits(button_width("JSON"));
    if (ImGui::Button("JSON")) state.export_message = export_results(state, "json");
    tooltip("The same fields as the CSV, as JSON.");
    same_line_if_fits(button_width("PNG (F12)"));
    if (ImGui::Button("PNG (F12)")) state.png_requested = true;
    tooltip("A screenshot of this window, exactly as shown (also the F12 key).");
}

void font_scale_buttons(AppState& state) {
    Settings& s = state.settings;
    const std::string help = "Projector mode: scales everything, 1x to 3x. Fonts are re-rasterised at the new pixel "
                             "size (crisp, not stretched) and every widget and gap scales with them. "
                             "Ctrl + and Ctrl - work too.";
    char value[16];
    std::snprintf(value, sizeof value, "font %.2fx", static_cast<double>(s.font_scale));
    const float group_w = ImGui::CalcTextSize(value).x + button_width(" - ") * 2 + ImGui::GetStyle().ItemSpacing.x * 2;
    same_line_if_fits(group_w);
    ImGui::BeginGroup();
    ImGui::BeginDisabled(s.font_scale <= kMinFontScale);
    if (ImGui::Button(" - ")) { s.font_scale = std::max(kMinFontScale, s.font_scale - 0.25f); state.settings_dirty = true; }
    ImGui::EndDisabled();
    tooltip(help);
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(value);
    tooltip(help);
    ImGui::SameLine();
    ImGui::BeginDisabled(s.font_scale >= kMaxFontScale);
    if (ImGui::Button(" + ")) { s.font_scale = std::min(kMaxFontScale, s.font_scale + 0.25f); state.settings_dirty = true; }
    ImGui::EndDisabled();
    tooltip(help);
    ImGui::EndGroup();
}

void theme_button(AppState& state) {
    Settings& s = state.settings;
    const char* label = s.theme == viz::Theme::dark ? "theme: dark" : "theme: light";
    same_line_if_fits(button_width(label));
    if (ImGui::Button(label)) {
        s.theme = s.theme == viz::Theme::dark ? viz::Theme::light : viz::Theme::dark;
        state.settings_dirty = true;
    }
    tooltip("Click to switch. Dark for dim rooms and screens, light for bright rooms and projectors; both high "
            "contrast, with a colour-blind-safe palette (Okabe-Ito) in the charts.");
}

}  // namespace

void draw_toolbar(AppState& state) {
    export_buttons(state);
    font_scale_buttons(state);
    theme_button(state);
    if (!state.export_message.text.empty())
        wrapped_colored(state.export_message.error ? error_color() : success_color(), state.export_message.text);
}

void draw_export_folder(AppState& state) {
    section_heading("Export folder");
    Settings& s = state.settings;
    const std::string help = "Folder for CSV, JSON and PNG files (empty: the folder fusionlab was started in). "
                             "Files are named fusionlab-<workload>-<date>-<time>.<ext> and written atomically: "
                             "a failed write leaves no partial file.";
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::InputTextWithHint("##exportdir", "current folder", &s.export_dir)) state.settings_dirty = true;
    tooltip(help);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Results table
// ---------------------------------------------------------------------------------------------

void draw_results_table(const AppState& state, const ResolvedBackend& backend) {
    const std::vector<const Measurement*> shown = visible_results(state);
    if (shown.empty()) {
        ImGui::TextDisabled("%s", backend.ready ? "measuring..." : "waiting for the GPU probe...");
        return;
    }
    std::vector<bool> stale;
    for (const Measurement* m : shown) stale.push_back(is_stale(*m, state.settings, backend));

    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame;
    const float metric_w = ImGui::CalcTextSize("HBM bytes (model)").x + em();
    // On wide screens a full-width table puts values a screen away from their labels.
    const float table_w = std::min(ImGui::GetContentRegionAvail().x, metric_w + em() * 16 * static_cast<float>(shown.size()));
    if (!ImGui::BeginTable("results", static_cast<int>(shown.size()) + 1, flags, ImVec2(table_w, 0))) return;
    ImGui::TableSetupColumn("metric", ImGuiTableColumnFlags_WidthFixed, metric_w);
    for (const Measurement* m : shown) ImGui::TableSetupColumn(m->job.variant.c_str(), ImGuiTableColumnFlags_WidthStretch);
    const bool invalid = !kernels::validate(state.settings.params).empty();
    variant_header_row(shown, stale, invalid ? "earlier parameters" : "updating");
    error_row(shown);
    results_rows(shown, stale, backend);
    ImGui::EndTable();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Charts
// ---------------------------------------------------------------------------------------------

void draw_time_chart(const AppState& state, float width, float plot_height) {
    const std::vector<const Measurement*> shown = visible_results(state);
    std::vector<viz::RangeBar> bars;
    std::vector<const Measurement*> plotted;
    for (const Measurement* m : shown) {
        if (!m->ok) continue;
        viz::RangeBar b;
        b.label = m->job.variant;
        b.value = m->time.median_ms;
        b.has_range = m->time.max_ms > m->time.min_ms;
        b.lo = m->time.min_ms;
        b.hi = m->time.max_ms;
        b.value_text = kernels::format_time_ms(m->time.median_ms);
        b.series = variant_series(m->job.params.workload, m->job.variant);
        bars.push_back(b);
        plotted.push_back(m);
    }
    viz::ChartFrame frame;
    frame.title = any_simulated(plotted) ? "Time per variant (model estimate)" : "Time per variant (median, min-max)";
    frame.format_tick = [](double v) { return kernels::format_time_ms(v); };
    frame.watermark = watermark_text(plotted);
    frame.theme = current_theme();
    const ImVec2 size(width, std::max(plot_height, viz::preferred_chart_height(static_cast<int>(bars.size()))));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const viz::ChartHover hover = viz::draw_range_bars(ImGui::GetWindowDrawList(), origin, size, frame, bars);
    ImGui::Dummy(size);
    if (hover.bar >= 0 && ImGui::IsItemHovered()) {
        const Measurement& m = *plotted[static_cast<size_t>(hover.bar)];
        chart_tooltip(m.job.variant + ": median " + kernels::format_time_ms(m.time.median_ms) + ", min " +
                      kernels::format_time_ms(m.time.min_ms) + ", max " + kernels::format_time_ms(m.time.max_ms) +
                      "\n" + std::to_string(kernels::launched_kernels(m.kernels)) + " kernel(s)\n" + m.timing_note);
    }
}

void draw_bytes_chart(AppState& state, float width, float plot_height) {
    const std::vector<const Measurement*> shown = visible_results(state);
    std::vector<const Measurement*> plotted;
    for (const Measurement* m : shown)
        if (m->ok) plotted.push_back(m);
    ByteSeries series = byte_series(plotted, state.stack_by_kernel);
    double max_bytes = 0;
    for (const Measurement* m : plotted) max_bytes = std::max(max_bytes, static_cast<double>(m->bytes()));
    const ByteUnit unit = byte_unit(max_bytes);
    for (viz::StackedBar& bar : series.bars)
        for (viz::StackSegment& segment : bar.segments) segment.value /= unit.size;

    viz::ChartFrame frame;
    frame.title = state.stack_by_kernel ? "HBM bytes per variant (model), by kernel"
                                        : "HBM bytes per variant (model), by buffer";
    frame.format_tick = [unit](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%g %s", v, unit.name);
        return std::string(text);
    };
    frame.watermark = watermark_text(plotted);
    frame.theme = current_theme();
    if (!plotted.empty()) {
        frame.reference_value = static_cast<double>(plotted.front()->min_bytes) / unit.size;
        frame.reference_label = "minimum";
    }
    const float legend = viz::legend_height(series.names, width);
    // The "minimum" label takes a line of its own above the plot (viz::make_layout), which
    // preferred_chart_height() does not count: without it one bar with a two-line legend no longer fits.
    const float reference_line = frame.reference_value > 0 ? em() * 1.25f : 0.0f;
    const float plot_h = std::max(plot_height, viz::preferred_chart_height(static_cast<int>(series.bars.size())) + reference_line);
    const ImVec2 size(width, plot_h + legend + em() * 0.5f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const viz::ChartHover hover =
        viz::draw_stacked_bars(ImGui::GetWindowDrawList(), origin, size, frame, series.bars, series.names);
    ImGui::Dummy(size);
    if (hover.bar >= 0 && ImGui::IsItemHovered()) {
        const size_t b = static_cast<size_t>(hover.bar);
        if (hover.segment >= 0) chart_tooltip(series.details[b][static_cast<size_t>(hover.segment)]);
        else chart_tooltip(series.bars[b].label + ": " + series.bars[b].total_text + " in total; the dashed line is "
                           "the minimum any implementation must move.");
    }
    ImGui::TextUnformatted("stack by");
    ImGui::SameLine();
    if (ImGui::RadioButton("buffer", !state.stack_by_kernel)) state.stack_by_kernel = false;
    tooltip("One segment per tensor in HBM. Intermediates (h1, h2, ...) exist only in unfused code: written by "
            "one kernel and read back by the next.");
    ImGui::SameLine();
    if (ImGui::RadioButton("kernel", state.stack_by_kernel)) state.stack_by_kernel = true;
    tooltip("One segment per kernel launch.");
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Status line and shortcuts
// ---------------------------------------------------------------------------------------------

namespace {

// A rotating arc while the runner works: the UI never blocks, so motion shows it is alive.
void busy_spinner() {
    const float r = em() * 0.4f;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 center(at.x + r, at.y + ImGui::GetTextLineHeight() * 0.5f);
    const float start = static_cast<float>(ImGui::GetTime()) * 6.0f;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PathArcTo(center, r, start, start + 4.5f, 16);
    draw->PathStroke(ImGui::GetColorU32(ImGuiCol_Text), 0, std::max(1.5f, em() / 8));
    ImGui::Dummy(ImVec2(r * 2, ImGui::GetTextLineHeight()));
}

// Status parts, most important first; the line keeps as many as fit its width.
std::vector<std::string> device_parts(const kernels::DeviceInfo& d) {
    std::vector<std::string> parts;
    parts.push_back(d.name.empty() ? std::string("no device") : d.name);
    parts.push_back("driver " + (d.driver.empty() ? std::string("n/a") : d.driver));
    parts.push_back("SM " + (d.sm_clock_mhz ? std::to_string(d.sm_clock_mhz) + " MHz" : std::string("n/a")) +
                    ", memory " + (d.mem_clock_mhz ? std::to_string(d.mem_clock_mhz) + " MHz" : std::string("n/a")));
    if (d.cc_major) parts.push_back("sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor));
    return parts;
}

std::string join_fitting(const std::vector<std::string>& parts, float width) {
    std::string line;
    for (const std::string& part : parts) {
        const std::string next = line.empty() ? part : line + "  |  " + part;
        if (!line.empty() && ImGui::CalcTextSize(next.c_str()).x > width) break;
        line = next;
    }
    return line;
}

}  // namespace

void draw_status_line(const AppState& state, const Runner& runner, const ResolvedBackend& backend) {
    ImGui::Separator();
    if (runner.busy() || !runner.gpu_probed()) {
        busy_spinner();
        ImGui::SameLine();
        // The live loop's pass (app/core/panels_state.h): a quick answer first, then the full one.
        const char* what = !runner.busy()              ? "probing for a CUDA GPU"
                           : state.sweep.running       ? "sweeping"
                           : state.live.quick_running  ? "measuring: quick pass"
                           : state.live.full_running && backend.kind == kernels::BackendKind::gpu
                               ? "measuring: full pass + counters"
                               : "measuring";
        ImGui::TextUnformatted(what);
        ImGui::SameLine();
    }
    const std::vector<std::string> parts =
        backend.ready ? device_parts(backend.device) : std::vector<std::string>{"device: probing"};
    const std::string all = join_fitting(parts, 1e9f);
    const InlineMessage& note = state.settings_message;
    // A settings problem takes the room of the less important device details.
    const float note_w = note.text.empty() ? 0.0f : std::min(ImGui::CalcTextSize(note.text.c_str()).x + em() * 2,
                                                             ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::TextUnformatted(join_fitting(parts, ImGui::GetContentRegionAvail().x - note_w).c_str());
    tooltip(all + "\n\nWhere the numbers come from: device, driver version, clocks (as the driver reports them; "
                  "simulated: the datasheet boost clock) and compute capability.\n" + state.font_note);
    if (!note.text.empty()) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, note.error ? error_color() : ImGui::GetStyleColorVec4(ImGuiCol_Text));
        ImGui::TextUnformatted(("|  " + note.text).c_str());
        ImGui::PopStyleColor();
        tooltip(note.text);
    }
}

void handle_shortcuts(AppState& state) {
    const ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsKeyPressed(GLFW_KEY_F12, false)) state.png_requested = true;
    if (!io.KeyCtrl) return;
    float& scale = state.settings.font_scale;
    const float before = scale;
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD, false)) scale += 0.25f;
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT, false)) scale -= 0.25f;
    scale = std::clamp(scale, kMinFontScale, kMaxFontScale);
    if (scale != before) state.settings_dirty = true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Pieces the lesson player reuses (app/gui/panel_lesson.cpp)
// ---------------------------------------------------------------------------------------------

void draw_view_tabs(AppState& state, const ResolvedBackend& backend) { draw_results_area(state, backend); }

void draw_step_controls(AppState& state, const std::vector<std::string>& names, const Runner& runner,
                        const ResolvedBackend& backend) {
    Settings& s = state.settings;
    bool changed = false;
    for (const std::string& name : names) {
        if (name == "workload") changed |= workload_combo(s);
        else if (name == "variants") changed |= variant_checkboxes(s, backend);
        else if (name == "dtype") changed |= dtype_combo(s.params);
        else if (name == "backend") changed |= backend_combo(s, runner, backend);
        else
            for (const kernels::ParamSpec& spec : kernels::param_specs(s.params.workload))
                if (name == spec.name) changed |= param_control(s.params, spec);
    }
    if (changed) mark_changed(state, ImGui::GetTime());
    if (const std::string why = kernels::validate(s.params); !why.empty())
        wrapped_colored(error_color(), why + " \xE2\x80\x94 not measured");
}

}  // namespace app
