// The time and bytes charts over viz/bar_chart.h.
//
// Index:
//   [SECTION] Chart data
//   [SECTION] Charts
#include "app/gui/panel_charts.h"

#include "app/core/panels_state.h"
#include "app/gui/panel_helpers.h"
#include "kernels/core/format.h"
#include "kernels/core/levels.h"
#include "kernels/core/timeline.h"
#include "kernels/core/registry.h"
#include "viz/bar_chart.h"
#include "viz/svg_chart.h"
#include "viz/theme.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace app {

namespace {

using kernels::Measurement;
using viz::current_theme;
using viz::em;
using viz::error_color;
using viz::tooltip;

// ---------------------------------------------------------------------------------------------
// [SECTION] Chart data
// ---------------------------------------------------------------------------------------------

bool any_simulated(const std::vector<const Measurement*>& shown) {
    for (const Measurement* m : shown)
        if (m->device.simulated) return true;
    return false;
}

std::string watermark_text(const std::vector<const Measurement*>& shown) { return results_watermark(shown); }

// The time chart's title, the longest that fits the chart's width: where the numbers come from
// first in full ("recorded 2026-11-25 + model estimate"), then shorter.
std::string time_chart_title(const std::vector<const Measurement*>& plotted, float width) {
    const std::string source = results_source_caption(plotted);
    if (source.empty()) return "Time per variant (median, min-max)";
    const bool recorded = source.rfind("recorded", 0) == 0;
    const bool mixed = recorded && source.find('+') != std::string::npos;
    const std::string brief = mixed ? "recorded + model" : recorded ? "recorded" : "model estimate";
    ImFont* font = viz::heading_font();
    for (const std::string& title : {"Time per variant (" + source + ")", "Time (" + source + ")", "Time (" + brief + ")"})
        if (!font || font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, title.c_str()).x <= width) return title;
    return "Time (" + brief + ")";
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
    // DRAM bytes (the L2 reuse model for the measurement's GPU), the level kernels/core/levels.h
    // calls DRAM everywhere.
    for (const Measurement* m : shown)
        models.push_back(kernels::model(m->job.variant, m->ran_params(),
                                        m->device.l2_bytes > 0 ? static_cast<uint64_t>(m->device.l2_bytes) : kernels::kDefaultL2Bytes));
    out.names = series_order(models, by_kernel);
    for (size_t v = 0; v < shown.size(); ++v) {
        // Per series: bytes read, bytes written, and which kernels touched it.
        std::vector<uint64_t> read(out.names.size(), 0), written(out.names.size(), 0);
        std::vector<std::string> touched_by(out.names.size());
        for (const kernels::KernelModel& k : models[v].kernels) {
            if (by_kernel) {
                const size_t s = static_cast<size_t>(series_index(out.names, k.name));
                read[s] += k.dram_read();
                written[s] += k.dram_written();
                continue;
            }
            for (const kernels::BufferTraffic& b : k.buffers) {
                const size_t s = static_cast<size_t>(series_index(out.names, b.buffer));
                read[s] += b.dram_read;
                written[s] += b.dram_written;
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

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Charts
// ---------------------------------------------------------------------------------------------

void record_chart_rect(AppState& state, const char* id, float x0, float y0, float x1, float y1) {
    const ImVec2 clip_min = ImGui::GetWindowDrawList()->GetClipRectMin(), clip_max = ImGui::GetWindowDrawList()->GetClipRectMax();
    const float slack = 1.0f;  // rounding of the layout's fractional pixels
    const bool cut = x0 < clip_min.x - slack || y0 < clip_min.y - slack || x1 > clip_max.x + slack || y1 > clip_max.y + slack;
    record_picture_rect(state, id, x0, y0, x1, y1, cut);
    // A chart being exported that lies partly out of view (below the fold at projector fonts):
    // scroll its top into view for the next frame, which the picture waits for.
    if (cut && state.capturing && state.picture && state.picture->target == id)
        ImGui::SetScrollY(std::max(0.0f, ImGui::GetScrollY() + (y0 - clip_min.y) - ImGui::GetStyle().ItemSpacing.y));
}

void chart_export_menu(AppState& state, const char* chart_id, const char* label) {
    if (!state.interactive || state.capturing) return;
    if (ImGui::BeginPopupContextItem(chart_id)) {
        const std::string png = std::string("Export the ") + label + " as PNG";
        const std::string svg = std::string("Export the ") + label + " as SVG (text as text, for slides)";
        if (ImGui::MenuItem(png.c_str())) request_picture(state, chart_id, "png");
        if (ImGui::MenuItem(svg.c_str())) request_picture(state, chart_id, "svg");
        ImGui::EndPopup();
    }
}

void draw_time_chart(AppState& state, const ResolvedBackend& backend, float width, float plot_height) {
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
        // A recorded backend's bars: which ones are the model's (the recording lacks them).
        if (m->job.backend == kernels::BackendKind::recorded && m->device.simulated) b.value_text += " (model)";
        // Numbers of earlier settings stay until the new ones arrive, faded and saying so.
        b.stale = is_stale(*m, state.settings, backend);
        if (b.stale) b.value_text += " (updating)";
        b.series = variant_series(m->job.params.workload, m->job.variant);
        bars.push_back(b);
        plotted.push_back(m);
    }
    // PyTorch's reference rows after ours, hatched (app/files/reference.h): never in our ratios.
    const std::vector<const ReferenceRow*> reference = shown_reference(state);
    std::vector<const ReferenceRow*> reference_bars;
    for (const ReferenceRow* r : reference) {
        if (!r->has_time) continue;
        viz::RangeBar b;
        b.label = reference_short_label(*r);
        b.value = r->time.median_ms;
        b.has_range = r->time.max_ms > r->time.min_ms;
        b.lo = r->time.min_ms;
        b.hi = r->time.max_ms;
        // Beside model estimates, say which bars were timed on a GPU.
        b.value_text = kernels::format_time_ms(r->time.median_ms) + (any_simulated(plotted) ? " measured" : "");
        b.reference = true;
        bars.push_back(b);
        reference_bars.push_back(r);
    }
    viz::ChartFrame frame;
    frame.title = time_chart_title(plotted, width);
    frame.format_tick = [](double v) { return kernels::format_time_ms(v); };
    // An exported picture keeps the values clear: its title already says where they come from.
    frame.watermark = state.capturing ? "" : watermark_text(plotted);
    frame.theme = current_theme();
    service_svg_request(state, "time", [&] {
        viz::ChartFrame f = frame;
        f.title = time_chart_title(plotted, 1e9f);  // the SVG has room for the full title
        f.watermark.clear();
        return viz::range_bars_svg(f, bars);
    });
    const ImVec2 size(width, std::max(plot_height, viz::preferred_chart_height(static_cast<int>(bars.size()))));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const viz::ChartHover hover = viz::draw_range_bars(ImGui::GetWindowDrawList(), origin, size, frame, bars);
    ImGui::InvisibleButton("time", size);
    chart_export_menu(state, "time", "time chart");
    const bool chart_hovered = state.interactive && !state.capturing && ImGui::IsItemHovered();
    if (!reference_bars.empty()) {  // what the hatched bars are, under the chart
        const float swatch = ImGui::GetTextLineHeight() * 0.8f;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float dy = (ImGui::GetTextLineHeight() - swatch) * 0.5f;
        viz::draw_reference_box(ImGui::GetWindowDrawList(), ImVec2(at.x, at.y + dy),
                                ImVec2(at.x + swatch, at.y + dy + swatch), current_theme());
        ImGui::Dummy(ImVec2(swatch, swatch));
        ImGui::SameLine();
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - swatch - ImGui::GetStyle().ItemSpacing.x);
        ImGui::TextDisabled("reference, not fusionlab: %s", reference_source(reference_bars).c_str());
        ImGui::PopTextWrapPos();
    }
    record_chart_rect(state, "time", origin.x, origin.y, origin.x + size.x, ImGui::GetItemRectMax().y);
    if (hover.bar >= static_cast<int>(plotted.size()) && chart_hovered) {
        const ReferenceRow& r = *reference_bars[static_cast<size_t>(hover.bar) - plotted.size()];
        viz::tooltip_box("Reference, not fusionlab: " + reference_caption(r) + "\nmedian " +
                         kernels::format_time_ms(r.time.median_ms) + ", min " + kernels::format_time_ms(r.time.min_ms) +
                         ", max " + kernels::format_time_ms(r.time.max_ms) + " (" + std::to_string(r.time.reps) +
                         " reps, CUDA events)\n" + r.note + "\n" + r.command);
    } else if (hover.bar >= 0 && chart_hovered) {
        const Measurement& m = *plotted[static_cast<size_t>(hover.bar)];
        viz::tooltip_box(m.job.variant + ": median " + kernels::format_time_ms(m.time.median_ms) + ", min " +
                      kernels::format_time_ms(m.time.min_ms) + ", max " + kernels::format_time_ms(m.time.max_ms) +
                      "\n" + std::to_string(kernels::launched_kernels(m.kernels)) + " kernel(s)\n" + m.timing_note);
    }
}

void draw_bytes_chart(AppState& state, const ResolvedBackend& backend, float width, float plot_height) {
    const std::vector<const Measurement*> shown = visible_results(state);
    std::vector<const Measurement*> plotted;
    for (const Measurement* m : shown)
        if (m->ok) plotted.push_back(m);
    ByteSeries series = byte_series(plotted, state.stack_by_kernel);
    for (size_t i = 0; i < plotted.size(); ++i)
        if (is_stale(*plotted[i], state.settings, backend)) {
            series.bars[i].stale = true;
            series.bars[i].total_text += " (updating)";
        }
    double max_bytes = 0;
    for (const Measurement* m : plotted) max_bytes = std::max(max_bytes, static_cast<double>(m->bytes()));
    const ByteUnit unit = byte_unit(max_bytes);
    for (viz::StackedBar& bar : series.bars)
        for (viz::StackSegment& segment : bar.segments) segment.value /= unit.size;

    viz::ChartFrame frame;
    const std::string by = state.stack_by_kernel ? "by kernel" : "by buffer";
    // A narrow chart (the lesson pane open at 1280 px) takes the short title rather than cut it.
    const std::string dram = kernels::level_name(kernels::TrafficLevel::dram);
    const std::string title = dram + " bytes per variant (model), " + by;
    frame.title = ImGui::CalcTextSize(title.c_str()).x * 1.25f <= width ? title : dram + " bytes (model), " + by;
    frame.format_tick = [unit](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%g %s", v, unit.name);
        return std::string(text);
    };
    // Modeled bytes: marked only where the time beside them is the model's (a recording's bytes are
    // this build's model for the recorded GPU either way).
    frame.watermark = any_simulated(plotted) && !state.capturing ? "SIMULATED" : "";
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
    service_svg_request(state, "bytes", [&] {
        viz::ChartFrame f = frame;
        f.title = title;
        // Beside a model's time the SVG says what the GUI's watermark says, in the line under the title.
        f.watermark = any_simulated(plotted) ? "simulated device: the model's bytes beside the model's time" : "";
        return viz::stacked_bars_svg(f, series.bars, series.names);
    });
    const viz::ChartHover hover =
        viz::draw_stacked_bars(ImGui::GetWindowDrawList(), origin, size, frame, series.bars, series.names);
    ImGui::InvisibleButton("bytes", size);
    chart_export_menu(state, "bytes", "bytes chart");
    record_chart_rect(state, "bytes", origin.x, origin.y, origin.x + size.x, origin.y + size.y);
    if (hover.bar >= 0 && state.interactive && !state.capturing && ImGui::IsItemHovered()) {
        const size_t b = static_cast<size_t>(hover.bar);
        if (hover.segment >= 0) viz::tooltip_box(series.details[b][static_cast<size_t>(hover.segment)]);
        else viz::tooltip_box(series.bars[b].label + ": " + series.bars[b].total_text + " in total; the dashed line is "
                           "the minimum any implementation must move.");
    }
    ImGui::TextUnformatted("stack by");
    ImGui::SameLine();
    if (ImGui::RadioButton("buffer", !state.stack_by_kernel)) state.stack_by_kernel = false;
    tooltip("One segment per tensor in DRAM. Intermediates (h1, h2, ...) exist only in unfused code: written by "
            "one kernel and read back by the next.");
    ImGui::SameLine();
    if (ImGui::RadioButton("kernel", state.stack_by_kernel)) state.stack_by_kernel = true;
    tooltip("One segment per kernel launch.");
}

}  // namespace app
