// The exercise pane (exercises/, app/exercises/exercise_session.h): the task, staged hints, the
// reference numbers of the built-in variants on the current backend, an editor with line numbers
// and compile errors marked on their lines (autosaved; reloaded when another editor saves the file),
// a compile check, and a run on the GPU whose result joins every view as the variant `yours`.
// Without a GPU the pane says why the kernel cannot run and shows the built-in variants' numbers
// from the recording or the model.
#pragma once

#include "app/core/panels_state.h"
#include "app/core/runner.h"

#include <string>

namespace app {

// The whole body while an exercise is open: exercise pane | the views (stacked when narrow).
void draw_exercise_layout(AppState& state, Runner& runner, const ResolvedBackend& backend, float body_h);

// The "Exercises" button of the normal layout (opens the pane at the first exercise).
void draw_exercise_launcher(AppState& state);

// Opens exercise `name`: the pane, its parameters and its compared variants. "" or why not.
std::string open_exercise_in_app(AppState& state, const std::string& name, double now);

// Once per frame: autosave, reload, finished compiles and runs (a run's measurements are stored).
void service_exercise(AppState& state, double now);

}  // namespace app
