// [SECTION] Plot data: each result at its DRAM and its L2 intensity, the roofs
// [SECTION] Controls and footer
// [SECTION] Panel
#include "app/gui/panel_roofline.h"

#include "app/gui/panel_charts.h"
#include "viz/svg_chart.h"

#include "app/core/panels_state.h"
#include "app/core/roofline_points.h"
#include "kernels/core/format.h"
#include "kernels/core/levels.h"
#include "viz/model/roofline.h"
#include "kernels/core/registry.h"
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

// "3.35 TB/s": a memory roof's short label, three digits.
std::string rate_short(double bytes_per_s) {
    return bytes_per_s >= 1e12 ? num("%.3g TB/s", bytes_per_s / 1e12) : num("%.3g GB/s", bytes_per_s / 1e9);
}

// A compute roof in four digits at most ("805.5T", "65.04T"): a measured roof has more than a label needs.
std::string flops_short(double flops_per_s) {
    return flops_per_s >= 1e12 ? num("%.4gT", flops_per_s / 1e12) : num("%.4gG", flops_per_s / 1e9);
}

int series_of(std::string w, const std::string& variant) {
    const auto& all = kernels::variants(w);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == variant) return static_cast<int>(i);
    return variant == kernels::kStudentVariant ? static_cast<int>(all.size()) : 0;  // yours: the next colour
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Plot data
// ---------------------------------------------------------------------------------------------
namespace {

std::string roof_label(const kernels::Roof& r) {
    return r.name + " " + kernels::format_rate_flops(r.flops_per_s) + " (" + r.kind + ")";
}

struct PlotInput {
    viz::RooflineData data;
    std::vector<const Measurement*> plotted;  // parallel to data.points
    std::vector<std::string> not_plotted;     // variants without a point, and why
    // Variants slower than their baseline: no arrow; the footer (and the SVG's label) says so.
    std::vector<std::pair<size_t, std::string>> slower;  // point index, "16.96x slower than naive"
    kernels::RoofSet roofs;
    std::vector<const ReferenceRow*> reference;  // parallel to data.points after plotted.size()
    std::string reference_path;
    double reference_flops = 0, reference_bytes = 0;
    std::string recorded_date;  // the roofs are the recording's GPU's, measured that day
    int stale = 0;              // points measured with earlier settings (drawn faded)
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
    d.frame.x_title = std::string("arithmetic intensity (FLOP per byte: circles ") + kernels::level_name(kernels::TrafficLevel::dram) +
                      ", squares " + kernels::level_name(kernels::TrafficLevel::l2_sm) + ")";
    d.frame.y_title = "y: achieved FLOP/s";
    d.frame.format_y = [](double v) { return viz::si_tick(v); };
    d.frame.theme = viz::current_theme();
    d.frame.watermark = results_watermark(shown);  // SIMULATED, RECORDED <date>, or both
    d.bytes_per_s = in.roofs.bytes_per_s;
    d.memory_label = std::string("DRAM ") + kernels::format_gbps(in.roofs.bytes_per_s / 1e9) +
                     " (" + in.roofs.memory_kind + " copy)";
    d.memory_short_label = "DRAM " + rate_short(in.roofs.bytes_per_s);
    if (in.roofs.l2_bytes_per_s > 0) {
        d.l2_bytes_per_s = in.roofs.l2_bytes_per_s;
        d.l2_label = std::string(kernels::level_name(kernels::TrafficLevel::l2_sm)) + " " + kernels::format_gbps(in.roofs.l2_bytes_per_s / 1e9) + " (model estimate)";
        d.l2_short_label = "L2 " + rate_short(in.roofs.l2_bytes_per_s);
    }
    if (in.roofs.tensor.flops_per_s > 0)
        d.roofs.push_back({roof_label(in.roofs.tensor), in.roofs.tensor.flops_per_s,
                           "tensor " + flops_short(in.roofs.tensor.flops_per_s)});
    if (in.roofs.fp32.flops_per_s > 0)
        d.roofs.push_back({roof_label(in.roofs.fp32), in.roofs.fp32.flops_per_s, "FP32 " + flops_short(in.roofs.fp32.flops_per_s)});

    const RooflinePanelState& r = state.roofline;
    for (const Measurement* m : shown) {
        if (!m->ok) {
            in.not_plotted.push_back(m->job.variant + ": " + (m->refused ? "refused: " : "failed: ") + m->error);
            continue;
        }
        const RooflineLevels at = roofline_levels(*m, r.use_measured);
        if (!(m->flops > 0)) {
            in.not_plotted.push_back(m->job.variant + ": the model counts 0 FLOPs, so it has no place on a log "
                                     "axis (pure data movement: the memory roof is all that applies)");
            continue;
        }
        if (!(at.dram_intensity > 0) || !(at.flops_per_s > 0)) {
            in.not_plotted.push_back(m->job.variant + ": no time or no bytes to divide by");
            continue;
        }
        viz::RooflinePoint pt;
        pt.label = m->job.variant;
        pt.series = series_of(p.workload, m->job.variant);
        pt.at = {at.dram_intensity, at.flops_per_s};
        pt.measured_bytes = at.dram_measured;
        pt.model_at = {at.model_dram_intensity, at.flops_per_s};
        pt.l2_at = {at.l2_intensity, at.flops_per_s};
        pt.stale = is_stale(*m, state.settings, backend);
        if (pt.stale) ++in.stale;
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
    // An arrow from each variant's baseline (its definition names it) to it, only where it is
    // faster: an arrow reads as progress. Slower than its baseline (the teaching flash against
    // cuBLAS's naive): no arrow, and its label says so.
    auto index_of = [&](const std::string& name) {
        for (size_t i = 0; i < in.plotted.size(); ++i)
            if (in.plotted[i]->job.variant == name) return static_cast<int>(i);
        return -1;
    };
    const kernels::WorkloadDef& def = kernels::workload_def(p);
    for (size_t j = 0; j < in.plotted.size(); ++j) {
        const kernels::VariantInfo* v = def.find_variant(in.plotted[j]->job.variant);
        const int from = v && !v->improves_on.empty() ? index_of(v->improves_on) : -1;
        if (from < 0 || from == static_cast<int>(j)) continue;
        const double t = in.plotted[j]->time.median_ms, t_base = in.plotted[static_cast<size_t>(from)]->time.median_ms;
        if (t < t_base) d.arrows.emplace_back(from, static_cast<int>(j));
        else if (t > t_base)
            in.slower.emplace_back(j, num("%.2f", t / t_base) + "\xC3\x97 slower than " + v->improves_on);
    }
    return in;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Controls and footer
// ---------------------------------------------------------------------------------------------
void draw_roofs_source(const PlotInput& in, bool brief);
std::string footer_line(const PlotInput& in, bool brief);

// `short_of_height`: projector fonts on a small screen; the roofs' sources move up onto this row so
// the plot keeps the line they took under it.
void draw_controls(AppState& state, const PlotInput& in, const std::vector<const Measurement*>& shown,
                   bool short_of_height) {
    bool any_measured = false;
    for (const Measurement* m : shown) any_measured |= m->ok && m->measured_bytes.has_value();
    ImGui::BeginDisabled(!any_measured);
    bool shown_value = any_measured && state.roofline.use_measured;  // unticked while there is nothing to use
    // The box's words in the longest form that fits the line (a narrow view at a large font).
    const float words_room = ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - ImGui::GetStyle().ItemInnerSpacing.x;
    const std::string words = any_measured ? viz::first_fitting_text({"use measured DRAM bytes", "measured DRAM bytes"}, words_room)
                                           : viz::first_fitting_text({"use measured DRAM bytes (none: hover)",
                                                            "measured DRAM bytes (none: hover)", "measured DRAM bytes"},
                                                           words_room);
    if (ImGui::Checkbox(words.c_str(), &shown_value))
        state.roofline.use_measured = shown_value;
    ImGui::EndDisabled();
    std::string why = "On: a point's DRAM intensity is FLOPs / the DRAM bytes the hardware counters measured (filled "
                      "circle; a small ring stays at the modeled intensity). Off, or without counters: FLOPs / the "
                      "modeled DRAM bytes (hollow circle). The L2 squares are modeled either way: no counter here "
                      "measures L2 <-> SM bytes.";
    if (!any_measured) {
        why += "\nNo result has counter bytes now: ";
        why += shown.empty() ? std::string("nothing measured yet") : shown.front()->measured_bytes_note;
    }
    tooltip(why);
    // The rest follows on the line while it fits, else on the next (a narrow view at a large font).
    viz::same_line_if_fits(ImGui::CalcTextSize("clear trails").x + ImGui::GetStyle().FramePadding.x * 2);
    if (ImGui::SmallButton("clear trails")) {
        for (auto& [variant, trail] : state.roofline.trails)
            if (trail.size() > 1) trail.erase(trail.begin(), trail.end() - 1);
    }
    tooltip("Forget the earlier points; new parameters start new trails.");
    const LivePass& live = state.live;
    char status[96] = "";
    if (live.quick_running) std::snprintf(status, sizeof status, "measuring: quick pass (up to %d reps, no counters)...", kQuickReps);
    else if (live.full_running) std::snprintf(status, sizeof status, "measuring: full pass (%d reps + counters)...", state.settings.reps);
    else if (!short_of_height) std::snprintf(status, sizeof status, "points: %zu", in.data.points.size());
    // The point count is dropped where it does not fit; a pass in progress wraps.
    if (status[0] != '\0' && (viz::same_line_if_fits(ImGui::CalcTextSize(status).x) || live.quick_running || live.full_running))
        ImGui::TextDisabled("%s", status);
    if (short_of_height) {
        viz::same_line_if_fits(ImGui::CalcTextSize(footer_line(in, true).c_str()).x);
        draw_roofs_source(in, true);
    }
}

std::string footer_text(const PlotInput& in) {
    const kernels::RoofSet& r = in.roofs;
    return "roofs: DRAM " + r.memory_source + "; " + kernels::level_name(kernels::TrafficLevel::l2_sm) + " " + (r.l2_source.empty() ? std::string("unknown") : r.l2_source) +
           "; " + r.tensor.name + ": " + r.tensor.source + "; " + r.fp32.name + ": " + r.fp32.source;
}

// What the legend's markers mean, and why a kernel has two points.
std::string legend_text() {
    return "A hierarchical roofline (as Nsight Compute draws one): each variant is drawn once per memory level, at the "
           "same achieved FLOP/s.\n"
           "  circle: FLOPs / DRAM bytes, against the DRAM roof (solid line). Hollow: modeled bytes (the L2 reuse "
           "model); filled: bytes the hardware counters measured, with a small ring left at the modeled intensity.\n"
           "  square: FLOPs / L2\xE2\x86\x92SM bytes (what the kernels' loads and stores ask for), against the L2 roof (dashed: "
           "the simulator's estimate of L2 bandwidth, not measured).\n"
           "A kernel is held by the lowest roof at its own intensities: a square far left of its circle means the "
           "blocks re-read data that L2 serves (flash's K and V), so L2 bandwidth, not DRAM, may be the limit.";
}

// One short line (projector fonts leave little height); the sources in full on hover. `brief`: the
// roofs' kind alone, for the controls' row of a short panel.
std::string footer_line(const PlotInput& in, bool brief) {
    const kernels::RoofSet& r = in.roofs;
    // Where each roof comes from, in a word (the sources in full on hover).
    const bool all_measured = r.memory_measured && r.tensor.measured && r.fp32.measured;
    if (all_measured && !in.recorded_date.empty())
        return brief ? "roofs: recorded " + in.recorded_date + " (hover)"
                     : "roofs: measured on the recorded GPU, " + in.recorded_date +
                           (r.l2_bytes_per_s > 0 ? "; L2 an estimate" : "") + " (hover)";
    const std::string kinds = r.memory_kind == r.tensor.kind && r.tensor.kind == r.fp32.kind
                                  ? r.memory_kind
                                  : "DRAM " + r.memory_kind + ", tensor " + r.tensor.kind + ", FP32 " + r.fp32.kind;
    if (brief) return "roofs: " + kinds + " (hover)";
    return "roofs: " + kinds + (r.l2_bytes_per_s > 0 ? "; L2 an estimate" : "") + " (hover for the sources)";
}

// The reference rows' line under the plot: what the diamonds are (one line; the names, which a
// crowded plot may leave off some diamonds, on hover).
std::string reference_footer(const PlotInput& in) {
    if (in.reference.empty()) return "";
    const ReferenceRow& first = *in.reference.front();
    return "diamonds: " + first.framework + " reference, not fusionlab; " + first.device + ", " + reference_day(first);
}

// The one line that says where the roofs come from, their sources in full on hover.
void draw_roofs_source(const PlotInput& in, bool brief) {
    ImGui::TextDisabled("%s", footer_line(in, brief).c_str());
    tooltip(footer_text(in) + "\n\n" + "Measured ceilings (GPU): a device-to-device copy for bandwidth, cuBLAS fp16/bf16 GEMMs for the tensor "
               "roof, an FMA-chain kernel for FP32; measured once per device, driver and clocks and cached. "
               "Simulated GPUs: datasheet values.");
}

// "no arrow to flash: 16.96x slower than naive (its baseline)": an arrow reads as progress.
std::string slower_footer(const PlotInput& in) {
    std::string line;
    for (const auto& [index, what] : in.slower)
        line += (line.empty() ? "no arrow to " : "; to ") + in.plotted[index]->job.variant + ": " + what;
    return line.empty() ? line : line + " (its baseline; arrows mark improvements only)";
}

void draw_footer(const PlotInput& in, bool short_of_height) {
    if (!short_of_height) draw_roofs_source(in, false);
    for (const std::string& n : in.not_plotted) ImGui::TextWrapped("not plotted: %s", n.c_str());
    if (const std::string line = slower_footer(in); !line.empty() && !short_of_height) ImGui::TextWrapped("%s", line.c_str());
    if (in.stale > 0) ImGui::TextDisabled("faded: %d point%s of earlier settings, updating", in.stale, in.stale == 1 ? "" : "s");
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
    const bool short_of_height = ImGui::GetContentRegionAvail().y < em() * 16;
    if (short_of_height) {
        in.data.frame.title.clear();
        in.data.frame.y_title = viz::first_fitting_text({"achieved FLOP/s (y) against FLOP per byte (x): circles DRAM, squares L2",
                                               "FLOP/s (y) against FLOP/byte (x): circles DRAM, squares L2",
                                               "FLOP/s (y) against FLOP/byte (x)"},
                                              ImGui::GetContentRegionAvail().x);
        in.data.frame.x_title.clear();
    } else {
        // Right-aligned under the plot, which the y tick labels leave ~5 em short of the view.
        const std::string dram = kernels::level_name(kernels::TrafficLevel::dram), l2sm = kernels::level_name(kernels::TrafficLevel::l2_sm);
        in.data.frame.x_title = viz::first_fitting_text({in.data.frame.x_title, "FLOP per byte: circles " + dram + ", squares " + l2sm,
                                                         "FLOP per byte: circles " + dram + ", squares L2", "FLOP per byte"},
                                                        ImGui::GetContentRegionAvail().x - em() * 5);
    }
    draw_controls(state, in, shown, short_of_height);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // The footer's wrapped lines: the roofs' sources (on the controls' row when short of height) and
    // each variant without a point.
    float footer = short_of_height ? 0.0f : ImGui::GetTextLineHeightWithSpacing();
    for (const std::string& n : in.not_plotted)
        footer += ImGui::CalcTextSize(("not plotted: " + n).c_str(), nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y;
    if (const std::string line = slower_footer(in); !line.empty() && !short_of_height)
        footer += ImGui::CalcTextSize(line.c_str(), nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y;
    if (const std::string line = reference_footer(in); !line.empty())
        footer += ImGui::CalcTextSize(line.c_str(), nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y;
    if (in.stale > 0) footer += ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 size(avail.x, std::max(em() * 6, avail.y - footer));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("roofline_plot", size);
    chart_export_menu(state, "roofline", "roofline");
    record_chart_rect(state, "roofline", origin.x, origin.y, origin.x + size.x, origin.y + size.y);
    service_svg_request(state, "roofline", [&] {
        const PlotInput full = plot_input(state, backend);  // the full titles, whatever the height
        viz::RooflineData d = full.data;
        d.frame.watermark = results_source_caption(shown);
        for (const auto& [index, what] : full.slower) d.points[index].label += " (" + what + ")";
        return viz::roofline_svg(d);
    });
    // An exported picture keeps the points clear: the title and the roofs' labels say "(measured)" or
    // "(model estimate)"; the watermark is for the live screen.
    if (state.capturing) in.data.frame.watermark.clear();
    const bool hovered = state.interactive && !state.capturing && ImGui::IsItemHovered();
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
            text = m.job.variant + ", earlier: " + mark.params + "\nDRAM intensity " + num("%.3g", mark.intensity) +
                   " FLOP/B, achieved " + kernels::format_rate_flops(mark.flops_per_s);
        } else {
            text = roofline_point_text(m, in.roofs, state.roofline.use_measured);
        }
        viz::tooltip_box(text);
    } else if (hovered && hover.legend) {
        viz::tooltip_box(legend_text());
    } else if (hovered && hover.ridge) {
        ImGui::SetTooltip("ridge point = peak / bandwidth: left of it a kernel cannot reach the peak whatever it "
                          "does, because DRAM cannot feed it bytes fast enough");
    }
    draw_footer(in, short_of_height);
}

}  // namespace app
