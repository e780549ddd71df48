// Legible in class: the real main window, drawn headless (an ImGui context with the app's fonts,
// no window, no GL) at 1280 x 720, records every label the memory view, its byte race and the
// roofline draw (viz/label_layout.h); no label may cover another or leave its box.
//   - memory view, font scale 2, two variants side by side (each variant beside the one it
//     improves on), for every workload, at every step (an even sample of 120 on long schedules)
//     with the tile early, midway and late in its flight (HBM -> L2, L2 -> SM);
//   - the same at font scale 1, and one variant alone at font scale 2;
//   - the roofline of every workload at font scale 1 and 2, every roof and point labelled;
//   - every lesson step in classroom mode (presenter fonts) whose view records labels.
// The examples were at step 20 of flash | naive, N = 1024: "load 2.00 KiB" covered
// "S 32.0 MiB" and "area ~ bytes (s", "registers: each thr", "+255 block" were cut.
// Also here: the layout's own rules (overlap, inside, free spots).
#if defined(FUSIONLAB_HAVE_GUI)  // viz needs ImGui, which simulated-only CLI builds may lack

#include "app/core/jobs.h"
#include "app/lessons/lesson_player.h"
#include "app/core/panels_state.h"
#include "app/core/roofline_points.h"
#include "app/core/runner.h"
#include "app/gui/main_window.h"
#include "kernels/core/registry.h"
#include "viz/model/memory_player.h"
#include "viz/label_layout.h"
#include "viz/theme.h"

#include <catch2/catch.hpp>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr float kWidth = 1280, kHeight = 720;
// The smallest text a class reads from the back of a room on a projected 1280x720 or 1920x1080.
constexpr float kClassroomMinLabelPx = 14.0f;

// An ImGui context with the app's fonts at `scale`, drawing whole main windows.
struct Headless {
    explicit Headless(float scale, float width = kWidth, float height = kHeight) {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(width, height);
        io.DeltaTime = 1.0f / 60.0f;
        viz::load_fonts(scale);
        viz::apply_style(viz::Theme::dark, scale);
    }
    ~Headless() { ImGui::DestroyContext(); }
    Headless(const Headless&) = delete;
    Headless& operator=(const Headless&) = delete;

    struct Recorded {
        std::vector<viz::PlacedLabel> labels;
        std::vector<viz::PlacedPart> parts;
    };
    // Two frames (a tab switched to shows from its second), the labels and parts of the last.
    Recorded frame(app::AppState& state, app::Runner& runner) {
        Recorded out;
        for (int i = 0; i < 2; ++i) {
            viz::LabelRecording recording;
            ImGui::NewFrame();
            app::draw_main_window(state, runner);
            ImGui::Render();
            out = {std::move(recording.labels), std::move(recording.parts)};
        }
        return out;
    }
};

// Keeps the first problems of many frames, each with the frame it came from.
// With min_px > 0 a label drawn smaller than that is a problem too; smallest_px is the smallest
// label size seen.
struct Problems {
    std::vector<std::string> lines;
    size_t frames = 0, labels = 0, count = 0, tile_labels = 0;
    float min_px = 0, smallest_px = 1e9f;
    void check(const std::string& where, const Headless::Recorded& got) {
        ++frames;
        labels += got.labels.size();
        for (const auto& l : got.labels) {
            tile_labels += l.where.find("moving tile") != std::string::npos;
            smallest_px = std::min(smallest_px, l.px);
        }
        std::vector<std::string> found = viz::label_problems(got.labels, got.parts);
        if (min_px > 0)
            for (std::string& small : viz::small_labels(got.labels, min_px)) found.push_back(std::move(small));
        for (const std::string& p : found) {
            ++count;
            if (lines.size() < 25) lines.push_back(where + ": " + p);
        }
    }
    std::string text() const {
        char smallest[64];
        std::snprintf(smallest, sizeof smallest, ", smallest %.1f px", static_cast<double>(labels ? smallest_px : 0));
        std::string s = std::to_string(count) + " problems in " + std::to_string(frames) + " frames (" +
                        std::to_string(labels) + " labels, " + std::to_string(tile_labels) + " tile labels" + smallest + ")";
        for (const std::string& l : lines) s += "\n  " + l;
        return s;
    }
};

kernels::Params params_of(const std::string& workload) {
    kernels::Params p = kernels::default_params(workload);
    if (workload == "attention") p.set("N", 1024);  // the example
    return p;
}

// The app state of a shot: simulated H100, this workload measured, nothing left to submit.
void measure(app::AppState& state, app::Runner& runner, const kernels::Params& p, float font_scale) {
    state.interactive = false;
    state.settings.backend = "H100";
    state.settings.font_scale = font_scale;
    state.applied_font_scale = font_scale;
    state.settings.params = p;
    state.results.clear();
    const app::ResolvedBackend backend = app::resolve_backend(state.settings, runner);
    std::vector<kernels::Job> batch = app::make_batch(state.settings, backend);
    for (kernels::Job& job : batch) job.emulate = false;  // the memory view and roofline draw no errors
    app::store_results(state, runner.run_blocking(std::move(batch)));
    state.params_dirty = false;
}

// Every workload measured at `scale` (a fresh app state each), handed to check(ui, state, workload).
template <class Check>
void each_workload(app::Runner& runner, float scale, Check check) {
    Headless ui(scale);
    for (const std::string& w : kernels::workload_names()) {
        app::AppState state;
        measure(state, runner, params_of(w), scale);
        check(ui, state, w);
    }
}

// Each variant beside the one its definition says it improves on; the first two when none does.
std::vector<std::pair<std::string, std::string>> pairs_of(const std::string& workload) {
    std::vector<std::pair<std::string, std::string>> out;
    const auto& vs = kernels::variants(workload);
    for (const kernels::VariantInfo& v : vs)
        if (!v.improves_on.empty()) out.emplace_back(v.name, v.improves_on);
    if (out.empty() && vs.size() > 1) out.emplace_back(vs[0].name, vs[1].name);
    return out;
}

// Every step, or an even sample of `most` of them with the first and the last.
std::vector<size_t> steps_of(size_t count, size_t most) {
    std::vector<size_t> out;
    if (count + 1 <= most) {
        for (size_t s = 0; s <= count; ++s) out.push_back(s);
        return out;
    }
    for (size_t i = 0; i < most; ++i) out.push_back(i * count / (most - 1));
    return out;
}

// The memory view of `variant` (beside `compare` when not empty) at every step and flight.
void check_memory_view(Headless& ui, app::AppState& state, app::Runner& runner, const std::string& variant,
                       const std::string& compare, const std::vector<double>& flights, Problems& problems,
                       size_t most_steps = 120) {
    state.requested_view = "memory";
    state.memory.full_width = true;
    state.memory.variant = variant;
    state.memory.compare = compare;
    state.memory.side_by_side = !compare.empty();
    const kernels::MemoryPlayer player(variant, state.settings.params);
    for (size_t step : steps_of(player.step_count(), most_steps))
        for (double flight : flights) {
            state.memory.pending_step = static_cast<int64_t>(step);
            state.memory.pending_flight = flight;
            char where[224];
            std::snprintf(where, sizeof where, "%s %s%s%s, %.0fx%.0f, font %.2f, step %zu, flight %.2f",
                          state.settings.params.workload.c_str(), variant.c_str(), compare.empty() ? "" : " | ",
                          compare.c_str(), static_cast<double>(ImGui::GetIO().DisplaySize.x),
                          static_cast<double>(ImGui::GetIO().DisplaySize.y), static_cast<double>(state.settings.font_scale),
                          step, flight);
            problems.check(where, ui.frame(state, runner));
        }
}

}  // namespace

TEST_CASE("label layout: overlap, inside and the first free spot", "[viz][labels]") {
    const viz::LabelRect a{0, 0, 100, 20}, below{0, 20, 100, 40}, across{50, 10, 150, 30};
    CHECK_FALSE(viz::labels_overlap(a, below));  // one line under the other
    CHECK(viz::labels_overlap(a, across));
    CHECK(viz::label_inside(a, {0, 0, 100, 20}));
    CHECK_FALSE(viz::label_inside(across, {0, 0, 100, 100}));
    viz::LabelLayout layout("test");
    layout.add("S 32.0 MiB", a, {0, 0, 200, 200}, "HBM");
    // Parts: inside their view, apart from each other.
    layout.add_part("HBM", {0, 0, 200, 100}, {0, 0, 200, 300});
    layout.add_part("L2", {0, 100, 200, 150}, {0, 0, 200, 300});
    CHECK(viz::label_problems({}, layout.parts()).empty());
    layout.add_part("SMs", {0, 140, 200, 320}, {0, 0, 200, 300});
    CHECK(viz::label_problems({}, layout.parts()).size() == 2);  // over L2, out of the view
    layout.block({150, 150, 160, 160});
    CHECK_FALSE(layout.is_free(across));
    CHECK(layout.is_free(below));
    CHECK_FALSE(layout.is_free({155, 155, 170, 170}));
    CHECK(layout.first_free({across, {0, 190, 100, 210}, below}, {0, 0, 200, 200}) == 2);
    CHECK(layout.first_free({across}, {0, 0, 200, 200}) == -1);
    layout.add("load 2.00 KiB", across, {0, 0, 120, 200}, "flight");
    const std::vector<std::string> problems = viz::label_problems(layout.labels());
    REQUIRE(problems.size() == 2);  // it covers S, and it leaves its box
    CHECK(problems[0].find("'load 2.00 KiB' (test: flight) covers 'S 32.0 MiB' (test: HBM)") != std::string::npos);
    CHECK(problems[1].find("'load 2.00 KiB' [50,10]-[150,30] leaves its box [0,0]-[120,200]") != std::string::npos);
    // A recording collects what views record while it is open, and nothing after.
    {
        viz::LabelRecording recording;
        viz::record_labels(layout);
        CHECK(recording.labels.size() == 2);
        CHECK(recording.parts.size() == 3);
    }
    viz::record_labels(layout);  // no recording open: nothing happens
}

TEST_CASE("legible in class: memory view side by side at 1280x720, font scale 2, every workload and step",
          "[viz][labels][memory_view]") {
    app::Runner runner;
    runner.wait_until_probed();
    Problems problems;
    each_workload(runner, 2.0f, [&](Headless& ui, app::AppState& state, const std::string& w) {
        for (const auto& [variant, compare] : pairs_of(w))
            check_memory_view(ui, state, runner, variant, compare, {0.2, 0.55, 0.85}, problems);
    });
    INFO(problems.text());
    CHECK(problems.frames > 500);
    CHECK(problems.count == 0);
}

TEST_CASE("legible in class: memory view at font scale 1 side by side, and alone at 2", "[viz][labels][memory_view]") {
    app::Runner runner;
    runner.wait_until_probed();
    Problems problems;
    each_workload(runner, 1.0f, [&](Headless& ui, app::AppState& state, const std::string& w) {
        for (const auto& [variant, compare] : pairs_of(w)) check_memory_view(ui, state, runner, variant, compare, {0.55}, problems);
    });
    each_workload(runner, 2.0f, [&](Headless& ui, app::AppState& state, const std::string& w) {
        for (const kernels::VariantInfo& v : kernels::variants(w)) check_memory_view(ui, state, runner, v.name, "", {0.55}, problems);
    });
    INFO(problems.text());
    CHECK(problems.count == 0);
}

TEST_CASE("legible in class: the roofline of every workload at font scale 1 and 2", "[viz][labels][roofline]") {
    app::Runner runner;
    runner.wait_until_probed();
    Problems problems;
    // Beside each workload's defaults, two crowded plots: attention at N = 4096 (README's example:
    // four variants near the roofs) and ffn at decode (M = 1), each with a trail from N/4, N/2.
    kernels::Params attention = params_of("attention"), decode = params_of("ffn");
    attention.set("N", 4096);
    decode.set("M", 1);
    for (float scale : {1.0f, 2.0f})
        for (const kernels::Params& p : {attention, decode}) {
            Headless ui(scale);
            app::AppState state;
            const std::string size = p.workload == "attention" ? "N" : "M";
            for (double fraction : {0.25, 0.5, 1.0}) {  // as `shot --view roofline` seeds the trail
                kernels::Params at = p;
                at.set(size, std::max(1.0, std::round(p.get(size) * fraction)));
                measure(state, runner, at, scale);
                app::update_roofline_trails(state);
            }
            state.requested_view = "roofline";
            const Headless::Recorded labels = ui.frame(state, runner);
            problems.check(kernels::describe(p) + " roofline, font " + std::to_string(scale), labels);
            CHECK(std::count_if(labels.labels.begin(), labels.labels.end(),
                                [](const viz::PlacedLabel& l) { return l.where == "roofline: point"; }) ==
                  static_cast<long>(kernels::variants(p.workload).size()));
        }
    for (float scale : {1.0f, 2.0f})
        each_workload(runner, scale, [&](Headless& ui, app::AppState& state, const std::string& w) {
            state.requested_view = "roofline";
            const Headless::Recorded labels = ui.frame(state, runner);
            // Nothing dropped for want of room: both compute roofs, both memory roofs and every
            // variant that has a point (some FLOPs) carry their labels.
            const auto count = [&](const char* where) {
                return std::count_if(labels.labels.begin(), labels.labels.end(),
                                     [&](const viz::PlacedLabel& l) { return l.where == std::string("roofline: ") + where; });
            };
            long points = 0;
            for (const kernels::Measurement* m : app::visible_results(state)) points += m->ok && m->flops > 0;
            INFO(w << " at font " << scale);
            CHECK(count("compute roof") == 2);
            CHECK(count("DRAM roof") == 1);
            CHECK(count("L2 roof") == 1);
            CHECK(count("point") == points);
            problems.check(w + " roofline, font " + std::to_string(scale), labels);
        });
    INFO(problems.text());
    CHECK(problems.count == 0);
}

// Classroom mode at a projector's size: the presenter fonts of that height, the lesson pane open.
struct Classroom {
    float width, height;
    float font_scale = 0;  // 0: classroom mode, its presenter fonts; else the user's own font scale, no classroom mode
    float scale() const { return font_scale > 0 ? font_scale : app::classroom_font_scale(height); }
};
constexpr Classroom kClassrooms[] = {{1280, 720}, {1920, 1080}};
// A student's own screen: the lessons outside classroom mode at the font scales the app offers,
// on the smallest screen we support.
constexpr Classroom kLessonScreens[] = {{1280, 720}, {1920, 1080}, {1280, 720, 1.0f}, {1280, 720, 2.0f}};

// Measures the step's parameters on the simulated H100 at the classroom's font scale. With a
// cache, a step measured before (at the other screen size) takes its results from there: the
// numbers do not depend on the screen, and measuring is most of this test's time.
void measure_in_class(app::AppState& state, app::Runner& runner, float scale,
                      std::vector<std::vector<kernels::Measurement>>* cache = nullptr, size_t slot = 0, bool classroom = true) {
    state.lesson.classroom = classroom;
    state.settings.backend = "H100";
    state.settings.font_scale = scale;
    state.applied_font_scale = scale;
    state.results.clear();
    if (cache && slot < cache->size() && !(*cache)[slot].empty()) {
        app::store_results(state, std::vector<kernels::Measurement>((*cache)[slot]));
    } else {
        const app::ResolvedBackend backend = app::resolve_backend(state.settings, runner);
        std::vector<kernels::Measurement> results = runner.run_blocking(app::make_batch(state.settings, backend));
        if (cache) {
            if (cache->size() <= slot) cache->resize(slot + 1);
            (*cache)[slot] = results;
        }
        app::store_results(state, std::move(results));
    }
    state.params_dirty = false;
}

// The step of `variant` a shot shows (the middle), or 0 when it has no schedule.
int64_t middle_step(const app::AppState& state) {
    try {
        const std::string& w = state.settings.params.workload;
        const std::string variant = state.memory.variant.empty() ? kernels::variants(w).front().name : state.memory.variant;
        return static_cast<int64_t>((kernels::MemoryPlayer(variant, state.settings.params).step_count() + 1) / 2);
    } catch (const std::invalid_argument&) {
        return 0;
    }
}

TEST_CASE("legible in class: every lesson step in classroom mode at 1280x720 and 1920x1080, and at font scale 1 and 2 at 1280x720, no label under 14 px",
          "[viz][labels][lesson]") {
    app::Runner runner;
    runner.wait_until_probed();
    app::AppState state;
    state.interactive = false;
    app::ensure_lessons_loaded(state);
    REQUIRE_FALSE(state.lesson.lessons.empty());
    Problems problems;
    problems.min_px = kClassroomMinLabelPx;
    size_t recorded = 0, sweep_frames = 0;
    std::vector<std::vector<kernels::Measurement>> measured;  // by step, in order: shared by both sizes
    for (const Classroom& room : kLessonScreens) {
        const float scale = room.scale();
        Headless ui(scale, room.width, room.height);
        problems.min_px = kClassroomMinLabelPx;
        size_t slot = 0;
        for (size_t l = 0; l < state.lesson.lessons.size(); ++l)
            for (size_t s = 0; s < state.lesson.lessons[l].steps.size(); ++s, ++slot) {
                app::open_lesson(state, static_cast<int>(l), static_cast<int>(s), 0);
                measure_in_class(state, runner, scale, &measured, slot, room.font_scale <= 0);
                if (state.requested_view == "memory") state.memory.pending_step = middle_step(state);
                if (state.sweep_requested) {  // the step's own sweep, as a lesson shot runs it
                    state.sweep_requested = false;
                    REQUIRE(app::run_sweep_blocking(state.sweep, state.settings, app::resolve_backend(state.settings, runner),
                                                    runner) == "");
                }
                state.picture_rects.clear();
                const Headless::Recorded labels = ui.frame(state, runner);
                recorded += labels.labels.empty() ? 0 : 1;
                if (state.requested_view == "sweep") {
                    // At least one chart, each with a plot a student can read (its titles are labels above).
                    ++sweep_frames;
                    size_t charts = 0;
                    for (const char* id : {"sweep", "sweep_bytes"})
                        if (const auto it = state.picture_rects.find(id); it != state.picture_rects.end() && !it->second.cut) {
                            ++charts;
                            CHECK(it->second.y1 - it->second.y0 >= ImGui::GetFontSize() * 6);
                        }
                    INFO(state.lesson.lessons[l].name << " step " << s + 1 << " at font " << scale);
                    CHECK(charts >= 1);
                }
                char where[160];
                std::snprintf(where, sizeof where, "%.0fx%.0f font %.1f %s step %zu (%s)", static_cast<double>(room.width),
                              static_cast<double>(room.height), static_cast<double>(scale), state.lesson.lessons[l].name.c_str(), s + 1,
                              state.requested_view.c_str());
                problems.check(where, labels);
            }
    }
    INFO(problems.text());
    std::printf("classroom lesson steps: %s\n", problems.text().substr(0, problems.text().find('\n')).c_str());
    CHECK(recorded > 10);  // the lessons' memory and roofline steps, at both sizes
    CHECK(sweep_frames >= 8);  // lesson 1's and lesson 9's sweep steps on every screen
    CHECK(problems.count == 0);
}

TEST_CASE("legible in class: every workload's memory view in classroom mode at 1280x720 and 1920x1080, no label under 14 px",
          "[viz][labels][memory_view]") {
    app::Runner runner;
    runner.wait_until_probed();
    Problems problems;
    problems.min_px = kClassroomMinLabelPx;
    for (const Classroom& room : kClassrooms) {
        const float scale = room.scale();
        Headless ui(scale, room.width, room.height);
        for (const std::string& w : kernels::workload_names()) {
            // The presenter's screen: a lesson open in classroom mode, its view switched to this
            // workload's animation (alone and side by side), a few steps of each.
            app::AppState state;
            state.interactive = false;
            app::ensure_lessons_loaded(state);
            REQUIRE_FALSE(state.lesson.lessons.empty());
            app::open_lesson(state, 0, 0, 0);
            state.settings.params = params_of(w);
            state.settings.variants[w].clear();
            for (const kernels::VariantInfo& v : kernels::variants(w)) state.settings.variants[w].push_back(v.name);
            measure_in_class(state, runner, scale);
            for (const kernels::VariantInfo& v : kernels::variants(w)) {
                check_memory_view(ui, state, runner, v.name, "", {0.55}, problems, 5);
            }
            for (const auto& [variant, compare] : pairs_of(w))
                check_memory_view(ui, state, runner, variant, compare, {0.2, 0.85}, problems, 5);
        }
    }
    INFO(problems.text());
    std::printf("classroom memory views: %s\n", problems.text().substr(0, problems.text().find('\n')).c_str());
    CHECK(problems.frames > 100);
    CHECK(problems.count == 0);
}

#endif
