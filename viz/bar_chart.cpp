// [SECTION] Layout: where the title, labels, plot, ticks and values go
// [SECTION] Shared pieces: frame, axis, watermark, legend
// [SECTION] Range bars (median + min/max whisker)
// [SECTION] Stacked bars (one segment per series)
#include "viz/bar_chart.h"

#include "viz/imgui_helpers.h"

#include "viz/axis.h"
#include "viz/theme.h"

#include <algorithm>
#include <cmath>

namespace viz {

// ---------------------------------------------------------------------------------------------
// [SECTION] Layout
// ---------------------------------------------------------------------------------------------

namespace {

struct Layout {
    bool fits = false;           // false: too small to draw a plot; only the title is shown
    float font = 13, pad = 6;
    ImVec2 title_pos;
    ImVec2 plot_min, plot_max;   // the bars' area, between labels and values
    float row_h = 0, bar_h = 0;
    Ticks ticks;
    float x_of(double v) const {
        const double t = ticks.max > 0 ? v / ticks.max : 0;
        return plot_min.x + static_cast<float>(std::clamp(t, 0.0, 1.0)) * (plot_max.x - plot_min.x);
    }
    float row_center(size_t i) const { return plot_min.y + (static_cast<float>(i) + 0.5f) * row_h; }
};

float text_width(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }

float widest(const std::vector<std::string>& texts) {
    float w = 0;
    for (const std::string& t : texts) w = std::max(w, text_width(t));
    return w;
}

// Labels sit left of the plot, value texts right of it; the axis gets as many nice ticks as fit
// without their labels touching.
Layout make_layout(ImVec2 origin, ImVec2 size, const ChartFrame& frame, const std::vector<std::string>& labels,
                   const std::vector<std::string>& values, double data_max, float reserved_bottom) {
    Layout L;
    L.font = ImGui::GetFontSize();
    L.pad = std::round(L.font * 0.5f);
    L.title_pos = origin;
    float title_h = frame.title.empty() ? 0.0f : heading_font()->FontSize + L.pad;
    // The reference line's label gets its own line above the plot, clear of every bar.
    if (frame.reference_value > 0 && !frame.reference_label.empty()) title_h += L.font + L.pad * 0.5f;
    const float label_w = std::min(widest(labels) + 2 * L.pad, size.x * 0.35f);
    const float value_w = std::min(widest(values) + 2 * L.pad, size.x * 0.3f);
    const float tick_h = L.font + L.pad;
    L.plot_min = ImVec2(origin.x + label_w, origin.y + title_h);
    L.plot_max = ImVec2(origin.x + size.x - value_w, origin.y + size.y - tick_h - reserved_bottom);
    const float plot_w = L.plot_max.x - L.plot_min.x, plot_h = L.plot_max.y - L.plot_min.y;
    if (labels.empty() || plot_w < L.font * 4 || plot_h < L.font) return L;

    const std::string widest_tick = frame.format_tick ? frame.format_tick(data_max) : std::string("0.000");
    const float tick_label_w = text_width(widest_tick) + 2 * L.font;
    const int max_ticks = std::clamp(static_cast<int>(plot_w / tick_label_w), 1, 8);
    L.ticks = zero_based_ticks(data_max, max_ticks);
    L.row_h = plot_h / static_cast<float>(labels.size());
    L.bar_h = std::min(L.row_h * 0.62f, L.font * 2.4f);
    L.fits = true;
    return L;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Shared pieces
// ---------------------------------------------------------------------------------------------

void draw_title(ImDrawList* draw, const Layout& L, const ChartFrame& frame, const ChartColors& colors) {
    if (frame.title.empty()) return;
    ImFont* font = heading_font();
    draw->AddText(font, font->FontSize, L.title_pos, colors.text, frame.title.c_str());
}

void draw_axis(ImDrawList* draw, const Layout& L, const ChartFrame& frame, const ChartColors& colors) {
    draw->AddRectFilled(L.plot_min, L.plot_max, colors.background);
    const float line = std::max(1.0f, L.font / 14.0f);
    for (double v : L.ticks.values) {
        const float x = std::round(L.x_of(v));
        draw->AddLine(ImVec2(x, L.plot_min.y), ImVec2(x, L.plot_max.y), colors.grid, line);
        const std::string text = v == 0 ? std::string("0") : frame.format_tick ? frame.format_tick(v) : std::to_string(v);
        const float w = text_width(text);
        // Centred under the grid line, but never past the chart's right edge.
        const float tx = std::min(x - w * 0.5f, L.plot_max.x + L.pad * 2 - w * 0.5f);
        draw->AddText(ImVec2(std::round(tx), L.plot_max.y + L.pad * 0.5f), colors.text_dim, text.c_str());
    }
    draw->AddLine(L.plot_min, ImVec2(L.plot_min.x, L.plot_max.y), colors.axis, line * 1.5f);
    draw->AddLine(ImVec2(L.plot_min.x, L.plot_max.y), L.plot_max, colors.axis, line * 1.5f);
}

// The watermark lies across the gap between the two middle rows, no taller than that gap leaves
// clear of the value texts centred on each row: centred on the plot, it sat on the middle row of an
// odd count, behind that bar's value ("37.0 us" over "2026-11-28"). One row has no gap: the title,
// which names the source ("(recorded DATE)", "(simulated)"), says it alone; so it does where the gap
// is too thin for legible letters.
void draw_watermark(ImDrawList* draw, const Layout& L, const ChartFrame& frame, const ChartColors& colors, size_t rows) {
    if (frame.watermark.empty() || rows < 2) return;
    ImFont* font = heading_font();
    const ImVec2 at_unit = font->CalcTextSizeA(font->FontSize, 1e9f, 0.0f, frame.watermark.c_str());
    const float plot_w = L.plot_max.x - L.plot_min.x;
    const float clear_h = L.row_h - L.font - L.pad * 0.5f;  // value texts are one font tall at each row's centre
    if (clear_h < L.font * 0.8f) return;
    const float scale = std::min(plot_w * 0.8f / std::max(at_unit.x, 1.0f), clear_h / std::max(at_unit.y, 1.0f));
    const float px = font->FontSize * std::min(scale, 3.0f);
    const ImVec2 sz = font->CalcTextSizeA(px, 1e9f, 0.0f, frame.watermark.c_str());
    const float gap_y = L.plot_min.y + static_cast<float>(rows / 2) * L.row_h;
    const ImVec2 pos(L.plot_min.x + (plot_w - sz.x) * 0.5f, gap_y - sz.y * 0.5f);
    draw->AddText(font, px, pos, colors.watermark, frame.watermark.c_str());
}

// A dashed vertical line marking a reference value (e.g. the fewest bytes any variant needs).
void draw_reference(ImDrawList* draw, const Layout& L, const ChartFrame& frame, const ChartColors& colors) {
    if (!(frame.reference_value > 0)) return;
    const float x = std::round(L.x_of(frame.reference_value));
    const float dash = L.font * 0.4f, thickness = std::max(1.5f, L.font / 9.0f);
    for (float y = L.plot_min.y; y < L.plot_max.y; y += dash * 2)
        draw->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + dash, L.plot_max.y)), colors.text, thickness);
    if (frame.reference_label.empty()) return;
    const float w = text_width(frame.reference_label);
    // Label to the right of the line when it fits inside the plot, else to its left.
    // Centred over the line, shifted to stay inside the plot's width.
    const float tx = std::clamp(x - w * 0.5f, L.plot_min.x, std::max(L.plot_min.x, L.plot_max.x - w));
    const float top = L.plot_min.y - L.font - L.pad * 0.25f;
    draw->AddText(ImVec2(std::round(tx), std::round(top)), colors.text,
                  frame.reference_label.c_str());
    draw->AddLine(ImVec2(x, top + L.font), ImVec2(x, L.plot_min.y), colors.text, thickness);
}

void draw_row_label(ImDrawList* draw, const Layout& L, size_t row, const std::string& label, const ChartColors& colors,
                    bool dim = false) {
    // A variant's name longer than the label column ("fused_elementwise" at projector fonts) is
    // shortened with "...", not cut at the column's edge; the chart's tooltip names it whole.
    const std::string shown = elide_to_fit(label, L.plot_min.x - L.pad - L.title_pos.x, text_width);
    const ImVec2 pos(L.plot_min.x - L.pad - text_width(shown), L.row_center(row) - L.font * 0.5f);
    draw->AddText(pos, dim ? colors.text_dim : colors.text, shown.c_str());
}

void draw_value_text(ImDrawList* draw, const Layout& L, size_t row, double at, const std::string& text,
                     const ChartColors& colors) {
    if (text.empty()) return;
    draw->AddText(ImVec2(std::round(L.x_of(at) + L.pad), std::round(L.row_center(row) - L.font * 0.5f)), colors.text,
                  text.c_str());
}

// Legend items flow left to right and wrap; returns the height used (also when not drawing).
float layout_legend(ImDrawList* draw, ImVec2 origin, float width, const std::vector<std::string>& names, Theme theme,
                    ImU32 text_color) {
    if (names.empty()) return 0;
    const float font = ImGui::GetFontSize(), pad = std::round(font * 0.5f), swatch = std::round(font * 0.8f);
    float x = origin.x, y = origin.y;
    for (size_t i = 0; i < names.size(); ++i) {
        const float item_w = swatch + pad * 0.5f + text_width(names[i]) + pad * 2;
        if (x > origin.x && x + item_w > origin.x + width) {
            x = origin.x;
            y += font + pad * 0.5f;
        }
        if (draw) {
            const ImVec2 s0(x, y + (font - swatch) * 0.5f);
            draw->AddRectFilled(s0, ImVec2(s0.x + swatch, s0.y + swatch), series_color(static_cast<int>(i), theme));
            draw->AddRect(s0, ImVec2(s0.x + swatch, s0.y + swatch), text_color);
            draw->AddText(ImVec2(x + swatch + pad * 0.5f, y), text_color, names[i].c_str());
        }
        x += item_w;
    }
    return y + font - origin.y + pad * 0.5f;
}

bool hovering(ImVec2 a, ImVec2 b) { return ImGui::IsMouseHoveringRect(a, b, false); }

// A stale bar's fill: the same hue at a third of its opacity, so old numbers read as old.
ImU32 faded(ImU32 color, bool stale) {
    if (!stale) return color;
    const ImU32 alpha = ((color >> IM_COL32_A_SHIFT) & 0xFF) / 3;
    return (color & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT);
}

}  // namespace

void draw_reference_box(ImDrawList* draw, ImVec2 a, ImVec2 z, Theme theme) {
    const ChartColors colors = chart_colors(theme);
    const float font = ImGui::GetFontSize(), step = std::max(4.0f, std::round(font * 0.45f));
    const float line = std::max(1.0f, font / 12.0f);
    draw->AddRectFilled(a, z, colors.background);
    draw->PushClipRect(a, z, true);
    for (float x = a.x - (z.y - a.y); x < z.x; x += step)  // 45-degree hatching
        draw->AddLine(ImVec2(x, z.y), ImVec2(x + (z.y - a.y), a.y), colors.text_dim, line);
    draw->PopClipRect();
    draw->AddRect(a, z, colors.text_dim, 0, 0, line * 2);
}

float legend_height(const std::vector<std::string>& series_names, float width) {
    return layout_legend(nullptr, ImVec2(0, 0), width, series_names, Theme::dark, 0);
}

float preferred_chart_height(int bar_count) {
    const float font = ImGui::GetFontSize();
    const float title = heading_font()->FontSize + font * 0.5f;
    return title + static_cast<float>(std::max(bar_count, 1)) * font * 2.2f + font * 1.5f;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Range bars
// ---------------------------------------------------------------------------------------------

ChartHover draw_range_bars(ImDrawList* draw, ImVec2 origin, ImVec2 size, const ChartFrame& frame,
                           const std::vector<RangeBar>& bars) {
    ChartHover hover;
    const ChartColors colors = chart_colors(frame.theme);
    std::vector<std::string> labels, values;
    double data_max = std::max(0.0, frame.reference_value);
    for (const RangeBar& b : bars) {
        labels.push_back(b.label);
        values.push_back(b.value_text);
        data_max = std::max(data_max, b.has_range ? std::max(b.value, b.hi) : b.value);
    }
    const Layout L = make_layout(origin, size, frame, labels, values, data_max, 0);
    draw->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
    draw_title(draw, L, frame, colors);
    if (L.fits) {
        draw_axis(draw, L, frame, colors);
        draw_watermark(draw, L, frame, colors, bars.size());
        const float whisker_w = std::max(1.5f, L.font / 8.0f);
        for (size_t i = 0; i < bars.size(); ++i) {
            const RangeBar& b = bars[i];
            const float cy = L.row_center(i);
            const ImVec2 a(L.plot_min.x, cy - L.bar_h * 0.5f), z(L.x_of(b.value), cy + L.bar_h * 0.5f);
            if (b.reference && (i == 0 || !bars[i - 1].reference)) {  // dashed line above the reference group
                const float y = std::round(L.plot_min.y + static_cast<float>(i) * L.row_h);
                const float dash = L.font * 0.4f;
                for (float x = origin.x; x < L.plot_max.x; x += dash * 2)
                    draw->AddLine(ImVec2(x, y), ImVec2(std::min(x + dash, L.plot_max.x), y), colors.text_dim,
                                  std::max(1.0f, L.font / 14.0f));
            }
            if (b.reference) {
                draw_reference_box(draw, a, z, frame.theme);
            } else {
                draw->AddRectFilled(a, z, faded(series_color(b.series, frame.theme), b.stale));
                draw->AddRect(a, z, faded(colors.axis, b.stale));
            }
            if (b.has_range) {
                const float x0 = L.x_of(b.lo), x1 = L.x_of(b.hi), cap = L.bar_h * 0.35f;
                draw->AddLine(ImVec2(x0, cy), ImVec2(x1, cy), colors.whisker, whisker_w);
                draw->AddLine(ImVec2(x0, cy - cap), ImVec2(x0, cy + cap), colors.whisker, whisker_w);
                draw->AddLine(ImVec2(x1, cy - cap), ImVec2(x1, cy + cap), colors.whisker, whisker_w);
            }
            draw_row_label(draw, L, i, b.label, colors, b.reference || b.stale);
            draw_value_text(draw, L, i, b.has_range ? std::max(b.value, b.hi) : b.value, b.value_text, colors);
            const float row_top = L.plot_min.y + static_cast<float>(i) * L.row_h;
            if (hovering(ImVec2(origin.x, row_top), ImVec2(origin.x + size.x, row_top + L.row_h)))
                hover.bar = static_cast<int>(i);
        }
        draw_reference(draw, L, frame, colors);
    }
    draw->PopClipRect();
    return hover;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Stacked bars
// ---------------------------------------------------------------------------------------------

StackedExtent stacked_extent(const std::vector<StackedBar>& bars, const ChartFrame& frame) {
    StackedExtent e;
    e.data_max = std::max(0.0, frame.reference_value);
    for (const StackedBar& b : bars) {
        e.labels.push_back(b.label);
        e.totals.push_back(b.total_text);
        double sum = 0;
        for (const StackSegment& s : b.segments) sum += std::max(0.0, s.value);
        e.data_max = std::max(e.data_max, sum);
    }
    return e;
}

ChartHover draw_stacked_bars(ImDrawList* draw, ImVec2 origin, ImVec2 size, const ChartFrame& frame,
                             const std::vector<StackedBar>& bars, const std::vector<std::string>& series_names) {
    ChartHover hover;
    const ChartColors colors = chart_colors(frame.theme);
    const auto [labels, totals, data_max] = stacked_extent(bars, frame);
    const float legend_h = legend_height(series_names, size.x);
    const float gap = std::round(ImGui::GetFontSize() * 0.5f);
    const Layout L = make_layout(origin, size, frame, labels, totals, data_max, legend_h + gap);
    draw->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
    draw_title(draw, L, frame, colors);
    if (L.fits) {
        draw_axis(draw, L, frame, colors);
        draw_watermark(draw, L, frame, colors, bars.size());
        for (size_t i = 0; i < bars.size(); ++i) {
            const float cy = L.row_center(i);
            double start = 0;
            for (size_t k = 0; k < bars[i].segments.size(); ++k) {
                const StackSegment& s = bars[i].segments[k];
                const double end = start + std::max(0.0, s.value);
                const ImVec2 a(L.x_of(start), cy - L.bar_h * 0.5f), z(L.x_of(end), cy + L.bar_h * 0.5f);
                const ImU32 fill = faded(series_color(s.series, frame.theme), bars[i].stale);
                draw->AddRectFilled(a, z, fill);
                draw->AddRect(a, z, colors.background);  // thin gap between neighbours
                const float text_w = text_width(s.value_text);
                if (!bars[i].stale && !s.value_text.empty() && text_w + L.pad < z.x - a.x && L.bar_h >= L.font)
                    draw->AddText(ImVec2(std::round((a.x + z.x - text_w) * 0.5f), std::round(cy - L.font * 0.5f)),
                                  text_color_on(fill), s.value_text.c_str());
                if (hovering(a, z)) { hover.bar = static_cast<int>(i); hover.segment = static_cast<int>(k); }
                start = end;
            }
            draw_row_label(draw, L, i, bars[i].label, colors, bars[i].stale);
            draw_value_text(draw, L, i, start, bars[i].total_text, colors);
            const float row_top = L.plot_min.y + static_cast<float>(i) * L.row_h;
            if (hover.bar < 0 && hovering(ImVec2(origin.x, row_top), ImVec2(origin.x + size.x, row_top + L.row_h)))
                hover.bar = static_cast<int>(i);
        }
        draw_reference(draw, L, frame, colors);
        const float legend_top = L.plot_max.y + L.font + L.pad + gap;
        layout_legend(draw, ImVec2(origin.x, legend_top), size.x, series_names, frame.theme, colors.text);
    }
    draw->PopClipRect();
    return hover;
}

}  // namespace viz
