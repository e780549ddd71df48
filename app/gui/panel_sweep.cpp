// [SECTION] Controls
// [SECTION] Curves
// [SECTION] Panel
#include "app/gui/panel_sweep.h"

#include "app/gui/panel_charts.h"
#include "kernels/core/levels.h"
#include "viz/svg_chart.h"

#include "app/core/panels_state.h"
#include "app/core/sweep.h"
#include "app/core/roofline_points.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "viz/log_plot.h"
#include "viz/theme.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <functional>

namespace app {

namespace {

using kernels::Measurement;

using viz::em;
using viz::tooltip;

const kernels::ParamSpec* spec_of(std::string w, std::string id) { return kernels::find_param_spec(w, id); }

// ---------------------------------------------------------------------------------------------
// [SECTION] Controls
// ---------------------------------------------------------------------------------------------
void param_combo(SweepState& s, std::string w) {
    const auto params = sweepable_params(w);
    if (params.empty()) return;
    if (std::find(params.begin(), params.end(), s.param) == params.end()) {
        s.param = params.front();
        s.from = s.to = 0;
    }
    if (s.from <= 0 || s.to <= 0) default_sweep_range(w, s.param, s.from, s.to);
    float widest = 0;
    for (std::string id : params) widest = std::max(widest, ImGui::CalcTextSize(spec_of(w, id)->label.c_str()).x);
    ImGui::TextUnformatted("sweep");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(widest + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 3);
    if (ImGui::BeginCombo("##sweep_param", spec_of(w, s.param)->label.c_str())) {
        for (std::string id : params)
            if (ImGui::Selectable(spec_of(w, id)->label.c_str(), id == s.param)) {
                s.param = id;
                default_sweep_range(w, id, s.from, s.to);
            }
        ImGui::EndCombo();
    }
    tooltip("The size parameter the sweep varies; every other parameter keeps its value from the left panel.");
}

void range_inputs(SweepState& s, std::string w) {
    const kernels::ParamSpec* spec = spec_of(w, s.param);
    int from = static_cast<int>(s.from), to = static_cast<int>(s.to);
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    viz::same_line_if_fits(ImGui::CalcTextSize("from").x + ImGui::CalcTextSize("to").x + em() * 9 + spacing * 3);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("from");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em() * 4.5f);
    if (ImGui::InputInt("##from", &from, 0, 0)) s.from = std::clamp<double>(from, spec->min, spec->max);
    tooltip("Smallest size: " + kernels::legal_values_text(*spec) + ". The sweep doubles it until 'to'.");
    ImGui::SameLine();
    ImGui::TextUnformatted("to");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em() * 4.5f);
    if (ImGui::InputInt("##to", &to, 0, 0)) s.to = std::clamp<double>(to, spec->min, spec->max);
    tooltip("Largest size (" + kernels::legal_values_text(*spec) + ").");
}

void run_controls(AppState& state) {
    SweepState& s = state.sweep;
    viz::same_line_if_fits(s.running ? ImGui::CalcTextSize("Cancel").x + em() * 11 : ImGui::CalcTextSize("Run sweep").x + em());
    if (s.running) {
        if (ImGui::Button("Cancel")) s.cancel_requested = true;
        tooltip("Stop the sweep; the sizes measured so far stay on the plot.");
        ImGui::SameLine();
        char text[64];
        std::snprintf(text, sizeof text, "%zu / %zu runs", s.results.size(), s.total);
        ImGui::ProgressBar(static_cast<float>(sweep_progress(s)), ImVec2(em() * 10, 0), text);
    } else {
        if (ImGui::Button("Run sweep")) s.start_requested = true;
        const size_t sizes = sweep_values(s.from, s.to).size();
        tooltip("Measures every selected variant at " + std::to_string(sizes) +
                   " sizes (x2 steps) through the runner, with the repetitions set on the left. Parameter changes "
                   "wait until it ends.");
    }
}

void export_controls(AppState& state) {
    SweepState& s = state.sweep;
    ImGui::BeginDisabled(s.results.empty() || s.running);
    if (ImGui::Button("CSV")) export_sweep(s, state.settings, "csv");
    tooltip("One row per size and variant: parameters, device, time, bytes (modeled and measured).");
    ImGui::SameLine();
    if (ImGui::Button("JSON")) export_sweep(s, state.settings, "json");
    tooltip("The same measurements as JSON.");
    ImGui::SameLine();
    if (ImGui::Button("PNG")) request_picture(state, "view:sweep", "png");
    tooltip("This view alone as a picture, without the rest of the window and with no tooltip or hover over it "
            "(F12 saves the whole window). Right-click a chart for it alone, as PNG or SVG.");
    ImGui::EndDisabled();
    if (!s.message.empty()) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, s.message_error ? ImVec4(1, 0.45f, 0.45f, 1) : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextUnformatted(s.message.c_str());
        ImGui::PopStyleColor();
    }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Curves
// ---------------------------------------------------------------------------------------------
struct Curves {
    std::vector<viz::LogSeries> time, bytes;
    std::vector<std::vector<const Measurement*>> time_src, bytes_src;  // per series, per point
    double x_lo = 1e300, x_hi = 0, t_lo = 1e300, t_hi = 0, b_lo = 1e300, b_hi = 0;
    bool simulated = false;
    std::string watermark;  // SIMULATED, RECORDED <date>, or both
};

int series_of(std::string w, const std::string& variant) {
    const auto& all = kernels::variants(w);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == variant) return static_cast<int>(i);
    return 0;
}

Curves make_curves(const SweepState& s) {
    Curves c;
    for (const kernels::VariantInfo& v : kernels::variants(s.workload)) {
        viz::LogSeries t{v.name, series_of(s.workload, v.name), false, {}, {}};
        viz::LogSeries b{v.name + " (model)", t.series, false, {}, {}};
        viz::LogSeries bm{v.name + " (DRAM, counters)", t.series, true, {}, {}};
        std::vector<const Measurement*> ts, bs, bms;
        for (const Measurement& m : s.results) {
            if (m.job.variant != v.name || !m.ok) continue;
            const double x = m.job.params.get(s.swept);
            c.simulated |= m.device.simulated;
            c.x_lo = std::min(c.x_lo, x);
            c.x_hi = std::max(c.x_hi, x);
            t.x.push_back(x);
            t.y.push_back(m.time.median_ms);
            ts.push_back(&m);
            b.x.push_back(x);
            b.y.push_back(static_cast<double>(m.bytes()));
            bs.push_back(&m);
            c.t_lo = std::min(c.t_lo, m.time.median_ms);
            c.t_hi = std::max(c.t_hi, m.time.median_ms);
            c.b_lo = std::min(c.b_lo, static_cast<double>(m.bytes()));
            c.b_hi = std::max(c.b_hi, static_cast<double>(m.bytes()));
            if (m.measured_bytes) {
                bm.x.push_back(x);
                bm.y.push_back(static_cast<double>(*m.measured_bytes));
                bms.push_back(&m);
                c.b_lo = std::min(c.b_lo, static_cast<double>(*m.measured_bytes));
                c.b_hi = std::max(c.b_hi, static_cast<double>(*m.measured_bytes));
            }
        }
        if (t.x.empty()) continue;
        // Results arrive in job order (size-major); sort each curve by x for clean lines.
        c.time.push_back(t);
        c.time_src.push_back(ts);
        c.bytes.push_back(b);
        c.bytes_src.push_back(bs);
        if (!bm.x.empty()) {
            c.bytes.push_back(bm);
            c.bytes_src.push_back(bms);
        }
    }
    std::vector<const Measurement*> all;
    for (const Measurement& m : s.results)
        if (m.ok) all.push_back(&m);
    c.watermark = results_watermark(all);
    return c;
}

std::string point_text(const SweepState& s, const Measurement& m) {
    const kernels::ParamSpec* spec = spec_of(s.workload, s.swept);
    std::string t = m.job.variant + " at " + spec->name + " = " +
                    std::to_string(static_cast<int64_t>(m.job.params.get(s.swept))) + "\n";
    t += "time " + kernels::format_time_ms(m.time.median_ms) +
         (m.device.simulated ? " (simulated: model estimate)"
                             : std::string(m.recorded() ? " (" + m.source_label() + ";" : " (") + " median of " + std::to_string(m.time.reps) + ", min " +
                                   kernels::format_time_ms(m.time.min_ms) + ", max " + kernels::format_time_ms(m.time.max_ms) + ")") + "\n";
    t += "bytes (model) " + kernels::format_bytes(static_cast<double>(m.bytes())) + "\n";
    t += "DRAM (counters) " + (m.measured_bytes ? kernels::format_bytes(static_cast<double>(*m.measured_bytes))
                                                : std::string("n/a: ") + m.measured_bytes_note) + "\n";
    t += "achieved " + kernels::format_gbps(m.achieved_gbps()) + ", " + kernels::format_rate_flops(m.achieved_gflops() * 1e9);
    return t;
}

// One of the sweep's two charts: what it plots and how its axes read.
struct SweepChart {
    const char* id;                  // picture and highlight id ("sweep", "sweep_bytes")
    const char* label;               // "sweep's time chart", for the export menu
    std::string title, short_title;  // "Time vs size (simulated)", "Time (simulated)"
    std::string y_title;
    std::function<std::string(double)> format_y;
    const std::vector<viz::LogSeries>* series;
    const std::vector<std::vector<const Measurement*>>* src;
    double y_lo, y_hi;
};

// The chart's frame at `size`. Short (projector fonts): the titles share one line above the plot,
// worded to fit its width, and the x axis keeps its ticks only.
viz::LogPlotFrame chart_frame(const SweepState& s, const SweepChart& chart, ImVec2 size) {
    viz::LogPlotFrame frame;
    frame.title = chart.title;
    frame.y_title = chart.y_title;
    frame.x_title = spec_of(s.workload, s.swept)->label;
    if (size.y < em() * 14) {
        const std::string x = " (x: " + spec_of(s.workload, s.swept)->name + ")";
        frame.y_title = viz::first_fitting_text({chart.title + x, chart.title, chart.short_title + x, chart.short_title}, size.x);
        frame.title.clear();
        frame.x_title.clear();
    }
    frame.format_y = chart.format_y;
    frame.theme = viz::current_theme();
    return frame;
}

// A plot a student can read from the back row: room for a few decades each way, not just a frame.
bool chart_readable(const SweepState& s, const SweepChart& chart, const Curves& c, ImVec2 size) {
    const viz::LogPlotArea a = viz::layout_log_frame(ImVec2(0, 0), size, chart_frame(s, chart, size), c.x_lo, c.x_hi,
                                                     chart.y_lo, chart.y_hi);
    return a.fits && a.plot_max.x - a.plot_min.x >= em() * 8 && a.plot_max.y - a.plot_min.y >= em() * 4;
}

void draw_curve_plot(AppState& state, const SweepChart& chart, const Curves& c, ImVec2 size) {
    const SweepState& s = state.sweep;
    const char* id = chart.id;
    const auto& series = *chart.series;
    const auto& src = *chart.src;
    viz::LogPlotFrame frame = chart_frame(s, chart, size);
    frame.watermark = state.capturing ? "" : c.watermark;  // exports: the title says "(simulated)" instead
    service_svg_request(state, id, [&] {
        viz::LogPlotFrame f = frame;
        f.title = chart.title;
        f.y_title = chart.y_title;
        f.x_title = spec_of(s.workload, s.swept)->label;
        f.watermark.clear();
        return viz::log_series_svg(f, series);
    });
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    chart_export_menu(state, id, chart.label);
    record_chart_rect(state, id, origin.x, origin.y, origin.x + size.x, origin.y + size.y);
    const bool hovered = state.interactive && !state.capturing && ImGui::IsItemHovered();
    const ImVec2 mouse = hovered ? ImGui::GetIO().MousePos : ImVec2(-FLT_MAX, -FLT_MAX);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const viz::LogPlotArea area = viz::draw_log_frame(draw, origin, size, frame, c.x_lo, c.x_hi, chart.y_lo, chart.y_hi);
    int point = -1;
    const int hit = viz::draw_log_series(draw, area, series, frame.theme, mouse, &point);
    if (!frame.watermark.empty()) viz::draw_log_watermark(draw, area, frame);
    if (hovered && hit >= 0 && point >= 0) {
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(point_text(s, *src[static_cast<size_t>(hit)][static_cast<size_t>(point)]).c_str());
        ImGui::EndTooltip();
    }
}

std::string ms_tick(double ms) {
    if (ms >= 1000) return viz::si_tick(ms / 1000) + " s";
    if (ms >= 1) return viz::si_tick(ms) + " ms";
    if (ms >= 1e-3) return viz::si_tick(ms * 1000) + " us";
    return viz::si_tick(ms * 1e6) + " ns";
}

std::string byte_tick(double b) { return viz::si_tick(b) + "B"; }

}  // namespace

// Both charts side by side or stacked, whichever leaves each plot nearer the 2:1 a log chart reads
// best at (wide windows side by side; a narrow view stacked); where neither leaves both readable
// (projector fonts on a short screen), one chart at a time with a switch. A picture or a lesson
// highlight asking for one chart shows that one.
void draw_sweep_charts(AppState& state, const SweepChart (&charts)[2], const Curves& c) {
    SweepState& s = state.sweep;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = em();
    const ImVec2 beside((avail.x - gap) * 0.5f, avail.y), stacked(avail.x, (avail.y - gap) * 0.5f);
    const auto off_shape = [](ImVec2 plot) { return std::abs(std::log(std::max(plot.x, 1.0f) / std::max(plot.y, 1.0f) / 2.0f)); };
    const auto both_readable = [&](ImVec2 size) {
        return chart_readable(s, charts[0], c, size) && chart_readable(s, charts[1], c, size);
    };
    const bool prefer_beside = off_shape(beside) <= off_shape(stacked);
    const ImVec2 first = prefer_beside ? beside : stacked, second = prefer_beside ? stacked : beside;
    if (both_readable(first) || both_readable(second)) {
        const bool side_by_side = both_readable(first) ? prefer_beside : !prefer_beside;
        const ImVec2 size = side_by_side ? beside : stacked;
        draw_curve_plot(state, charts[0], c, size);
        if (side_by_side) ImGui::SameLine(0, gap);
        draw_curve_plot(state, charts[1], c, size);
        return;
    }
    const std::string wanted = state.picture && !state.picture->done ? state.picture->target : state.highlight;
    if (wanted == charts[0].id) s.bytes_chart_alone = false;
    if (wanted == charts[1].id) s.bytes_chart_alone = true;
    int shown = s.bytes_chart_alone ? 1 : 0;
    if (ImGui::RadioButton("time", &shown, 0)) s.bytes_chart_alone = false;
    tooltip("Only one chart is readable at this window and font size: this one shows the time chart.");
    ImGui::SameLine();
    if (ImGui::RadioButton("bytes", &shown, 1)) s.bytes_chart_alone = true;
    tooltip("Only one chart is readable at this window and font size: this one shows the bytes chart.");
    const char* why = "one chart fits at this size";
    if (viz::same_line_if_fits(ImGui::CalcTextSize(why).x)) ImGui::TextDisabled("%s", why);
    const ImVec2 rest = ImGui::GetContentRegionAvail();
    draw_curve_plot(state, charts[shown], c, ImVec2(rest.x, std::max(em() * 6, rest.y)));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Panel
// ---------------------------------------------------------------------------------------------
void draw_sweep_panel(AppState& state, const ResolvedBackend& backend) {
    SweepState& s = state.sweep;
    const std::string w = state.settings.params.workload;
    if (sweepable_params(w).empty()) {
        ImGui::TextWrapped("Workload %s has no size parameter to sweep.", w.c_str());
        return;
    }
    param_combo(s, w);
    range_inputs(s, w);
    run_controls(state);
    // The export buttons join the controls' line when there is room for them.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float export_w = ImGui::CalcTextSize("CSVJSONPNG").x + style.FramePadding.x * 6 + style.ItemSpacing.x * 3;
    if (ImGui::GetContentRegionAvail().x - ImGui::GetItemRectMax().x + ImGui::GetCursorScreenPos().x > export_w)
        ImGui::SameLine();
    export_controls(state);
    if (!backend.ready) ImGui::TextDisabled("waiting for the GPU probe...");
    if (s.results.empty()) {
        ImGui::TextWrapped("%s", s.running ? "measuring the first size..."
                                           : "Press Run sweep: every selected variant is measured at each size "
                                             "and drawn as time and bytes against size on log axes.");
        return;
    }
    if (!spec_of(s.workload, s.swept)) return;  // results of a workload that no longer takes this parameter
    const Curves c = make_curves(s);
    if (s.workload != w)
        ImGui::TextDisabled("showing the last sweep of %s; run again for %s", s.workload.c_str(), w.c_str());
    for (const std::string& why : s.skipped) ImGui::TextDisabled("skipped: %s", why.c_str());
    size_t failed = 0;
    for (const Measurement& m : s.results) failed += m.ok ? 0 : 1;
    if (failed) {
        ImGui::TextDisabled("%zu runs refused or failed (hover)", failed);
        std::string why;
        for (const Measurement& m : s.results)
            if (!m.ok) why += m.job.variant + " " + point_params_text(m.job.params) + ": " + m.error + "\n";
        tooltip(why);
    }
    if (c.time.empty()) return;
    std::vector<const Measurement*> all;
    for (const Measurement& m : s.results) all.push_back(&m);
    const std::string source = results_source_caption(all);
    const std::string dev = source.empty() ? "" : " (" + (source == "model estimate" ? std::string("simulated") : source) + ")";
    const SweepChart charts[2] = {
        {"sweep", "sweep's time chart", "Time vs size" + dev, "Time" + dev, "median time per run", ms_tick, &c.time,
         &c.time_src, c.t_lo, c.t_hi},
        {"sweep_bytes", "sweep's bytes chart", "Bytes vs size" + dev, "Bytes" + dev,
         std::string(kernels::level_name(kernels::TrafficLevel::dram)) + " bytes per run (model; counters dashed)",
         byte_tick, &c.bytes, &c.bytes_src, c.b_lo, c.b_hi}};
    draw_sweep_charts(state, charts, c);
}

}  // namespace app
