// The browser side of app/gui/page_window.h (compiled only by emscripten, web/CMakeLists.txt).
//
// Index:
//   [SECTION] Canvas size: the page's size and pixel density
//   [SECTION] Files opened from the user's disk: lessons, recordings, results
//   [SECTION] Test hook: window.flApp (web/site/page.js) calls these between frames
#include "app/gui/page_window.h"

#if defined(__EMSCRIPTEN__)

#include "app/files/export.h"
#include "app/core/jobs.h"
#include "app/lessons/model/lesson.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/lesson_player.h"
#include "app/core/panels_state.h"
#include "app/platform/platform_host.h"
#include "app/recordings/recording_file.h"
#include "app/core/runner.h"
#include "app/core/settings.h"
#include "app/lessons/parser.h"

#include <emscripten.h>
#include <emscripten/html5.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace app {

namespace {

namespace fs = std::filesystem;

AppState* g_state = nullptr;  // the interactive app's, for the test hook (one page, one app)
double g_batch_ms = -1;       // the last {"time_batch": true}: the current settings' batch, run whole
Runner* g_runner = nullptr;
int g_frames = 0;             // serve_page calls = frames begun; frames drawn = this - 1

// ---------------------------------------------------------------------------------------------
// [SECTION] Canvas size
// ---------------------------------------------------------------------------------------------

// The canvas fills the page (web/site/index.html's CSS); its drawing buffer, and so the GLFW window
// the app lays out in, follows the CSS size in device pixels, so a high-density screen gets sharp
// text. Mouse positions arrive in the same device pixels (emscripten scales them to the drawing
// buffer), and page.js starts a first visit with --font-scale = the pixel ratio, so text has its
// usual size; the user's own font scale is kept from then on, as on the desktop.
void follow_page_size(GLFWwindow* window) {
    double css_w = 0, css_h = 0;
    if (emscripten_get_element_css_size("#canvas", &css_w, &css_h) != EMSCRIPTEN_RESULT_SUCCESS) return;
    const double ratio = std::max(1.0, emscripten_get_device_pixel_ratio());
    const int w = std::max(1, static_cast<int>(std::lround(css_w * ratio)));
    const int h = std::max(1, static_cast<int>(std::lround(css_h * ratio)));
    int cur_w = 0, cur_h = 0;
    glfwGetWindowSize(window, &cur_w, &cur_h);
    if (cur_w != w || cur_h != h) glfwSetWindowSize(window, w, h);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Files opened from the user's disk
// ---------------------------------------------------------------------------------------------

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A .lesson file: parsed whole; with any error nothing is added and the page lists the errors.
std::string open_lesson_file(AppState& state, const platform::OpenedFile& f) {
    LessonParse parsed = parse_lesson(f.name, read_all(f.path));
    if (!parsed.ok()) {
        std::string text = f.name + " is not a valid lesson (nothing was opened):";
        for (size_t i = 0; i < parsed.errors.size() && i < 5; ++i) text += "\n" + parsed.errors[i].text();
        if (parsed.errors.size() > 5) text += "\n... and " + std::to_string(parsed.errors.size() - 5) + " more";
        return text;
    }
    ensure_lessons_loaded(state);
    std::vector<Lesson>& lessons = state.lesson.lessons;
    int index = -1;
    for (size_t i = 0; i < lessons.size(); ++i)
        if (lessons[i].name == parsed.lesson.name) index = static_cast<int>(i);  // opened again: replace it
    if (index < 0) {
        lessons.push_back(std::move(parsed.lesson));
        index = static_cast<int>(lessons.size()) - 1;
    } else {
        lessons[static_cast<size_t>(index)] = std::move(parsed.lesson);
    }
    state.lesson.open = true;
    open_lesson(state, index, 0, ImGui::GetTime());
    return "";
}

// A recording.json: read whole (load_recording refuses a broken one with its reason), then put
// beside the shipped ones and selected. The catalog is read once per value of $FUSIONLAB_RECORDINGS
// (app/recordings/recording_file.cpp), so the folder is named anew ("/data/recordings/." per opened file)
// to make it read the folder again.
std::string open_recording_file(AppState& state, const platform::OpenedFile& f) {
    Recording rec;
    if (std::string why = load_recording(f.path, rec); !why.empty())
        return f.name + " is not a usable recording (nothing was opened): " + why;
    static int opened = 0;
    const fs::path dir = fs::path("/data/recordings") / ("opened-" + std::to_string(++opened) + "-" + rec.key);
    std::error_code ec;
    fs::create_directories(dir, ec);
    fs::copy_file(f.path, dir / "recording.json", fs::copy_options::overwrite_existing, ec);
    if (ec) return "cannot keep " + f.name + ": " + ec.message();
    std::string folder = "/data/recordings";
    for (int i = 0; i < opened; ++i) folder += "/.";
    ::setenv("FUSIONLAB_RECORDINGS", folder.c_str(), 1);
    state.settings.backend = std::string(kRecordedBackendPrefix) + rec.key;
    mark_changed(state, ImGui::GetTime());
    return "";
}

void open_user_file(AppState& state, const platform::OpenedFile& f) {
    std::string why;
    const std::string text = read_all(f.path);
    if (f.name.ends_with(".lesson")) {
        why = open_lesson_file(state, f);
    } else if (!f.name.ends_with(".json")) {
        why = f.name + ": not a file fusionlab opens (a .lesson, a recording.json or a results .json export)";
    } else {
        // A recording has a "recording" header (or the recordings' file name, so a cut-short one gets
        // load_recording's "truncated?"); anything else is tried as a results export.
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        if ((j.is_object() && j.contains("recording")) || f.name.ends_with("recording.json"))
            why = open_recording_file(state, f);
        else if (j.is_discarded())
            why = f.name + " is not JSON (nothing was opened)";
        else if (std::string e = import_results(state, f.path); !e.empty())
            why = f.name + " (nothing was opened): " + e;
    }
    platform::show_page_message(why.empty() ? "opened " + f.name : why, !why.empty());
}

}  // namespace

void serve_page(GLFWwindow* window, AppState& state, Runner& runner) {
    g_state = &state;
    g_runner = &runner;
    if (++g_frames == 2) EM_ASM(flPage.firstFrameDrawn());
    follow_page_size(window);
    for (const platform::OpenedFile& f : platform::take_opened_files()) open_user_file(state, f);
}

}  // namespace app

// ---------------------------------------------------------------------------------------------
// [SECTION] Test hook
// ---------------------------------------------------------------------------------------------
// JSON in, JSON out (malloc'd; page.js frees it). Called by web/site/page.js's window.flApp, which
// tests/web/web_test.py drives: reading the results table is sturdier than reading pixels.

namespace {

char* to_c(const std::string& text) {
    char* out = static_cast<char*>(std::malloc(text.size() + 1));
    std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
}

}  // namespace

extern "C" {

// {"frames": drawn, "busy": runner busy or a change not yet measured, "backend": setting,
//  "device": what the numbers come from, "view": tab shown, "params": {...}, "results": [...],
//  "messages": {...}}
EMSCRIPTEN_KEEPALIVE char* fl_test_snapshot() {
    using app::g_state;
    nlohmann::ordered_json j;
    j["frames"] = std::max(0, app::g_frames - 1);
    if (!g_state || !app::g_runner) return to_c(j.dump());
    const app::AppState& s = *g_state;
    j["busy"] = app::g_runner->busy() || s.params_dirty || s.live.quick_running || s.live.full_pending || s.live.full_running;
    j["backend"] = s.settings.backend;
    j["device"] = app::current_backend(s, *app::g_runner).device.name;
    j["view"] = s.active_view;
    j["settings"] = nlohmann::json::parse(app::settings_to_json(s.settings));
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (const kernels::Measurement* m : app::visible_results(s)) results.push_back(app::measurement_json_object(*m, true));
    j["results"] = results;
    j["export_message"] = s.export_message.text;
    j["settings_message"] = s.settings_message.text;
    j["lesson"] = s.lesson.lesson;
    j["step"] = s.lesson.step;
    j["classroom"] = s.lesson.classroom;
    j["batch_ms"] = app::g_batch_ms;
    return to_c(j.dump());
}

// Applies a request: {"settings": {partial settings JSON}, "view": id, "memory": [first, second],
// "lesson": name, "step": k, "classroom": bool, "export": "csv"|"json"}. Returns "" or the error.
EMSCRIPTEN_KEEPALIVE char* fl_test_apply(const char* request) {
    using app::g_state;
    if (!g_state) return to_c("the app has not drawn a frame yet");
    app::AppState& s = *g_state;
    const nlohmann::json r = nlohmann::json::parse(request ? request : "", nullptr, false);
    if (r.is_discarded() || !r.is_object()) return to_c("the request is not a JSON object");
    const double now = ImGui::GetTime();
    if (r.contains("settings")) {
        nlohmann::json merged = nlohmann::json::parse(app::settings_to_json(s.settings));
        merged.merge_patch(r["settings"]);
        app::Settings next;
        if (std::string why = app::settings_from_json(merged.dump(), next); !why.empty()) return to_c(why);
        s.settings = next;
        app::mark_changed(s, now);
    }
    if (r.contains("lesson")) {
        app::ensure_lessons_loaded(s);
        std::string why;
        const app::Lesson* lesson = app::find_lesson(s.lesson.lessons, r["lesson"].get<std::string>(), &why);
        if (!lesson) return to_c(why);
        s.lesson.open = true;
        app::open_lesson(s, static_cast<int>(lesson - s.lesson.lessons.data()), r.value("step", 0), now);
    }
    if (r.contains("classroom")) {
        int w = 0, h = 0;
        glfwGetWindowSize(glfwGetCurrentContext(), &w, &h);
        app::set_classroom(s, r["classroom"].get<bool>(), static_cast<float>(h));
    }
    if (r.contains("view")) s.requested_view = r["view"].get<std::string>();
    if (r.contains("memory")) {
        const auto& pair = r["memory"];
        s.memory.variant = pair.at(0).get<std::string>();
        s.memory.compare = pair.size() > 1 ? pair.at(1).get<std::string>() : "";
        s.memory.side_by_side = pair.size() > 1;
        s.memory.full_width = r.value("memory_full_width", true);
        s.memory.pending_step = r.value("memory_step", int64_t{-1});
    }
    if (r.value("time_batch", false)) {
        // The jobs the current settings ask for (what a parameter change submits), run back to back
        // on this thread without frames in between: the browser's job time, beside `fusionlab bench`.
        const app::ResolvedBackend backend = app::resolve_backend(s.settings, *app::g_runner);
        const double start = emscripten_get_now();
        const std::vector<kernels::Measurement> ms = app::g_runner->run_blocking(app::make_batch(s.settings, backend));
        app::g_batch_ms = emscripten_get_now() - start;
        app::mark_changed(s, now);  // the GUI's own batch was superseded: let it measure again
        for (const kernels::Measurement& m : ms)
            if (!m.ok) return to_c("time_batch: " + m.job.variant + ": " + m.error);
    }
    if (r.contains("export")) {
        const app::InlineMessage m = app::export_results(s, r["export"].get<std::string>());
        s.export_message = m;
        if (m.error) return to_c(m.text);
    }
    return to_c("");
}

}  // extern "C"

#endif
