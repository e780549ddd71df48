// The roofline and log-series plots draw from plain data in a headless ImGui context: the point's
// DRAM circle and L2 square, a trail mark, the ridge and the legend can each be found under the
// mouse; the labels it records stay apart and inside the plot; zero or tiny data and tiny
// rectangles draw without failing; the legend gives way to direct labels in short plots.
#if defined(FUSIONLAB_HAVE_GUI)

#include "viz/label_layout.h"
#include "viz/log_plot.h"
#include "viz/roofline.h"
#include "viz/theme.h"

#include <catch2/catch.hpp>
#include <imgui.h>

#include <algorithm>
#include <cfloat>

namespace {

struct Frame {
    Frame() {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(1600, 1200);
        io.DeltaTime = 1.0f / 60.0f;
        viz::load_fonts(1.0f);
        viz::apply_style(viz::Theme::dark, 1.0f);
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(io.DisplaySize);
        ImGui::Begin("test", nullptr, ImGuiWindowFlags_NoDecoration);
    }
    ~Frame() {
        ImGui::End();
        ImGui::EndFrame();
        ImGui::DestroyContext();
    }
    ImDrawList* draw() { return ImGui::GetWindowDrawList(); }
};

viz::RooflineData h100_like() {
    viz::RooflineData d;
    d.frame.title = "Roofline";
    d.bytes_per_s = 3.35e12;
    d.memory_label = "DRAM 3350 GB/s";
    d.l2_bytes_per_s = 7.7e12;
    d.l2_label = "L2\xE2\x86\x92SM 7700 GB/s (model estimate)";
    d.roofs = {{"tensor 989 TFLOP/s", 989e12, "tensor 989T"}, {"FP32 67 TFLOP/s", 67e12, "FP32 67T"}};
    viz::RooflinePoint naive;
    naive.label = "naive";
    naive.at = {30, 100e12};
    naive.l2_at = {30, 100e12};  // no reuse: both levels at one intensity
    viz::RooflinePoint flash;
    flash.label = "flash";
    flash.series = 1;
    flash.at = {120, 300e12};
    flash.measured_bytes = true;
    flash.model_at = {100, 300e12};
    flash.l2_at = {8, 300e12};    // K and V re-read from L2: far left of the DRAM circle
    flash.trail = {{100, 250e12}, {110, 280e12}};
    d.points = {naive, flash};
    d.arrows = {{0, 1}};
    return d;
}

// Scans the rectangle for a mouse position where `pred` holds.
template <typename Pred>
bool found_somewhere(ImDrawList* draw, ImVec2 origin, ImVec2 size, const viz::RooflineData& d, Pred pred) {
    for (float y = origin.y; y < origin.y + size.y; y += 3)
        for (float x = origin.x; x < origin.x + size.x; x += 3)
            if (pred(viz::draw_roofline(draw, origin, size, d, ImVec2(x, y)))) return true;
    return false;
}

}  // namespace

TEST_CASE("roofline view: a point, a trail mark and the ridge are found under the mouse", "[viz]") {
    Frame f;
    const viz::RooflineData d = h100_like();
    const ImVec2 origin(10, 10), size(600, 400);
    CHECK(viz::draw_roofline(f.draw(), origin, size, d, ImVec2(-FLT_MAX, -FLT_MAX)).point == -1);
    CHECK(found_somewhere(f.draw(), origin, size, d, [](const viz::RooflineHover& h) { return h.point == 0 && h.trail == -1; }));
    CHECK(found_somewhere(f.draw(), origin, size, d, [](const viz::RooflineHover& h) { return h.point == 1 && h.trail == 0; }));
    CHECK(found_somewhere(f.draw(), origin, size, d, [](const viz::RooflineHover& h) { return h.ridge; }));
    CHECK(found_somewhere(f.draw(), origin, size, d, [](const viz::RooflineHover& h) { return h.point == 1 && h.l2; }));
    CHECK(found_somewhere(f.draw(), origin, size, d, [](const viz::RooflineHover& h) { return h.legend; }));
}

TEST_CASE("roofline view: roofs, legend and points are labelled, apart and inside the plot", "[viz][labels]") {
    Frame f;
    const viz::RooflineData d = h100_like();
    viz::LabelRecording recording;
    viz::draw_roofline(f.draw(), ImVec2(10, 10), ImVec2(700, 450), d, ImVec2(-FLT_MAX, -FLT_MAX));
    std::vector<std::string> texts;
    for (const viz::PlacedLabel& l : recording.labels) texts.push_back(l.text);
    for (const char* want : {"tensor 989 TFLOP/s", "FP32 67 TFLOP/s", "DRAM 3350 GB/s", "L2\xE2\x86\x92SM 7700 GB/s (model estimate)",
                             "DRAM (model)", "DRAM (counters)", "L2\xE2\x86\x92SM", "naive", "flash"})
        CHECK(std::find(texts.begin(), texts.end(), want) != texts.end());
    INFO(viz::label_problems(recording.labels).size());
    CHECK(viz::label_problems(recording.labels).empty());
}

TEST_CASE("roofline view: empty, zero and tiny inputs draw without failing", "[viz]") {
    Frame f;
    viz::RooflineData empty;
    CHECK(viz::draw_roofline(f.draw(), ImVec2(0, 0), ImVec2(400, 300), empty, ImVec2(0, 0)).point == -1);
    viz::RooflineData d = h100_like();
    d.points[0].at = {0, 0};            // 0 FLOPs: not drawn, not hoverable
    d.points[1].at = {1e-6, 1e3};       // tiny intensity: the axis widens
    const int before = f.draw()->VtxBuffer.Size;
    viz::draw_roofline(f.draw(), ImVec2(0, 0), ImVec2(400, 300), d, ImVec2(-FLT_MAX, -FLT_MAX));
    CHECK(f.draw()->VtxBuffer.Size > before);
    viz::draw_roofline(f.draw(), ImVec2(0, 0), ImVec2(20, 10), d, ImVec2(5, 5));  // too small: title only
}

TEST_CASE("log series: the marker under the mouse is reported with its index", "[viz]") {
    Frame f;
    viz::LogPlotFrame frame;
    frame.title = "time";
    const viz::LogPlotArea a = viz::draw_log_frame(f.draw(), ImVec2(0, 0), ImVec2(500, 400), frame, 100, 10000, 1, 1000);
    REQUIRE(a.fits);
    const std::vector<viz::LogSeries> series = {{"naive", 0, false, {100, 1000, 10000}, {1, 10, 100}},
                                                {"flash", 1, true, {100, 1000, 10000}, {2, 20, 0}}};
    int point = -1;
    const ImVec2 at = a.to_screen(1000, 20);
    CHECK(viz::draw_log_series(f.draw(), a, series, viz::Theme::dark, at, &point) == 1);
    CHECK(point == 1);
    CHECK(viz::draw_log_series(f.draw(), a, series, viz::Theme::dark, ImVec2(-FLT_MAX, -FLT_MAX), &point) == -1);
}

// Lesson 10's roofline put "flash_tc" beside flash_wgmma's circle and "flash_wgmma" beside
// flash_tc's: two points at one intensity, a few pixels apart. Each label must sit nearer its own
// point than the other one, or the class reads the chart the wrong way round.
TEST_CASE("roofline view: two close points' labels each sit nearer their own point", "[viz][labels]") {
    Frame f;
    viz::RooflineData d = h100_like();
    viz::RooflinePoint tc, wgmma;
    tc.label = "flash_tc";
    tc.series = 2;
    tc.at = {1900, 330e12};
    tc.l2_at = {120, 330e12};
    wgmma.label = "flash_wgmma";
    wgmma.series = 3;
    wgmma.at = {1900, 420e12};
    wgmma.l2_at = {120, 420e12};
    d.points = {d.points[0], tc, wgmma};
    d.arrows.clear();
    const ImVec2 origin(10, 10), size(760, 440);
    // Where each point is on screen: found under the mouse.
    ImVec2 at[3]{};
    for (float y = origin.y; y < origin.y + size.y; y += 1)
        for (float x = origin.x + size.x * 0.6f; x < origin.x + size.x; x += 1) {
            const viz::RooflineHover h = viz::draw_roofline(f.draw(), origin, size, d, ImVec2(x, y));
            if (h.point > 0 && !h.l2 && h.trail < 0 && at[h.point].x == 0) at[h.point] = ImVec2(x, y);
        }
    REQUIRE(at[1].x > 0);
    REQUIRE(at[2].x > 0);
    viz::LabelRecording recording;  // the labels of one drawing, after the search above
    viz::draw_roofline(f.draw(), origin, size, d, ImVec2(-FLT_MAX, -FLT_MAX));
    const auto distance = [](const viz::LabelRect& r, ImVec2 p) {
        const float dx = std::max({r.x0 - p.x, 0.0f, p.x - r.x1}), dy = std::max({r.y0 - p.y, 0.0f, p.y - r.y1});
        return dx * dx + dy * dy;
    };
    int checked = 0;
    for (const viz::PlacedLabel& l : recording.labels) {
        if (l.text != "flash_tc" && l.text != "flash_wgmma") continue;
        const ImVec2 mine = l.text == "flash_tc" ? at[1] : at[2], other = l.text == "flash_tc" ? at[2] : at[1];
        INFO(l.text);
        CHECK(distance(l.rect, mine) < distance(l.rect, other));
        ++checked;
    }
    CHECK(checked == 2);
}

#endif  // FUSIONLAB_HAVE_GUI
