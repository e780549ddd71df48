// [SECTION] Frame and axes
// [SECTION] Series
#include "viz/log_plot.h"

#include "viz/label_layout.h"
#include "viz/theme.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace viz {

// ---------------------------------------------------------------------------------------------
// [SECTION] Frame and axes
// ---------------------------------------------------------------------------------------------
ImVec2 LogPlotArea::to_screen(double xv, double yv) const {
    const double fx = log_fraction(xv, x.lo, x.hi), fy = log_fraction(yv, y.lo, y.hi);
    return ImVec2(plot_min.x + static_cast<float>(fx) * (plot_max.x - plot_min.x),
                  plot_max.y - static_cast<float>(fy) * (plot_max.y - plot_min.y));
}

bool LogPlotArea::contains(ImVec2 p) const {
    return p.x >= plot_min.x && p.x <= plot_max.x && p.y >= plot_min.y && p.y <= plot_max.y;
}

std::string si_tick(double v) {
    char text[32];
    const double a = std::abs(v);
    if (a >= 1e15) std::snprintf(text, sizeof text, "%gP", v / 1e15);
    else if (a >= 1e12) std::snprintf(text, sizeof text, "%gT", v / 1e12);
    else if (a >= 1e9) std::snprintf(text, sizeof text, "%gG", v / 1e9);
    else if (a >= 1e6) std::snprintf(text, sizeof text, "%gM", v / 1e6);
    else if (a >= 1e3) std::snprintf(text, sizeof text, "%gk", v / 1e3);
    else if (a >= 1e-2 || a == 0) std::snprintf(text, sizeof text, "%g", v);
    else std::snprintf(text, sizeof text, "%.0e", v);
    return text;
}

namespace {

float text_w(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }

}  // namespace

LogPlotArea layout_log_frame(ImVec2 origin, ImVec2 size, const LogPlotFrame& frame, double x_lo, double x_hi,
                             double y_lo, double y_hi) {
    const float font = ImGui::GetFontSize(), pad = std::round(font * 0.5f);
    LogPlotArea a;
    a.x = log_ticks_125(x_lo, x_hi);
    a.y = log_ticks_125(y_lo, y_hi);  // vertical room is scarce at projector font sizes
    float top = origin.y;
    if (!frame.title.empty()) {
        ImFont* h = heading_font();
        // The y-axis title shares the title's line, right-aligned, when both fit.
        const float title_w = h->CalcTextSizeA(h->FontSize, 1e9f, 0.0f, frame.title.c_str()).x;
        a.y_title_beside_title = !frame.y_title.empty() && title_w + text_w(frame.y_title) + font * 2 < size.x;
        top += h->FontSize + pad;
    }
    auto fy = [&](double v) { return frame.format_y ? frame.format_y(v) : si_tick(v); };
    float y_label_w = 0;
    for (double v : a.y.major) y_label_w = std::max(y_label_w, text_w(fy(v)));
    if (!frame.y_title.empty() && !a.y_title_beside_title) top += font + pad * 0.5f;  // its own line above the plot
    a.plot_min = ImVec2(std::round(origin.x + y_label_w + pad * 1.5f), std::round(top + pad * 0.5f));
    const float bottom_h = font + pad + (frame.x_title.empty() ? 0 : font + pad * 0.5f);
    a.plot_max = ImVec2(std::round(origin.x + size.x - pad * 2), std::round(origin.y + size.y - bottom_h));
    a.fits = a.plot_max.x - a.plot_min.x >= font * 6 && a.plot_max.y - a.plot_min.y >= font * 2.5f;
    return a;
}

LogPlotArea draw_log_frame(ImDrawList* draw, ImVec2 origin, ImVec2 size, const LogPlotFrame& frame, double x_lo,
                           double x_hi, double y_lo, double y_hi) {
    const ChartColors colors = chart_colors(frame.theme);
    const float font = ImGui::GetFontSize(), pad = std::round(font * 0.5f);
    const LogPlotArea a = layout_log_frame(origin, size, frame, x_lo, x_hi, y_lo, y_hi);
    // The frame's titles are labels of the chart's rectangle: a test sees one that runs past it
    // (into the chart beside) or covers another.
    LabelLayout labels = LabelLayout::for_recording("chart");
    const LabelRect chart{origin.x, origin.y, origin.x + size.x, origin.y + size.y};
    const auto title_label = [&](ImFont* f, ImVec2 at, ImU32 col, const std::string& s, const char* where) {
        draw->AddText(f, f->FontSize, at, col, s.c_str());
        const ImVec2 sz = f->CalcTextSizeA(f->FontSize, 1e9f, 0.0f, s.c_str());
        labels.add(s, {at.x, at.y, at.x + sz.x, at.y + sz.y}, chart, where, "", f->FontSize);
    };
    float top = origin.y;
    if (!frame.title.empty()) {
        ImFont* h = heading_font();
        title_label(h, origin, colors.text, frame.title, "title");
        if (a.y_title_beside_title)
            title_label(ImGui::GetFont(), ImVec2(origin.x + size.x - text_w(frame.y_title) - pad, origin.y + (h->FontSize - font)),
                        colors.text_dim, frame.y_title, "y title");
        top += h->FontSize + pad;
    }
    auto fx = [&](double v) { return frame.format_x ? frame.format_x(v) : si_tick(v); };
    auto fy = [&](double v) { return frame.format_y ? frame.format_y(v) : si_tick(v); };
    // Left: y-axis title (one line above the plot, left-aligned) and tick labels.
    if (!frame.y_title.empty() && !a.y_title_beside_title)
        title_label(ImGui::GetFont(), ImVec2(origin.x, top), colors.text_dim, frame.y_title, "y title");
    if (!frame.x_title.empty() && a.fits)
        title_label(ImGui::GetFont(), ImVec2(std::round(std::max(origin.x, a.plot_max.x - text_w(frame.x_title))), a.plot_max.y + font + pad),
                    colors.text_dim, frame.x_title, "x title");
    record_labels(labels);
    if (!a.fits) return a;

    draw->AddRectFilled(a.plot_min, a.plot_max, colors.background);
    const float line = std::max(1.0f, font / 14.0f);
    for (double v : a.x.minor) {
        const float x = std::round(a.to_screen(v, a.y.lo).x);
        draw->AddLine(ImVec2(x, a.plot_min.y), ImVec2(x, a.plot_max.y), colors.grid, line * 0.5f);
    }
    for (double v : a.y.minor) {
        const float y = std::round(a.to_screen(a.x.lo, v).y);
        draw->AddLine(ImVec2(a.plot_min.x, y), ImVec2(a.plot_max.x, y), colors.grid, line * 0.5f);
    }
    // Decade labels; when decades are crowded, every second (third, ...) label only.
    float x_label_w = 0;
    for (double v : a.x.major) x_label_w = std::max(x_label_w, text_w(fx(v)));
    const float decade_px = (a.plot_max.x - a.plot_min.x) / std::max<float>(1, float(a.x.major.size() - 1));
    const size_t x_every = std::max<size_t>(1, static_cast<size_t>(std::ceil((x_label_w + font) / decade_px)));
    for (size_t i = 0; i < a.x.major.size(); ++i) {
        const float x = std::round(a.to_screen(a.x.major[i], a.y.lo).x);
        draw->AddLine(ImVec2(x, a.plot_min.y), ImVec2(x, a.plot_max.y), colors.axis, line);
        if (i % x_every) continue;
        const std::string t = fx(a.x.major[i]);
        const float w = text_w(t);
        const float tx = std::clamp(x - w * 0.5f, origin.x, origin.x + size.x - w);
        draw->AddText(ImVec2(std::round(tx), a.plot_max.y + pad * 0.4f), colors.text_dim, t.c_str());
    }
    const float y_decade_px = (a.plot_max.y - a.plot_min.y) / std::max<float>(1, float(a.y.major.size() - 1));
    const size_t y_every = std::max<size_t>(1, static_cast<size_t>(std::ceil(font * 1.2f / y_decade_px)));
    for (size_t i = 0; i < a.y.major.size(); ++i) {
        const float y = std::round(a.to_screen(a.x.lo, a.y.major[i]).y);
        draw->AddLine(ImVec2(a.plot_min.x, y), ImVec2(a.plot_max.x, y), colors.axis, line);
        if (i % y_every) continue;
        const std::string t = fy(a.y.major[i]);
        draw->AddText(ImVec2(std::round(a.plot_min.x - pad - text_w(t)), std::round(y - font * 0.5f)), colors.text_dim,
                      t.c_str());
    }
    draw->AddRect(a.plot_min, a.plot_max, colors.axis, 0, 0, line * 1.5f);
    return a;
}

void draw_log_watermark(ImDrawList* draw, const LogPlotArea& a, const LogPlotFrame& frame) {
    if (frame.watermark.empty() || !a.fits) return;
    const ChartColors colors = chart_colors(frame.theme);
    ImFont* font = heading_font();
    const ImVec2 unit = font->CalcTextSizeA(font->FontSize, 1e9f, 0.0f, frame.watermark.c_str());
    const float w = a.plot_max.x - a.plot_min.x, h = a.plot_max.y - a.plot_min.y;
    const float px = font->FontSize * std::min({w * 0.7f / std::max(unit.x, 1.0f), h * 0.5f / std::max(unit.y, 1.0f), 3.0f});
    const ImVec2 sz = font->CalcTextSizeA(px, 1e9f, 0.0f, frame.watermark.c_str());
    draw->AddText(font, px, ImVec2(a.plot_min.x + (w - sz.x) * 0.5f, a.plot_min.y + (h - sz.y) * 0.5f), colors.watermark,
                  frame.watermark.c_str());
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Series
// ---------------------------------------------------------------------------------------------
namespace {

void dashed_line(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 color, float thickness, float dash) {
    const float dx = b.x - a.x, dy = b.y - a.y, len = std::sqrt(dx * dx + dy * dy);
    if (len < 1) return;
    for (float t = 0; t < len; t += dash * 2) {
        const float t1 = std::min(t + dash, len);
        draw->AddLine(ImVec2(a.x + dx * t / len, a.y + dy * t / len), ImVec2(a.x + dx * t1 / len, a.y + dy * t1 / len),
                      color, thickness);
    }
}

}  // namespace

int draw_log_series(ImDrawList* draw, const LogPlotArea& a, const std::vector<LogSeries>& series, Theme theme,
                    ImVec2 mouse, int* point) {
    if (!a.fits) return -1;
    const ChartColors colors = chart_colors(theme);
    const float font = ImGui::GetFontSize();
    const float thick = std::max(2.0f, font / 7.0f), radius = std::max(3.0f, font * 0.28f);
    int hovered = -1;
    float best = radius * 2.5f;
    draw->PushClipRect(a.plot_min, a.plot_max, true);
    for (size_t s = 0; s < series.size(); ++s) {
        const LogSeries& ls = series[s];
        const ImU32 c = series_color(ls.series, theme);
        bool have_prev = false;
        ImVec2 prev;
        for (size_t i = 0; i < ls.x.size() && i < ls.y.size(); ++i) {
            if (!(ls.y[i] > 0) || !(ls.x[i] > 0)) {
                have_prev = false;
                continue;
            }
            const ImVec2 p = a.to_screen(ls.x[i], ls.y[i]);
            if (have_prev) {
                if (ls.dashed) dashed_line(draw, prev, p, c, thick, font * 0.4f);
                else draw->AddLine(prev, p, c, thick);
            }
            if (ls.dashed) draw->AddCircle(p, radius, c, 0, thick * 0.7f);
            else draw->AddCircleFilled(p, radius, c);
            const float d = std::hypot(mouse.x - p.x, mouse.y - p.y);
            if (d < best) {
                best = d;
                hovered = static_cast<int>(s);
                if (point) *point = static_cast<int>(i);
            }
            prev = p;
            have_prev = true;
        }
    }
    draw->PopClipRect();
    // Legend: one line per series in the top-left corner, on the plot background. In a short plot
    // a legend would hide the data: each curve is named at its last point instead.
    float w = 0;
    for (const LogSeries& ls : series) w = std::max(w, text_w(ls.name));
    const float pad = font * 0.4f, swatch = font * 1.6f;
    const ImVec2 at(a.plot_min.x + pad, a.plot_min.y + pad);
    const float legend_h = static_cast<float>(series.size()) * (font + pad * 0.5f) + pad;
    if (legend_h > 0.4f * (a.plot_max.y - a.plot_min.y)) {
        std::vector<std::pair<ImVec2, ImVec2>> placed;
        for (const LogSeries& ls : series) {
            size_t last = ls.x.size();
            while (last > 0 && !(ls.y[last - 1] > 0 && ls.x[last - 1] > 0)) --last;
            if (last == 0 || ls.dashed) continue;  // dashed curves share their solid twin's colour and name
            const ImVec2 p = a.to_screen(ls.x[last - 1], ls.y[last - 1]);
            const float tw = text_w(ls.name);
            ImVec2 t(std::max(a.plot_min.x, p.x - tw - radius * 2), p.y - font * 0.5f);
            for (int tries = 0; tries < 6; ++tries) {
                bool clear = true;
                for (const auto& [lo, hi] : placed) clear &= t.x + tw < lo.x || t.x > hi.x || t.y + font < lo.y || t.y > hi.y;
                if (clear) break;
                t.y += font;
            }
            t.y = std::clamp(t.y, a.plot_min.y, a.plot_max.y - font);
            placed.emplace_back(t, ImVec2(t.x + tw, t.y + font));
            draw->AddRectFilled(ImVec2(t.x - 2, t.y), ImVec2(t.x + tw + 2, t.y + font), colors.background);
            draw->AddText(t, series_color(ls.series, theme), ls.name.c_str());
        }
        return hovered;
    }
    if (!series.empty()) {
        draw->AddRectFilled(at, ImVec2(at.x + swatch + w + pad * 3, at.y + legend_h), colors.background);
        draw->AddRect(at, ImVec2(at.x + swatch + w + pad * 3, at.y + legend_h), colors.grid);
    }
    for (size_t s = 0; s < series.size(); ++s) {
        const float y = at.y + pad + static_cast<float>(s) * (font + pad * 0.5f) + font * 0.5f;
        const ImU32 c = series_color(series[s].series, theme);
        if (series[s].dashed) dashed_line(draw, ImVec2(at.x + pad, y), ImVec2(at.x + pad + swatch, y), c, thick, font * 0.3f);
        else draw->AddLine(ImVec2(at.x + pad, y), ImVec2(at.x + pad + swatch, y), c, thick);
        draw->AddText(ImVec2(at.x + pad * 2 + swatch, y - font * 0.5f), colors.text, series[s].name.c_str());
    }
    return hovered;
}

}  // namespace viz
