// [SECTION] GLFW: errors, window, GL loader
// [SECTION] ImGui session: fonts, style, backends
// [SECTION] Interactive frame loop (run_gui)
// [SECTION] Headless shot (run_shot)
#include "app/gui/gui.h"

#include "app/files/export.h"
#include "app/gui/egl_context.h"
#include "app/gui/panel_exercise.h"
#include "app/lessons/expressions.h"
#include "app/lessons/lesson_bundle.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/lesson_player.h"
#include "app/gui/panel_lesson.h"
#include "app/gui/panel_roofline.h"
#include "app/core/roofline_points.h"
#include "app/gui/frame_driver.h"
#include "app/gui/main_window.h"
#include "app/core/panels_state.h"
#include "app/platform/platform.h"
#include "app/platform/platform_host.h"
#include "app/platform/platform_file.h"
#include "app/gui/page_window.h"
#include "app/core/runner.h"
#include "app/gui/screenshot.h"
#include "app/core/settings.h"
#include "app/core/views.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"
#include "viz/theme.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <functional>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace app {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] GLFW
// ---------------------------------------------------------------------------------------------

// GLFW reports errors through a callback; keep the last one to explain a failed call.
struct GlfwError {
    int code = 0;
    std::string text;
};
GlfwError g_last_glfw_error;

void on_glfw_error(int code, const char* text) {
    g_last_glfw_error = {code, text ? text : ""};
}

std::string last_glfw_error() {
    if (!g_last_glfw_error.code) return "no details from GLFW";
    return "GLFW error " + std::to_string(g_last_glfw_error.code) + ": " + g_last_glfw_error.text;
}

// glfwInit/glfwTerminate as a scope.
struct GlfwSession {
    bool ok = false;
    GlfwSession() {
        glfwSetErrorCallback(on_glfw_error);
        ok = glfwInit() == GLFW_TRUE;
    }
    ~GlfwSession() {
        if (ok) glfwTerminate();
    }
    GlfwSession(const GlfwSession&) = delete;
    GlfwSession& operator=(const GlfwSession&) = delete;
};

// A window with a current OpenGL 3.3 core context whose functions glad has loaded.
GLFWwindow* open_window(int width, int height, bool visible, std::string* error) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);  // required on macOS, harmless elsewhere
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    GLFWwindow* window = glfwCreateWindow(width, height, "fusionlab", nullptr, nullptr);
    if (!window) {
        *error = "cannot open an OpenGL 3.3 window (" + last_glfw_error() + ")";
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    if (gladLoadGL(glfwGetProcAddress) == 0) {
        *error = "cannot load OpenGL 3.3 functions (glad)";
        glfwDestroyWindow(window);
        return nullptr;
    }
    return window;
}

// "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core Profile) Mesa 22.3.6": what draws the
// frames, which frame times depend on (a software rasteriser or a GPU).
std::string gl_renderer_text() {
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    return std::string(renderer ? renderer : "unknown renderer") + ", OpenGL " + (version ? version : "?");
}

std::string no_display_message() {
    return "fusionlab: no display found (" + last_glfw_error() +
           ").\n  Run the GUI under a virtual display:  xvfb-run -a fusionlab\n"
           "  or take a screenshot without one:     fusionlab shot --out F.png\n"
           "  or measure from the command line:     fusionlab bench\n";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] ImGui session
// ---------------------------------------------------------------------------------------------

// An ImGui context with the OpenGL3 renderer (and the GLFW platform backend when interactive).
class ImGuiSession {
public:
    ImGuiSession(GLFWwindow* window, bool interactive) : interactive_(interactive) {
        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        ImGui::GetIO().IniFilename = nullptr;  // layout is fixed; our settings live in settings.json
        if (interactive_) ImGui_ImplGlfw_InitForOpenGL(window, true);
        ImGui_ImplOpenGL3_Init(platform::glsl_version());
    }
    ~ImGuiSession() {
        ImGui_ImplOpenGL3_Shutdown();
        if (interactive_) ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
    }
    ImGuiSession(const ImGuiSession&) = delete;
    ImGuiSession& operator=(const ImGuiSession&) = delete;

    // Rebuilds fonts and style when the font scale or theme changed. Call between frames.
    void apply_look(AppState& state) {
        const Settings& s = state.settings;
        const bool rescale = state.applied_font_scale != s.font_scale;
        if (rescale) {
            state.font_note = viz::load_fonts(s.font_scale).note;
            // Before the first frame the renderer uploads the atlas itself; afterwards we must.
            if (renderer_ready_) {
                ImGui_ImplOpenGL3_DestroyFontsTexture();
                ImGui_ImplOpenGL3_CreateFontsTexture();
            }
        }
        if (rescale || state.applied_theme != s.theme) viz::apply_style(s.theme, s.font_scale);
        state.applied_font_scale = s.font_scale;
        state.applied_theme = s.theme;
    }

    // hide_mouse: the frame is exported (a picture, a bundle's step): nothing hovered, no tooltip.
    void new_frame(bool hide_mouse = false) {
        ImGui_ImplOpenGL3_NewFrame();
        renderer_ready_ = true;
        if (interactive_) ImGui_ImplGlfw_NewFrame();
        if (fixed_delta_seconds > 0) ImGui::GetIO().DeltaTime = fixed_delta_seconds;  // a soak's clock
        if (hide_mouse) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        ImGui::NewFrame();
    }

    // > 0: the GUI's clock advances by this much per frame instead of the wall time (a soak's
    // simulated clock, app/gui/frame_driver.h, so a replay sees the same times in the same frames).
    float fixed_delta_seconds = 0;

private:
    bool interactive_;
    bool renderer_ready_ = false;
};

void clear_to_window_background() {
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Interactive frame loop
// ---------------------------------------------------------------------------------------------

// Seconds settings must stay unchanged before they are written (a slider drag writes once).
constexpr double kSettingsSaveDelaySeconds = 1.0;

void save_settings_if_due(AppState& state, double now, bool force) {
    if (!state.settings_dirty || state.settings_path.empty()) return;
    if (!force && now - state.changed_at < kSettingsSaveDelaySeconds) return;
    state.settings_dirty = false;
    // Classroom mode's presenter fonts and a lesson's parameters are for this session only: save
    // the user's own (app/lessons/lesson_player.h).
    const Settings saved = settings_to_save(state);
    std::string error = save_settings(state.settings_path, saved);
    if (error.empty()) error = platform::persist_file(state.settings_path);  // the browser's storage
    if (!error.empty()) state.settings_message = {"settings not saved: " + error, true};
}

// A prediction answered: the answer book is written at once (an answer is never lost to a crash).
void save_answers_if_dirty(AppState& state) {
    LessonPlayerState& lp = state.lesson;
    if (!lp.answers_dirty || lp.answers_path.empty()) return;
    lp.answers_dirty = false;
    std::string error = save_answers(lp.answers_path, lp.answers);
    if (error.empty()) error = platform::persist_file(lp.answers_path);  // the browser's storage
    if (!error.empty()) {
        lp.answers_message = "answers not saved: " + error;
        lp.answers_error = true;
    }
}

void render_frame(GLFWwindow* window, AppState& state, Runner& runner, ImGuiSession& session) {
    session.apply_look(state);
    // F12 and the PNG buttons: the whole window, captured from the next frame, which is drawn
    // without the mouse (the button's own tooltip is not in the picture).
    if (state.png_requested && !state.picture) {
        state.png_requested = false;
        request_picture(state, "window", "png");
    }
    const bool picture_frame = begin_picture_frame(state);
    session.new_frame(picture_frame || lesson_bundle_running());
    const bool settings_were_dirty = state.settings_dirty;
    handle_shortcuts(state);
    handle_lesson_keys(state);
    update_measurements(state, runner, ImGui::GetTime());
    service_exercise(state, ImGui::GetTime());
    draw_main_window(state, runner);
    ImGui::Render();
    // View changes (font, theme, folder) mark settings dirty without touching parameters.
    if (state.settings_dirty && !settings_were_dirty && !state.params_dirty) state.changed_at = ImGui::GetTime();

    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fb_w, fb_h);
    clear_to_window_background();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // Read before the swap: afterwards the back buffer's content is undefined.
    if (picture_frame) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        finish_picture_frame(state, [&] { return read_pixels_rgba(GL_BACK, fb_w, fb_h); }, fb_w, fb_h,
                             ImGui::GetIO().DisplayFramebufferScale.x);
    }
    // A lesson bundle captures this frame once its step's measurements are on screen.
    service_lesson_bundle(state, runner, [&] { return read_pixels_rgba(GL_BACK, fb_w, fb_h); }, fb_w, fb_h);
    glfwSwapBuffers(window);
    save_settings_if_due(state, ImGui::GetTime(), false);
    save_answers_if_dirty(state);
}

// Idle frames wait for input instead of spinning; while work is pending we keep redrawing so
// results appear (and the spinner turns) without the user moving the mouse.
[[maybe_unused]] void wait_for_events(const AppState& state, const Runner& runner) {  // not in the browser
    const bool animating = runner.busy() || !runner.gpu_probed() || state.params_dirty || state.settings_dirty ||
                           state.memory.playing || lesson_bundle_running() || state.picture || state.png_requested ||
                           highlight_pulsing(state, ImGui::GetTime());
    glfwWaitEventsTimeout(animating ? 1.0 / 60.0 : 0.5);
}

// Without a worker thread (the browser), the runner may use this much of each frame.
[[maybe_unused]] constexpr double kRunnerShareSeconds = 0.010;

// What the interactive frame loop owns (run_gui).
struct InteractiveApp {
    AppState state;
    std::unique_ptr<FrameDriver> soak;
    GLFWwindow* window = nullptr;
    std::unique_ptr<Runner> runner;
    std::unique_ptr<ImGuiSession> session;
};

// One turn of the interactive loop: wait for input (desktop), do the runner's pending work where
// there is no worker thread (browser), draw. False once the window closes or the soak is done.
bool interactive_frame(InteractiveApp& app) {
    AppState& state = app.state;
    FrameDriver* soak = app.soak.get();
    if (glfwWindowShouldClose(app.window) || (soak && soak->done())) return false;
    if (soak) {
        glfwWaitEventsTimeout(std::max(soak->wait_seconds(), 1e-4));
        if (!soak->before_frame(state, ImGui::GetTime())) {  // waiting: no frame, but take what finished
            update_measurements(state, *app.runner, ImGui::GetTime());
            return true;
        }
        app.session->fixed_delta_seconds = soak->frame_seconds();
        soak->frame_started();
    } else if constexpr (!platform::kBrowser) {
        wait_for_events(state, *app.runner);  // the browser calls us once per display frame instead
    }
    serve_page(app.window, state, *app.runner);  // browser: page size, opened files, test hook
    render_frame(app.window, state, *app.runner, *app.session);
    if constexpr (!platform::kWorkerThread) {
        // The runner's work, between frames (after this one is drawn, so the first frame does not
        // wait for a job): jobs until this frame's share of time is spent. One job still runs whole:
        // most simulated jobs take milliseconds, the CPU emulation of a variant's arithmetic stops
        // itself after 1.5 s (web/README.md).
        const double start = glfwGetTime();
        while (glfwGetTime() - start < kRunnerShareSeconds && app.runner->step()) {
        }
    }
    if (soak) soak->frame_finished(state);
    platform::after_frame();
    return true;
}

}  // namespace

int run_gui(const GuiOptions& opts, FrameDriverFactory make_driver) {
    // What the frame loop touches lives on the heap: in the browser the loop goes on after this
    // function has handed it to the page (platform::run_frame_loop).
    auto app = std::make_shared<InteractiveApp>();
    AppState& state = app->state;
    state.settings_path = default_settings_path();
    if (std::string note = load_settings(state.settings_path, state.settings); !note.empty())
        state.settings_message = {note, true};
    state.lesson.answers_path = default_answers_path();
    if (std::string note = load_answers(state.lesson.answers_path, state.lesson.answers); !note.empty()) {
        state.lesson.answers_message = note;
        state.lesson.answers_error = true;
    }
    if (!opts.sim_gpu.empty()) {
        const kernels::SimGpu* gpu = kernels::find_sim_gpu(opts.sim_gpu);
        if (!gpu) {
            std::fprintf(stderr, "fusionlab: unknown simulated GPU '%s'\n", opts.sim_gpu.c_str());
            return 1;
        }
        state.settings.backend = gpu->key;
    }
    if (!opts.backend.empty()) state.settings.backend = opts.backend;  // checked by the command line
    if (opts.font_scale > 0) state.settings.font_scale = std::clamp(opts.font_scale, kMinFontScale, kMaxFontScale);
    if (!opts.results.empty()) {
        if (std::string why = import_results(state, opts.results); !why.empty()) {
            std::fprintf(stderr, "fusionlab: %s\n", why.c_str());
            return 1;
        }
    }
    if (!opts.reference.empty()) {
        if (std::string why = load_reference_json(opts.reference, state.reference); !why.empty()) {
            std::fprintf(stderr, "fusionlab: --reference %s\n", why.c_str());
            return 1;
        }
    }
    // Soak test: defaults, no settings file, scripted random actions (tests/tools/soak_driver.h),
    // in the test tool fusionlab_soak only.
    std::unique_ptr<FrameDriver>& soak = app->soak;
    if (opts.soak_seconds > 0) {
        if (!make_driver) {
            std::fputs("fusionlab: --soak: the soak test is its own program, fusionlab_soak (tests/tools; "
                       "scripts/soak.sh runs it)\n",
                       stderr);
            return 2;
        }
        soak = make_driver(opts, state);
    }

    GlfwSession glfw;
    if (!glfw.ok) {
        std::fputs(no_display_message().c_str(), stderr);
        return 1;
    }
    std::string error;
    GLFWwindow* window = open_window(soak ? soak->width() : 1440, soak ? soak->height() : 900, true, &error);
    if (!window) {
        std::fprintf(stderr, "fusionlab: %s\n", error.c_str());
        return 1;
    }
    glfwSwapInterval(soak ? 0 : 1);  // a soak times the frame's work, not the wait for vsync
    if (soak) soak->set_renderer(gl_renderer_text());
    if (opts.classroom || !opts.lesson.empty()) {
        ensure_lessons_loaded(state);
        std::string why;
        const Lesson* lesson = find_lesson(state.lesson.lessons, opts.lesson.empty() ? "1" : opts.lesson, &why);
        if (!lesson && !state.lesson.lessons.empty()) lesson = &state.lesson.lessons.front();
        if (lesson) open_lesson(state, static_cast<int>(lesson - state.lesson.lessons.data()), opts.lesson_step, 0);
        state.lesson.open = true;
        if (opts.classroom) {
            // A presenter wants the whole screen (sized to it first: without a window manager
            // maximising does nothing); fonts follow the screen's height.
            const GLFWvidmode* mode = glfwGetVideoMode(glfwGetPrimaryMonitor());
            if (mode) glfwSetWindowSize(window, mode->width, mode->height);
            glfwMaximizeWindow(window);
            set_classroom(state, true, mode ? static_cast<float>(mode->height) : 900.0f);
        }
    }
    app->window = window;
    app->runner = std::make_unique<Runner>();  // probes for a GPU on its own thread; the window opens meanwhile
    app->session = std::make_unique<ImGuiSession>(window, true);
    if (soak) soak->jobs_running = [runner = app->runner.get()] { return runner->busy(); };
    platform::run_frame_loop([app] { return interactive_frame(*app); });
    // The desktop gets here once the window closes; the browser never does.
    save_settings_if_due(state, 0, true);
    int status = 0;
    if (soak) {
        status = soak->finish(std::cout);
        soak->jobs_running = nullptr;  // the runner goes first
    }
    app->session.reset();
    app->runner.reset();
    glfwDestroyWindow(window);
    return status;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Headless shot
// ---------------------------------------------------------------------------------------------

namespace {

// Frames rendered before reading pixels: ImGui hides a new auto-sized window on its first frame
// and tables settle their column widths over the next ones.
constexpr int kShotFrames = 4;

std::string check_shot_options(const ShotOptions& opts, Settings& s) {
    if (opts.out.empty()) return "shot needs an output file (--out F.png)";
    if (opts.width < 1 || opts.height < 1)
        return "image size " + std::to_string(opts.width) + "x" + std::to_string(opts.height) + " must be positive";
    if (!(opts.font_scale >= kMinFontScale && opts.font_scale <= kMaxFontScale))
        return "font scale " + std::to_string(opts.font_scale) + " is out of range: it must be between 1 and 3";
    if (!viz::parse_theme(opts.theme, s.theme)) return "theme '" + opts.theme + "' is unknown: use dark or light";
    if (std::string why = kernels::validate(opts.params); !why.empty()) return why;
    if (!opts.sim_gpu.empty()) {
        const kernels::SimGpu* gpu = kernels::find_sim_gpu(opts.sim_gpu);
        if (!gpu) return "unknown simulated GPU '" + opts.sim_gpu + "'";
        s.backend = gpu->key;
    }
    if (!opts.backend.empty()) s.backend = opts.backend;
    s.font_scale = opts.font_scale;
    s.params = opts.params;
    s.reps = opts.reps;
    if (!find_view(opts.view)) return "view '" + opts.view + "' is unknown: use one of " + view_ids_text();
    return check_writable(opts.out);
}

// The memory tab open at the requested step (the middle when none), the tile mid-flight.
void setup_memory_view(const ShotOptions& opts, const kernels::Params& params, MemoryPanelState& memory) {
    memory.full_width = true;
    memory.variant = opts.variant;
    memory.compare = opts.compare;
    memory.side_by_side = !opts.compare.empty();
    const std::string variant = opts.variant.empty() ? kernels::variants(params.workload).front().name : opts.variant;
    try {
        const size_t steps = kernels::MemoryPlayer(variant, params).step_count();
        memory.pending_step = opts.step >= 0 ? opts.step : static_cast<int64_t>((steps + 1) / 2);
    } catch (const std::invalid_argument&) {
        memory.pending_step = 0;  // the panel shows why there is nothing to play
    }
}

// A roofline shot shows what dragging does: the main size parameter at a quarter and a half of
// its value is measured first, so each point has a trail of two real earlier positions.
void seed_roofline_trail(AppState& state, Runner& runner, const ResolvedBackend& backend) {
    const std::vector<std::string> sizes = sweepable_params(state.settings.params.workload);
    if (sizes.empty()) return;
    const kernels::Params final_params = state.settings.params;
    for (double fraction : {0.25, 0.5}) {
        const double value = std::round(final_params.get(sizes.front()) * fraction);
        state.settings.params = final_params;
        state.settings.params.set(sizes.front(), value);
        if (!kernels::validate(state.settings.params).empty()) continue;
        store_results(state, runner.run_blocking(make_batch(state.settings, backend)));
        update_roofline_trails(state);
    }
    state.settings.params = final_params;
}

// Renders the main window into `target` once.
void render_shot_frame(AppState& state, Runner& runner, ImGuiSession& session, const OffscreenTarget& target,
                       int width, int height) {
    session.apply_look(state);
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = 1.0f / 60.0f;
    session.new_frame();
    draw_main_window(state, runner);
    ImGui::Render();
    target.bind();
    clear_to_window_background();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

// Renders the main window into `target` kShotFrames times; the last frame stays in it.
void render_shot_frames(AppState& state, Runner& runner, ImGuiSession& session, const OffscreenTarget& target,
                        int width, int height) {
    for (int frame = 0; frame < kShotFrames; ++frame) render_shot_frame(state, runner, session, target, width, height);
    glFinish();
}

// `shot --chart NAME`, `--view-only`, `--out F.svg|F.gif`: one chart or view alone, through the
// GUI's own picture path (app/gui/screenshot.h): the layout settles first with capturing on (no
// watermark over values), then frames are drawn until the picture is written.
int shoot_picture(AppState& state, Runner& runner, ImGuiSession& session, const OffscreenTarget& target,
                  const ShotOptions& opts) {
    state.capturing = true;
    render_shot_frames(state, runner, session, target, opts.width, opts.height);
    PictureRequest r;
    r.target = opts.chart.empty() ? "view:" + opts.view : opts.chart;
    r.format = opts.format;
    r.path = opts.out;
    r.gif_frames = opts.gif_frames;
    state.picture = r;
    state.capturing = false;  // begin_picture_frame starts the capture proper
    const int most_frames = std::max(opts.gif_frames, 1) * 2 + kShotFrames * 3;
    for (int frame = 0; frame < most_frames && state.picture && !state.picture->done; ++frame) {
        begin_picture_frame(state);
        render_shot_frame(state, runner, session, target, opts.width, opts.height);
        glFinish();
        finish_picture_frame(state, [&] { return target.read_rgba(); }, opts.width, opts.height, 1.0f);
    }
    if (!state.picture || !state.picture->done) {
        std::fprintf(stderr, "fusionlab shot: no picture written: %s never settled\n", r.target.c_str());
        return 1;
    }
    if (!state.picture->error.empty()) {
        std::fprintf(stderr, "fusionlab shot: %s\n", state.picture->error.c_str());
        return 1;
    }
    std::printf("saved %s (%s%s)\n", opts.out.c_str(), r.target.c_str(),
                r.format == "gif" ? (", " + std::to_string(r.gif_frames) + " frames").c_str() : "");
    return 0;
}

// The memory tab of a lesson step: the step's first variant (and second, side by side) at the
// middle of its schedule, so a still picture shows a tile in flight.
void setup_lesson_memory_view(AppState& state) {
    MemoryPanelState& memory = state.memory;
    const kernels::Params& p = state.settings.params;
    const std::string variant = memory.variant.empty() ? kernels::variants(p.workload).front().name : memory.variant;
    try {
        memory.pending_step = static_cast<int64_t>((kernels::MemoryPlayer(variant, p).step_count() + 1) / 2);
    } catch (const std::invalid_argument&) {
        memory.pending_step = 0;  // the panel shows why there is nothing to play
    }
}

// Measures and renders one lesson step into `target`; the bundle gets its picture and numbers.
BundleStep shoot_lesson_step(AppState& state, Runner& runner, ImGuiSession& session, const OffscreenTarget& target,
                             const ShotOptions& opts) {
    const LessonStep& step = *state.lesson.current_step();
    const ResolvedBackend backend = resolve_backend(state.settings, runner);
    std::vector<kernels::Measurement> results = runner.run_blocking(make_batch(state.settings, backend));
    for (const kernels::Measurement& m : results)
        if (!m.ok)
            std::fprintf(stderr, "fusionlab shot: step %d: %s %s: %s\n", state.lesson.step + 1, m.job.variant.c_str(),
                         m.refused ? "refused" : "failed", m.error.c_str());
    state.results.clear();
    store_results(state, std::move(results));
    state.params_dirty = false;
    if (state.requested_view == "memory") setup_lesson_memory_view(state);
    // A step that shows a sweep (@sweep) gets the sweep run first: its picture shows the curves,
    // not "Press Run sweep", and the bundle carries the sweep's measurements.
    if (state.sweep_requested) {
        state.sweep_requested = false;
        if (const std::string why = run_sweep_blocking(state.sweep, state.settings, backend, runner); !why.empty())
            std::fprintf(stderr, "fusionlab shot: step %d: sweep: %s\n", state.lesson.step + 1, why.c_str());
    }
    render_shot_frames(state, runner, session, target, opts.width, opts.height);

    BundleStep out;
    out.index = state.lesson.step;
    out.title = step.title;
    const ExprContext ctx = expr_context(state, backend, false);
    out.prose = prose_plain_text(step.prose, ctx);
    for (const RecallQuestion& q : step.recalls)
        out.recalls.emplace_back(spans_plain_text(q.question, ctx), prose_plain_text(q.answer, ctx));
    for (const Prediction& p : step.predictions) {
        std::string question = prose_plain_text(p.question, ctx);
        if (p.kind == Prediction::Kind::number)
            question += "(" + (p.unit == "x" ? std::string("a factor") : p.unit.empty() ? std::string("a number") : "in " + p.unit) +
                        ", right within " + tolerance_text(p) + ")\n";
        for (size_t i = 0; i < p.options.size(); ++i) question += std::string(1, static_cast<char>('A' + i)) + ". " + p.options[i].label + "\n";
        const PredictionGrade g = grade_prediction(p, "", ctx);
        std::string answer = g.state == ExprValue::State::value ? g.verdict + "\n" : "unavailable: " + g.why + "\n";
        for (const std::string& e : g.evidence) answer += "- " + e + "\n";
        out.predictions.emplace_back(question, answer + prose_plain_text(p.reveal, ctx));
    }
    if (step.state.sweep) out.sweep = state.sweep.results;
    out.settings = state.settings;
    out.view = state.active_view;
    out.highlight = state.highlight;
    for (const kernels::Measurement* m : visible_results(state)) out.measurements.push_back(*m);
    out.width = opts.width;
    out.height = opts.height;
    out.rgba = target.read_rgba();
    return out;
}

// `shot --lesson NAME [--step K | --all-steps] --out DIR`: a lesson bundle, headless.
// What both headless paths need before drawing: GLFW (or the advice to run under xvfb-run), a
// hidden window for the GL context, an offscreen target of the shot's size and a probed runner.
// `draw` renders and saves; its return value is the exit status.
int with_headless_frame(const ShotOptions& opts,
                        const std::function<int(Runner&, GLFWwindow*, OffscreenTarget&)>& draw) {
    // Everything after the GL context: the offscreen target, a probed runner, the drawing.
    auto draw_offscreen = [&](GLFWwindow* window) {
        OffscreenTarget target;
        if (std::string error = target.create(opts.width, opts.height); !error.empty()) {
            std::fprintf(stderr, "fusionlab shot: %s\n", error.c_str());
            return 1;
        }
        Runner runner;
        runner.wait_until_probed();
        return draw(runner, window, target);
    };
    // FUSIONLAB_GL=egl: no X server at all, the GPU driver's EGL gives the context (app/gui/egl_context.h).
    if (const char* gl = std::getenv("FUSIONLAB_GL"); gl && *gl) {
        if (std::string(gl) != "egl") {
            std::fprintf(stderr, "fusionlab shot: FUSIONLAB_GL='%s' is unknown: use egl, or leave it unset for GLX\n", gl);
            return 1;
        }
        EglContext egl;
        if (std::string why = egl.open(); !why.empty()) {
            std::fprintf(stderr, "fusionlab shot: FUSIONLAB_GL=egl: %s\n", why.c_str());
            return 1;
        }
        if (std::getenv("FUSIONLAB_PRINT_GL")) std::printf("GL context: %s\n", egl.display_note().c_str());
        return draw_offscreen(nullptr);
    }
    GlfwSession glfw;
    if (!glfw.ok) {
        // No display: run ourselves again under a virtual X server when one can be had.
        const std::string why = platform::reexec_under_xvfb(std::max(opts.width, 640), std::max(opts.height, 480));
        std::fprintf(stderr, "fusionlab shot: %s (%s)\n", why.c_str(), last_glfw_error().c_str());
        return 1;
    }
    std::string error;
    GLFWwindow* window = open_window(64, 64, false, &error);
    if (!window) {
        std::fprintf(stderr, "fusionlab shot: %s\n", error.c_str());
        return 1;
    }
    const int status = draw_offscreen(window);
    glfwDestroyWindow(window);
    return status;
}

int run_lesson_shot(const ShotOptions& opts) {
    AppState state;
    state.interactive = false;
    Settings& s = state.settings;
    if (!opts.reference.empty())
        if (std::string error = load_reference_json(opts.reference, state.reference); !error.empty()) {
            std::fprintf(stderr, "fusionlab shot: --reference %s\n", error.c_str());
            return 1;
        }
    if (!viz::parse_theme(opts.theme, s.theme)) {
        std::fprintf(stderr, "fusionlab shot: theme '%s' is unknown: use dark or light\n", opts.theme.c_str());
        return 1;
    }
    if (!opts.sim_gpu.empty()) {
        const kernels::SimGpu* gpu = kernels::find_sim_gpu(opts.sim_gpu);
        if (!gpu) {
            std::fprintf(stderr, "fusionlab shot: unknown simulated GPU '%s'\n", opts.sim_gpu.c_str());
            return 1;
        }
        s.backend = gpu->key;
    }
    if (!opts.backend.empty()) s.backend = opts.backend;
    s.font_scale = opts.font_scale;
    s.reps = opts.reps;
    ensure_lessons_loaded(state);
    state.lesson.shot_predictions_posed = opts.predictions_posed;
    std::string why;
    const Lesson* lesson = find_lesson(state.lesson.lessons, opts.lesson, &why);
    if (!lesson) {
        for (const LessonError& e : state.lesson.load_errors) std::fprintf(stderr, "%s\n", e.text().c_str());
        std::fprintf(stderr, "fusionlab shot: --lesson: %s\n", why.c_str());
        return 1;
    }
    const int index = static_cast<int>(lesson - state.lesson.lessons.data());
    std::vector<int> steps;
    if (opts.all_steps)
        for (int i = 0; i < static_cast<int>(lesson->steps.size()); ++i) steps.push_back(i);
    else
        steps.push_back(std::clamp(opts.lesson_step, 0, static_cast<int>(lesson->steps.size()) - 1));

    return with_headless_frame(opts, [&](Runner& runner, GLFWwindow* window, OffscreenTarget& target) {
        BundleWriter writer;
        std::string error = writer.begin(opts.out, *lesson, resolve_backend(s, runner).device);
        ImGuiSession session(window, false);
        for (size_t i = 0; error.empty() && i < steps.size(); ++i) {
            open_lesson(state, index, steps[i], 0);
            state.lesson.classroom = opts.classroom;
            error = writer.add_step(shoot_lesson_step(state, runner, session, target, opts));
        }
        if (error.empty()) error = writer.finish();
        if (!error.empty()) {
            std::fprintf(stderr, "fusionlab shot: %s\n", error.c_str());
            return 1;
        }
        std::printf("saved %s (%zu %s of %s, %dx%d, %zu files)\n", writer.dir().c_str(), steps.size(),
                    steps.size() == 1 ? "step" : "steps", lesson->name.c_str(), opts.width, opts.height,
                    writer.files().size());
        return 0;
    });
}

}  // namespace

int run_shot(const ShotOptions& opts) {
    if (!opts.lesson.empty()) return run_lesson_shot(opts);
    AppState state;
    state.interactive = false;
    if (std::string error = check_shot_options(opts, state.settings); !error.empty()) {
        std::fprintf(stderr, "fusionlab shot: %s\n", error.c_str());
        return 1;
    }
    if (!opts.reference.empty())
        if (std::string error = load_reference_json(opts.reference, state.reference); !error.empty()) {
            std::fprintf(stderr, "fusionlab shot: --reference %s\n", error.c_str());
            return 1;
        }

    if (!opts.exercise.empty()) {
        // The exercise pane: its parameters and compared variants (measured below unless --results
        // gives them); a kernel file in the editor, compile-checked so its errors are on their lines.
        if (std::string why = open_exercise_in_app(state, opts.exercise, 0); !why.empty()) {
            std::fprintf(stderr, "fusionlab shot: --exercise %s\n", why.c_str());
            return 1;
        }
        exercises::ExerciseSession& ex = state.exercise;
        ex.hints_shown = opts.exercise_hints;
        state.lesson.shot_predictions_posed = opts.predictions_posed;  // its predictions posed, numbers hidden
        // --classroom: the presenter view of the pane too (predictions posed to the room, P reveals),
        // not only its fonts.
        state.lesson.classroom = opts.classroom;
        if (!opts.exercise_kernel.empty()) {
            std::string text;
            if (const platform::ReadResult r = platform::read_user_file(opts.exercise_kernel, platform::UserFile::kernel_source, text);
                !r.ok()) {
                std::fprintf(stderr, "fusionlab shot: --exercise-kernel %s\n", r.message.c_str());
                return 1;
            }
            ex.text = text;
            ex.file_message = "showing " + opts.exercise_kernel;
            ex.file = opts.exercise_kernel;  // its name in the compile errors; the shot saves nothing
            ex.saved_text = text;
            exercises::start_compile(ex, 9, 0);
            ex.compiled = ex.compile_future.get();
            ex.compiling = false;
            ex.compiled_once = true;
        }
    }
    return with_headless_frame(opts, [&](Runner& runner, GLFWwindow* window, OffscreenTarget& target) {
        if (opts.exercise_run) {
            // The pane's "Run on the GPU": the kernel file in an `exercises run` process of its own;
            // its measurements (the compared variants and yours, measured together) are the picture's.
            exercises::ExerciseSession& ex = state.exercise;
            exercises::start_run(ex, platform::executable_path().string());
            double now = 0;
            while (!exercises::service(ex, now)) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                now += 0.05;
            }
            std::printf("exercise run: exit %d%s\n", ex.last_run.exit_code,
                        ex.last_run.read_error.empty() ? "" : ("; " + ex.last_run.read_error).c_str());
            // A picture measures nothing more: its repetitions are the run's (the GUI measures the
            // built-in variants again where they differ, app/gui/panel_exercise.cpp).
            for (const kernels::Measurement& m : ex.last_run.measured)
                if (m.ok && m.job.variant != kernels::kStudentVariant) state.settings.reps = m.job.reps;
            store_results(state, ex.last_run.measured);
        }
        if (opts.exercise_run && !state.results.empty()) {
            // measured by the run above
        } else if (!opts.results.empty()) {
            if (std::string error = import_results(state, opts.results); !error.empty()) {
                std::fprintf(stderr, "fusionlab shot: %s\n", error.c_str());
                return 1;
            }
        } else {
            const ResolvedBackend backend = resolve_backend(state.settings, runner);
            if (opts.view == "roofline") seed_roofline_trail(state, runner, backend);
            std::vector<kernels::Measurement> results = runner.run_blocking(make_batch(state.settings, backend));
            for (const kernels::Measurement& m : results)
                if (!m.ok)
                    std::fprintf(stderr, "fusionlab shot: %s %s: %s\n", m.job.variant.c_str(),
                                 m.refused ? "refused" : "failed", m.error.c_str());
            store_results(state, std::move(results));
        }
        state.params_dirty = false;  // measured above; nothing to submit while rendering
        state.requested_view = opts.view;
        if (opts.view == "memory") setup_memory_view(opts, state.settings.params, state.memory);
        if (opts.view == "sweep") {  // the main size parameter over its default range (app/core/sweep.h)
            const ResolvedBackend backend = resolve_backend(state.settings, runner);
            if (const std::string why = run_sweep_blocking(state.sweep, state.settings, backend, runner); !why.empty())
                std::fprintf(stderr, "fusionlab shot: sweep: %s\n", why.c_str());
        }

        ImGuiSession session(window, false);
        if (!opts.chart.empty() || opts.view_only || opts.format != "png")
            return shoot_picture(state, runner, session, target, opts);
        render_shot_frames(state, runner, session, target, opts.width, opts.height);
        if (std::string error = export_png(opts.out, opts.width, opts.height, target.read_rgba()); !error.empty()) {
            std::fprintf(stderr, "fusionlab shot: %s\n", error.c_str());
            return 1;
        }
        std::printf("saved %s (%dx%d)\n", opts.out.c_str(), opts.width, opts.height);
        if (std::getenv("FUSIONLAB_PRINT_GL")) std::printf("GL renderer: %s\n", gl_renderer_text().c_str());
        return 0;
    });
}

}  // namespace app
