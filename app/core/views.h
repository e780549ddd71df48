// The views of the right-hand side (tabs): one table, so the GUI's tab bar, `fusionlab shot
// --view`, lessons ("view: roofline") and settings agree on the ids. No ImGui here.
#pragma once

#include <string>
#include <vector>

namespace app {

struct ViewInfo {
    const char* id;     // "results": what --view and lesson files say
    const char* label;  // the tab's title: "Measurements"
    const char* short_label;  // where the titles do not all fit (projector fonts): "Results"
    const char* help;   // one line: what the view shows
};

// In tab order.
const std::vector<ViewInfo>& views();
// nullptr when no view has this id.
const ViewInfo* find_view(const std::string& id);
// "results, memory, ...": the legal ids, for messages.
std::string view_ids_text();

// The charts a picture can be made of alone (`shot --chart`, the export menus): PNG of the chart's
// rectangle on screen, or SVG from the data it draws (viz/svg_chart.h).
struct ChartInfo {
    const char* id;     // "time": what --chart says
    const char* view;   // the view that draws it: "results"
    const char* label;  // "time chart": the menus' words
};
const std::vector<ChartInfo>& charts();
const ChartInfo* find_chart(const std::string& id);
std::string chart_ids_text();  // "time, bytes, roofline, timeline, sweep or sweep_bytes"

}  // namespace app
