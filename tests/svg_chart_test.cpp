// viz/svg_chart: each chart's SVG is well-formed XML (every element closed, attributes quoted,
// text escaped) and holds the chart's numbers as text; and app/files/gif_writer: a GIF of a few
// frames reads back with its size, frame count and pixels.
#include "viz/svg_chart.h"

#include "app/files/gif_writer.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A small XML well-formedness check: tags nest and close in order, attribute values are quoted,
// '&' only starts an entity, '<' never appears in text. Returns "" or what is wrong.
std::string xml_problem(const std::string& xml) {
    std::vector<std::string> open;
    size_t i = 0;
    if (xml.rfind("<?xml", 0) == 0) i = xml.find("?>") + 2;
    while (i < xml.size()) {
        if (xml[i] == '&') {
            const size_t semi = xml.find(';', i);
            const std::string entity = xml.substr(i, semi == std::string::npos ? 8 : semi - i + 1);
            if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;")
                return "stray '&' at " + std::to_string(i);
            i = semi + 1;
            continue;
        }
        if (xml[i] != '<') {
            if (xml[i] == '>') return "stray '>' at " + std::to_string(i);
            ++i;
            continue;
        }
        const size_t end = xml.find('>', i);
        if (end == std::string::npos) return "unclosed tag at " + std::to_string(i);
        std::string tag = xml.substr(i + 1, end - i - 1);
        i = end + 1;
        if (tag.empty()) return "empty tag";
        if (tag[0] == '/') {
            if (open.empty() || open.back() != tag.substr(1)) return "</" + tag.substr(1) + "> closes nothing open";
            open.pop_back();
            continue;
        }
        // Attribute values quoted: an even number of quotes inside the tag.
        size_t quotes = 0;
        for (char c : tag) quotes += c == '"';
        if (quotes % 2) return "odd quotes in <" + tag + ">";
        if (tag.find('<') != std::string::npos) return "'<' inside <" + tag + ">";
        const bool self_closing = tag.back() == '/';
        const std::string name = tag.substr(0, tag.find_first_of(" /"));
        if (!self_closing) open.push_back(name);
    }
    if (!open.empty()) return "<" + open.back() + "> never closed";
    return "";
}

viz::ChartFrame frame(const std::string& title) {
    viz::ChartFrame f;
    f.title = title;
    f.format_tick = [](double v) { return std::to_string(static_cast<int>(v)) + " ms"; };
    f.theme = viz::Theme::light;
    return f;
}

}  // namespace

TEST_CASE("svg: the checker itself rejects broken XML", "[svg]") {
    CHECK(xml_problem("<svg><text>a &amp; b</text></svg>").empty());
    CHECK_FALSE(xml_problem("<svg><text>a & b</text></svg>").empty());
    CHECK_FALSE(xml_problem("<svg><text>a</svg>").empty());
    CHECK_FALSE(xml_problem("<svg><rect x=\"1/></svg>").empty());
}

TEST_CASE("svg: the time chart holds each bar's label and value, escaped, as text", "[svg]") {
    std::vector<viz::RangeBar> bars(2);
    bars[0].label = "unfused";
    bars[0].value = 4.2;
    bars[0].value_text = "4.20 ms";
    bars[1].label = "fused <&> \"spill\"";
    bars[1].value = 1.5;
    bars[1].value_text = "1.50 ms (updating)";
    bars[1].stale = true;
    const std::string svg = viz::range_bars_svg(frame("Time per variant (model estimate)"), bars);
    INFO(svg);
    CHECK(xml_problem(svg).empty());
    CHECK(contains(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(contains(svg, ">unfused</text>"));
    CHECK(contains(svg, ">4.20 ms</text>"));
    CHECK(contains(svg, ">fused &lt;&amp;&gt; &quot;spill&quot;</text>"));
    CHECK(contains(svg, ">1.50 ms (updating)</text>"));
    CHECK(contains(svg, ">Time per variant (model estimate)</text>"));
    // The stale bar is drawn faded: its fill carries an opacity below 1.
    CHECK(contains(svg, "fill-opacity=\"0.33\""));
}

TEST_CASE("svg: the bytes chart holds segments, totals, the minimum and the legend", "[svg]") {
    viz::ChartFrame f = frame("DRAM bytes per variant (model), by buffer");
    f.reference_value = 2;
    f.reference_label = "minimum";
    viz::StackedBar a{"unfused", {{0, 3, "3 MiB"}, {1, 5, "5 MiB"}}, "8.00 MiB"};
    viz::StackedBar b{"fused", {{0, 3, "3 MiB"}}, "3.00 MiB"};
    const std::string svg = viz::stacked_bars_svg(f, {a, b}, {"x", "h1"});
    INFO(svg);
    CHECK(xml_problem(svg).empty());
    CHECK(contains(svg, ">8.00 MiB</text>"));
    CHECK(contains(svg, ">3.00 MiB</text>"));
    CHECK(contains(svg, ">minimum</text>"));
    CHECK(contains(svg, ">h1</text>"));
    CHECK(contains(svg, ">DRAM bytes per variant (model), by buffer</text>"));
}

TEST_CASE("svg: the roofline holds its roofs, points and arrows - the timeline and sweep their rows", "[svg]") {
    viz::RooflineData d;
    d.frame.title = "Roofline: attention, bf16 on H100";
    d.frame.theme = viz::Theme::dark;
    d.frame.watermark = "model estimate";
    d.bytes_per_s = 3e12;
    d.memory_label = "DRAM 3000 GB/s";
    d.l2_bytes_per_s = 10e12;
    d.l2_label = "L2\xE2\x86\x92SM 10 TB/s";
    d.roofs.push_back({"tensor 700 TFLOP/s", 7e14, "tensor 700T"});
    viz::RooflinePoint naive, flash;
    naive.label = "naive";
    naive.at = {50, 1e14};
    flash.label = "flash_tc";
    flash.series = 2;
    flash.at = {500, 4e14};
    flash.l2_at = {100, 4e14};
    d.points = {naive, flash};
    d.arrows = {{0, 1}};
    const std::string svg = viz::roofline_svg(d);
    INFO(svg);
    CHECK(xml_problem(svg).empty());
    CHECK(contains(svg, ">naive</text>"));
    CHECK(contains(svg, ">flash_tc</text>"));
    CHECK(contains(svg, ">tensor 700 TFLOP/s</text>"));
    CHECK(contains(svg, ">L2\xE2\x86\x92SM 10 TB/s</text>"));
    CHECK(contains(svg, ">model estimate</text>"));  // the source under the title, not across the plot
    CHECK(contains(svg, "<polygon"));                 // the arrow's head

    viz::TimelineFrame tf;
    tf.title = "launch on H100";
    std::vector<viz::TimelineRow> rows = {{"stream", "3 kernels, idle 40 %", {{"step", 0, 0.001}, {"step", 0.002, 0.003}}, 0},
                                          {"fused", "1 kernel", {{"fused_steps", 0, 0.0015}}, 2}};
    const std::string tl = viz::timeline_svg(tf, rows, viz::fit_view(rows));
    INFO(tl);
    CHECK(xml_problem(tl).empty());
    CHECK(contains(tl, ">stream</text>"));
    CHECK(contains(tl, ">3 kernels, idle 40 %</text>"));

    viz::LogPlotFrame lf;
    lf.title = "Time vs size";
    lf.x_title = "N";
    const std::vector<viz::LogSeries> series = {{"naive", 0, false, {1024, 2048, 4096}, {0.1, 0.4, 1.6}},
                                                {"flash", 1, true, {1024, 2048, 4096}, {0.05, 0.2, 0.8}}};
    const std::string sweep = viz::log_series_svg(lf, series);
    INFO(sweep);
    CHECK(xml_problem(sweep).empty());
    CHECK(contains(sweep, ">naive</text>"));
    CHECK(contains(sweep, "stroke-dasharray"));  // the dashed series
    CHECK(contains(sweep, "<polyline"));
}

TEST_CASE("gif: frames round-trip with their size, count and colours", "[gif]") {
    const int w = 37, h = 23;  // odd sizes: no row padding assumptions
    std::vector<app::GifFrame> frames(3);
    for (int f = 0; f < 3; ++f) {
        frames[static_cast<size_t>(f)].rgba.resize(static_cast<size_t>(w * h * 4));
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                uint8_t* p = &frames[static_cast<size_t>(f)].rgba[static_cast<size_t>((y * w + x) * 4)];
                // A moving square of one colour on a striped background: flat colours, as UI pictures are.
                const bool square = x >= f * 8 && x < f * 8 + 10 && y >= 5 && y < 15;
                p[0] = square ? 230 : static_cast<uint8_t>(x % 2 ? 20 : 200);
                p[1] = square ? 120 : 40;
                p[2] = square ? 10 : static_cast<uint8_t>(y * 10);
                p[3] = 255;
            }
    }
    const std::vector<uint8_t> gif = app::encode_gif(w, h, frames, 40);
    const app::GifInfo info = app::read_gif_info(gif);
    INFO(info.error);
    REQUIRE(info.ok);
    CHECK(info.width == w);
    CHECK(info.height == h);
    CHECK(info.frames == 3);
    CHECK(info.loops);
    for (int f = 0; f < 3; ++f) {
        const std::vector<uint8_t> back = app::decode_gif_frame(gif, f);
        REQUIRE(back.size() == frames[static_cast<size_t>(f)].rgba.size());
        int worst = 0;
        for (size_t i = 0; i < back.size(); ++i)
            if (i % 4 != 3)
                worst = std::max(worst, std::abs(static_cast<int>(back[i]) - frames[static_cast<size_t>(f)].rgba[i]));
        CHECK(worst <= 8);  // fewer than 256 colours: each survives within its 5-bit bucket
    }
    CHECK_THROWS_AS(app::encode_gif(w, h, {}, 40), std::invalid_argument);
    CHECK_THROWS_AS(app::encode_gif(w + 1, h, frames, 40), std::invalid_argument);
    CHECK_FALSE(app::read_gif_info({'G', 'I', 'F'}).ok);
}

TEST_CASE("gif: a picture of many colours stays a valid GIF (palette of 256, LZW table resets)", "[gif]") {
    const int w = 300, h = 200;  // 60000 pixels of ~30000 colours: the code table fills and restarts
    app::GifFrame frame;
    frame.rgba.resize(static_cast<size_t>(w * h * 4));
    for (int i = 0; i < w * h; ++i) {
        frame.rgba[static_cast<size_t>(i) * 4] = static_cast<uint8_t>(i * 7);
        frame.rgba[static_cast<size_t>(i) * 4 + 1] = static_cast<uint8_t>(i / 3);
        frame.rgba[static_cast<size_t>(i) * 4 + 2] = static_cast<uint8_t>(i * 13 / 11);
        frame.rgba[static_cast<size_t>(i) * 4 + 3] = 255;
    }
    const std::vector<uint8_t> gif = app::encode_gif(w, h, {frame}, 10);
    const app::GifInfo info = app::read_gif_info(gif);
    REQUIRE(info.ok);
    CHECK(info.frames == 1);
    CHECK(app::decode_gif_frame(gif, 0).size() == frame.rgba.size());
}
