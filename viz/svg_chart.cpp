// [SECTION] SvgWriter: primitives
// [SECTION] Shared layout: title block, value axis, log axes
// [SECTION] Bar charts
// [SECTION] Roofline
// [SECTION] Timeline
// [SECTION] Log series (sweep)
#include "viz/svg_chart.h"

#include "viz/axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace viz {

// ---------------------------------------------------------------------------------------------
// [SECTION] SvgWriter
// ---------------------------------------------------------------------------------------------

namespace {

std::string num(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", v);
    // "12.50" -> "12.5", "12.00" -> "12": shorter files, same picture.
    std::string s = text;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

std::string paint(const char* attribute, ImU32 color) {
    std::string out = std::string(" ") + attribute + "=\"" + svg_color(color) + "\"";
    if (const double a = svg_opacity(color); a < 1) out += std::string(" ") + attribute + "-opacity=\"" + num(a) + "\"";
    return out;
}

ImU32 page_color(Theme theme) { return theme == Theme::light ? rgb(0xFFFFFF) : rgb(0x1B1D21); }

}  // namespace

std::string xml_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                // Control characters are not allowed in XML 1.0 (tabs and newlines are, but a label
                // has none worth keeping).
                if (static_cast<unsigned char>(c) < 0x20) out += ' ';
                else out += c;
        }
    }
    return out;
}

std::string svg_color(ImU32 color) {
    char text[8];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<unsigned>((color >> IM_COL32_R_SHIFT) & 0xFF),
                  static_cast<unsigned>((color >> IM_COL32_G_SHIFT) & 0xFF),
                  static_cast<unsigned>((color >> IM_COL32_B_SHIFT) & 0xFF));
    return text;
}

double svg_opacity(ImU32 color) { return static_cast<double>((color >> IM_COL32_A_SHIFT) & 0xFF) / 255.0; }

float svg_text_width(const std::string& text, float size) {
    size_t code_points = 0;
    for (unsigned char c : text) code_points += (c & 0xC0) != 0x80;
    return static_cast<float>(code_points) * size * 0.6f;
}

SvgWriter::SvgWriter(float width, float height, Theme theme) : width_(width), height_(height) {
    rect(0, 0, width, height, page_color(theme));
}

void SvgWriter::rect(float x, float y, float w, float h, ImU32 fill, ImU32 stroke, float stroke_width) {
    body_ += std::string("<rect x=\"") + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.0f, w)) + "\" height=\"" +
             num(std::max(0.0f, h)) + "\"" + (fill ? paint("fill", fill) : std::string(" fill=\"none\""));
    if (stroke && stroke_width > 0) body_ += paint("stroke", stroke) + " stroke-width=\"" + num(stroke_width) + "\"";
    body_ += std::string("/>\n");
}

void SvgWriter::line(float x0, float y0, float x1, float y1, ImU32 color, float width, bool dashed) {
    body_ += std::string("<line x1=\"") + num(x0) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(x1) + "\" y2=\"" + num(y1) + "\"" +
             paint("stroke", color) + " stroke-width=\"" + num(width) + "\"" +
             (dashed ? std::string(" stroke-dasharray=\"") + num(width * 4) + " " + num(width * 3) + "\"" : std::string()) + "/>\n";
}

void SvgWriter::polyline(const std::vector<std::pair<float, float>>& points, ImU32 color, float width, bool dashed) {
    if (points.size() < 2) return;
    body_ += std::string("<polyline fill=\"none\" points=\"");
    for (const auto& [x, y] : points) body_ += num(x) + "," + num(y) + " ";
    body_ += std::string("\"") + paint("stroke", color) + " stroke-width=\"" + num(width) + "\" stroke-linejoin=\"round\"" +
             (dashed ? std::string(" stroke-dasharray=\"") + num(width * 4) + " " + num(width * 3) + "\"" : std::string()) + "/>\n";
}

void SvgWriter::polygon(const std::vector<std::pair<float, float>>& points, ImU32 fill) {
    if (points.size() < 3) return;
    body_ += std::string("<polygon points=\"");
    for (const auto& [x, y] : points) body_ += num(x) + "," + num(y) + " ";
    body_ += std::string("\"") + paint("fill", fill) + "/>\n";
}

void SvgWriter::circle(float cx, float cy, float r, ImU32 fill, ImU32 stroke, float stroke_width) {
    body_ += std::string("<circle cx=\"") + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\"" +
             (fill ? paint("fill", fill) : std::string(" fill=\"none\""));
    if (stroke && stroke_width > 0) body_ += paint("stroke", stroke) + " stroke-width=\"" + num(stroke_width) + "\"";
    body_ += std::string("/>\n");
}

void SvgWriter::text(float x, float y, const std::string& text, ImU32 color, float size, const char* anchor, bool bold,
                     float rotate_degrees) {
    if (text.empty()) return;
    body_ += std::string("<text x=\"") + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\" text-anchor=\"" + anchor +
             "\" dominant-baseline=\"central\"" + paint("fill", color) + (bold ? " font-weight=\"bold\"" : "");
    if (rotate_degrees != 0)
        body_ += std::string(" transform=\"rotate(") + num(rotate_degrees) + " " + num(x) + " " + num(y) + ")\"";
    body_ += std::string(">") + xml_escape(text) + "</text>\n";
}

std::string SvgWriter::finish() const {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" +
           num(width_) + "\" height=\"" + num(height_) + "\" viewBox=\"0 0 " + num(width_) + " " + num(height_) +
           "\" font-family=\"DejaVu Sans, Liberation Sans, Arial, sans-serif\">\n" + body_ + "</svg>\n";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Shared layout
// ---------------------------------------------------------------------------------------------

namespace {

constexpr float kFont = 15, kTitleFont = 19, kPad = 8;

// Title, then the source line (the GUI's watermark, out of the plot's way). Returns the y below.
float title_block(SvgWriter& svg, const std::string& title, const std::string& watermark, const ChartColors& c) {
    float y = kPad;
    if (!title.empty()) {
        svg.text(kPad, y + kTitleFont * 0.6f, title, c.text, kTitleFont, "start", true);
        y += kTitleFont * 1.3f;
    }
    if (!watermark.empty()) {
        svg.text(kPad, y + kFont * 0.6f, watermark, c.text_dim, kFont * 0.9f, "start", true);
        y += kFont * 1.3f;
    }
    return y + kPad * 0.5f;
}

float widest(const std::vector<std::string>& texts, float size) {
    float w = 0;
    for (const std::string& t : texts) w = std::max(w, svg_text_width(t, size));
    return w;
}

// The plot area of a log-log chart and its mapping.
struct LogArea {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // left, top, right, bottom
    LogTicks xt, yt;
    float x_of(double v) const { return x0 + static_cast<float>(log_fraction(v, xt.lo, xt.hi)) * (x1 - x0); }
    float y_of(double v) const { return y1 - static_cast<float>(log_fraction(v, yt.lo, yt.hi)) * (y1 - y0); }
};

LogArea log_axes(SvgWriter& svg, const LogPlotFrame& frame, float top, double x_lo, double x_hi, double y_lo,
                 double y_hi, const ChartColors& c) {
    LogArea a;
    a.xt = log_ticks_125(x_lo, x_hi);
    a.yt = log_ticks_125(y_lo, y_hi);
    auto fx = [&](double v) { return frame.format_x ? frame.format_x(v) : si_tick(v); };
    auto fy = [&](double v) { return frame.format_y ? frame.format_y(v) : si_tick(v); };
    std::vector<std::string> y_labels;
    for (double v : a.yt.major) y_labels.push_back(fy(v));
    a.x0 = kPad + (frame.y_title.empty() ? 0 : kFont * 1.6f) + widest(y_labels, kFont) + kPad;
    a.x1 = svg.width() - kPad * 2;
    a.y0 = top + kPad;
    a.y1 = svg.height() - kPad - kFont * 1.4f - (frame.x_title.empty() ? 0 : kFont * 1.5f);
    svg.rect(a.x0, a.y0, a.x1 - a.x0, a.y1 - a.y0, c.background);
    for (double v : a.xt.minor) svg.line(a.x_of(v), a.y0, a.x_of(v), a.y1, c.grid, 0.5f);
    for (double v : a.yt.minor) svg.line(a.x0, a.y_of(v), a.x1, a.y_of(v), c.grid, 0.5f);
    for (double v : a.xt.major) {
        svg.line(a.x_of(v), a.y0, a.x_of(v), a.y1, c.grid, 1);
        svg.text(a.x_of(v), a.y1 + kFont * 0.8f, fx(v), c.text_dim, kFont, "middle");
    }
    for (double v : a.yt.major) {
        svg.line(a.x0, a.y_of(v), a.x1, a.y_of(v), c.grid, 1);
        svg.text(a.x0 - kPad * 0.5f, a.y_of(v), fy(v), c.text_dim, kFont, "end");
    }
    svg.line(a.x0, a.y0, a.x0, a.y1, c.axis, 1.5f);
    svg.line(a.x0, a.y1, a.x1, a.y1, c.axis, 1.5f);
    if (!frame.x_title.empty())
        svg.text((a.x0 + a.x1) * 0.5f, a.y1 + kFont * 2.2f, frame.x_title, c.text, kFont, "middle");
    if (!frame.y_title.empty())
        svg.text(kPad + kFont * 0.6f, (a.y0 + a.y1) * 0.5f, frame.y_title, c.text, kFont, "middle", false, -90);
    return a;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Bar charts
// ---------------------------------------------------------------------------------------------

namespace {

struct BarLayout {
    float x0 = 0, x1 = 0, y0 = 0, y1 = 0, row_h = 0, bar_h = 0;
    Ticks ticks;
    float x_of(double v) const {
        const double t = ticks.max > 0 ? std::clamp(v / ticks.max, 0.0, 1.0) : 0.0;
        return x0 + static_cast<float>(t) * (x1 - x0);
    }
    float row_center(size_t i) const { return y0 + (static_cast<float>(i) + 0.5f) * row_h; }
};

BarLayout bar_axes(SvgWriter& svg, const ChartFrame& frame, float top, float bottom_reserved,
                   const std::vector<std::string>& labels, const std::vector<std::string>& values, double data_max,
                   const ChartColors& c) {
    BarLayout L;
    if (frame.reference_value > 0 && !frame.reference_label.empty()) top += kFont * 1.4f;
    L.x0 = kPad + std::min(widest(labels, kFont) + kPad * 2, svg.width() * 0.35f);
    L.x1 = svg.width() - std::min(widest(values, kFont) + kPad * 2, svg.width() * 0.3f);
    L.y0 = top;
    L.y1 = svg.height() - kPad - kFont * 1.5f - bottom_reserved;
    const std::string widest_tick = frame.format_tick ? frame.format_tick(data_max) : std::string("0.000");
    const int max_ticks = std::clamp(static_cast<int>((L.x1 - L.x0) / (svg_text_width(widest_tick, kFont) + kFont * 2)), 1, 8);
    L.ticks = zero_based_ticks(data_max, max_ticks);
    L.row_h = (L.y1 - L.y0) / static_cast<float>(std::max<size_t>(labels.size(), 1));
    L.bar_h = std::min(L.row_h * 0.62f, kFont * 2.4f);
    svg.rect(L.x0, L.y0, L.x1 - L.x0, L.y1 - L.y0, c.background);
    for (double v : L.ticks.values) {
        const float x = L.x_of(v);
        svg.line(x, L.y0, x, L.y1, c.grid, 1);
        svg.text(x, L.y1 + kFont * 0.8f, v == 0 ? std::string("0") : frame.format_tick ? frame.format_tick(v) : num(v),
                 c.text_dim, kFont, "middle");
    }
    svg.line(L.x0, L.y0, L.x0, L.y1, c.axis, 1.5f);
    svg.line(L.x0, L.y1, L.x1, L.y1, c.axis, 1.5f);
    return L;
}

void bar_reference(SvgWriter& svg, const BarLayout& L, const ChartFrame& frame, const ChartColors& c) {
    if (!(frame.reference_value > 0)) return;
    const float x = L.x_of(frame.reference_value);
    svg.line(x, L.y0 - kFont * 0.6f, x, L.y1, c.text, 1.5f, true);
    if (!frame.reference_label.empty())
        svg.text(std::clamp(x, L.x0 + svg_text_width(frame.reference_label, kFont) * 0.5f, L.x1),
                 L.y0 - kFont * 0.9f, frame.reference_label, c.text, kFont, "middle");
}

ImU32 faded(ImU32 color, bool stale) {
    if (!stale) return color;
    const ImU32 alpha = ((color >> IM_COL32_A_SHIFT) & 0xFF) / 3;
    return (color & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT);
}

}  // namespace

std::string range_bars_svg(const ChartFrame& frame, const std::vector<RangeBar>& bars, float width, float height) {
    SvgWriter svg(width, height, frame.theme);
    const ChartColors c = chart_colors(frame.theme);
    const float top = title_block(svg, frame.title, frame.watermark, c);
    std::vector<std::string> labels, values;
    double data_max = std::max(0.0, frame.reference_value);
    for (const RangeBar& b : bars) {
        labels.push_back(b.label);
        values.push_back(b.value_text);
        data_max = std::max(data_max, b.has_range ? std::max(b.value, b.hi) : b.value);
    }
    const BarLayout L = bar_axes(svg, frame, top, 0, labels, values, data_max, c);
    for (size_t i = 0; i < bars.size(); ++i) {
        const RangeBar& b = bars[i];
        const float cy = L.row_center(i), x_end = L.x_of(b.value);
        if (b.reference) {
            svg.rect(L.x0, cy - L.bar_h * 0.5f, x_end - L.x0, L.bar_h, c.background, c.text_dim, 2);
        } else {
            svg.rect(L.x0, cy - L.bar_h * 0.5f, x_end - L.x0, L.bar_h, faded(series_color(b.series, frame.theme), b.stale),
                     faded(c.axis, b.stale), 1);
        }
        if (b.has_range) {
            const float x0 = L.x_of(b.lo), x1 = L.x_of(b.hi), cap = L.bar_h * 0.35f;
            svg.line(x0, cy, x1, cy, c.whisker, 2);
            svg.line(x0, cy - cap, x0, cy + cap, c.whisker, 2);
            svg.line(x1, cy - cap, x1, cy + cap, c.whisker, 2);
        }
        svg.text(L.x0 - kPad, cy, b.label, b.reference || b.stale ? c.text_dim : c.text, kFont, "end");
        svg.text(L.x_of(b.has_range ? std::max(b.value, b.hi) : b.value) + kPad, cy, b.value_text, c.text, kFont);
    }
    bar_reference(svg, L, frame, c);
    return svg.finish();
}

std::string stacked_bars_svg(const ChartFrame& frame, const std::vector<StackedBar>& bars,
                             const std::vector<std::string>& series_names, float width, float height) {
    SvgWriter svg(width, height, frame.theme);
    const ChartColors c = chart_colors(frame.theme);
    const float top = title_block(svg, frame.title, frame.watermark, c);
    // The legend's rows, flowed left to right as in the GUI.
    const float swatch = kFont * 0.8f;
    std::vector<std::pair<float, float>> legend_at;
    float lx = kPad, ly = 0;
    for (const std::string& name : series_names) {
        const float item_w = swatch + kPad * 0.5f + svg_text_width(name, kFont) + kPad * 2;
        if (lx > kPad && lx + item_w > width - kPad) {
            lx = kPad;
            ly += kFont * 1.4f;
        }
        legend_at.emplace_back(lx, ly);
        lx += item_w;
    }
    const float legend_h = series_names.empty() ? 0 : ly + kFont * 1.6f;
    const auto [labels, totals, data_max] = stacked_extent(bars, frame);
    const BarLayout L = bar_axes(svg, frame, top, legend_h, labels, totals, data_max, c);
    for (size_t i = 0; i < bars.size(); ++i) {
        const float cy = L.row_center(i);
        double start = 0;
        for (const StackSegment& s : bars[i].segments) {
            const double end = start + std::max(0.0, s.value);
            const float a = L.x_of(start), z = L.x_of(end);
            const ImU32 fill = faded(series_color(s.series, frame.theme), bars[i].stale);
            svg.rect(a, cy - L.bar_h * 0.5f, z - a, L.bar_h, fill, c.background, 1);
            if (!bars[i].stale && !s.value_text.empty() && svg_text_width(s.value_text, kFont) + kPad < z - a)
                svg.text((a + z) * 0.5f, cy, s.value_text, text_color_on(fill), kFont, "middle");
            start = end;
        }
        svg.text(L.x0 - kPad, cy, bars[i].label, bars[i].stale ? c.text_dim : c.text, kFont, "end");
        svg.text(L.x_of(start) + kPad, cy, bars[i].total_text, c.text, kFont);
    }
    bar_reference(svg, L, frame, c);
    const float legend_top = L.y1 + kFont * 1.5f + kPad;
    for (size_t i = 0; i < series_names.size(); ++i) {
        const auto [x, y] = legend_at[i];
        svg.rect(x, legend_top + y, swatch, swatch, series_color(static_cast<int>(i), frame.theme), c.text, 1);
        svg.text(x + swatch + kPad * 0.5f, legend_top + y + swatch * 0.5f, series_names[i], c.text, kFont);
    }
    return svg.finish();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Roofline
// ---------------------------------------------------------------------------------------------

std::string roofline_svg(const RooflineData& data, float width, float height) {
    SvgWriter svg(width, height, data.frame.theme);
    const ChartColors c = chart_colors(data.frame.theme);
    const float top = title_block(svg, data.frame.title, data.frame.watermark, c);
    // The axes hold every point, the ridge of the highest roof and a little room either side.
    double top_roof = 0;
    for (const RooflineRoof& r : data.roofs) top_roof = std::max(top_roof, r.flops_per_s);
    const double ridge = data.bytes_per_s > 0 && top_roof > 0 ? top_roof / data.bytes_per_s : 0;
    double x_lo = ridge > 0 ? ridge : 1e300, x_hi = ridge > 0 ? ridge : 0, y_lo = 1e300, y_hi = top_roof;
    auto include = [&](const RooflineMark& m) {
        if (!(m.intensity > 0) || !(m.flops_per_s > 0)) return;
        x_lo = std::min(x_lo, m.intensity);
        x_hi = std::max(x_hi, m.intensity);
        y_lo = std::min(y_lo, m.flops_per_s);
        y_hi = std::max(y_hi, m.flops_per_s);
    };
    for (const RooflinePoint& p : data.points) {
        include(p.at);
        include(p.l2_at);
        for (const RooflineMark& m : p.trail) include(m);
    }
    if (!(x_hi > 0)) x_lo = 0.1, x_hi = 100;
    if (!(y_hi > 0)) y_hi = 1e12;
    if (y_lo > y_hi) y_lo = y_hi / 1000;
    const LogArea a = log_axes(svg, data.frame, top, x_lo / 3, x_hi * 3, y_lo / 3, y_hi * 2, c);
    // Memory roofs (slope 1) up to the highest compute roof, then each compute roof from its ridge.
    auto memory_roof = [&](double bytes_per_s, bool dashed, const std::string& label) {
        if (!(bytes_per_s > 0)) return;
        const double roof = top_roof > 0 ? top_roof : a.yt.hi;
        const double x_start = std::max(a.xt.lo, a.yt.lo / bytes_per_s);
        const double x_end = std::min(a.xt.hi, roof / bytes_per_s);
        if (x_end <= x_start) return;
        svg.line(a.x_of(x_start), a.y_of(x_start * bytes_per_s), a.x_of(x_end), a.y_of(x_end * bytes_per_s), c.text, 2,
                 dashed);
        // A third of the way along (log scale): the lower left, clear of the points and the legend.
        const double x_label = x_start * std::pow(x_end / x_start, 0.3);
        const float angle = static_cast<float>(
            std::atan2(a.y_of(x_end * bytes_per_s) - a.y_of(x_start * bytes_per_s), a.x_of(x_end) - a.x_of(x_start)) *
            180.0 / 3.141592653589793);
        svg.text(a.x_of(x_label), a.y_of(x_label * bytes_per_s) - kFont * 0.8f, label, c.text, kFont * 0.9f, "start",
                 false, angle);
    };
    memory_roof(data.bytes_per_s, false, data.memory_label);
    memory_roof(data.l2_bytes_per_s, true, data.l2_label);
    for (const RooflineRoof& r : data.roofs) {
        if (!(r.flops_per_s > 0) || !(data.bytes_per_s > 0)) continue;
        const double x_start = std::max(a.xt.lo, r.flops_per_s / data.bytes_per_s);
        svg.line(a.x_of(x_start), a.y_of(r.flops_per_s), a.x1, a.y_of(r.flops_per_s), c.text, 2);
        svg.text(a.x1 - kPad, a.y_of(r.flops_per_s) - kFont * 0.8f, r.label, c.text, kFont, "end");
    }
    if (ridge > 0) {
        svg.circle(a.x_of(ridge), a.y_of(top_roof), 4, c.text);
        char ridge_text[48];
        std::snprintf(ridge_text, sizeof ridge_text, "ridge %.3g FLOP/B", ridge);
        svg.text(a.x_of(ridge) + kPad, a.y_of(top_roof) + kFont * 0.9f, ridge_text, c.text_dim, kFont);
    }
    // Arrows first, under the markers: from each baseline to the variant it led to.
    for (const auto& [from, to] : data.arrows) {
        if (from < 0 || to < 0 || static_cast<size_t>(from) >= data.points.size() ||
            static_cast<size_t>(to) >= data.points.size())
            continue;
        const RooflineMark& p0 = data.points[static_cast<size_t>(from)].at;
        const RooflineMark& p1 = data.points[static_cast<size_t>(to)].at;
        const float x0 = a.x_of(p0.intensity), y0 = a.y_of(p0.flops_per_s), x1 = a.x_of(p1.intensity),
                    y1 = a.y_of(p1.flops_per_s);
        const float len = std::hypot(x1 - x0, y1 - y0);
        if (len < 14) continue;
        const float ux = (x1 - x0) / len, uy = (y1 - y0) / len, back = 9, head = 11;
        const float tx = x1 - ux * back, ty = y1 - uy * back;
        svg.line(x0 + ux * back, y0 + uy * back, tx - ux * head * 0.8f, ty - uy * head * 0.8f, c.text_dim, 2);
        svg.polygon({{tx, ty}, {tx - ux * head - uy * head * 0.45f, ty - uy * head + ux * head * 0.45f},
                     {tx - ux * head + uy * head * 0.45f, ty - uy * head - ux * head * 0.45f}},
                    c.text_dim);
    }
    for (const RooflinePoint& p : data.points) {
        const ImU32 color = p.reference ? c.text_dim : series_color(p.series, data.frame.theme);
        for (size_t k = 0; k < p.trail.size(); ++k)
            svg.circle(a.x_of(p.trail[k].intensity), a.y_of(p.trail[k].flops_per_s), 3.5f,
                       (color & ~IM_COL32_A_MASK) | (static_cast<ImU32>(60 + 120 * k / std::max<size_t>(p.trail.size(), 1))
                                                     << IM_COL32_A_SHIFT));
        const float x = a.x_of(p.at.intensity), y = a.y_of(p.at.flops_per_s);
        if (p.l2_at.intensity > 0) {
            const float lx = a.x_of(p.l2_at.intensity), ly = a.y_of(p.l2_at.flops_per_s);
            svg.line(x, y, lx, ly, color, 1);
            svg.rect(lx - 5, ly - 5, 10, 10, color, c.text, 1);
        }
        if (p.reference) {
            svg.polygon({{x, y - 7}, {x + 7, y}, {x, y + 7}, {x - 7, y}}, c.background);
            svg.polyline({{x, y - 7}, {x + 7, y}, {x, y + 7}, {x - 7, y}, {x, y - 7}}, color, 2);
        } else if (p.measured_bytes) {
            svg.circle(x, y, 7, color, c.text, 1);
            if (p.model_at.intensity > 0) svg.circle(a.x_of(p.model_at.intensity), y, 4, 0, color, 1.5f);
        } else {
            svg.circle(x, y, 7, c.background, color, 2.5f);
        }
        // Right of the point, or left of it where the label would run off the plot.
        const bool fits_right = x + 11 + svg_text_width(p.label, kFont) <= width - kPad;
        svg.text(fits_right ? x + 11 : x - 11, y - 10, p.label, p.reference ? c.text_dim : c.text, kFont,
                 fits_right ? "start" : "end");
    }
    // The legend, as the GUI's corner box says it.
    const float lx = a.x1 - kPad - 370, ly = a.y1 - kPad - kFont * 3.6f;  // bottom right: below the roofs
    svg.rect(lx, ly, 370, kFont * 3.6f, c.background, c.grid, 1);
    svg.circle(lx + 12, ly + kFont * 0.9f, 6, c.text_dim, c.text, 1);
    svg.text(lx + 24, ly + kFont * 0.9f, "circle: DRAM bytes (filled measured, hollow model)", c.text, kFont * 0.85f);
    svg.rect(lx + 7, ly + kFont * 2.3f - 5, 10, 10, c.text_dim, c.text, 1);
    svg.text(lx + 24, ly + kFont * 2.3f, "square: L2\xE2\x86\x92SM bytes (model)", c.text, kFont * 0.85f);
    return svg.finish();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Timeline
// ---------------------------------------------------------------------------------------------

std::string timeline_svg(const TimelineFrame& frame, const std::vector<TimelineRow>& rows, const TimelineView& view,
                         float width, float height) {
    SvgWriter svg(width, height, frame.theme);
    const ChartColors c = chart_colors(frame.theme);
    const float top = title_block(svg, frame.title, frame.watermark, c);
    std::vector<std::string> labels;
    for (const TimelineRow& r : rows) {
        labels.push_back(r.label);
        labels.push_back(r.summary);
    }
    const float x0 = kPad + std::min(widest(labels, kFont) + kPad * 2, width * 0.35f), x1 = width - kPad * 2;
    const float y0 = top, y1 = height - kPad - kFont * 1.5f;
    const double t0 = view.t1 > view.t0 ? view.t0 : 0, t1 = view.t1 > view.t0 ? view.t1 : 1;
    auto x_of = [&](double t) { return x0 + static_cast<float>((t - t0) / (t1 - t0)) * (x1 - x0); };
    svg.rect(x0, y0, x1 - x0, y1 - y0, c.background);
    // Time ticks: nice steps, at multiples of the step inside the window (it may start before 0).
    const Ticks ticks = zero_based_ticks(t1 - t0, std::clamp(static_cast<int>((x1 - x0) / 110), 2, 10));
    for (double v = std::ceil(t0 / ticks.step) * ticks.step; v <= t1 + ticks.step * 1e-9; v += ticks.step) {
        const double t = std::fabs(v) < ticks.step * 1e-9 ? 0.0 : v;
        svg.line(x_of(t), y0, x_of(t), y1, c.grid, 1);
        svg.text(x_of(t), y1 + kFont * 0.8f, t == 0 ? std::string("0") : duration_text(t), c.text_dim, kFont, "middle");
    }
    svg.line(x0, y1, x1, y1, c.axis, 1.5f);
    const float row_h = (y1 - y0) / static_cast<float>(std::max<size_t>(rows.size(), 1));
    for (size_t i = 0; i < rows.size(); ++i) {
        const TimelineRow& r = rows[i];
        const float cy = y0 + (static_cast<float>(i) + 0.5f) * row_h, bar_h = std::min(row_h * 0.55f, kFont * 2.2f);
        svg.text(x0 - kPad, cy - (r.summary.empty() ? 0 : kFont * 0.6f), r.label, c.text, kFont, "end", true);
        if (!r.summary.empty()) svg.text(x0 - kPad, cy + kFont * 0.7f, r.summary, c.text_dim, kFont * 0.9f, "end");
        // Idle time behind the bars, tinted: the gaps between kernels read as launch overhead.
        if (!r.spans.empty()) {
            const float a = std::max(x0, x_of(r.spans.front().start_ms)), z = std::min(x1, x_of(r.spans.back().end_ms));
            svg.rect(a, cy - bar_h * 0.5f, z - a, bar_h, c.grid);
        }
        for (const PixelBar& b : pixel_bars(r.spans, t0, t1, x0, x1 - x0)) {
            const ImU32 fill = series_color(r.series, frame.theme);
            svg.rect(b.x0, cy - bar_h * 0.5f, std::max(1.0f, b.x1 - b.x0), bar_h, fill);
            if (b.count() == 1) {
                const std::string& name = r.spans[b.first].name;
                if (svg_text_width(name, kFont * 0.85f) + kPad < b.x1 - b.x0)
                    svg.text((b.x0 + b.x1) * 0.5f, cy, name, text_color_on(fill), kFont * 0.85f, "middle");
            }
        }
    }
    return svg.finish();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Log series
// ---------------------------------------------------------------------------------------------

std::string log_series_svg(const LogPlotFrame& frame, const std::vector<LogSeries>& series, float width, float height) {
    SvgWriter svg(width, height, frame.theme);
    const ChartColors c = chart_colors(frame.theme);
    const float top = title_block(svg, frame.title, frame.watermark, c);
    double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
    for (const LogSeries& s : series)
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
            if (s.x[i] > 0 && s.y[i] > 0) {
                x_lo = std::min(x_lo, s.x[i]);
                x_hi = std::max(x_hi, s.x[i]);
                y_lo = std::min(y_lo, s.y[i]);
                y_hi = std::max(y_hi, s.y[i]);
            }
    if (!(x_hi > 0)) x_lo = 1, x_hi = 10, y_lo = 1, y_hi = 10;
    const LogArea a = log_axes(svg, frame, top, x_lo, x_hi, y_lo, y_hi, c);
    for (const LogSeries& s : series) {
        const ImU32 color = series_color(s.series, frame.theme);
        std::vector<std::pair<float, float>> run;
        auto flush = [&] {
            svg.polyline(run, color, 2.5f, s.dashed);
            run.clear();
        };
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (!(s.x[i] > 0) || !(s.y[i] > 0)) {  // a gap: the curve breaks there
                flush();
                continue;
            }
            run.emplace_back(a.x_of(s.x[i]), a.y_of(s.y[i]));
            svg.circle(a.x_of(s.x[i]), a.y_of(s.y[i]), 4, color);
        }
        flush();
    }
    // Legend in the top-left corner of the plot, as in the GUI.
    float y = a.y0 + kPad + kFont * 0.6f;
    for (const LogSeries& s : series) {
        const ImU32 color = series_color(s.series, frame.theme);
        svg.line(a.x0 + kPad, y, a.x0 + kPad + 24, y, color, 2.5f, s.dashed);
        svg.text(a.x0 + kPad + 30, y, s.name, c.text, kFont);
        y += kFont * 1.3f;
    }
    return svg.finish();
}

}  // namespace viz
