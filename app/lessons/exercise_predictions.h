// An exercise's predictions (exercises/README.md, "Predictions"): the `== predictions` section that
// app/exercises keeps raw, parsed here in the lessons' @predict syntax (app/lessons/prediction.h)
// and played as a one-step lesson with the exercise's parameters and compared variants, so the
// lessons' machinery grades, keeps, exports and checks them. The lesson engine sits above the
// exercises in the rooms of docs/ARCHITECTURE.md: the exercises never call it; the GUI and the
// command line (`exercises check`) hand its work in.
#pragma once

#include "app/exercises/exercise.h"
#include "app/exercises/exercise_cli.h"
#include "app/lessons/model/lesson.h"

#include <string>
#include <vector>

namespace app {

// The name an exercise's answers are kept under in the answer book (and its CSV's lesson column):
// "exercise:bias_gelu"; never a lesson's name (those have no colon).
std::string exercise_answer_key(const exercises::Exercise& ex);

struct ExercisePredictionParse {
    std::vector<Prediction> predictions;          // empty when the exercise has no section
    std::vector<exercises::ExerciseError> errors;  // on the exercise file's lines; empty: valid
    bool ok() const { return errors.empty(); }
};
// Parses the exercise's `== predictions` section (none: nothing, no error) against its workload:
// each block's form, its live parts, the live expressions of its question and reveal, numbers typed
// into its prose, and a section with no @predict block.
ExercisePredictionParse parse_exercise_predictions(const exercises::Exercise& ex);

// The predictions as a one-step lesson named exercise_answer_key(): the exercise's parameters,
// its compared variants (app/lessons/lesson_devices.h plays it on every device).
Lesson prediction_lesson(const exercises::Exercise& ex, const std::vector<Prediction>& predictions);

// What `fusionlab exercises` asks of an exercise's predictions (app/exercises/exercise_cli.h):
// parse them and, for `check`, answer each on every simulated GPU and shipped recording (opened
// once, at the first exercise that needs them, and shared by the later ones).
exercises::PredictionChecker exercise_prediction_checker();

// Opens the exercise's predictions into `state` for the exercise pane (a new visit: nothing
// settled yet). "" or the first error (the pane then keeps the exercise closed).
std::string open_exercise_predictions(const exercises::Exercise& ex, ExercisePredictionState& state);

}  // namespace app
