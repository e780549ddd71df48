// Playing lessons on every device the app offers: each simulated GPU and each shipped recording.
// `fusionlab lessons check` evaluates every prediction there (a number must have a value, a choice
// exactly one option that holds), and tests/lesson_devices_test.cpp reads every step there.
#pragma once

#include "app/lessons/expressions.h"
#include "app/lessons/model/lesson.h"
#include "kernels/core/backend.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace app {

struct LessonDevice {
    std::string label;                              // "simulated H100", "recording h100-2026-11-27"
    std::unique_ptr<kernels::Backend> backend;
    kernels::BackendKind kind = kernels::BackendKind::simulated;
    std::string sim_key, recording;
    const kernels::DeviceInfo* fallback = nullptr;  // a recording's simulated GPU for missing points
    std::map<std::string, kernels::Measurement> measured;  // by variant, parameters (and "|e": emulated)
};

// Every simulated GPU, then every shipped recording. A recording that cannot be opened is left
// out, its reason added to *why_not.
std::vector<LessonDevice> lesson_devices(std::vector<std::string>* why_not = nullptr);

// The step's variants measured on `device` with the step's parameters (each once per device: the
// results are kept in device.measured). Variants in `emulate` also get their error against the
// reference (slower: only for steps that quote it).
std::vector<kernels::Measurement> measure_step(LessonDevice& device, const LessonStep& step,
                                               const std::set<std::string>& emulate = {});
// What the step's live expressions see on `device` with those results (results must outlive it).
ExprContext step_context(const LessonDevice& device, const LessonStep& step, const std::vector<kernels::Measurement>& results);

// Each prediction of the lesson graded with no answer on every device: a number prediction must
// give a value, a choice exactly one option whose condition holds. One error per problem, at the
// prediction's line, naming the device.
std::vector<LessonError> check_predictions_on_devices(const Lesson& lesson, std::vector<LessonDevice>& devices);

}  // namespace app
