// [SECTION] Plain math: pixel bars, durations, fit
// [SECTION] Drawing pieces: axis, row label, bars and gaps, watermark
// [SECTION] The chart
#include "viz/timeline.h"

#include "viz/axis.h"
#include "viz/imgui_helpers.h"
#include "viz/label_layout.h"
#include "viz/theme.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace viz {

// =============================================================================================
// [SECTION] Plain math: pixel bars, durations, fit
// =============================================================================================
std::vector<PixelBar> pixel_bars(const std::vector<kernels::KernelSpan>& spans, double t0, double t1, float x_left,
                                 float width) {
    std::vector<PixelBar> bars;
    if (!(t1 > t0) || !(width > 0)) return bars;
    const double px_per_ms = static_cast<double>(width) / (t1 - t0);
    const auto x_of = [&](double t) { return x_left + static_cast<float>((t - t0) * px_per_ms); };
    const float x_right = x_left + width;
    for (size_t i = 0; i < spans.size(); ++i) {
        const kernels::KernelSpan& k = spans[i];
        if (k.end_ms < t0 || k.start_ms > t1) continue;
        float x0 = std::max(x_of(k.start_ms), x_left), x1 = std::min(x_of(k.end_ms), x_right);
        if (!bars.empty()) {
            PixelBar& prev = bars.back();
            const bool thin = x1 - x0 < 1.0f || prev.x1 - prev.x0 < 1.0f;
            if (thin && x0 - prev.x1 < 1.0f) {  // neither bar nor gap would be visible: one bar
                prev.x1 = std::max(prev.x1, x1);
                prev.last = i;
                continue;
            }
        }
        bars.push_back({x0, x1, i, i});
    }
    for (PixelBar& b : bars)
        if (b.x1 - b.x0 < 1.0f) b.x1 = b.x0 + 1.0f;  // at least one pixel: a kernel never vanishes
    return bars;
}

std::string duration_text(double ms) {
    char buf[32];
    const double us = ms * 1e3;
    if (std::round(us * 1e3) < 1000.0) std::snprintf(buf, sizeof buf, "%.0f ns", us * 1e3);
    else if (us < 10.0) std::snprintf(buf, sizeof buf, "%.1f us", us);
    else if (us < 1000.0) std::snprintf(buf, sizeof buf, "%.0f us", us);
    else if (ms < 10.0) std::snprintf(buf, sizeof buf, "%.2f ms", ms);
    else std::snprintf(buf, sizeof buf, "%.1f ms", ms);
    return buf;
}

TimelineView fit_view(const std::vector<TimelineRow>& rows) {
    double end = 0;
    for (const TimelineRow& r : rows)
        for (const kernels::KernelSpan& k : r.spans) end = std::max(end, k.end_ms);
    if (!(end > 0)) end = 1e-3;
    return {-end * 0.01, end * 1.03};
}

TimelineView zoom_view(const TimelineView& v, double at_ms, float notches) {
    const double span = v.t1 - v.t0;
    if (!(span > 0)) return v;
    const double new_span = std::max(span * std::pow(0.8, static_cast<double>(notches)), 1e-6);
    const double frac = (at_ms - v.t0) / span;
    TimelineView out;
    out.t0 = at_ms - frac * new_span;
    out.t1 = out.t0 + new_span;
    return out;
}

TimelineView pan_view(const TimelineView& v, float dx_px, float width_px) {
    if (!(width_px > 0)) return v;
    const double dt = -static_cast<double>(dx_px / width_px) * (v.t1 - v.t0);
    return {v.t0 + dt, v.t1 + dt};
}

float preferred_timeline_height(int rows) {
    const float font = ImGui::GetFontSize();
    return font * (1.6f + 2.4f * static_cast<float>(std::max(rows, 1)) + 1.6f);
}

namespace {

// The label column: as wide as the widest label or summary, at most 38 % of the chart.
float label_column_width(const std::vector<TimelineRow>& rows, float width) {
    float w = 0;
    for (const TimelineRow& r : rows)
        w = std::max({w, ImGui::CalcTextSize(r.label.c_str()).x, ImGui::CalcTextSize(r.summary.c_str()).x});
    return std::min(w + ImGui::GetFontSize(), width * 0.38f);
}

// A row's summary as it is drawn in a column `width` wide: one line when it fits, else one line
// per clause ("100 kernels," / "71 % idle"), each shortened with "..." if still too wide.
std::vector<std::string> summary_lines(const std::string& summary, float width) {
    if (summary.empty()) return {};
    if (ImGui::CalcTextSize(summary.c_str()).x <= width) return {summary};
    std::vector<std::string> lines;
    for (size_t at = 0; at < summary.size();) {
        const size_t comma = summary.find(", ", at);
        std::string part = summary.substr(at, comma == std::string::npos ? std::string::npos : comma + 1 - at);
        at = comma == std::string::npos ? summary.size() : comma + 2;
        while (part.size() > 1 && ImGui::CalcTextSize(part.c_str()).x > width) {
            part.pop_back();
            while (!part.empty() && (static_cast<unsigned char>(part.back()) & 0xC0) == 0x80) part.pop_back();
            if (ImGui::CalcTextSize((part + "...").c_str()).x <= width) {
                part += "...";
                break;
            }
        }
        lines.push_back(part);
    }
    return lines;
}

}  // namespace

float preferred_timeline_height(const std::vector<TimelineRow>& rows, float width) {
    const float font = ImGui::GetFontSize();
    const float column_w = label_column_width(rows, width) - font * 0.4f;
    size_t lines = 1;
    for (const TimelineRow& r : rows) lines = std::max(lines, summary_lines(r.summary, column_w).size());
    const float row_h = std::max(2.4f, 1.15f + static_cast<float>(lines) + 0.35f);  // the label, then the summary
    return font * (1.6f + row_h * static_cast<float>(std::max<size_t>(rows.size(), 1)) + 1.6f);
}

// =============================================================================================
// [SECTION] Drawing pieces: axis, row label, bars and gaps, watermark
// =============================================================================================
namespace {

struct Layout {
    float font = 16;
    ImVec2 min, max;            // whole chart
    ImVec2 plot_min, plot_max;  // bars
    float label_x = 0;          // left edge of row labels
    float row_h = 0;
    double t0 = 0, t1 = 1;
    float x_of(double t) const {
        return plot_min.x + static_cast<float>((t - t0) / (t1 - t0)) * (plot_max.x - plot_min.x);
    }
    double t_of(float x) const { return t0 + static_cast<double>((x - plot_min.x) / (plot_max.x - plot_min.x)) * (t1 - t0); }
};

ImVec2 text_size(const std::string& s) { return ImGui::CalcTextSize(s.c_str()); }

// Vertical grid lines and the time labels below the plot (0 = the first kernel's start).
void draw_axis(ImDrawList* draw, const Layout& L, const ChartColors& c) {
    const double span = L.t1 - L.t0;
    const int max_ticks = std::max(2, static_cast<int>((L.plot_max.x - L.plot_min.x) / (L.font * 6)));
    const double step = nice_number(span / max_ticks, true);
    if (!(step > 0)) return;
    const float line = std::max(1.0f, L.font / 16.0f);
    for (double t = std::ceil(L.t0 / step) * step; t <= L.t1 + step * 1e-9; t += step) {
        const float x = std::round(L.x_of(t));
        draw->AddLine(ImVec2(x, L.plot_min.y), ImVec2(x, L.plot_max.y), c.grid, line);
        const std::string label = std::fabs(t) < step * 1e-6 ? "0" : duration_text(t);
        const ImVec2 sz = text_size(label);
        const float lx = std::clamp(x - sz.x * 0.5f, L.plot_min.x - sz.x * 0.5f, L.max.x - sz.x);
        draw->AddText(ImVec2(lx, L.plot_max.y + L.font * 0.25f), c.text_dim, label.c_str());
    }
    draw->AddLine(ImVec2(L.plot_min.x, L.plot_max.y), L.plot_max, c.axis, line * 1.5f);
}

void draw_row_label(ImDrawList* draw, const Layout& L, const TimelineRow& row, float y, const ChartColors& c,
                    LabelLayout& labels) {
    // Label and summary centred as a block in the row; the summary takes a line per clause within
    // the label column where one line is too wide, rather than being cut at the plot.
    const float column_w = std::max(L.plot_min.x - L.font * 0.4f - L.label_x, 1.0f);
    const std::vector<std::string> lines = summary_lines(row.summary, column_w);
    const float block = L.font * (lines.empty() ? 1.0f : 1.15f + static_cast<float>(lines.size()));
    const float top = y + std::max(0.0f, (L.row_h - block) * 0.5f);
    const LabelRect box{L.label_x, y, L.label_x + column_w, y + L.row_h};
    // A variant's name longer than the column ("fused_elementwise" at projector fonts) is shortened;
    // the hover tooltip names it whole.
    const auto bold_w = [&](const std::string& s) { return bold_font()->CalcTextSizeA(L.font, FLT_MAX, 0.0f, s.c_str()).x; };
    const std::string name = elide_to_fit(row.label, column_w, bold_w);
    draw->AddText(bold_font(), L.font, ImVec2(L.label_x, top), c.text, name.c_str());
    labels.add(name, {L.label_x, top, L.label_x + bold_w(name), top + L.font}, box, "row label", name == row.label ? "" : row.label,
               L.font);
    float ly = top + L.font * 1.15f;
    for (const std::string& line : lines) {
        draw->AddText(ImVec2(L.label_x, ly), c.text_dim, line.c_str());
        labels.add(line, {L.label_x, ly, L.label_x + text_size(line).x, ly + L.font}, box, "row summary",
                   line == row.summary ? "" : row.summary, L.font);
        ly += L.font;
    }
}

// Diagonal lines every `step` pixels inside [a, b): the idle pattern.
void draw_hatch(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 color, float step) {
    if (b.x - a.x < 3.0f) return;
    draw->PushClipRect(a, b, true);
    const float h = b.y - a.y;
    for (float x = a.x - h; x < b.x; x += step) draw->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), color);
    draw->PopClipRect();
}

// Many kernels in few pixels: each pixel column is hatched idle, overlaid with the kernel colour
// at the fraction of that column's time some kernel ran, so 67 % idle still looks 67 % idle.
void draw_merged_bar(ImDrawList* draw, const Layout& L, const TimelineRow& row, const PixelBar& bar, float top,
                     float bottom, ImU32 color, ImU32 idle, ImU32 hatch) {
    const int columns = std::max(1, static_cast<int>(std::ceil(bar.x1 - bar.x0)));
    std::vector<double> busy(static_cast<size_t>(columns), 0.0);
    const double ms_per_px = (L.t1 - L.t0) / static_cast<double>(L.plot_max.x - L.plot_min.x);
    const double bar_t0 = L.t_of(bar.x0);
    for (size_t i = bar.first; i <= bar.last; ++i) {
        const double a = (row.spans[i].start_ms - bar_t0) / ms_per_px, b = (row.spans[i].end_ms - bar_t0) / ms_per_px;
        for (int c = std::max(0, static_cast<int>(a)); c < columns && c < static_cast<int>(std::ceil(b)); ++c)
            busy[static_cast<size_t>(c)] += std::min(b, c + 1.0) - std::max(a, static_cast<double>(c));
    }
    draw->AddRectFilled(ImVec2(bar.x0, top), ImVec2(bar.x1, bottom), idle);
    draw_hatch(draw, ImVec2(bar.x0, top), ImVec2(bar.x1, bottom), hatch, L.font * 0.6f);
    const ImVec4 rgba = ImGui::ColorConvertU32ToFloat4(color);
    for (int c = 0; c < columns; ++c) {
        const float f = static_cast<float>(std::clamp(busy[static_cast<size_t>(c)], 0.0, 1.0));
        if (f <= 0) continue;
        const float x = bar.x0 + static_cast<float>(c);
        draw->AddRectFilled(ImVec2(x, top), ImVec2(std::min(x + 1.0f, bar.x1), bottom),
                            ImGui::ColorConvertFloat4ToU32(ImVec4(rgba.x, rgba.y, rgba.z, 0.2f + 0.8f * f)));
    }
}

struct RowHover {
    int first = -1, last = -1;
    bool gap = false;
};

// The row's bars with a dark edge between neighbours, the idle gaps tinted, and a duration label
// in every gap wide enough to hold it.
RowHover draw_row_bars(ImDrawList* draw, const Layout& L, const TimelineRow& row, float y, ImU32 color,
                       const ChartColors& c, Theme theme, const ImVec2& mouse) {
    RowHover hover;
    const float bar_top = y + L.row_h * 0.18f, bar_bottom = y + L.row_h * 0.82f;
    const std::vector<PixelBar> bars =
        pixel_bars(row.spans, L.t0, L.t1, L.plot_min.x, L.plot_max.x - L.plot_min.x);
    // Idle: a neutral grey hatch, unlike any series colour, so a gap never reads as a kernel.
    const ImU32 idle = theme == Theme::dark ? IM_COL32(150, 150, 150, 60) : IM_COL32(90, 90, 90, 45);
    const ImU32 hatch = theme == Theme::dark ? IM_COL32(170, 170, 170, 90) : IM_COL32(80, 80, 80, 80);
    const ImU32 edge = theme == Theme::dark ? IM_COL32(0, 0, 0, 200) : IM_COL32(255, 255, 255, 220);
    const bool mouse_in_row = mouse.y >= y && mouse.y < y + L.row_h && mouse.x >= L.plot_min.x && mouse.x < L.plot_max.x;
    for (size_t b = 0; b < bars.size(); ++b) {
        const PixelBar& bar = bars[b];
        if (b + 1 < bars.size()) {
            const PixelBar& next = bars[b + 1];
            const float gx0 = bar.x1, gx1 = next.x0;
            if (gx1 > gx0) {
                draw->AddRectFilled(ImVec2(gx0, bar_top), ImVec2(gx1, bar_bottom), idle);
                draw_hatch(draw, ImVec2(gx0, bar_top), ImVec2(gx1, bar_bottom), hatch, L.font * 0.6f);
                const double gap_ms = row.spans[next.first].start_ms - row.spans[bar.last].end_ms;
                const std::string text = duration_text(gap_ms);
                const ImVec2 sz = text_size(text);
                if (sz.x + L.font * 0.25f <= gx1 - gx0)
                    draw->AddText(ImVec2((gx0 + gx1 - sz.x) * 0.5f, (bar_top + bar_bottom - sz.y) * 0.5f), c.text,
                                  text.c_str());
                if (mouse_in_row && mouse.x >= gx0 && mouse.x < gx1) hover = {static_cast<int>(bar.last), static_cast<int>(next.first), true};
            }
        }
        if (bar.count() > 1 && bar.x1 - bar.x0 >= 2.0f) {
            draw_merged_bar(draw, L, row, bar, bar_top, bar_bottom, color, idle, hatch);
        } else {
            draw->AddRectFilled(ImVec2(bar.x0, bar_top), ImVec2(bar.x1, bar_bottom), color);
        }
        if (bar.count() == 1 && bar.x1 - bar.x0 >= 4.0f) draw->AddRect(ImVec2(bar.x0, bar_top), ImVec2(bar.x1, bar_bottom), edge);
        if (mouse_in_row && mouse.x >= bar.x0 && mouse.x < std::max(bar.x1, bar.x0 + 2.0f))
            hover = {static_cast<int>(bar.first), static_cast<int>(bar.last), false};
    }
    return hover;
}

void draw_watermark(ImDrawList* draw, const Layout& L, const std::string& text, const ChartColors& c) {
    if (text.empty()) return;
    ImFont* font = heading_font();
    const ImVec2 unit = font->CalcTextSizeA(font->FontSize, 1e9f, 0.0f, text.c_str());
    const float w = L.plot_max.x - L.plot_min.x, h = L.plot_max.y - L.plot_min.y;
    const float scale = std::min(w * 0.7f / std::max(unit.x, 1.0f), h * 0.5f / std::max(unit.y, 1.0f));
    const float px = font->FontSize * std::min(scale, 3.0f);
    const ImVec2 sz = font->CalcTextSizeA(px, 1e9f, 0.0f, text.c_str());
    draw->AddText(font, px, ImVec2(L.plot_min.x + (w - sz.x) * 0.5f, L.plot_min.y + (h - sz.y) * 0.5f), c.watermark,
                  text.c_str());
}

}  // namespace

// =============================================================================================
// [SECTION] The chart
// =============================================================================================
TimelineHover draw_timeline(ImDrawList* draw, ImVec2 origin, ImVec2 size, const TimelineFrame& frame,
                            const std::vector<TimelineRow>& rows, const TimelineView& view, TimelineLayout* layout) {
    TimelineHover hover;
    const ChartColors c = chart_colors(frame.theme);
    Layout L;
    L.font = ImGui::GetFontSize();
    L.min = origin;
    L.max = ImVec2(origin.x + size.x, origin.y + size.y);
    const TimelineView v = view.t1 > view.t0 ? view : fit_view(rows);
    L.t0 = v.t0;
    L.t1 = v.t1;
    draw->PushClipRect(L.min, L.max, true);

    LabelLayout labels = LabelLayout::for_recording("timeline");
    const LabelRect chart{L.min.x, L.min.y, L.max.x, L.max.y};
    float top = origin.y;
    if (!frame.title.empty()) {
        draw->AddText(bold_font(), L.font, ImVec2(origin.x, top), c.text, frame.title.c_str());
        const float title_w = bold_font()->CalcTextSizeA(L.font, FLT_MAX, 0.0f, frame.title.c_str()).x;
        labels.add(frame.title, {origin.x, top, origin.x + title_w, top + L.font}, chart, "title", "", L.font);
        top += L.font * 1.6f;
    }
    const float label_w = label_column_width(rows, size.x);
    L.label_x = origin.x;
    L.plot_min = ImVec2(origin.x + label_w, top);
    L.plot_max = ImVec2(L.max.x - L.font * 0.5f, L.max.y - L.font * 1.5f);
    L.row_h = rows.empty() ? 0 : (L.plot_max.y - L.plot_min.y) / static_cast<float>(rows.size());
    if (layout) *layout = {L.plot_min, L.plot_max};
    if (L.plot_max.x - L.plot_min.x < L.font * 4 || L.row_h < L.font) {
        draw->AddText(origin, c.text_dim, "(window too small for the timeline)");
        draw->PopClipRect();
        record_labels(labels);
        return hover;
    }
    draw->AddRectFilled(L.plot_min, L.plot_max, c.background);
    draw_axis(draw, L, c);
    draw_watermark(draw, L, frame.watermark, c);

    const ImVec2 mouse = ImGui::GetIO().MousePos;
    draw->PushClipRect(ImVec2(L.plot_min.x, L.plot_min.y), L.plot_max, true);
    for (size_t r = 0; r < rows.size(); ++r) {
        const float y = L.plot_min.y + L.row_h * static_cast<float>(r);
        const RowHover h = draw_row_bars(draw, L, rows[r], y, series_color(rows[r].series, frame.theme), c, frame.theme, mouse);
        if (h.first >= 0) hover = {static_cast<int>(r), h.first, h.last, h.gap, L.t_of(mouse.x)};
        if (r > 0) draw->AddLine(ImVec2(L.plot_min.x, y), ImVec2(L.plot_max.x, y), c.grid);
    }
    draw->PopClipRect();
    for (size_t r = 0; r < rows.size(); ++r)
        draw_row_label(draw, L, rows[r], L.plot_min.y + L.row_h * static_cast<float>(r), c, labels);
    draw->PopClipRect();
    record_labels(labels);
    return hover;
}

}  // namespace viz
