// [SECTION] Trails
// [SECTION] Plot data
// [SECTION] Hover text
// [SECTION] Panel
#include "app/gui/panel_roofline.h"

#include "app/core/panels_state.h"
#include "kernels/common/format.h"
#include "kernels/roofline.h"
#include "kernels/common/registry.h"
#include "viz/palette.h"
#include "viz/roofline.h"
#include "viz/theme.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace app {

namespace {

using kernels::Measurement;

using viz::em;
using viz::tooltip;

std::string num(const char* fmt, double v) {
    char text[64];
    std::snprintf(text, sizeof text, fmt, v);
    return text;
}

int series_of(std::string w, const std::string& variant) {
    const auto& all = kernels::variants(w);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == variant) return static_cast<int>(i);
    return 0;
}

// The bytes a point's intensity uses: counter bytes when asked for and present.
double point_bytes(const Measurement& m, bool use_measured, bool* measured) {
    *measured = use_measured && m.measured_bytes.has_value() && *m.measured_bytes > 0;
    return *measured ? static_cast<double>(*m.measured_bytes) : static_cast<double>(m.bytes());
}

double achieved_flops(const Measurement& m) { return m.time.median_ms > 0 ? m.flops / (m.time.median_ms * 1e-3) : 0.0; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Trails
// ---------------------------------------------------------------------------------------------
std::string point_params_text(const kernels::Params& p) {
    // Every parameter of the workload's table but the seed, as name=value.
    std::string text;
    for (const kernels::ParamSpec& spec : kernels::param_specs(p.workload)) {
        if (spec.name == "seed") continue;
        const double v = p.get(spec.name);
        char value[32];
        if (spec.integer) std::snprintf(value, sizeof value, "%lld", static_cast<long long>(v));
        else std::snprintf(value, sizeof value, "%g", v);
        if (!text.empty()) text += ' ';
        text.append(spec.name).append("=").append(value);
    }
    return text;
}

void update_roofline_trails(AppState& state) {
    RooflinePanelState& r = state.roofline;
    const kernels::Params& now = state.settings.params;
    std::string context = now.workload + "|" + kernels::to_string(now.dtype);
    for (const Measurement* m : visible_results(state)) context += "|" + m->device.name;
    // The trail compares like with like: a new workload, dtype or device starts afresh.
    if (context != r.context) {
        r.context = context;
        r.trails.clear();
        r.seen_job.clear();
        r.seen_params.clear();
    }
    for (const Measurement* m : visible_results(state)) {
        if (!m->ok) continue;
        const std::string& v = m->job.variant;
        auto seen = r.seen_job.find(v);
        if (seen != r.seen_job.end() && seen->second == m->job.id) continue;
        auto params = r.seen_params.find(v);
        r.seen_job[v] = m->job.id;
        const bool moved = params == r.seen_params.end() || !(params->second == m->job.params);
        bool measured = false;
        const double bytes = point_bytes(*m, r.use_measured, &measured);
        RooflineTrailMark mark{kernels::arithmetic_intensity(m->flops, bytes), achieved_flops(*m),
                               point_params_text(m->job.params)};
        std::vector<RooflineTrailMark>& trail = r.trails[v];
        // The trail's last entry is the current position; a re-measurement of the same parameters
        // (quick pass -> full pass) replaces it, new parameters push a new one.
        if (moved || trail.empty()) trail.push_back(mark);
        else trail.back() = mark;
        if (trail.size() > kRooflineTrail + 1) trail.erase(trail.begin());
        r.seen_params[v] = m->job.params;
    }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Plot data
// ---------------------------------------------------------------------------------------------
namespace {

std::string roof_label(const kernels::Roof& r) {
    return r.name + " " + kernels::format_rate_flops(r.flops_per_s) + (r.measured ? " (measured)" : " (datasheet)");
}

struct PlotInput {
    viz::RooflineData data;
    std::vector<const Measurement*> plotted;  // parallel to data.points
    std::vector<std::string> not_plotted;     // variants without a point, and why
    kernels::RoofSet roofs;
    std::vector<const ReferenceRow*> reference;  // parallel to data.points after plotted.size()
    std::string reference_path;
    double reference_flops = 0, reference_bytes = 0;
    std::string recorded_date;  // the roofs are the recording's GPU's, measured that day
};

PlotInput plot_input(const AppState& state, const ResolvedBackend& backend) {
    PlotInput in;
    const kernels::Params& p = state.settings.params;
    const std::vector<const Measurement*> shown = visible_results(state);
    const kernels::DeviceInfo& device = !shown.empty() && shown.front()->ok ? shown.front()->device : backend.device;
    in.roofs = kernels::roofs_for(device, p.dtype);
    if (backend.kind == kernels::BackendKind::recorded) in.recorded_date = backend.recording_date;
    viz::RooflineData& d = in.data;
    d.frame.title = std::string("Roofline: ") + p.workload + ", " + kernels::to_string(p.dtype) +
                    " on " + plain_device_name(device);
    d.frame.x_title = "arithmetic intensity (FLOP / byte of DRAM traffic)";
    d.frame.y_title = "y: achieved FLOP/s";
    d.frame.format_y = [](double v) { return viz::si_tick(v); };
    d.frame.theme = viz::current_theme();
    d.frame.watermark = results_watermark(shown);  // SIMULATED, RECORDED <date>, or both
    d.bytes_per_s = in.roofs.bytes_per_s;
    d.memory_label = std::string("DRAM ") + kernels::format_gbps(in.roofs.bytes_per_s / 1e9) +
                     (in.roofs.memory_measured ? " (measured copy)" : " (datasheet)");
    d.memory_short_label = "DRAM " + viz::si_tick(in.roofs.bytes_per_s) + "B/s";
    if (in.roofs.tensor.flops_per_s > 0)
        d.roofs.push_back({roof_label(in.roofs.tensor), in.roofs.tensor.flops_per_s,
                           "tensor " + viz::si_tick(in.roofs.tensor.flops_per_s)});
    if (in.roofs.fp32.flops_per_s > 0)
        d.roofs.push_back({roof_label(in.roofs.fp32), in.roofs.fp32.flops_per_s, "FP32 " + viz::si_tick(in.roofs.fp32.flops_per_s)});

    const RooflinePanelState& r = state.roofline;
    for (const Measurement* m : shown) {
        if (!m->ok) {
            in.not_plotted.push_back(m->job.variant + ": " + (m->refused ? "refused: " : "failed: ") + m->error);
            continue;
        }
        bool measured = false;
        const double bytes = point_bytes(*m, r.use_measured, &measured);
        const double intensity = kernels::arithmetic_intensity(m->flops, bytes);
        const double flops = achieved_flops(*m);
        if (!(m->flops > 0)) {
            in.not_plotted.push_back(m->job.variant + ": the model counts 0 FLOPs, so it has no place on a log "
                                     "axis (pure data movement: the memory roof is all that applies)");
            continue;
        }
        if (!(intensity > 0) || !(flops > 0)) {
            in.not_plotted.push_back(m->job.variant + ": no time or no bytes to divide by");
            continue;
        }
        viz::RooflinePoint pt;
        pt.label = m->job.variant;
        pt.series = series_of(p.workload, m->job.variant);
        pt.at = {intensity, flops};
        pt.measured_bytes = measured;
        if (auto it = r.trails.find(m->job.variant); it != r.trails.end() && it->second.size() > 1)
            for (size_t i = 0; i + 1 < it->second.size(); ++i)
                pt.trail.push_back({it->second[i].intensity, it->second[i].flops_per_s});
        d.points.push_back(pt);
        in.plotted.push_back(m);
    }
    // PyTorch's rows as hollow diamonds: fusionlab's FLOPs and minimum bytes for these parameters
    // (PyTorch has no model), its measured time.
    in.reference_flops = reference_flops(p);
    in.reference_path = state.reference.path;
    in.reference_bytes = static_cast<double>(kernels::min_bytes(p));
    if (in.reference_flops > 0 && in.reference_bytes > 0)
        for (const ReferenceRow* row : shown_reference(state)) {
            if (!row->has_time) continue;
            viz::RooflinePoint pt;
            pt.label = reference_short_label(*row);
            pt.reference = true;
            pt.at = {kernels::arithmetic_intensity(in.reference_flops, in.reference_bytes),
                     in.reference_flops / (row->time.median_ms * 1e-3)};
            in.reference.push_back(row);
            // Rows that land on one spot (eager and compile within 30%) share one label.
            for (size_t k = d.points.size(); k-- > in.plotted.size();)
                if (!d.points[k].label.empty() && std::max(d.points[k].at.flops_per_s, pt.at.flops_per_s) <
                                                      1.3 * std::min(d.points[k].at.flops_per_s, pt.at.flops_per_s)) {
                    d.points[k].label += ", " + pt.label;
                    pt.label.clear();
                    break;
                }
            d.points.push_back(pt);
        }
    // An arrow from the variant each one improves on (its definition says which) to it.
    auto index_of = [&](const std::string& name) {
        for (size_t i = 0; i < in.plotted.size(); ++i)
            if (in.plotted[i]->job.variant == name) return static_cast<int>(i);
        return -1;
    };
    const kernels::WorkloadDef& def = kernels::workload_def(p);
    for (size_t j = 0; j < in.plotted.size(); ++j) {
        const kernels::VariantInfo* v = def.find_variant(in.plotted[j]->job.variant);
        const int from = v && !v->improves_on.empty() ? index_of(v->improves_on) : -1;
        if (from >= 0 && from != static_cast<int>(j)) d.arrows.emplace_back(from, static_cast<int>(j));
    }
    return in;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Hover text
// ---------------------------------------------------------------------------------------------
std::string point_hover(const Measurement& m, const kernels::RoofSet& roofs, bool use_measured) {
    bool measured = false;
    const double bytes = point_bytes(m, use_measured, &measured);
    const double intensity = kernels::arithmetic_intensity(m.flops, bytes);
    const double achieved = achieved_flops(m);
    const kernels::Roof& roof = kernels::roof_for_variant(roofs, m.job.variant, m.job.params);
    const double attainable = kernels::attainable_flops(intensity, roof.flops_per_s, roofs.bytes_per_s);
    const double ridge = kernels::ridge_point(roof.flops_per_s, roofs.bytes_per_s);
    const kernels::Bound bound = kernels::bound_by(intensity, roof.flops_per_s, roofs.bytes_per_s);
    std::string t = m.job.variant + "   " + point_params_text(m.job.params) + "\n\n";
    t += "FLOPs (model) = " + kernels::format_flops(m.flops) + "\n";
    t += std::string("bytes (") + (measured ? "measured DRAM, counters" : "modeled") +
         ") = " + kernels::format_bytes(bytes) + "\n";
    t += "time (median) = " + kernels::format_time_ms(m.time.median_ms) +
         (m.device.simulated ? "  [simulated: model estimate]"
          : m.recorded()     ? "  (" + std::to_string(m.time.reps) + " reps, " + m.source_label() + ")"
                             : "  (" + std::to_string(m.time.reps) + " reps)") + "\n\n";
    t += "intensity = FLOPs / bytes = " + kernels::format_flops(m.flops) + " / " + kernels::format_bytes(bytes) + " = " +
         num("%.3g", intensity) + " FLOP/B\n";
    t += "attainable = min(peak, intensity x BW) = min(" + kernels::format_rate_flops(roof.flops_per_s) + ", " +
         num("%.3g", intensity) + " x " + kernels::format_gbps(roofs.bytes_per_s / 1e9) + ") = " +
         kernels::format_rate_flops(attainable) + "\n";
    t += "achieved = FLOPs / time = " + kernels::format_rate_flops(achieved) + " = " +
         num("%.0f", attainable > 0 ? 100 * achieved / attainable : 0) + "% of attainable\n";
    t += std::string(kernels::to_string(bound)) + "-bound: the ridge of the " + roof.name + " roof is at " +
         num("%.3g", ridge) + " FLOP/B" + (intensity < 1 ? "; intensity below 1 FLOP/B: every byte feeds less than "
                                                          "one operation, so only fewer bytes make it faster" : "") +
         "\n";
    if (m.measured_bytes) t += "\nDRAM counters: " + kernels::explain_traffic_gap(m);
    else t += "\nDRAM counters: " + m.measured_bytes_note;
    return t;
}

void draw_controls(AppState& state, const PlotInput& in, const std::vector<const Measurement*>& shown) {
    bool any_measured = false;
    for (const Measurement* m : shown) any_measured |= m->ok && m->measured_bytes.has_value();
    ImGui::BeginDisabled(!any_measured);
    bool shown_value = any_measured && state.roofline.use_measured;  // unticked while there is nothing to use
    if (ImGui::Checkbox(any_measured ? "use measured DRAM bytes" : "use measured DRAM bytes (none: hover)", &shown_value))
        state.roofline.use_measured = shown_value;
    ImGui::EndDisabled();
    std::string why = "On: a point's intensity is FLOPs / the DRAM bytes the hardware counters measured (filled "
                      "dot). Off, or without counters: FLOPs / the modeled bytes (hollow ring).";
    if (!any_measured) {
        why += "\nNo result has counter bytes now: ";
        why += shown.empty() ? std::string("nothing measured yet") : shown.front()->measured_bytes_note;
    }
    tooltip(why);
    ImGui::SameLine();
    if (ImGui::SmallButton("clear trails")) {
        for (auto& [variant, trail] : state.roofline.trails)
            if (trail.size() > 1) trail.erase(trail.begin(), trail.end() - 1);
    }
    tooltip("Forget the earlier points; new parameters start new trails.");
    ImGui::SameLine();
    const LivePass& live = state.live;
    if (live.quick_running) ImGui::TextDisabled("measuring: quick pass (up to %d reps, no counters)...", kQuickReps);
    else if (live.full_running) ImGui::TextDisabled("measuring: full pass (%d reps + counters)...", state.settings.reps);
    else ImGui::TextDisabled("points: %zu", in.data.points.size());
}

std::string footer_text(const PlotInput& in) {
    const kernels::RoofSet& r = in.roofs;
    return "roofs: memory " + r.memory_source + "; " + r.tensor.name + ": " + r.tensor.source + "; " + r.fp32.name +
           ": " + r.fp32.source;
}

// One short line (projector fonts leave little height); the sources in full on hover.
std::string footer_line(const PlotInput& in) {
    const kernels::RoofSet& r = in.roofs;
    const int measured = int(r.memory_measured) + int(r.tensor.measured) + int(r.fp32.measured);
    if (measured == 3 && !in.recorded_date.empty()) return "roofs: measured on the recorded GPU, " + in.recorded_date + " (hover)";
    return measured == 3 ? "roofs: measured on this GPU (hover for how)"
           : measured == 0 ? "roofs: datasheet values (hover for the numbers)"
                           : "roofs: " + std::to_string(measured) + " of 3 measured, the rest datasheet (hover)";
}

// The reference rows' line under the plot: what the diamonds are, and their names (a crowded plot
// leaves some diamonds unlabelled).
// The reference rows' line under the plot: what the diamonds are (one line; the names, which a
// crowded plot may leave off some diamonds, on hover).
std::string reference_footer(const PlotInput& in) {
    if (in.reference.empty()) return "";
    const ReferenceRow& first = *in.reference.front();
    return "diamonds: " + first.framework + " reference, not fusionlab; " + first.device + ", " + reference_day(first);
}

void draw_footer(const PlotInput& in) {
    ImGui::TextDisabled("%s", footer_line(in).c_str());
    tooltip(footer_text(in) + "\n\n" + "Measured ceilings (GPU): a device-to-device copy for bandwidth, cuBLAS fp16/bf16 GEMMs for the tensor "
               "roof, an FMA-chain kernel for FP32; measured once per device, driver and clocks and cached. "
               "Simulated GPUs: datasheet values.");
    for (const std::string& n : in.not_plotted) ImGui::TextWrapped("not plotted: %s", n.c_str());
    if (const std::string line = reference_footer(in); !line.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", line.c_str());
        ImGui::PopStyleColor();
        std::string names;
        for (const ReferenceRow* r : in.reference) names += "\n  " + reference_caption(*r);
        tooltip("What a user would run instead, timed by scripts/torch_reference.py (" + in.reference_path + "):" +
                names + "\nPyTorch has no traffic model, so a diamond's intensity is fusionlab's FLOPs over the "
                "fewest bytes any implementation moves; hover a diamond for its numbers.");
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Panel
// ---------------------------------------------------------------------------------------------
void draw_roofline_panel(AppState& state, const ResolvedBackend& backend) {
    update_roofline_trails(state);
    const std::vector<const Measurement*> shown = visible_results(state);
    PlotInput in = plot_input(state, backend);
    // Short of height (projector fonts on a small screen): the tab already says "Roofline".
    if (ImGui::GetContentRegionAvail().y < em() * 16) {
        in.data.frame.title.clear();
        in.data.frame.y_title = "achieved FLOP/s (y) against FLOP per DRAM byte (x)";
        in.data.frame.x_title.clear();
    }
    draw_controls(state, in, shown);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // The footer's wrapped lines: the roofs' sources and each variant without a point.
    float footer = ImGui::GetTextLineHeightWithSpacing();
    for (const std::string& n : in.not_plotted)
        footer += ImGui::CalcTextSize(("not plotted: " + n).c_str(), nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y;
    if (const std::string line = reference_footer(in); !line.empty())
        footer += ImGui::CalcTextSize(line.c_str(), nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y;
    const ImVec2 size(avail.x, std::max(em() * 6, avail.y - footer));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("roofline_plot", size);
    const bool hovered = state.interactive && ImGui::IsItemHovered();
    const ImVec2 mouse = hovered ? ImGui::GetIO().MousePos : ImVec2(-FLT_MAX, -FLT_MAX);
    const viz::RooflineHover hover = viz::draw_roofline(ImGui::GetWindowDrawList(), origin, size, in.data, mouse);
    if (hovered && hover.point >= static_cast<int>(in.plotted.size())) {
        const ReferenceRow& r = *in.reference[static_cast<size_t>(hover.point) - in.plotted.size()];
        const double intensity = kernels::arithmetic_intensity(in.reference_flops, in.reference_bytes);
        viz::tooltip_box("Reference, not fusionlab: " + reference_caption(r) + "\n\nintensity = fusionlab's FLOPs / "
                         "minimum bytes = " + kernels::format_flops(in.reference_flops) + " / " +
                         kernels::format_bytes(in.reference_bytes) + " = " + num("%.3g", intensity) +
                         " FLOP/B (PyTorch has no traffic model: the fewest bytes any implementation moves)\n"
                         "achieved = FLOPs / median " + kernels::format_time_ms(r.time.median_ms) + " = " +
                         kernels::format_rate_flops(in.reference_flops / (r.time.median_ms * 1e-3)) + "\n" + r.note);
    } else if (hovered && hover.point >= 0) {
        const Measurement& m = *in.plotted[static_cast<size_t>(hover.point)];
        std::string text;
        if (hover.trail >= 0) {
            const auto& trail = state.roofline.trails.at(m.job.variant);
            const RooflineTrailMark& mark = trail[static_cast<size_t>(hover.trail)];
            text = m.job.variant + ", earlier: " + mark.params + "\nintensity " + num("%.3g", mark.intensity) +
                   " FLOP/B, achieved " + kernels::format_rate_flops(mark.flops_per_s);
        } else {
            text = point_hover(m, in.roofs, state.roofline.use_measured);
        }
        viz::tooltip_box(text);
    } else if (hovered && hover.ridge) {
        ImGui::SetTooltip("ridge point = peak / bandwidth: left of it a kernel cannot reach the peak whatever it "
                          "does, because DRAM cannot feed it bytes fast enough");
    }
    draw_footer(in);
}

}  // namespace app
