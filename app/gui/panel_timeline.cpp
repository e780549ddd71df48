// [SECTION] Rows: one per shown variant with a recorded timeline
// [SECTION] Interaction: zoom, pan, fit
// [SECTION] Hover tooltip
// [SECTION] Summary table
// [SECTION] One block, lane by lane (WorkloadDef::block_timeline)
// [SECTION] The panel
#include "app/gui/panel_timeline.h"

#include "app/gui/panel_charts.h"
#include "viz/svg_chart.h"

#include "viz/timeline.h"

#include "app/core/panels_state.h"
#include "kernels/core/format.h"
#include "kernels/core/timeline.h"
#include "kernels/core/registry.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>
#include <imgui_internal.h>  // SetItemUsingMouseWheel (1.86 keeps it internal)

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

namespace app {

namespace {

using viz::current_theme;
using viz::em;

std::string printf_text(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

// =============================================================================================
// [SECTION] Rows
// =============================================================================================
struct ShownRun {
    const kernels::Measurement* m = nullptr;
    kernels::TimelineStats stats;
    bool stale = false;
};

int variant_series(const kernels::Measurement& m) {
    const auto& vs = kernels::variants(m.job.params.workload);
    for (size_t i = 0; i < vs.size(); ++i)
        if (vs[i].name == m.job.variant) return static_cast<int>(i);
    return m.job.variant == kernels::kStudentVariant ? static_cast<int>(vs.size()) : 0;  // yours: the next colour
}

std::string row_summary(const ShownRun& r) {
    const double idle_pct = r.stats.span_ms > 0 ? 100.0 * r.stats.idle_ms / r.stats.span_ms : 0.0;
    return std::to_string(r.stats.kernels) + (r.stats.kernels == 1 ? " kernel" : " kernels") +
           (r.stats.kernels > 1 ? printf_text(", %.0f %% idle", idle_pct) : std::string()) +
           (r.stale ? " (stale)" : "");
}

// =============================================================================================
// [SECTION] Interaction: zoom, pan, fit
// =============================================================================================
// Wheel: zoom around the time under the cursor; drag: pan; double-click: fit. Clamped so the window
// never becomes empty or absurdly small (1 ns).
void interact(TimelinePanelState& tp, const viz::TimelineView& shown, const viz::TimelineLayout& layout) {
    if (!ImGui::IsItemHovered() && !ImGui::IsItemActive()) return;
    const ImGuiIO& io = ImGui::GetIO();
    const float w = std::max(layout.plot_max.x - layout.plot_min.x, 1.0f);
    const double span = shown.t1 - shown.t0;
    viz::TimelineView v = shown;
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
        tp.view = {};
        return;
    }
    if (io.MouseWheel != 0 && ImGui::IsItemHovered()) {
        const double at = shown.t0 + static_cast<double>((io.MousePos.x - layout.plot_min.x) / w) * span;
        v = viz::zoom_view(v, at, io.MouseWheel);
    }
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f))
        v = viz::pan_view(v, io.MouseDelta.x, w);
    if (v.t0 != shown.t0 || v.t1 != shown.t1) tp.view = v;
}

// =============================================================================================
// [SECTION] Hover tooltip
// =============================================================================================
void hover_tooltip(const std::vector<ShownRun>& runs, const viz::TimelineHover& h) {
    if (h.row < 0 || h.row >= static_cast<int>(runs.size())) return;
    const kernels::Measurement& m = *runs[static_cast<size_t>(h.row)].m;
    const auto& spans = m.timeline;
    const auto first = static_cast<size_t>(h.bar_first), last = static_cast<size_t>(h.bar_last);
    if (first >= spans.size() || last >= spans.size()) return;
    std::string text = m.job.variant + "\n";
    if (h.gap) {
        text += "GPU idle for " + viz::duration_text(spans[last].start_ms - spans[first].end_ms) + " between kernel " +
                std::to_string(first + 1) + " (" + spans[first].name + ") and kernel " + std::to_string(last + 1) + " (" +
                spans[last].name + ").\nNo kernel of this run ran: the GPU waited for the next launch.";
    } else if (first == last) {
        const kernels::KernelSpan& k = spans[first];
        text += "kernel " + std::to_string(first + 1) + " of " + std::to_string(spans.size()) + ": " + k.name +
                "\nduration " + viz::duration_text(k.end_ms - k.start_ms) + ", starts at " + viz::duration_text(k.start_ms) +
                "\nbytes (modeled) " + (k.bytes > 0 ? kernels::format_bytes(static_cast<double>(k.bytes)) : std::string("unknown"));
        if (k.bytes > 0 && k.end_ms > k.start_ms)
            text += " = " + kernels::format_gbps(static_cast<double>(k.bytes) / ((k.end_ms - k.start_ms) * 1e6));
    } else {
        double busy = 0;
        uint64_t bytes = 0;
        for (size_t i = first; i <= last; ++i) {
            busy += spans[i].end_ms - spans[i].start_ms;
            bytes += spans[i].bytes;
        }
        text += std::to_string(last - first + 1) + " kernels in one pixel (zoom in with the wheel): " +
                std::to_string(first + 1) + " .. " + std::to_string(last + 1) + "\nfrom " +
                viz::duration_text(spans[first].start_ms) + " to " + viz::duration_text(spans[last].end_ms) + ", busy " +
                viz::duration_text(busy) + ", idle " +
                viz::duration_text(std::max(0.0, spans[last].end_ms - spans[first].start_ms - busy)) +
                "\nbytes (modeled) " + kernels::format_bytes(static_cast<double>(bytes));
    }
    viz::tooltip_box(text);
}

// =============================================================================================
// [SECTION] Summary table
// =============================================================================================
void intro_text() {
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted("One run of each variant: every kernel a coloured bar on a shared time axis (0 = the run's "
                           "first kernel starts); grey hatched gaps are time the GPU ran none of the run's kernels "
                           "(launch overhead), labelled where they fit. Wheel: zoom, drag: pan, double-click: fit.");
    ImGui::PopTextWrapPos();
}

// The table's cells as text: one row per run, one column per figure.
std::vector<std::vector<std::string>> summary_cells(const std::vector<ShownRun>& runs) {
    std::vector<std::vector<std::string>> cells;
    for (const ShownRun& r : runs) {
        const kernels::TimelineStats& s = r.stats;
        const double pct = s.span_ms > 0 ? 100.0 * s.idle_ms / s.span_ms : 0.0;
        const bool gaps = s.kernels > 1;
        cells.push_back({r.m->job.variant, std::to_string(s.kernels), viz::duration_text(s.span_ms),
                         viz::duration_text(s.busy_ms), gaps ? viz::duration_text(s.idle_ms) + printf_text(" (%.0f %%)", pct) : "-",
                         gaps ? viz::duration_text(s.median_gap_us * 1e-3) : "-", gaps ? viz::duration_text(s.mean_gap_us * 1e-3) : "-"});
    }
    return cells;
}

// A run per row where the seven columns fit the width; else turned over (a figure per row, a run
// per column, the figures' names wrapping) so that no number is cut at projector fonts.
void summary_table(const std::vector<ShownRun>& runs) {
    static constexpr const char* kHeads[] = {"variant", "kernels", "run (first start .. last end)", "GPU busy", "GPU idle",
                                             "median gap", "mean gap"};
    const std::vector<std::vector<std::string>> cells = summary_cells(runs);
    const float pad = ImGui::GetStyle().CellPadding.x * 2 + 1;
    float wide_w = 0;
    for (size_t col = 0; col < std::size(kHeads); ++col) {
        float w = ImGui::CalcTextSize(kHeads[col]).x;
        for (const auto& row : cells) w = std::max(w, ImGui::CalcTextSize(row[col].c_str()).x);
        wide_w += w + pad;
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg;
    if (wide_w <= ImGui::GetContentRegionAvail().x) {
        if (!ImGui::BeginTable("timeline_summary", static_cast<int>(std::size(kHeads)), flags | ImGuiTableFlags_SizingFixedFit)) return;
        for (const char* h : kHeads) ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        for (const auto& row : cells) {
            ImGui::TableNextRow();
            for (const std::string& cell : row) {
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(cell.c_str());
            }
        }
        ImGui::EndTable();
        return;
    }
    if (!ImGui::BeginTable("timeline_summary_turned", static_cast<int>(cells.size()) + 1, flags | ImGuiTableFlags_SizingStretchSame)) return;
    ImGui::TableSetupColumn(kHeads[0], ImGuiTableColumnFlags_WidthStretch, 1.2f);
    for (const auto& row : cells) ImGui::TableSetupColumn(row[0].c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (size_t col = 1; col < std::size(kHeads); ++col) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(col == 2 ? "run" : kHeads[col]);  // "run (first start .. last end)": the tooltip
        if (col == 2 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kHeads[col]);
        for (const auto& row : cells) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row[col].c_str());
        }
        ImGui::PopTextWrapPos();
    }
    ImGui::EndTable();
}

// =============================================================================================
// [SECTION] One block, lane by lane (WorkloadDef::block_timeline)
// =============================================================================================
// For a variant whose warps have roles (flash_wgmma): one block of it, each lane a row, modeled from
// its schedule at the device's calibrated rates. Drawn once, for the first shown run that has lanes.
kernels::BlockTimeline find_block_lanes(const std::vector<const kernels::Measurement*>& shown) {
    for (const kernels::Measurement* m : shown) {
        if (!m->ok) continue;
        const kernels::WorkloadDef& def = kernels::workload_def(m->job.params);
        if (!def.block_timeline) continue;
        kernels::BlockTimeline bt = def.block_timeline(m->job.variant, m->ran_params(), m->device);
        if (!bt.lanes.empty()) return bt;
    }
    return {};
}

// Its height: the chart's rows and about three lines of note.
float block_lanes_height(const kernels::BlockTimeline& bt) {
    if (bt.lanes.empty()) return 0;
    return viz::preferred_timeline_height(static_cast<int>(bt.lanes.size())) + ImGui::GetTextLineHeightWithSpacing() * 4;
}

void draw_block_lanes(const kernels::BlockTimeline& bt) {
    if (bt.lanes.empty()) return;
    std::vector<viz::TimelineRow> rows;
    for (const kernels::BlockLane& lane : bt.lanes) rows.push_back({lane.label, lane.summary, lane.spans, lane.kind});
    viz::TimelineFrame frame;
    frame.title = bt.title;
    frame.watermark = "MODEL";
    frame.theme = current_theme();
    ImGui::Spacing();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 size(ImGui::GetContentRegionAvail().x, viz::preferred_timeline_height(static_cast<int>(rows.size())));
    const viz::TimelineHover hover = viz::draw_timeline(ImGui::GetWindowDrawList(), origin, size, frame, rows, viz::fit_view(rows));
    ImGui::InvisibleButton("block_lanes_plot", size);
    if (ImGui::IsItemHovered() && hover.row >= 0 && hover.bar_first >= 0) {
        const viz::TimelineRow& row = rows[static_cast<size_t>(hover.row)];
        const kernels::KernelSpan& a = row.spans[static_cast<size_t>(hover.bar_first)];
        const kernels::KernelSpan& b = row.spans[static_cast<size_t>(hover.bar_last)];
        viz::tooltip_box(row.label + "\n" +
                         (hover.gap ? "waits " + viz::duration_text(b.start_ms - a.end_ms) + " between " + a.name + " and " + b.name
                                    : a.name + ": " + viz::duration_text(a.end_ms - a.start_ms) + ", from " +
                                          viz::duration_text(a.start_ms)));
    }
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", bt.note.c_str());
    ImGui::PopTextWrapPos();
}

}  // namespace

// =============================================================================================
// [SECTION] The panel
// =============================================================================================
void draw_timeline_panel(AppState& state, const ResolvedBackend& backend) {
    std::vector<ShownRun> runs;
    std::vector<std::string> missing;
    for (const kernels::Measurement* m : visible_results(state)) {
        if (!m->ok || m->timeline.empty()) {
            missing.push_back(m->job.variant + ": " + (m->ok ? "no timeline recorded" : m->error));
            continue;
        }
        runs.push_back({m, kernels::timeline_stats(m->timeline), is_stale(*m, state.settings, backend)});
    }
    if (runs.empty()) {
        intro_text();
        ImGui::TextDisabled("No timeline yet: measure a variant (the runner records one run of each after timing).");
        for (const std::string& why : missing) ImGui::TextDisabled("%s", why.c_str());
        return;
    }

    std::vector<viz::TimelineRow> rows;
    bool simulated = false;
    std::vector<const kernels::Measurement*> shown_runs;
    for (const ShownRun& r : runs) {
        rows.push_back({r.m->job.variant, row_summary(r), r.m->timeline, variant_series(*r.m)});
        simulated = simulated || r.m->device.simulated;
        shown_runs.push_back(r.m);
    }
    viz::TimelineFrame frame;
    const kernels::Measurement& first = *runs.front().m;
    // The longest wording that fits (bold is a little wider than the font it is measured in).
    const std::string on = first.job.params.workload + " on " + plain_device_name(first.device);
    const std::string recorded = first.recorded() ? " (recorded " + first.recorded_date + ")" : "";
    frame.title = viz::first_fitting_text({on + recorded + (simulated ? " (simulated: modeled kernels and gaps)" : ""),
                                           on + recorded + (simulated ? " (simulated)" : ""),
                                           first.job.params.workload + recorded + (simulated ? " (simulated)" : "")},
                                          ImGui::GetContentRegionAvail().x * 0.92f);
    // An exported picture keeps the bars clear: the title already says "(simulated ...)" or "(recorded ...)".
    frame.watermark = state.capturing ? "" : results_watermark(shown_runs);
    frame.theme = current_theme();

    // Room below the chart: the table (header + one row per run) and one or two lines of source per run.
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float table_h = line * (1.25f * static_cast<float>(runs.size() + 1) + 2.0f * static_cast<float>(runs.size()) + 3.0f) +
                          em();
    const float avail_h = ImGui::GetContentRegionAvail().y;
    const kernels::BlockTimeline block = find_block_lanes(visible_results(state));
    // Never squeezed below its preferred height (the panel scrolls instead): rows must stay readable.
    const float chart_h = std::max(viz::preferred_timeline_height(rows, ImGui::GetContentRegionAvail().x),
                                   avail_h - table_h - block_lanes_height(block));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 size(ImGui::GetContentRegionAvail().x, chart_h);
    TimelinePanelState& tp = state.timeline;
    const viz::TimelineView shown = tp.view.t1 > tp.view.t0 ? tp.view : viz::fit_view(rows);
    viz::TimelineLayout layout;
    const viz::TimelineHover hover =
        viz::draw_timeline(ImGui::GetWindowDrawList(), origin, size, frame, rows, shown, &layout);
    ImGui::InvisibleButton("timeline_plot", size);
    ImGui::SetItemUsingMouseWheel();  // the wheel zooms the timeline instead of scrolling the panel
    chart_export_menu(state, "timeline", "timeline");
    record_chart_rect(state, "timeline", origin.x, origin.y, origin.x + size.x, origin.y + size.y);
    service_svg_request(state, "timeline", [&] {
        viz::TimelineFrame f = frame;
        if (const std::string source = results_source_caption(shown_runs); !source.empty()) f.watermark = source;
        return viz::timeline_svg(f, rows, shown);
    });
    if (state.interactive && !state.capturing) {
        interact(tp, shown, layout);
        if (ImGui::IsItemHovered()) hover_tooltip(runs, hover);
    }
    draw_block_lanes(block);  // right under the kernels, before their table: the panel scrolls

    summary_table(runs);
    intro_text();
    for (const ShownRun& r : runs) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextDisabled("%s: %s", r.m->job.variant.c_str(), r.m->timeline_source.c_str());
        ImGui::PopTextWrapPos();
    }
    for (const std::string& why : missing) ImGui::TextDisabled("%s", why.c_str());
}

}  // namespace app
