// An exercise's predictions, parsed and played by the lesson engine (exercise_predictions.h).
#include "app/lessons/exercise_predictions.h"

#include "app/lessons/lesson_devices.h"
#include "app/lessons/prediction.h"

#include <memory>

namespace app {

std::string exercise_answer_key(const exercises::Exercise& ex) { return "exercise:" + ex.name; }

ExercisePredictionParse parse_exercise_predictions(const exercises::Exercise& ex) {
    ExercisePredictionParse out;
    if (ex.predictions_line <= 0) return out;
    for (auto& [line, why] : parse_prediction_blocks(ex.predictions_text, ex.predictions_line, ex.workload, out.predictions))
        out.errors.push_back({ex.path, line, std::move(why)});
    // The section's own line (`== predictions`) is the one before its body.
    if (out.predictions.empty()) out.errors.push_back({ex.path, ex.predictions_line - 1, "== predictions holds no @predict block"});
    return out;
}

Lesson prediction_lesson(const exercises::Exercise& ex, const std::vector<Prediction>& predictions) {
    LessonStep step;
    step.line = predictions.empty() ? 0 : predictions.front().line;
    step.title = ex.title;
    step.state.params = ex.params;
    step.state.variants = ex.compare;
    step.predictions = predictions;
    Lesson l;
    l.path = ex.path;
    l.name = exercise_answer_key(ex);
    l.title = ex.title;
    l.steps.push_back(std::move(step));
    return l;
}

exercises::PredictionChecker exercise_prediction_checker() {
    // The devices are opened once per process (every recording is read), only when some exercise
    // must be played on them; the left-out ones are said with the first exercise that needs them.
    struct Devices {
        bool opened = false;
        std::vector<LessonDevice> list;
        std::vector<std::string> left_out;
    };
    auto devices = std::make_shared<Devices>();
    return [devices](const exercises::Exercise& ex, bool on_devices) {
        exercises::PredictionCheck check;
        ExercisePredictionParse parsed = parse_exercise_predictions(ex);
        check.predictions = parsed.predictions.size();
        check.errors = std::move(parsed.errors);
        if (!on_devices || !check.errors.empty()) return check;
        if (!devices->opened) {
            devices->list = lesson_devices(&devices->left_out);
            devices->opened = true;
            check.notes = devices->left_out;
        }
        check.devices = devices->list.size();
        for (const LessonError& e : check_predictions_on_devices(prediction_lesson(ex, parsed.predictions), devices->list))
            check.errors.push_back({e.file, e.line, e.message});
        return check;
    };
}

std::string open_exercise_predictions(const exercises::Exercise& ex, ExercisePredictionState& state) {
    ExercisePredictionParse parsed = parse_exercise_predictions(ex);
    if (!parsed.ok()) return parsed.errors.front().text();
    state.owner = exercise_answer_key(ex);
    state.predictions = std::move(parsed.predictions);
    state.play.clear();
    return "";
}

}  // namespace app
