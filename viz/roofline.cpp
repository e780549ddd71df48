// [SECTION] Range
// [SECTION] Labels: text that records its rectangle
// [SECTION] Roofs and ridge
// [SECTION] Legend
// [SECTION] Points, trails, arrows
#include "viz/roofline.h"

#include "viz/label_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace viz {

namespace {

float text_w(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }
bool valid(const RooflineMark& m) { return m.intensity > 0 && m.flops_per_s > 0; }

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
    const double fastest = std::max(bw, d.l2_bytes_per_s);  // the L2 roof's ridges lie left of DRAM's
    x_lo = low_roof / fastest / 10;
    x_hi = peak / bw * 10;
    y_hi = peak * 1.05;
    y_lo = x_lo * bw;
    auto include = [&](const RooflineMark& m) {
        if (!valid(m)) return;
        x_lo = std::min(x_lo, m.intensity / 2);
        x_hi = std::max(x_hi, m.intensity * 2);
        y_lo = std::min(y_lo, m.flops_per_s / 2);
        y_hi = std::max(y_hi, m.flops_per_s * 2);
    };
    for (const RooflinePoint& p : d.points) {
        include(p.at);
        include(p.l2_at);
        if (p.measured_bytes) include(p.model_at);
        for (const RooflineMark& t : p.trail) include(t);
    }
    y_lo = std::max(y_lo, y_hi * 1e-9);  // at most 9 decades tall: a tiny point should not flatten the roofs
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Labels
// ---------------------------------------------------------------------------------------------
struct Canvas {
    ImDrawList* draw;
    const LogPlotArea& a;
    ChartColors colors;
    LabelLayout& labels;
    float font, pad;

    LabelRect box() const { return {a.plot_min.x, a.plot_min.y, a.plot_max.x, a.plot_max.y}; }
    LabelRect rect(ImVec2 at, const std::string& s) const { return {at.x, at.y, at.x + text_w(s), at.y + font}; }
    // Text on the plot's background (grid lines do not cut through it), recorded as a label.
    void label(ImVec2 at, ImU32 col, const std::string& s, const char* where, bool backing = true) const {
        const LabelRect r = rect(at, s);
        if (backing) draw->AddRectFilled(ImVec2(r.x0 - 2, r.y0), ImVec2(r.x1 + 2, r.y1), colors.background);
        draw->AddText(at, col, s.c_str());
        labels.add(s, r, box(), where);
    }
    // The first spot whose label is inside the plot and free; false when none is.
    bool place(const std::vector<ImVec2>& spots, const std::string& s, ImVec2* at) const {
        std::vector<LabelRect> candidates;
        for (const ImVec2& p : spots) candidates.push_back({p.x - 2, p.y, p.x + text_w(s) + 2, p.y + font});
        const int i = labels.first_free(candidates, box());
        if (i < 0) return false;
        *at = spots[static_cast<size_t>(i)];
        return true;
    }
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Roofs and ridge
// ---------------------------------------------------------------------------------------------
void dashed_line(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 col, float thick, float dash) {
    const float len = std::hypot(b.x - a.x, b.y - a.y);
    if (!(len > 0)) return;
    for (float t = 0; t < len; t += dash * 2) {
        const float e = std::min(t + dash, len);
        draw->AddLine(ImVec2(a.x + (b.x - a.x) * t / len, a.y + (b.y - a.y) * t / len),
                      ImVec2(a.x + (b.x - a.x) * e / len, a.y + (b.y - a.y) * e / len), col, thick);
    }
}

// Each compute roof flat from its own ridge, its label above it at the right (below it for lower
// roofs, so close roofs' labels do not collide), else the first free spot further left, above or
// below the line.
void draw_compute_roofs(const Canvas& c, const RooflineData& d, const std::vector<RooflineRoof>& roofs, bool compact) {
    const float thick = std::max(2.5f, c.font / 6.0f);
    for (size_t i = 0; i < roofs.size(); ++i) {
        const double ridge = roofs[i].flops_per_s / d.bytes_per_s;
        const ImVec2 l = c.a.to_screen(ridge, roofs[i].flops_per_s), r = c.a.to_screen(c.a.x.hi, roofs[i].flops_per_s);
        c.draw->AddLine(l, r, c.colors.text, i == 0 ? thick : thick * 0.7f);
        const std::string& label = compact && !roofs[i].short_label.empty() ? roofs[i].short_label : roofs[i].label;
        const float w = text_w(label), above = l.y - c.font - c.pad, below = l.y + c.pad;
        std::vector<ImVec2> spots;
        // From the right end leftwards, as far as the ridge (a long label may start left of it).
        const float right = c.a.plot_max.x - w - c.pad, leftmost = std::max(std::min(l.x, right), c.a.plot_min.x + c.pad);
        // Beside the line first, then a line and two further out (points crowd under a roof).
        for (float out = 0; out <= 2; ++out)
            for (float x = right; x >= leftmost; x -= w * 0.25f) {
                spots.emplace_back(x, i == 0 ? above - out * c.font : below + out * c.font);
                spots.emplace_back(x, i == 0 ? below + out * c.font : above - out * c.font);
            }
        // A short plot (projector fonts) may leave no room beside the line: then on it, on a backing.
        for (float x = right; x >= leftmost; x -= w * 0.25f) spots.emplace_back(x, l.y - c.font * 0.5f);
        ImVec2 at;
        if (c.place(spots, label, &at)) c.label(at, c.colors.text, label, "compute roof");
    }
}

// A memory roof's label along its line: under it (DRAM) or over it (L2), at the first spot from
// the left that is inside the plot and free. The line rises to the right, so a label whose
// top-left corner is on the line lies under it, one whose bottom-right corner is on it over it.
void memory_roof_label(const Canvas& c, const std::string& label, double bytes_per_s, double top, bool under, ImU32 col) {
    if (label.empty()) return;
    const float w = text_w(label);
    std::vector<ImVec2> spots;
    // Beside the line first, then a line and two further off it; last on it (a short plot).
    for (float out = 0; out <= 2; ++out)
        for (double x = c.a.x.lo * 1.3; x < top / bytes_per_s; x *= 1.25) {
            const ImVec2 p = c.a.to_screen(x, x * bytes_per_s);
            const float off = c.pad * 0.5f + out * c.font;
            spots.push_back(under ? ImVec2(p.x + c.pad, p.y + off) : ImVec2(p.x - c.pad - w, p.y - off - c.font));
        }
    for (double x = c.a.x.lo * 1.3; x < top / bytes_per_s; x *= 1.25) {
        const ImVec2 p = c.a.to_screen(x, x * bytes_per_s);
        spots.push_back(ImVec2(p.x - w * 0.5f, p.y - c.font * 0.5f));
    }
    ImVec2 at;
    if (c.place(spots, label, &at)) c.label(at, col, label, under ? "DRAM roof" : "L2 roof");
}

void draw_roofs(const Canvas& c, const RooflineData& d) {
    const float thick = std::max(2.5f, c.font / 6.0f);
    const bool compact = c.a.plot_max.y - c.a.plot_min.y < c.font * 9;  // short plot: short labels
    const double bw = d.bytes_per_s;
    if (!(bw > 0)) return;
    std::vector<RooflineRoof> roofs = d.roofs;
    std::sort(roofs.begin(), roofs.end(), [](const auto& l, const auto& r) { return l.flops_per_s > r.flops_per_s; });
    const double top = roofs.empty() ? c.a.y.hi : roofs.front().flops_per_s;
    c.draw->PushClipRect(c.a.plot_min, c.a.plot_max, true);
    // Memory roofs up to the highest compute roof: DRAM solid, L2 dashed (a model estimate).
    c.draw->AddLine(c.a.to_screen(c.a.x.lo, c.a.x.lo * bw), c.a.to_screen(top / bw, top), c.colors.text, thick);
    if (d.l2_bytes_per_s > 0)
        dashed_line(c.draw, c.a.to_screen(c.a.x.lo, c.a.x.lo * d.l2_bytes_per_s), c.a.to_screen(top / d.l2_bytes_per_s, top),
                    c.colors.text_dim, thick * 0.7f, c.font * 0.5f);
    draw_compute_roofs(c, d, roofs, compact);
    memory_roof_label(c, compact && !d.memory_short_label.empty() ? d.memory_short_label : d.memory_label, bw, top, true,
                      c.colors.text);
    if (d.l2_bytes_per_s > 0)
        memory_roof_label(c, compact && !d.l2_short_label.empty() ? d.l2_short_label : d.l2_label, d.l2_bytes_per_s, top, false,
                          c.colors.text_dim);
    c.draw->PopClipRect();
}

bool draw_ridge(const Canvas& c, const RooflineData& d, ImVec2 mouse) {
    double top = 0;
    for (const RooflineRoof& r : d.roofs) top = std::max(top, r.flops_per_s);
    if (!(top > 0) || !(d.bytes_per_s > 0)) return false;
    const double ridge = top / d.bytes_per_s;
    const ImVec2 p = c.a.to_screen(ridge, top);
    const float dash = c.font * 0.35f;
    for (float y = p.y; y < c.a.plot_max.y; y += dash * 2)
        c.draw->AddLine(ImVec2(p.x, y), ImVec2(p.x, std::min(y + dash, c.a.plot_max.y)), c.colors.text_dim, 1.5f);
    const float r = c.font * 0.35f;
    c.draw->AddCircleFilled(p, r, c.colors.text);
    c.labels.block({p.x - r, p.y - r, p.x + r, p.y + r});
    char text[64];
    const bool compact = c.a.plot_max.y - c.a.plot_min.y < c.font * 9;
    std::snprintf(text, sizeof text, compact ? "ridge %s" : "ridge %s FLOP/B",
                  ridge >= 10 ? std::to_string(static_cast<long>(std::lround(ridge))).c_str() : si_tick(ridge).c_str());
    // Beside the dashed line at the bottom of the plot (left of it when the right side is short
    // or taken), else a line higher.
    const float w = text_w(text), y = c.a.plot_max.y - c.font - c.pad;
    ImVec2 at;
    if (c.place({{p.x + c.pad * 2, y}, {p.x - c.pad * 2 - w, y}, {p.x + c.pad * 2, y - c.font}, {p.x - c.pad * 2 - w, y - c.font}},
                text, &at))
        c.label(at, c.colors.text, text, "ridge");
    return std::hypot(mouse.x - p.x, mouse.y - p.y) < r * 2.5f;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Legend
// ---------------------------------------------------------------------------------------------
// Marker shapes, shared by the legend and the points.
void circle_marker(ImDrawList* draw, ImVec2 s, float r, ImU32 c, bool filled, const ChartColors& colors, float thick) {
    if (filled) {
        draw->AddCircleFilled(s, r, c);
        draw->AddCircle(s, r, colors.text, 0, thick * 0.6f);
    } else {
        draw->AddCircleFilled(s, r, colors.background);
        draw->AddCircle(s, r, c, 0, thick * 1.2f);
    }
}
void square_marker(ImDrawList* draw, ImVec2 s, float r, ImU32 c, const ChartColors& colors, float thick) {
    draw->AddRectFilled(ImVec2(s.x - r, s.y - r), ImVec2(s.x + r, s.y + r), colors.background);
    draw->AddRect(ImVec2(s.x - r, s.y - r), ImVec2(s.x + r, s.y + r), c, 0, 0, thick);
}

// One line in the plot's top-left corner: which marker is which level. Returns its rectangle.
LabelRect draw_legend(const Canvas& c, const RooflineData& d, float radius, float thick) {
    bool measured = false, l2 = false;
    for (const RooflinePoint& p : d.points) {
        measured |= !p.reference && p.measured_bytes;
        l2 |= !p.reference && valid(p.l2_at);
    }
    struct Item {
        int shape;  // 0 hollow circle, 1 filled circle, 2 square
        std::string text;
    };
    std::vector<Item> items{{0, measured ? "DRAM (model)" : "DRAM"}};
    if (measured) items.push_back({1, "DRAM (counters)"});
    if (l2) items.push_back({2, "L2\xE2\x86\x92SM"});
    const float marker = radius * 2 + c.pad, gap = c.font * 0.8f;
    float width = 0;
    for (const Item& i : items) width += marker + text_w(i.text) + gap;
    const ImVec2 o(c.a.plot_min.x + c.pad, c.a.plot_min.y + c.pad);
    const LabelRect r{o.x, o.y, o.x + width, o.y + c.font};
    if (!label_inside(r, c.box()) || !c.labels.is_free(r)) return {};
    c.draw->AddRectFilled(ImVec2(r.x0 - 2, r.y0 - 2), ImVec2(r.x1 + 2, r.y1 + 2), c.colors.background);
    float x = o.x;
    const ImU32 col = c.colors.text;
    for (const Item& i : items) {
        const ImVec2 m(x + radius, o.y + c.font * 0.5f);
        if (i.shape == 2) square_marker(c.draw, m, radius * 0.85f, col, c.colors, thick);
        else circle_marker(c.draw, m, radius * 0.85f, col, i.shape == 1, c.colors, thick);
        c.labels.block({x, o.y, x + radius * 2, o.y + c.font});
        c.label(ImVec2(x + marker, o.y), col, i.text, "legend", false);
        x += marker + text_w(i.text) + gap;
    }
    return r;
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

ImU32 faded(ImU32 c, size_t t, size_t n) {
    const auto alpha = static_cast<uint8_t>(90 + 140 * (t + 1) / (n + 1));
    return (c & 0x00FFFFFFu) | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT);
}

// Small, fading towards the oldest, joined by thin lines; under the points.
void draw_trails(const Canvas& c, const RooflineData& d, float radius, float thick, ImVec2 mouse, float& best,
                 RooflineHover& hover) {
    for (size_t i = 0; i < d.points.size(); ++i) {
        const RooflinePoint& p = d.points[i];
        const ImU32 col = series_color(p.series, d.frame.theme);
        const size_t n = p.trail.size();
        for (size_t t = 0; t < n; ++t) {
            if (!valid(p.trail[t])) continue;
            const ImVec2 s = c.a.to_screen(p.trail[t].intensity, p.trail[t].flops_per_s);
            const RooflineMark& next = t + 1 < n ? p.trail[t + 1] : p.at;
            if (valid(next)) c.draw->AddLine(s, c.a.to_screen(next.intensity, next.flops_per_s), faded(col, t, n), thick * 0.5f);
            c.draw->AddCircleFilled(s, radius * 0.7f, faded(col, t, n));
            if (const float dist = std::hypot(mouse.x - s.x, mouse.y - s.y); dist < best) {
                best = dist;
                hover = {static_cast<int>(i), static_cast<int>(t), false, hover.ridge, hover.legend};
            }
        }
    }
}

// A stale point's colour (RooflinePoint::stale): the same hue at a third of its opacity, as the
// bar charts fade their stale bars.
ImU32 point_color(const RooflinePoint& p, const Canvas& c, Theme theme) {
    const ImU32 color = p.reference ? c.colors.text_dim : series_color(p.series, theme);
    if (!p.stale) return color;
    const ImU32 alpha = ((color >> IM_COL32_A_SHIFT) & 0xFF) / 3;
    return (color & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT);
}

// A variant's markers: its L2 square and DRAM circle on one line of achieved FLOP/s (the square
// drawn larger, so the circle shows inside it where the two intensities agree), and the modeled
// DRAM ring when the counters moved the circle.
void draw_markers(const Canvas& c, const RooflinePoint& p, size_t i, const RooflineData& d, float radius, float thick,
                  ImVec2 mouse, float& best, RooflineHover& hover) {
    const ImVec2 s = c.a.to_screen(p.at.intensity, p.at.flops_per_s);
    const ImU32 col = point_color(p, c, d.frame.theme);
    const auto near = [&](ImVec2 at, bool l2) {
        if (const float dist = std::hypot(mouse.x - at.x, mouse.y - at.y); dist < best) {
            best = dist;
            hover = {static_cast<int>(i), -1, l2, hover.ridge, hover.legend};
        }
    };
    if (p.reference) {
        const float r = radius * 1.15f;
        const ImVec2 up(s.x, s.y - r), right(s.x + r, s.y), down(s.x, s.y + r), left(s.x - r, s.y);
        c.draw->AddQuadFilled(up, right, down, left, c.colors.background);
        c.draw->AddQuad(up, right, down, left, col, thick);
        near(s, false);
        return;
    }
    if (valid(p.l2_at)) {
        const ImVec2 q = c.a.to_screen(p.l2_at.intensity, p.l2_at.flops_per_s);
        c.draw->AddLine(q, s, col, std::max(1.0f, thick * 0.4f));
        square_marker(c.draw, q, radius * 1.25f, col, c.colors, thick);
        near(q, true);
    }
    if (p.measured_bytes && valid(p.model_at)) {
        const ImVec2 m = c.a.to_screen(p.model_at.intensity, p.model_at.flops_per_s);
        c.draw->AddCircle(m, radius * 0.6f, col, 0, thick * 0.8f);
    }
    circle_marker(c.draw, s, radius, col, p.measured_bytes, c.colors, thick);
    near(s, false);
}

// The label beside a point's circle: the first spot inside the plot and clear of every label and
// marker so far; beside the point first, then right or left of it, one line further out each time.
void draw_point_label(const Canvas& c, const RooflinePoint& p, const RooflineData& d, float radius) {
    if (p.label.empty()) return;  // a neighbour's label names it (several reference rows in one spot)
    const ImVec2 s = c.a.to_screen(p.at.intensity, p.at.flops_per_s);
    const float w = text_w(p.label), off = radius * 1.3f, f = c.font;
    const std::vector<ImVec2> spots = {{s.x + off, s.y - off - f},          {s.x + off, s.y + off},
                                       {s.x - off - w, s.y - off - f},      {s.x - off - w, s.y + off},
                                       {s.x + off * 1.5f, s.y - f * 0.5f},  {s.x - off * 1.5f - w, s.y - f * 0.5f},
                                       {s.x + off, s.y + off + f},          {s.x + off, s.y - off - f * 2},
                                       {s.x - off - w, s.y + off + f},      {s.x - off - w, s.y - off - f * 2},
                                       {s.x + off, s.y + off + f * 2},      {s.x + off, s.y - off - f * 3},
                                       {s.x - off - w, s.y + off + f * 2},  {s.x - off - w, s.y - off - f * 3}};
    const ImU32 col = point_color(p, c, d.frame.theme);
    // A label reads as naming the marker nearest to it: beside two close points (flash_tc and
    // flash_wgmma at one intensity), a spot nearer the other point would name the wrong one. Keep
    // the spots nearer this point than any other; the far spots below draw a line back instead.
    std::vector<ImVec2> own;
    for (const ImVec2& q : spots) {
        const auto rect_distance = [&](ImVec2 m) {
            const float dx = std::max({q.x - m.x, 0.0f, m.x - (q.x + w)}), dy = std::max({q.y - m.y, 0.0f, m.y - (q.y + f)});
            return std::hypot(dx, dy);
        };
        const float mine = rect_distance(s);
        bool nearer_another = false;
        for (const RooflinePoint& o : d.points) {
            if (&o == &p || !valid(o.at)) continue;
            const ImVec2 os = c.a.to_screen(o.at.intensity, o.at.flops_per_s);
            if (os.x == s.x && os.y == s.y) continue;  // the same spot: no label can tell them apart
            if (rect_distance(os) < mine + radius * 0.5f) nearer_another = true;
        }
        if (!nearer_another) own.push_back(q);
    }
    ImVec2 at;
    if (c.place(own, p.label, &at)) {
        c.label(at, col, p.label, "point");
        return;
    }
    // A crowded plot (a short one at projector fonts): further out, the nearest free spot first,
    // with a thin line back to the point.
    std::vector<ImVec2> far;
    for (int dy = -12; dy <= 12; ++dy)
        for (int k = 0; k <= 30; k += 2) {
            const float dx = static_cast<float>(k) * f;
            far.emplace_back(s.x + off + dx, s.y + static_cast<float>(dy) * f - f * 0.5f);
            far.emplace_back(s.x - off - w - dx, s.y + static_cast<float>(dy) * f - f * 0.5f);
        }
    const auto distance = [&](ImVec2 q) { return std::hypot(q.x + w * 0.5f - s.x, q.y + f * 0.5f - s.y); };
    std::stable_sort(far.begin(), far.end(), [&](ImVec2 l, ImVec2 r) { return distance(l) < distance(r); });
    // A reference point with no clear spot goes unlabelled (the panel lists the reference rows
    // under the plot); so does one of ours when even these are taken (its hover names it): a
    // label over another would be read as neither.
    if (p.reference || !c.place(far, p.label, &at)) return;
    const ImVec2 end(std::clamp(s.x, at.x, at.x + w), std::clamp(s.y, at.y, at.y + f));
    c.draw->AddLine(s, end, col, 1.0f);
    c.label(at, col, p.label, "point");
}

}  // namespace

RooflineHover draw_roofline(ImDrawList* draw, ImVec2 origin, ImVec2 size, const RooflineData& d, ImVec2 mouse) {
    RooflineHover hover;
    double x_lo, x_hi, y_lo, y_hi;
    data_range(d, x_lo, x_hi, y_lo, y_hi);
    const LogPlotArea a = draw_log_frame(draw, origin, size, d.frame, x_lo, x_hi, y_lo, y_hi);
    if (!a.fits) return hover;
    const float font = ImGui::GetFontSize(), radius = std::max(4.0f, font * 0.42f), thick = std::max(2.0f, font / 7.0f);
    LabelLayout labels("roofline");
    const Canvas c{draw, a, chart_colors(d.frame.theme), labels, font, font * 0.3f};
    // Every marker is taken before any label looks for room: the roofs' and the ridge's labels
    // move aside for the points, and the points' labels for each other.
    const auto block = [&](const RooflineMark& m, float r) {
        if (!valid(m)) return;
        const ImVec2 s = a.to_screen(m.intensity, m.flops_per_s);
        labels.block({s.x - r, s.y - r, s.x + r, s.y + r});
    };
    for (const RooflinePoint& p : d.points) {
        block(p.at, radius);
        block(p.l2_at, radius * 1.25f);
        for (const RooflineMark& t : p.trail) block(t, radius * 0.7f);
    }
    // The legend first: its corner is where the roofs leave room.
    const LabelRect legend = draw_legend(c, d, radius, thick);
    hover.legend = !legend.empty() && mouse.x >= legend.x0 && mouse.x <= legend.x1 && mouse.y >= legend.y0 && mouse.y <= legend.y1;
    draw_roofs(c, d);
    hover.ridge = draw_ridge(c, d, mouse);

    float best = radius * 2.2f;
    draw->PushClipRect(a.plot_min, a.plot_max, true);
    draw_trails(c, d, radius, thick, mouse, best, hover);
    for (const auto& [from, to] : d.arrows) {
        if (from < 0 || to < 0 || from >= int(d.points.size()) || to >= int(d.points.size())) continue;
        const RooflinePoint &pf = d.points[size_t(from)], &pt = d.points[size_t(to)];
        if (!valid(pf.at) || !valid(pt.at)) continue;
        arrow(draw, a.to_screen(pf.at.intensity, pf.at.flops_per_s), a.to_screen(pt.at.intensity, pt.at.flops_per_s),
              c.colors.text, thick, font * 0.7f, radius * 1.6f);
    }
    for (size_t i = 0; i < d.points.size(); ++i)
        if (valid(d.points[i].at)) draw_markers(c, d.points[i], i, d, radius, thick, mouse, best, hover);
    for (const RooflinePoint& p : d.points)
        if (valid(p.at)) draw_point_label(c, p, d, radius);
    draw->PopClipRect();
    draw_log_watermark(draw, a, d.frame);
    record_labels(labels);
    return hover;
}

}  // namespace viz
