// [SECTION] Range
// [SECTION] Roofs and ridge
// [SECTION] Points, trails, arrows
#include "viz/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace viz {

namespace {

float text_w(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }

// ---------------------------------------------------------------------------------------------
// [SECTION] Range
// ---------------------------------------------------------------------------------------------
// x: every point and every ridge, with a decade of room; y: every roof and point.
void data_range(const RooflineData& d, double& x_lo, double& x_hi, double& y_lo, double& y_hi) {
    double peak = 0, low_roof = 1e300;
    for (const RooflineRoof& r : d.roofs)
        if (r.flops_per_s > 0) {
            peak = std::max(peak, r.flops_per_s);
            low_roof = std::min(low_roof, r.flops_per_s);
        }
    if (peak <= 0) peak = low_roof = 1e12;
    const double bw = d.bytes_per_s > 0 ? d.bytes_per_s : 1e12;
    x_lo = low_roof / bw / 10;
    x_hi = peak / bw * 10;
    y_hi = peak * 1.05;
    y_lo = x_lo * bw;
    auto include = [&](const RooflineMark& m) {
        if (!(m.intensity > 0) || !(m.flops_per_s > 0)) return;
        x_lo = std::min(x_lo, m.intensity / 2);
        x_hi = std::max(x_hi, m.intensity * 2);
        y_lo = std::min(y_lo, m.flops_per_s / 2);
        y_hi = std::max(y_hi, m.flops_per_s * 2);
    };
    for (const RooflinePoint& p : d.points) {
        include(p.at);
        for (const RooflineMark& t : p.trail) include(t);
    }
    y_lo = std::max(y_lo, y_hi * 1e-9);  // at most 9 decades tall: a tiny point should not flatten the roofs
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Roofs and ridge
// ---------------------------------------------------------------------------------------------
using Rect = std::pair<ImVec2, ImVec2>;

// Returns the rectangles of the labels it drew, so point labels can stay clear of them.
std::vector<Rect> draw_roofs(ImDrawList* draw, const LogPlotArea& a, const RooflineData& d, const ChartColors& colors) {
    std::vector<Rect> labels;
    const float font = ImGui::GetFontSize(), thick = std::max(2.5f, font / 6.0f), pad = font * 0.3f;
    const bool compact = a.plot_max.y - a.plot_min.y < font * 9;  // short plot: short labels
    const double bw = d.bytes_per_s;
    if (!(bw > 0)) return labels;
    std::vector<RooflineRoof> roofs = d.roofs;
    std::sort(roofs.begin(), roofs.end(), [](const auto& l, const auto& r) { return l.flops_per_s > r.flops_per_s; });
    const double top = roofs.empty() ? a.y.hi : roofs.front().flops_per_s;
    draw->PushClipRect(a.plot_min, a.plot_max, true);
    // Memory roof up to the highest ridge; each compute roof flat from its own ridge.
    draw->AddLine(a.to_screen(a.x.lo, a.x.lo * bw), a.to_screen(top / bw, top), colors.text, thick);
    for (size_t i = 0; i < roofs.size(); ++i) {
        const double ridge = roofs[i].flops_per_s / bw;
        const ImVec2 l = a.to_screen(ridge, roofs[i].flops_per_s), r = a.to_screen(a.x.hi, roofs[i].flops_per_s);
        draw->AddLine(l, r, colors.text, i == 0 ? thick : thick * 0.7f);
        const std::string& label = compact && !roofs[i].short_label.empty() ? roofs[i].short_label : roofs[i].label;
        const float w = text_w(label);
        // Right-aligned above the roof (below it for lower roofs, so close roofs' labels do not
        // collide), on the plot's background so grid lines do not cut through it.
        const float ty = i == 0 && l.y - font - pad > a.plot_min.y ? l.y - font - pad : l.y + pad;
        const ImVec2 at(std::max(a.plot_min.x + pad, a.plot_max.x - w - pad), ty);
        draw->AddRectFilled(ImVec2(at.x - pad, at.y), ImVec2(at.x + w + pad, at.y + font), colors.background);
        draw->AddText(at, colors.text, label.c_str());
        labels.emplace_back(ImVec2(at.x - pad, at.y), ImVec2(at.x + w + pad, at.y + font));
    }
    draw->PopClipRect();
    // Memory roof label, rotated text is not available: placed just under the diagonal's lower part.
    const std::string& memory_label = compact && !d.memory_short_label.empty() ? d.memory_short_label : d.memory_label;
    if (!memory_label.empty()) {
        double x_at = a.x.lo * 3;
        ImVec2 p = a.to_screen(x_at, x_at * bw);
        // Slide right until the label is inside the plot vertically.
        for (int i = 0; i < 40 && p.y + font * 1.5f > a.plot_max.y; ++i) {
            x_at *= 1.5;
            p = a.to_screen(x_at, x_at * bw);
        }
        const float x = std::min(p.x + pad * 2, a.plot_max.x - text_w(memory_label) - pad);
        draw->AddText(ImVec2(x, p.y + pad), colors.text, memory_label.c_str());
        labels.emplace_back(ImVec2(x, p.y + pad), ImVec2(x + text_w(memory_label), p.y + pad + font));
    }
    return labels;
}

bool draw_ridge(ImDrawList* draw, const LogPlotArea& a, const RooflineData& d, const ChartColors& colors, ImVec2 mouse,
                std::vector<Rect>& labels) {
    double top = 0;
    for (const RooflineRoof& r : d.roofs) top = std::max(top, r.flops_per_s);
    if (!(top > 0) || !(d.bytes_per_s > 0)) return false;
    const double ridge = top / d.bytes_per_s;
    const float font = ImGui::GetFontSize(), pad = font * 0.3f;
    const ImVec2 p = a.to_screen(ridge, top);
    const float dash = font * 0.35f;
    for (float y = p.y; y < a.plot_max.y; y += dash * 2)
        draw->AddLine(ImVec2(p.x, y), ImVec2(p.x, std::min(y + dash, a.plot_max.y)), colors.text_dim, 1.5f);
    const float r = font * 0.35f;
    draw->AddCircleFilled(p, r, colors.text);
    char text[64];
    const bool compact = a.plot_max.y - a.plot_min.y < font * 9;
    std::snprintf(text, sizeof text, compact ? "ridge %s" : "ridge %s FLOP/B", ridge >= 10 ? std::to_string(static_cast<long>(std::lround(ridge))).c_str()
                                                                    : si_tick(ridge).c_str());
    // Beside the dashed line at the bottom of the plot (left of it when the right side is short).
    const float w = text_w(text);
    const float tx = p.x + pad * 2 + w < a.plot_max.x ? p.x + pad * 2 : p.x - pad * 2 - w;
    const ImVec2 at(tx, a.plot_max.y - font - pad);
    draw->AddRectFilled(ImVec2(at.x - pad, at.y), ImVec2(at.x + w + pad, at.y + font), colors.background);
    draw->AddText(at, colors.text, text);
    labels.emplace_back(ImVec2(at.x - pad, at.y), ImVec2(at.x + w + pad, at.y + font));
    return std::hypot(mouse.x - p.x, mouse.y - p.y) < r * 2.5f;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Points, trails, arrows
// ---------------------------------------------------------------------------------------------
void arrow(ImDrawList* draw, ImVec2 from, ImVec2 to, ImU32 color, float thick, float head, float gap) {
    const float dx = to.x - from.x, dy = to.y - from.y, len = std::sqrt(dx * dx + dy * dy);
    if (len < gap * 2 + head) return;
    const float ux = dx / len, uy = dy / len;
    const ImVec2 a(from.x + ux * gap, from.y + uy * gap), b(to.x - ux * gap, to.y - uy * gap);
    draw->AddLine(a, ImVec2(b.x - ux * head * 0.8f, b.y - uy * head * 0.8f), color, thick);
    draw->AddTriangleFilled(b, ImVec2(b.x - ux * head - uy * head * 0.5f, b.y - uy * head + ux * head * 0.5f),
                            ImVec2(b.x - ux * head + uy * head * 0.5f, b.y - uy * head - ux * head * 0.5f), color);
}

bool valid(const RooflineMark& m) { return m.intensity > 0 && m.flops_per_s > 0; }

}  // namespace

RooflineHover draw_roofline(ImDrawList* draw, ImVec2 origin, ImVec2 size, const RooflineData& d, ImVec2 mouse) {
    RooflineHover hover;
    double x_lo, x_hi, y_lo, y_hi;
    data_range(d, x_lo, x_hi, y_lo, y_hi);
    const LogPlotArea a = draw_log_frame(draw, origin, size, d.frame, x_lo, x_hi, y_lo, y_hi);
    if (!a.fits) return hover;
    const ChartColors colors = chart_colors(d.frame.theme);
    std::vector<Rect> roof_labels = draw_roofs(draw, a, d, colors);
    hover.ridge = draw_ridge(draw, a, d, colors, mouse, roof_labels);

    const float font = ImGui::GetFontSize(), radius = std::max(4.0f, font * 0.42f), thick = std::max(2.0f, font / 7.0f);
    float best = radius * 2.2f;
    draw->PushClipRect(a.plot_min, a.plot_max, true);
    // Trails first (under the points): small, fading towards the oldest, joined by thin lines.
    for (size_t i = 0; i < d.points.size(); ++i) {
        const RooflinePoint& p = d.points[i];
        const ImU32 c = series_color(p.series, d.frame.theme);
        const size_t n = p.trail.size();
        for (size_t t = 0; t < n; ++t) {
            if (!valid(p.trail[t])) continue;
            const ImVec2 s = a.to_screen(p.trail[t].intensity, p.trail[t].flops_per_s);
            const auto alpha = static_cast<uint8_t>(90 + 140 * (t + 1) / (n + 1));
            const ImU32 faded = (c & 0x00FFFFFFu) | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT);
            const RooflineMark& next = t + 1 < n ? p.trail[t + 1] : p.at;
            if (valid(next)) draw->AddLine(s, a.to_screen(next.intensity, next.flops_per_s), faded, thick * 0.5f);
            draw->AddCircleFilled(s, radius * 0.7f, faded);
            const float dist = std::hypot(mouse.x - s.x, mouse.y - s.y);
            if (dist < best) {
                best = dist;
                hover.point = static_cast<int>(i);
                hover.trail = static_cast<int>(t);
            }
        }
    }
    for (const auto& [from, to] : d.arrows) {
        if (from < 0 || to < 0 || from >= int(d.points.size()) || to >= int(d.points.size())) continue;
        const RooflinePoint &pf = d.points[size_t(from)], &pt = d.points[size_t(to)];
        if (!valid(pf.at) || !valid(pt.at)) continue;
        arrow(draw, a.to_screen(pf.at.intensity, pf.at.flops_per_s), a.to_screen(pt.at.intensity, pt.at.flops_per_s),
              colors.text, thick, font * 0.7f, radius * 1.6f);
    }
    // Label rectangles to keep clear of: the roofs' labels, every marker, the labels drawn so far.
    std::vector<Rect> placed = roof_labels;
    for (const RooflinePoint& p : d.points)
        if (valid(p.at)) {
            const ImVec2 s = a.to_screen(p.at.intensity, p.at.flops_per_s);
            placed.emplace_back(ImVec2(s.x - radius, s.y - radius), ImVec2(s.x + radius, s.y + radius));
        }
    for (size_t i = 0; i < d.points.size(); ++i) {
        const RooflinePoint& p = d.points[i];
        if (!valid(p.at)) continue;
        const ImVec2 s = a.to_screen(p.at.intensity, p.at.flops_per_s);
        const ImU32 c = p.reference ? colors.text_dim : series_color(p.series, d.frame.theme);
        if (p.reference) {
            const float r = radius * 1.15f;
            const ImVec2 up(s.x, s.y - r), right(s.x + r, s.y), down(s.x, s.y + r), left(s.x - r, s.y);
            draw->AddQuadFilled(up, right, down, left, colors.background);
            draw->AddQuad(up, right, down, left, c, thick);
        } else if (p.measured_bytes) {
            draw->AddCircleFilled(s, radius, c);
            draw->AddCircle(s, radius, colors.text, 0, thick * 0.6f);
        } else {
            draw->AddCircleFilled(s, radius, colors.background);
            draw->AddCircle(s, radius, c, 0, thick * 1.2f);
        }
        if (const float dist = std::hypot(mouse.x - s.x, mouse.y - s.y); dist < best) {
            best = dist;
            hover.point = static_cast<int>(i);
            hover.trail = -1;
        }
        if (p.label.empty()) continue;  // a neighbour's label names it (several reference rows in one spot)
        // Label beside the point: the first of above-right, below-right, above-left, below-left
        // that stays inside the plot and clear of the labels already placed.
        const float w = text_w(p.label), off = radius * 1.3f;
        // Beside the point first; then right or left of it, one line further out each time.
        const ImVec2 candidates[] = {{s.x + off, s.y - off - font},       {s.x + off, s.y + off},
                                     {s.x - off - w, s.y - off - font},   {s.x - off - w, s.y + off},
                                     {s.x + off * 1.5f, s.y - font * 0.5f}, {s.x - off * 1.5f - w, s.y - font * 0.5f},
                                     {s.x + off, s.y + off + font},       {s.x + off, s.y - off - font * 2},
                                     {s.x - off - w, s.y + off + font},   {s.x - off - w, s.y - off - font * 2},
                                     {s.x + off, s.y + off + font * 2},   {s.x + off, s.y - off - font * 3}};
        ImVec2 at = candidates[0];
        bool found = false;
        for (const ImVec2& c2 : candidates) {
            const ImVec2 lo(c2.x - 2, c2.y), hi(c2.x + w + 2, c2.y + font);
            const bool inside = lo.x >= a.plot_min.x && hi.x <= a.plot_max.x && lo.y >= a.plot_min.y && hi.y <= a.plot_max.y;
            bool clear = true;
            for (const auto& [plo, phi] : placed)
                clear &= hi.x < plo.x || lo.x > phi.x || hi.y < plo.y || lo.y > phi.y;
            if (inside && clear) {
                at = c2;
                found = true;
                break;
            }
        }
        // A reference point with no clear spot goes unlabelled (the panel lists the reference rows
        // under the plot); fusionlab's own points always get theirs.
        if (!found && p.reference) continue;
        placed.emplace_back(ImVec2(at.x - 2, at.y), ImVec2(at.x + w + 2, at.y + font));
        draw->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + w + 2, at.y + font), colors.background);
        draw->AddText(at, c, p.label.c_str());
    }
    draw->PopClipRect();
    draw_log_watermark(draw, a, d.frame);
    return hover;
}

}  // namespace viz
