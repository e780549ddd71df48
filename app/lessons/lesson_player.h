// The lesson player's logic, without ImGui: entering a step puts the app in the step's state
// (workload, dtype, parameters, variants, view, highlight, sweep request), the user may then
// change anything, and returning (R) applies the step's state again. The panel
// (app/gui/panel_lesson.cpp), the headless bundle (app/gui/gui.cpp) and the tests call these.
#pragma once

#include "app/lessons/expressions.h"
#include "app/lessons/prediction.h"
#include "app/lessons/model/lesson.h"
#include "app/core/panels_state.h"

#include <string>
#include <vector>

namespace app {

// Loads the shipped lessons once (state.lesson.loaded) and opens the pane.
void ensure_lessons_loaded(AppState& state);

// Opens lesson `index` at `step` (clamped) and applies that step. `now`: ImGui time (0 headless).
void open_lesson(AppState& state, int index, int step, double now);
// Applies step `step` of the open lesson (clamped); answers close again.
void enter_step(AppState& state, int step, double now);
// Closes the pane: classroom mode ends, the highlight goes and the user's own workload, parameters,
// dtype and variants from before the lesson come back.
void close_lesson(AppState& state);
// What settings.json should hold now: the settings, except that while a lesson has replaced the
// user's workload, parameters and variants (and classroom mode the font scale) the user's own.
Settings settings_to_save(const AppState& state);
// Next / previous step; false at either end.
bool next_step(AppState& state, double now);
bool previous_step(AppState& state, double now);
// Puts the current step's state back (the R key).
void reset_step(AppState& state, double now);
// Writes a step's state into settings and view requests (no timing: used by enter_step and shots).
void apply_step_state(AppState& state, const StepState& step);
// The highlight ring's pulse, 0..1: it beats for kHighlightPulseSeconds after a step is entered
// (so the eye finds it), then stays still (so an idle window stops redrawing). 0 in shots.
inline constexpr double kHighlightPulseSeconds = 3.0;
float highlight_pulse(const AppState& state, double now);
bool highlight_pulsing(const AppState& state, double now);
// True when the user changed parameters, workload, dtype or variants since the step applied them.
bool step_modified(const AppState& state);

// Classroom mode: on = presenter font scale for a display `display_height` pixels tall (the old
// scale is kept and restored when it ends).
void set_classroom(AppState& state, bool on, float display_height);
// The font scale classroom mode uses on a display this tall: 720 px -> 1.5x, 1080 px -> 2.25x.
float classroom_font_scale(float display_height);

// What live expressions see: the parameters and variants on screen, the device, the results.
ExprContext expr_context(const AppState& state, const ResolvedBackend& backend, bool pending);

// Plain text of prose with every expression evaluated (bundles and the tests); prose_plain_text
// ends with the definitions of the glossary terms the blocks link ("Terms: ...").
std::string prose_plain_text(const std::vector<ProseBlock>& blocks, const ExprContext& ctx);
std::string spans_plain_text(const std::vector<ProseSpan>& spans, const ExprContext& ctx);

// Predictions of the current step (app/lessons/prediction.h). One is settled once answered (now or
// in an earlier visit: the answer book) or, in classroom mode, revealed to the room.
bool prediction_settled(const AppState& state, int index);
// The step's numbers are hidden (its prose's live values and the view beside the pane): predictions
// are on, the step poses some and one is not settled. Headless shots show them settled unless
// shot_predictions_posed asks for the posed state.
bool step_numbers_hidden(const AppState& state);
// Grades the typed answer against the live values and, when it could be read and the right answer
// is known here, keeps it in the answer book (answers_dirty) and settles the prediction.
PredictionGrade answer_prediction(AppState& state, int index, const std::string& answer, const ExprContext& ctx);
// Classroom mode's key (P): reveals the first prediction of the step not yet settled; false when none.
bool reveal_next_prediction(AppState& state);
// Writes the answer book as CSV to `path` (atomically). "" or the error.
std::string export_answers_csv(const AnswerBook& book, const std::string& path);

}  // namespace app
