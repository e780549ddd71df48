// Playing lessons on every device: the simulated GPUs and the shipped recordings
// (app/lessons/lesson_devices.h).
#include "app/lessons/lesson_devices.h"

#include "app/recordings/auto_pick.h"
#include "app/recordings/recorded_backend.h"
#include "app/recordings/recording_file.h"
#include "app/lessons/prediction.h"
#include "kernels/sim/sim_backend.h"

namespace app {

std::vector<LessonDevice> lesson_devices(std::vector<std::string>* why_not) {
    std::vector<LessonDevice> out;
    for (const kernels::SimGpu& g : kernels::sim_gpus()) {
        LessonDevice d;
        d.label = "simulated " + g.key;
        d.backend = kernels::make_sim_backend(g);
        d.sim_key = g.key;
        out.push_back(std::move(d));
    }
    for (const auto& r : recordings()->recordings) {
        LessonDevice d;
        d.label = "recording " + r->key;
        std::string why;
        d.backend = make_recorded_backend(r, &why);
        if (!d.backend) {
            if (why_not) why_not->push_back(d.label + ": " + why);
            continue;
        }
        d.kind = kernels::BackendKind::recorded;
        d.recording = r->key;
        d.sim_key = r->card;
        if (const kernels::SimGpu* g = kernels::find_sim_gpu(r->card)) d.fallback = &g->info;
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<kernels::Measurement> measure_step(LessonDevice& device, const LessonStep& step, const std::set<std::string>& emulate) {
    std::vector<kernels::Measurement> results;
    for (const std::string& v : step.state.variants) {
        const bool with_error = emulate.count(v) > 0;
        const std::string key = v + "|" + point_key(step.state.params, v) + (with_error ? "|e" : "");
        auto it = device.measured.find(key);
        if (it == device.measured.end()) {
            kernels::Job job;
            job.params = step.state.params;
            job.variant = v;
            job.backend = device.kind;
            job.sim_gpu = device.sim_key;
            job.recording = device.recording;
            job.reps = 5;
            job.warmup = 1;
            job.emulate = with_error;
            // As the runner runs it: an auto tile resolved on this device (app/recordings/auto_pick.h).
            it = device.measured.emplace(key, run_resolved(*device.backend, job, kernels::CancelToken{})).first;
        }
        results.push_back(it->second);
    }
    return results;
}

ExprContext step_context(const LessonDevice& device, const LessonStep& step, const std::vector<kernels::Measurement>& results) {
    ExprContext ctx;
    ctx.params = step.state.params;
    ctx.selected = step.state.variants;
    ctx.device = &device.backend->device();
    ctx.fallback_device = device.fallback;
    ctx.results = &results;
    ctx.pending = false;
    return ctx;
}

std::vector<LessonError> check_predictions_on_devices(const Lesson& lesson, std::vector<LessonDevice>& devices) {
    // One message per prediction (a bad-input message is one line): the devices where it cannot
    // be answered, and why on the first of them.
    std::map<int, std::pair<std::vector<std::string>, std::string>> failing;  // line -> devices, why
    for (LessonDevice& device : devices)
        for (const LessonStep& step : lesson.steps) {
            if (step.predictions.empty()) continue;
            std::set<std::string> emulate;
            for (const Prediction& p : step.predictions)
                if (p.expr.func == "measured.error" && !p.expr.args.empty()) emulate.insert(p.expr.args[0]);
            const std::vector<kernels::Measurement> results = measure_step(device, step, emulate);
            const ExprContext ctx = step_context(device, step, results);
            for (const Prediction& p : step.predictions) {
                const PredictionGrade g = grade_prediction(p, "", ctx);
                if (g.state == ExprValue::State::value) continue;
                auto& [where, why] = failing[p.line];
                where.push_back(device.label);
                if (why.empty()) why = g.why;
            }
        }
    std::vector<LessonError> errors;
    for (const auto& [line, f] : failing) {
        std::string where;
        for (const std::string& d : f.first) where += (where.empty() ? "" : ", ") + d;
        errors.push_back({lesson.path, line, "the prediction cannot be answered on " + where + ": " + f.second});
    }
    return errors;
}

}  // namespace app
