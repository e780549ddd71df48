// viz: axis ticks are nice and cover the data; the palette keeps series apart on both themes;
// charts draw from plain data in a headless ImGui context (no window, no GL) and report hovers;
// projector scaling rasterises fonts at the scaled size and scales the style from fresh.
#if defined(FUSIONLAB_HAVE_GUI)  // viz needs ImGui, which simulated-only CLI builds may lack

#include "viz/axis.h"
#include "viz/bar_chart.h"
#include "viz/highlight.h"
#include "viz/palette.h"
#include "viz/theme.h"

#include <catch2/catch.hpp>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace {

// An ImGui context that can draw: fonts built, one frame open, one window begun.
struct HeadlessFrame {
    explicit HeadlessFrame(float font_scale = 1.0f, ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX)) {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(1600, 1200);
        io.DeltaTime = 1.0f / 60.0f;
        io.MousePos = mouse;
        viz::load_fonts(font_scale);
        viz::apply_style(viz::Theme::dark, font_scale);
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(io.DisplaySize);
        ImGui::Begin("test", nullptr, ImGuiWindowFlags_NoDecoration);
    }
    ~HeadlessFrame() {
        ImGui::End();
        ImGui::EndFrame();
        ImGui::DestroyContext();
    }
    ImDrawList* draw() { return ImGui::GetWindowDrawList(); }
};

std::vector<viz::RangeBar> two_bars() {
    viz::RangeBar slow{"unfused", 100, true, 95, 110, "100 us", 0};
    viz::RangeBar fast{"fused", 32, true, 31, 35, "32 us", 1};
    return {slow, fast};
}

viz::ChartFrame frame_with(const std::string& watermark) {
    viz::ChartFrame f;
    f.title = "Time per variant";
    f.format_tick = [](double v) { return std::to_string(static_cast<int>(v)) + " us"; };
    f.watermark = watermark;
    return f;
}

}  // namespace

TEST_CASE("viz axis: nice numbers are 1, 2 or 5 times a power of ten", "[viz]") {
    CHECK(viz::nice_number(0.7, false) == Approx(1));
    CHECK(viz::nice_number(1.3, false) == Approx(2));
    CHECK(viz::nice_number(3.1, false) == Approx(5));
    CHECK(viz::nice_number(7, false) == Approx(10));
    CHECK(viz::nice_number(420, true) == Approx(500));
    CHECK(viz::nice_number(0.00013, true) == Approx(0.0001));
    CHECK(viz::nice_number(0, false) == 1);
    CHECK(viz::nice_number(std::nan(""), false) == 1);
}

TEST_CASE("viz axis: zero-based ticks cover the data with few, evenly spaced marks", "[viz]") {
    for (double data_max : {1e-6, 0.37, 1.0, 99.0, 100.0, 101.0, 288.0 * 1048576, 3.3e12}) {
        for (int max_ticks : {1, 3, 5, 8}) {
            const viz::Ticks t = viz::zero_based_ticks(data_max, max_ticks);
            CAPTURE(data_max, max_ticks);
            CHECK(t.values.front() == 0);
            CHECK(t.max >= data_max);
            CHECK(t.max < data_max + t.step * 1.0001);           // no empty step at the end
            CHECK(t.values.size() <= static_cast<size_t>(2 * max_ticks + 1));
            for (size_t i = 1; i < t.values.size(); ++i) CHECK(t.values[i] - t.values[i - 1] == Approx(t.step));
        }
    }
    const viz::Ticks empty = viz::zero_based_ticks(0, 5);
    CHECK(empty.max > 0);
    const viz::Ticks exact = viz::zero_based_ticks(100, 5);
    CHECK(exact.max == Approx(100));
}

TEST_CASE("viz palette: eight distinct series colours on each theme, readable labels", "[viz]") {
    for (viz::Theme theme : {viz::Theme::dark, viz::Theme::light}) {
        std::set<ImU32> colours;
        for (int i = 0; i < viz::kSeriesColorCount; ++i) colours.insert(viz::series_color(i, theme));
        CHECK(colours.size() == static_cast<size_t>(viz::kSeriesColorCount));
        CHECK(viz::series_color(viz::kSeriesColorCount, theme) == viz::series_color(0, theme));
        CHECK(viz::series_color(-1, theme) == viz::series_color(viz::kSeriesColorCount - 1, theme));
    }
    // Black never disappears into the dark background.
    for (int i = 0; i < viz::kSeriesColorCount; ++i) CHECK(viz::series_color(i, viz::Theme::dark) != viz::rgb(0x000000));
    CHECK(viz::text_color_on(viz::rgb(0xF0E442)) == IM_COL32(0, 0, 0, 255));      // yellow: black text
    CHECK(viz::text_color_on(viz::rgb(0x0072B2)) == IM_COL32(255, 255, 255, 255));  // blue: white text
}

TEST_CASE("viz palette: buffer colours apart from each other, from the variants' and readable on both themes", "[viz]") {
    // The colour difference itself: the reference pairs of Sharma, Wu and Dalal (2005) in sRGB.
    CHECK(viz::color_difference(0xFFFFFF, 0xFFFFFF) == Approx(0.0));
    CHECK(viz::color_difference(0x000000, 0xFFFFFF) == Approx(100.0).margin(0.1));
    CHECK(viz::contrast_ratio(0x000000, 0xFFFFFF) == Approx(21.0));
    // ffn's legend once gave W1 and y one blue, W2 and out one orange: buffers share no colour.
    std::set<uint32_t> distinct;
    for (int i = 0; i < viz::kBufferColorCount; ++i) distinct.insert(viz::buffer_rgb(i));
    CHECK(distinct.size() == static_cast<size_t>(viz::kBufferColorCount));
    CHECK(viz::buffer_rgb(viz::kBufferColorCount) == viz::buffer_rgb(0));
    CHECK(viz::rrggbb(viz::buffer_color(2)) == viz::buffer_rgb(2));
    for (int i = 0; i < viz::kBufferColorCount; ++i) {
        const uint32_t c = viz::buffer_rgb(i);
        INFO("buffer colour " << i);
        for (int j = i + 1; j < viz::kBufferColorCount; ++j) CHECK(viz::color_difference(c, viz::buffer_rgb(j)) >= 15.0);
        for (viz::Theme theme : {viz::Theme::dark, viz::Theme::light}) {
            for (int v = 0; v < viz::kSeriesColorCount; ++v)
                CHECK(viz::color_difference(c, viz::rrggbb(viz::series_color(v, theme))) >= 15.0);
            CHECK(viz::contrast_ratio(c, viz::rrggbb(viz::chart_colors(theme).background)) >= 3.0);
        }
        // The memory view's accent (current tile) and overflow reds.
        for (uint32_t accent : {0xF0E442u, 0xD55E00u, 0xFF5C5Cu, 0xC00000u}) CHECK(viz::color_difference(c, accent) >= 15.0);
    }
}

// A lesson ring once pointed at a table scrolled below the fold: the highlighted item scrolls into
// view once per highlight, and the window is then left alone so the presenter can scroll away.
TEST_CASE("viz highlight: the highlighted item scrolls into view once", "[viz]") {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(800, 600);
    io.DeltaTime = 1.0f / 60.0f;
    viz::load_fonts(1.0f);
    viz::apply_style(viz::Theme::dark, 1.0f);
    ImVec2 item_min, item_max, window_min, window_max;
    float scroll = 0;
    // A page whose item lies 2000 px down, in a 600 px window; the highlight names it with `key`.
    const auto frame = [&](const std::string& key, bool scroll_to_top = false) {
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(io.DisplaySize);
        ImGui::Begin("page", nullptr, ImGuiWindowFlags_NoDecoration);
        if (scroll_to_top) ImGui::SetScrollY(0.0f);  // the presenter scrolls (takes effect next frame)
        ImGui::Dummy(ImVec2(100, 2000));
        ImGui::Button("the highlighted table", ImVec2(200, 120));
        item_min = ImGui::GetItemRectMin();
        item_max = ImGui::GetItemRectMax();
        viz::scroll_into_view_once(key, item_min, item_max);
        ImGui::Dummy(ImVec2(100, 2000));
        window_min = ImGui::GetWindowPos();
        window_max = ImVec2(window_min.x + ImGui::GetWindowWidth(), window_min.y + ImGui::GetWindowHeight());
        scroll = ImGui::GetScrollY();
        ImGui::End();
        ImGui::Render();
    };
    for (int i = 0; i < 4; ++i) frame("lesson 1 step 2: results.table");
    CHECK(scroll > 1000);
    CHECK(item_min.y >= window_min.y);
    CHECK(item_max.y <= window_max.y);
    // The presenter scrolls back to the top: the same highlight does not pull the page again.
    frame("lesson 1 step 2: results.table", true);
    for (int i = 0; i < 3; ++i) frame("lesson 1 step 2: results.table");
    CHECK(scroll == 0);
    // The next step's highlight does.
    for (int i = 0; i < 4; ++i) frame("lesson 1 step 3: results.table");
    CHECK(scroll > 1000);
    ImGui::DestroyContext();
}

TEST_CASE("viz theme: fonts are rasterised at the scaled size and the style scales from fresh", "[viz]") {
    for (float scale : {1.0f, 2.0f, 3.0f}) {
        ImGui::CreateContext();
        const viz::FontSet fonts = viz::load_fonts(scale);
        REQUIRE(fonts.body);
        CHECK(fonts.body->FontSize == Approx(viz::kBaseFontPx * scale));
        CHECK(fonts.heading->FontSize == Approx(viz::kBaseFontPx * scale * viz::kHeadingRatio));
        CHECK(fonts.bold->FontSize == Approx(viz::kBaseFontPx * scale));
        CHECK_FALSE(fonts.note.empty());
        // Applying twice must not compound the scale.
        viz::apply_style(viz::Theme::light, scale);
        viz::apply_style(viz::Theme::light, scale);
        CHECK(ImGui::GetStyle().FramePadding.x == Approx(std::floor(6.0f * scale)));
        CHECK(ImGui::GetStyle().Colors[ImGuiCol_Text].x == 0.0f);  // black text on light
        viz::apply_style(viz::Theme::dark, scale);
        CHECK(ImGui::GetStyle().Colors[ImGuiCol_Text].x == 1.0f);  // white text on dark
        ImGui::DestroyContext();
    }
}

TEST_CASE("viz charts: range and stacked bars draw from plain data", "[viz]") {
    HeadlessFrame frame;
    ImDrawList* draw = frame.draw();
    const int before = draw->VtxBuffer.Size;
    const viz::ChartHover none = viz::draw_range_bars(draw, ImVec2(10, 10), ImVec2(600, 240), frame_with("SIMULATED"), two_bars());
    const int after_range = draw->VtxBuffer.Size;
    CHECK(after_range > before);
    CHECK(none.bar == -1);  // the mouse is nowhere

    std::vector<viz::StackedBar> stacked{
        {"unfused", {{0, 64, "64 MiB"}, {1, 128, "128 MiB"}, {2, 96, "96 MiB"}}, "288 MiB"},
        {"fused", {{0, 64, "64 MiB"}, {2, 32, "32 MiB"}}, "96 MiB"},
    };
    viz::ChartFrame bytes = frame_with("");
    bytes.reference_value = 96;
    bytes.reference_label = "minimum";
    viz::draw_stacked_bars(draw, ImVec2(10, 300), ImVec2(600, 300), bytes, stacked, {"x", "h1", "out"});
    CHECK(draw->VtxBuffer.Size > after_range);
}

// The vertical extent of each glyph (ImGui draws one as a quad: 4 vertices) of colour `col` added
// to the draw list since vertex `from`.
std::vector<std::pair<float, float>> glyph_spans(const ImDrawList* draw, int from, ImU32 col) {
    std::vector<std::pair<float, float>> spans;
    std::vector<float> ys;
    for (int i = from; i < draw->VtxBuffer.Size; ++i) {
        if (draw->VtxBuffer[i].col != col) continue;
        ys.push_back(draw->VtxBuffer[i].pos.y);
        if (ys.size() == 4) {
            spans.emplace_back(*std::min_element(ys.begin(), ys.end()), *std::max_element(ys.begin(), ys.end()));
            ys.clear();
        }
    }
    return spans;
}

TEST_CASE("viz charts: the watermark lies between rows, never behind a bar's value", "[viz]") {
    const viz::ChartColors colors = viz::chart_colors(viz::Theme::dark);
    viz::RangeBar middle{"fused_spill", 87, true, 85, 88, "86.7 us", 2};
    for (float scale : {1.0f, 2.0f}) {
        HeadlessFrame frame(scale);
        ImDrawList* draw = frame.draw();
        // Three bars, sized as the results view sizes them: the watermark is drawn, and no letter of it
        // shares a line with the row labels and values (all in the text colour).
        std::vector<viz::RangeBar> three = two_bars();
        three.push_back(middle);
        const int before = draw->VtxBuffer.Size;
        viz::draw_range_bars(draw, ImVec2(10, 10), ImVec2(560, viz::preferred_chart_height(3)),
                             frame_with("RECORDED 2026-11-28"), three);
        const auto marks = glyph_spans(draw, before, colors.watermark);
        CHECK(marks.size() >= 10);
        const auto texts = glyph_spans(draw, before, colors.text);
        REQUIRE(!texts.empty());
        int overlapping = 0;
        for (const auto& [top, bottom] : marks)
            for (const auto& [t, b] : texts)
                if (top < b && t < bottom) ++overlapping;
        CHECK(overlapping == 0);
        // One bar has no gap between rows: no watermark (the title names the source).
        const int one_before = draw->VtxBuffer.Size;
        viz::draw_range_bars(draw, ImVec2(10, 400), ImVec2(560, viz::preferred_chart_height(1)),
                             frame_with("RECORDED 2026-11-28"), {middle});
        CHECK(glyph_spans(draw, one_before, colors.watermark).empty());
    }
}

TEST_CASE("viz charts: empty data and tiny rectangles draw without failing", "[viz]") {
    HeadlessFrame frame;
    ImDrawList* draw = frame.draw();
    CHECK(viz::draw_range_bars(draw, ImVec2(0, 0), ImVec2(400, 200), frame_with(""), {}).bar == -1);
    CHECK(viz::draw_stacked_bars(draw, ImVec2(0, 0), ImVec2(400, 200), frame_with(""), {}, {}).bar == -1);
    CHECK(viz::draw_range_bars(draw, ImVec2(0, 0), ImVec2(5, 5), frame_with("SIMULATED"), two_bars()).bar == -1);
    std::vector<viz::RangeBar> zeros{{"a", 0, false, 0, 0, "0", 0}};
    CHECK(viz::draw_range_bars(draw, ImVec2(0, 0), ImVec2(400, 200), frame_with(""), zeros).bar == -1);
}

TEST_CASE("viz charts: the bar under the mouse is reported", "[viz]") {
    // Chart at (0,0) 800x1000: the title and axis take little room, so y = 750 is in the
    // second bar's row and y = 300 in the first's.
    {
        HeadlessFrame frame(1.0f, ImVec2(400, 750));
        CHECK(viz::draw_range_bars(frame.draw(), ImVec2(0, 0), ImVec2(800, 1000), frame_with(""), two_bars()).bar == 1);
    }
    {
        HeadlessFrame frame(1.0f, ImVec2(400, 300));
        CHECK(viz::draw_range_bars(frame.draw(), ImVec2(0, 0), ImVec2(800, 1000), frame_with(""), two_bars()).bar == 0);
    }
}

TEST_CASE("viz charts: the legend wraps to more lines when narrow", "[viz]") {
    HeadlessFrame frame;
    const std::vector<std::string> names{"x", "gamma", "beta", "residual", "h1", "h2", "h3", "out"};
    const float wide = viz::legend_height(names, 2000);
    const float narrow = viz::legend_height(names, 150);
    CHECK(wide > 0);
    CHECK(narrow > wide * 2);
    CHECK(viz::legend_height({}, 500) == 0);
}

#endif  // FUSIONLAB_HAVE_GUI
