// The lesson bundle: for one step or a whole lesson, one folder holding per step a PNG, the
// measurements as CSV and JSON, the step's settings and prose (numbers filled in) with its recall
// questions and their answers, the sweep's measurements for a step that shows a sweep, plus
// lesson.json with the device. Written atomically: everything goes into a hidden temporary folder
// beside the target, renamed onto it at the end; any failure removes the temporary folder, so a
// bundle is either complete or absent. No ImGui: the caller renders the PNGs.
#pragma once

#include "app/lessons/model/lesson.h"
#include "app/core/settings.h"
#include "kernels/core/types.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace app {

struct BundleStep {
    int index = 0;                                  // 0-based step number
    std::string title;
    std::string prose;                              // plain text, expressions evaluated
    Settings settings;                              // what the step measured with
    std::string view, highlight;
    std::vector<kernels::Measurement> measurements;
    int width = 0, height = 0;
    std::vector<uint8_t> rgba;                      // the step's screenshot, rows top to bottom
    // "Pause and recall": each question and its answer, plain text with the numbers filled in.
    std::vector<std::pair<std::string, std::string>> recalls;
    // The step's predictions: the question (with what it asks for) and the reveal (the right
    // answer on this device, what it rests on, the lesson's reveal text).
    std::vector<std::pair<std::string, std::string>> predictions;
    // A step that shows a sweep (@sweep): the sweep's measurements, written beside the step's own
    // as step-NN-sweep.csv / .json. The caller runs the sweep before it captures.
    std::vector<kernels::Measurement> sweep;
};

// The step's text file: "# title", the prose, then "## Recall" with each question and answer.
std::string bundle_step_text(const BundleStep& step);

// File names inside the bundle, e.g. "step-03.png" (1-based, as the player shows them).
std::string bundle_step_stem(int index);

class BundleWriter {
public:
    BundleWriter() = default;
    ~BundleWriter();                                // removes an unfinished temporary folder
    BundleWriter(const BundleWriter&) = delete;
    BundleWriter& operator=(const BundleWriter&) = delete;

    // Starts a bundle for `lesson` that will become `dir`. `dir` may exist only as an earlier
    // bundle (it holds lesson.json), which the new one replaces. Returns "" or why not.
    std::string begin(const std::string& dir, const Lesson& lesson, const kernels::DeviceInfo& device);
    std::string add_step(const BundleStep& step);
    // Writes lesson.json and renames the folder into place. Returns "" or why not (nothing left).
    std::string finish();
    void abort();

    const std::string& dir() const { return dir_; }
    const std::vector<std::string>& files() const { return files_; }

private:
    std::string fail(const std::string& why);

    std::string dir_, tmp_;
    std::string lesson_name_, lesson_title_, lesson_path_;
    kernels::DeviceInfo device_;
    std::vector<std::string> files_;
    std::vector<std::string> step_entries_;         // JSON objects, one per step
    bool open_ = false;
};

// A bundle folder name for the GUI: <export dir>/<lesson>-step-03-<timestamp> or
// <lesson>-all-<timestamp>.
std::string bundle_dir_for(const Settings& s, const std::string& lesson, int step, bool all_steps);

}  // namespace app
