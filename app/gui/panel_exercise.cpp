// The exercise pane (panel_exercise.h). [SECTION] index:
//   opening     an exercise's parameters and variants into the app
//   numbers     the built-in variants' numbers beside the task, and yours
//   editor      line numbers, error lines, the text field
//   pane        task, hints, editor, actions, status
//   layout      pane | views
#include "app/gui/panel_exercise.h"

#include "app/exercises/exercise_reference.h"

#include "app/platform/platform.h"
#include "app/gui/panel_lesson.h"
#include "app/gui/view_tabs.h"
#include "app/lessons/exercise_predictions.h"
#include "app/lessons/lesson_player.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "kernels/gpu/nvrtc_compile.h"
#include "viz/code_font.h"
#include "viz/imgui_helpers.h"
#include "viz/theme.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#define GLFW_INCLUDE_NONE  // key codes only
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace app {

using viz::em;

// =============================================================================================
// [SECTION] opening
// =============================================================================================
std::string open_exercise_in_app(AppState& state, const std::string& name, double now) {
    exercises::ExerciseSession& s = state.exercise;
    // Its predictions are parsed by the lesson engine before it opens: a malformed one keeps it closed.
    ExercisePredictionState predictions;
    auto accept = [&predictions](const exercises::Exercise& ex) { return open_exercise_predictions(ex, predictions); };
    if (std::string why = exercises::open_exercise(s, name, accept); !why.empty()) {
        s.load_error = why;
        return why;
    }
    state.exercise_predictions = std::move(predictions);
    s.load_error.clear();
    state.lesson.open = false;
    state.settings.params = s.ex.params;
    state.settings.variants[s.ex.workload] = s.ex.compare;
    state.requested_view = "results";
    mark_changed(state, now);
    return "";
}

void service_exercise(AppState& state, double now) {
    exercises::ExerciseSession& s = state.exercise;
    if (!exercises::service(s, now)) return;
    // A finished run: its measurements (the compared variants and yours, measured together in
    // the run's own process on this GPU) join the results every view draws.
    if (s.last_run.measured.empty()) return;
    store_results(state, s.last_run.measured);
    // The run measured the built-in variants with its own repetitions; where the app asks for
    // others they are not the current settings' numbers: the app measures them again (truly
    // "updating" meanwhile) rather than showing them greyed for good. Yours is the run's alone.
    for (const kernels::Measurement& m : s.last_run.measured)
        if (m.job.variant != kernels::kStudentVariant && m.job.reps != state.settings.reps) {
            mark_changed(state, now);
            break;
        }
}

void draw_exercise_launcher(AppState& state) {
    if (!state.interactive) return;
    ImGui::SameLine();
    if (ImGui::Button("Exercises")) {
        exercises::ExerciseSession& s = state.exercise;
        if (!s.ex.name.empty()) {
            open_exercise_in_app(state, s.ex.name, ImGui::GetTime());
        } else {
            std::string why;
            const std::string dir = exercises::exercises_dir(&why);
            const std::vector<std::string> files = dir.empty() ? std::vector<std::string>{} : exercises::exercise_files(dir);
            if (files.empty()) s.load_error = dir.empty() ? why : "no exercises in " + dir;
            else open_exercise_in_app(state, std::filesystem::path(files.front()).stem().string(), ImGui::GetTime());
        }
    }
    viz::tooltip("Write the fused kernel yourself: on a CUDA GPU fusionlab compiles it, checks it against the "
                 "float64 reference and draws it as 'yours' beside the built-in variants.");
    if (!state.exercise.load_error.empty()) viz::wrapped_colored(ImVec4(1, 0.45f, 0.4f, 1), state.exercise.load_error);
}

// =============================================================================================
// [SECTION] numbers
// =============================================================================================
namespace {

const ImVec4 kErrorColor(1.0f, 0.42f, 0.38f, 1.0f), kGoodColor(0.45f, 0.85f, 0.5f, 1.0f), kDimColor(0.65f, 0.65f, 0.7f, 1.0f);

std::string numbers_line(const kernels::Measurement& m) {
    if (!m.ok) return m.job.variant + ": " + (m.error.empty() ? std::string("not measured") : m.error);
    std::string line = m.job.variant + ": " + kernels::format_time_ms(m.time.median_ms) + ", DRAM " +
                       (m.measured_bytes ? kernels::format_bytes(static_cast<double>(*m.measured_bytes)) + " measured, "
                                         : std::string()) +
                       kernels::format_bytes(static_cast<double>(m.bytes_read + m.bytes_written)) + " modeled";
    const std::string tag = m.source_tag();
    return line + (tag.empty() ? "" : " (" + tag + ")");
}

// The reference solution's measured files of an exercise (exercises/measured/), read once per file
// for the process: they ship with the exercises and do not change while the app runs.
const std::vector<exercises::MeasuredReference>& cached_references(const exercises::Exercise& ex) {
    static std::map<std::string, std::vector<exercises::MeasuredReference>> cache;
    auto it = cache.find(ex.path);
    if (it == cache.end()) it = cache.emplace(ex.path, exercises::measured_references(ex)).first;
    return it->second;
}

void draw_numbers(const AppState& state) {
    const std::vector<const kernels::Measurement*> shown = visible_results(state);
    if (shown.empty()) ImGui::TextColored(kDimColor, "measuring the built-in variants...");
    for (const kernels::Measurement* m : shown) {
        const bool yours = m->job.variant == kernels::kStudentVariant;
        if (yours) viz::wrapped_colored(m->ok ? kGoodColor : kErrorColor, numbers_line(*m));
        else ImGui::TextWrapped("%s", numbers_line(*m).c_str());
    }
    // What the reference solution did on real GPUs: the target where nothing runs here, and a
    // yardstick where yours does.
    for (const exercises::MeasuredReference& r : cached_references(state.exercise.ex)) {
        if (!r.error.empty()) {
            viz::wrapped_colored(kDimColor, "(" + r.error + ")");
            continue;
        }
        for (const std::string& line : r.lines) viz::wrapped_colored(kDimColor, line);
    }
}

// Why a run cannot start here ("" when it can). `numbers_hidden`: the Numbers section is hidden
// behind open predictions, so the line points to where they will appear, not to "above".
std::string why_no_run(const Runner& runner, const ResolvedBackend& backend, bool numbers_hidden) {
    if (!kernels::nvrtc::status().empty()) return kernels::nvrtc::status();
    if (!runner.gpu_probed()) return "probing for a CUDA GPU...";
    if (!runner.gpu_available())
        return "no CUDA GPU here (" + runner.gpu_status() + "): your kernel can run only on one. " +
               (numbers_hidden ? "Once the predictions are answered, the Numbers above show " : "The Numbers above are ") +
               "the built-in variants' from " + (backend.kind == kernels::BackendKind::recorded ? "the recording" : "the model") +
               " and, where measured, the reference solution's on real GPUs; compare your plan with them";
    if (backend.kind != kernels::BackendKind::gpu)
        return "the backend is " + std::string(kernels::to_string(backend.kind)) +
               ": choose the GPU backend to run your kernel beside ours on the same GPU";
    if (platform::executable_path().empty()) return "this program's own path is unknown, so it cannot start a run";
    return "";
}

// =============================================================================================
// [SECTION] editor
// =============================================================================================
void draw_editor(AppState& state, float height) {
    exercises::ExerciseSession& s = state.exercise;
    const std::vector<kernels::nvrtc::Diagnostic> diags = s.diagnostics();
    std::set<int> error_lines;
    for (const kernels::nvrtc::Diagnostic& d : diags)
        if (d.severity == "error") error_lines.insert(d.line);

    int lines = 1;
    for (char c : s.text) lines += c == '\n';
    ImGui::PushFont(viz::code_font());  // code in columns: monospace for the numbers and the text
    const float line_h = ImGui::GetTextLineHeight();
    const float pad_y = ImGui::GetStyle().FramePadding.y;
    char widest[16];
    std::snprintf(widest, sizeof widest, "%d", std::max(lines, 99));
    const float gutter_w = ImGui::CalcTextSize(widest).x + em() * 0.9f;

    ImGui::BeginChild("editor", ImVec2(0, height), true, ImGuiWindowFlags_HorizontalScrollbar);
    // A picture shows the first error line (two lines of context above it) wherever it is.
    if (!state.interactive && !error_lines.empty())
        ImGui::SetScrollY(std::max(0.0f, static_cast<float>(*error_lines.begin() - 3) * line_h));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // The gutter: line numbers, error lines in red with their message on hover.
    const float scroll_y = ImGui::GetScrollY(), visible_h = ImGui::GetWindowHeight();
    const int first = std::max(0, static_cast<int>((scroll_y - pad_y) / line_h) - 1);
    const int last = std::min(lines, static_cast<int>((scroll_y + visible_h) / line_h) + 2);
    for (int i = first; i < last; ++i) {
        const float y = origin.y + pad_y + static_cast<float>(i) * line_h;
        const bool bad = error_lines.count(i + 1) > 0;
        if (bad) {
            dl->AddRectFilled(ImVec2(origin.x, y), ImVec2(origin.x + gutter_w - em() * 0.3f, y + line_h),
                              ImGui::GetColorU32(ImVec4(0.75f, 0.15f, 0.12f, 0.85f)));
            if (ImGui::IsMouseHoveringRect(ImVec2(origin.x, y), ImVec2(origin.x + gutter_w, y + line_h)))
                for (const kernels::nvrtc::Diagnostic& d : diags)
                    if (d.line == i + 1) viz::tooltip_box("line " + std::to_string(d.line) + ": " + d.message);
        }
        char num[16];
        std::snprintf(num, sizeof num, "%d", i + 1);
        const float w = ImGui::CalcTextSize(num).x;
        dl->AddText(ImVec2(origin.x + gutter_w - em() * 0.5f - w, y),
                    ImGui::GetColorU32(bad ? ImVec4(1, 1, 1, 1) : kDimColor), num);
    }
    ImGui::SetCursorScreenPos(ImVec2(origin.x + gutter_w, origin.y));
    const float text_h = static_cast<float>(lines + 2) * line_h + 2 * pad_y;
    const float text_w = std::max(ImGui::GetContentRegionAvail().x, em() * 30);
    if (ImGui::InputTextMultiline("##kernel", &s.text, ImVec2(text_w, std::max(text_h, height - pad_y * 2)),
                                  ImGuiInputTextFlags_AllowTabInput))
        exercises::mark_edited(s, ImGui::GetTime());
    // The error lines' band across the text, drawn over the field.
    for (int line : error_lines) {
        if (line < 1 || line > lines) continue;
        const float y = origin.y + pad_y + static_cast<float>(line - 1) * line_h;
        dl->AddRectFilled(ImVec2(origin.x + gutter_w, y), ImVec2(origin.x + gutter_w + text_w, y + line_h),
                          ImGui::GetColorU32(ImVec4(0.9f, 0.2f, 0.15f, 0.22f)));
    }
    ImGui::EndChild();
    ImGui::PopFont();
}

// The last lines of a run's output (the rows, the goals, the reason).
std::string output_tail(const std::string& output, int lines) {
    std::vector<std::string> all;
    std::istringstream in(output);
    for (std::string l; std::getline(in, l);) all.push_back(l);
    std::string out;
    for (size_t i = all.size() > static_cast<size_t>(lines) ? all.size() - static_cast<size_t>(lines) : 0; i < all.size(); ++i)
        out += all[i] + "\n";
    return out;
}

// Why a run failed, in one line: the last "fusionlab exercises run: ..." line of its output (the
// first wrong element, the goal missed, the watchdog), else the exit code.
std::string run_verdict(const exercises::RunOutcome& r) {
    if (r.exit_code == 0) return "correct and within every goal";
    const std::string prefix = "fusionlab exercises run: ";
    std::string reason;
    std::istringstream in(r.output);
    for (std::string l; std::getline(in, l);)
        if (l.rfind(prefix, 0) == 0) reason = l.substr(prefix.size());
    return reason.empty() ? "exit " + std::to_string(r.exit_code) + ": see the output below" : reason;
}

// The exercise's predictions as a set the lesson machinery plays (answers kept under its answer key).
PredictionSet exercise_predictions(AppState& state) {
    ExercisePredictionState& e = state.exercise_predictions;
    PredictionSet set;
    set.owner = e.owner;
    set.step = 1;
    set.predictions = &e.predictions;
    set.play = &e.play;
    return set;
}

// Some prediction is still open: the built-in variants' numbers would give it away.
bool exercise_numbers_hidden(AppState& state) {
    if (!state.settings.predictions || state.exercise_predictions.predictions.empty()) return false;
    if (!state.interactive) return state.lesson.shot_predictions_posed;
    const PredictionSet set = exercise_predictions(state);
    for (size_t i = 0; i < set.predictions->size(); ++i)
        if (!prediction_settled(state.lesson.answers, set.owner, set.step, set.play->settled, static_cast<int>(i))) return true;
    return false;
}

// While a prediction is open: the predictions where the views would be (they would give the
// answers away), beside the task they are about.
void draw_predictions_in_place_of_views(AppState& state, const ExprContext& ctx) {
    const PredictionSet set = exercise_predictions(state);
    // Classroom mode: the room answers aloud, P reveals (as in the lesson pane).
    if (state.interactive && state.lesson.classroom && !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(GLFW_KEY_P, false))
        reveal_next_prediction(state.lesson.answers, set);
    ImGui::PushFont(viz::heading_font());
    ImGui::TextUnformatted("Predict before you write it");
    ImGui::PopFont();
    // Wrapped: presenter fonts in the narrow right-hand side would cut one long line.
    viz::wrapped_colored(kDimColor, state.lesson.classroom ? "The numbers and the views appear when each prediction is revealed (P)."
                                                           : "The numbers and the views appear when each prediction is answered or skipped.");
    ImGui::Spacing();
    draw_prediction_cards(state, set, state.lesson.classroom, ctx);
}

// The task side: what to write, the predictions to make before writing it, what the harness
// calls, the goals, the numbers (hidden while a prediction is open), the hints.
void draw_task(AppState& state, const ExprContext& ctx) {
    exercises::ExerciseSession& s = state.exercise;
    const exercises::Exercise& ex = s.ex;
    ImGui::TextWrapped("%s", ex.task.c_str());
    ImGui::Spacing();
    // Once all are answered the reveals stay here; while one is open they are asked in place of
    // the views (draw_predictions_in_place_of_views).
    if (!state.exercise_predictions.predictions.empty() && state.settings.predictions && !exercise_numbers_hidden(state)) {
        viz::section_heading("Your predictions");
        draw_prediction_cards(state, exercise_predictions(state), state.lesson.classroom, ctx);
    }
    viz::section_heading("What the harness calls");
    ImGui::TextWrapped("%s", ex.signature().c_str());
    ImGui::TextColored(kDimColor, "grid (%s, %s, %s), block (%d, %d, %d); T = %s", ex.grid[0].c_str(), ex.grid[1].c_str(),
                       ex.grid[2].c_str(), ex.block[0], ex.block[1], ex.block[2], exercises::element_type(ex.params.dtype));
    viz::section_heading("Goals");
    for (const exercises::Goal& g : ex.goals) ImGui::BulletText("%s", g.text().c_str());
    viz::section_heading("Numbers");
    if (exercise_numbers_hidden(state))
        viz::wrapped_colored(kDimColor, "Hidden until the predictions are answered (or skipped).");
    else
        draw_numbers(state);

    viz::section_heading("Hints");
    for (int i = 0; i < s.hints_shown && i < static_cast<int>(ex.hints.size()); ++i)
        ImGui::TextWrapped("%d. %s", i + 1, ex.hints[static_cast<size_t>(i)].c_str());
    if (s.hints_shown < static_cast<int>(ex.hints.size())) {
        const std::string label = "Show hint " + std::to_string(s.hints_shown + 1) + " of " + std::to_string(ex.hints.size());
        if (state.interactive && ImGui::SmallButton(label.c_str())) ++s.hints_shown;
        else if (!state.interactive) ImGui::TextColored(kDimColor, "%s", label.c_str());
    }
}

// The verdicts under the editor: why it cannot run, the compile check, the last run.
void draw_status(const exercises::ExerciseSession& s, const std::string& no_run) {
    if (s.compiled_once) {
        if (s.compiled.ok)
            viz::wrapped_colored(kGoodColor, "compiles (" + s.compiled.nvrtc_version + ", " + s.compiled.arch + ")");
        else if (!s.compiled.unavailable.empty())
            viz::wrapped_colored(kErrorColor, s.compiled.unavailable);
        else
            for (const kernels::nvrtc::Diagnostic& d : s.compiled.diagnostics)
                if (d.severity == "error") viz::wrapped_colored(kErrorColor, "line " + std::to_string(d.line) + ": " + d.message);
    }
    if (s.ran_once && !s.running) {
        viz::wrapped_colored(s.last_run.exit_code == 0 ? kGoodColor : kErrorColor, run_verdict(s.last_run));
        ImGui::PushStyleColor(ImGuiCol_Text, kDimColor);
        ImGui::TextWrapped("%s", output_tail(s.last_run.output, 10).c_str());
        ImGui::PopStyleColor();
    }
    if (!no_run.empty()) viz::wrapped_colored(kDimColor, "Cannot run here: " + no_run);
}

// =============================================================================================
// [SECTION] pane
// =============================================================================================
// Top to bottom: the title; the task (its own scrolling box, about a third of the height); the
// editor, which takes what is left, so a student sees the kernel and its red error lines without
// scrolling the pane; the actions; the verdicts (a box of their own, about five lines).
void draw_exercise_pane(AppState& state, Runner& runner, const ResolvedBackend& backend) {
    exercises::ExerciseSession& s = state.exercise;
    const exercises::Exercise& ex = s.ex;
    ImGui::TextWrapped("Exercise: %s", ex.title.c_str());
    if (state.interactive) {
        ImGui::SameLine(std::max(ImGui::GetContentRegionAvail().x - em() * 4, em() * 10));
        if (ImGui::SmallButton("Close")) {
            exercises::save_now(s);
            s.open = false;
            return;
        }
        std::string why;
        const std::string dir = exercises::exercises_dir(&why);
        if (ImGui::BeginCombo("##exercise", ex.name.c_str())) {
            for (const std::string& f : dir.empty() ? std::vector<std::string>{} : exercises::exercise_files(dir)) {
                const std::string name = std::filesystem::path(f).stem().string();
                if (ImGui::Selectable(name.c_str(), name == ex.name) && name != ex.name) {
                    exercises::save_now(s);
                    open_exercise_in_app(state, name, ImGui::GetTime());
                }
            }
            ImGui::EndCombo();
        }
    }
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    const float total_h = ImGui::GetContentRegionAvail().y;
    // Short panes (large fonts on a small screen): the task and the verdicts shrink to a few lines
    // each so the editor keeps at least four.
    const bool short_pane = total_h < line_h * 24;
    const float status_h = line_h * (short_pane ? 3.2f : 5.5f);
    const float fixed_h = line_h * 2 + ImGui::GetFrameHeightWithSpacing() + status_h + ImGui::GetStyle().ItemSpacing.y * 4;
    const float task_h =
        std::max(line_h * (short_pane ? 2.5f : 4.0f), std::min(total_h * 0.36f, total_h - fixed_h - line_h * (short_pane ? 4 : 6)));
    ImGui::BeginChild("task", ImVec2(0, task_h), true);
    draw_task(state, expr_context(state, backend, runner.busy()));
    ImGui::EndChild();

    viz::section_heading("Your kernel");
    viz::wrapped_colored(kDimColor, s.file_message);  // a long path at large fonts: wrapped, never cut
    const float editor_h = std::max(line_h * (short_pane ? 4 : 6), ImGui::GetContentRegionAvail().y - status_h -
                                                                      ImGui::GetFrameHeightWithSpacing() -
                                                                      ImGui::GetStyle().ItemSpacing.y * 2);
    draw_editor(state, editor_h);

    // Actions: compile check, run on the GPU, the starter back.
    const std::string no_compile = kernels::nvrtc::status();
    const std::string no_run = why_no_run(runner, backend, exercise_numbers_hidden(state));
    const int cc_major = runner.gpu_available() ? runner.gpu_device().cc_major : 9;
    const int cc_minor = runner.gpu_available() ? runner.gpu_device().cc_minor : 0;
    ImGui::BeginDisabled(!no_compile.empty() || s.compiling);
    if (ImGui::Button(s.compiling ? "Compiling..." : "Compile")) exercises::start_compile(s, cc_major, cc_minor);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!no_run.empty() || s.running);
    if (ImGui::Button(s.running ? "Running..." : "Run on the GPU"))
        exercises::start_run(s, platform::executable_path().string());
    ImGui::EndDisabled();
    if (state.interactive) {
        ImGui::SameLine();
        if (ImGui::Button("Starter")) exercises::reset_to_starter(s, ImGui::GetTime());
    }

    ImGui::BeginChild("status", ImVec2(0, 0), true);
    draw_status(s, no_run);
    ImGui::EndChild();
}

}  // namespace

// =============================================================================================
// [SECTION] layout
// =============================================================================================
void draw_exercise_layout(AppState& state, Runner& runner, const ResolvedBackend& backend, float body_h) {
    const float total_w = ImGui::GetContentRegionAvail().x;
    if (total_w >= em() * 40) {
        const float pane_w = std::clamp(total_w * 0.42f, em() * 20, em() * 40);
        ImGui::BeginChild("exercise", ImVec2(pane_w, body_h), true);
        draw_exercise_pane(state, runner, backend);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("results", ImVec2(0, body_h), false);
        if (exercise_numbers_hidden(state)) draw_predictions_in_place_of_views(state, expr_context(state, backend, runner.busy()));
        else draw_view_tabs(state, backend);
        ImGui::EndChild();
    } else {
        // Too narrow for both side by side (large fonts on a small screen): stacked, neither the
        // editor nor a chart would be readable, so one of them has the whole height and two buttons
        // switch. A picture (shot) shows the pane until yours has numbers (a run, or --results), then
        // the views; the views too when it asks for another view than the results.
        ImGuiStorage* storage = ImGui::GetStateStorage();
        const ImGuiID key = ImGui::GetID("exercise_narrow_shows_views");
        bool has_yours = false;
        for (const kernels::Measurement* m : visible_results(state)) has_yours |= m->job.variant == kernels::kStudentVariant;
        // While a prediction is open the second button asks them (first, where nothing was chosen yet).
        const bool hidden = exercise_numbers_hidden(state);
        bool views = state.interactive ? storage->GetBool(key, hidden)
                                       : hidden || has_yours || (!state.requested_view.empty() && state.requested_view != "results");
        if (ImGui::RadioButton("Exercise", !views)) views = false;
        ImGui::SameLine();
        if (ImGui::RadioButton(hidden ? "Predictions" : "Results and charts", views)) views = true;
        storage->SetBool(key, views);
        const float h = ImGui::GetContentRegionAvail().y;
        if (views) {
            ImGui::BeginChild("results", ImVec2(0, h), false);
            if (hidden) draw_predictions_in_place_of_views(state, expr_context(state, backend, runner.busy()));
            else draw_view_tabs(state, backend);
        } else {
            ImGui::BeginChild("exercise", ImVec2(0, h), true);
            draw_exercise_pane(state, runner, backend);
        }
        ImGui::EndChild();
    }
}

}  // namespace app
