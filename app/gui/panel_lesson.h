// The lesson player's GUI: the lesson pane (picker, progress, step prose with live numbers,
// "pause and recall" answers, navigation), classroom mode (presenter fonts, only the step's
// controls, pointer halo) and the interactive lesson bundle export. Thin ImGui code over
// app/lessons/lesson_player.h.
#pragma once

#include "app/core/panels_state.h"
#include "app/core/runner.h"
#include "app/lessons/lesson_player.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace app {

// The whole body while a lesson is open: lesson pane | the step's view (or stacked when narrow).
void draw_lesson_layout(AppState& state, Runner& runner, const ResolvedBackend& backend, float body_h);

// A set of predictions as cards: each question, then the student's input (or, in classroom mode,
// "press P"), then the reveal once settled. The lesson pane draws its step's; the exercise pane
// (app/gui/panel_exercise.cpp) an exercise's. Answers go to state.lesson.answers.
void draw_prediction_cards(AppState& state, const PredictionSet& set, bool classroom, const ExprContext& ctx);

// The "Lessons" button of the normal layout (opens the pane at the first lesson).
void draw_lesson_launcher(AppState& state);

// Keys: Right / PageDown next step, Left / PageUp previous, R back to the step's state, F5
// classroom mode on/off, Esc leaves classroom mode. Ignored while a text field has focus.
void handle_lesson_keys(AppState& state);

// Drives a bundle export the lesson pane asked for: steps through the lesson, waits for each
// step's measurements, captures the frame just rendered (`capture` reads it) and writes the
// folder at the end. Call once per frame after rendering, before the buffer swap.
void service_lesson_bundle(AppState& state, Runner& runner, const std::function<std::vector<uint8_t>()>& capture,
                           int width, int height);
// True while a bundle export is stepping through the lesson (navigation keys are off).
bool lesson_bundle_running();

}  // namespace app
