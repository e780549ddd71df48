// What the `fusionlab` (GUI) and `fusionlab shot` commands are asked to do: parsed by the command
// line (app/cli/parse.cpp), carried out by the GUI shell (app/gui/gui.h) in builds that have one.
#pragma once

#include "kernels/core/types.h"

#include <cstdint>
#include <string>

namespace app {

struct GuiOptions {
    std::string sim_gpu;      // non-empty: start on this simulated GPU even if a GPU is present
    std::string backend;      // non-empty (--backend): this Settings::backend, a recording included
    float font_scale = 0;     // 0: use the saved setting
    std::string results;      // non-empty: start showing the measurements of this JSON export
    std::string reference;    // non-empty: PyTorch reference rows (scripts/torch_reference.py's file)
    bool classroom = false;   // --classroom: start in the presenter view (lesson pane open)
    std::string lesson;       // --lesson NAME: open this lesson (at lesson_step, 0-based)
    int lesson_step = 0;
    // Hidden soak test (tests/tools/soak_driver.h, scripts/soak.sh): > 0 runs random user actions for this many
    // seconds in a window of soak_width x soak_height, prints the report and exits 0 or 1.
    double soak_seconds = 0;
    uint64_t soak_seed = 1;
    int soak_width = 1280, soak_height = 720;
    int soak_passes = 1;  // > 1: the same seeded actions replayed; memory judged over the replays
};

// A GIF of the memory animation: the frames it gets when none are asked for, and the most it may
// have (each frame is kept as RGBA until the palette is built: 120 frames of a 1280x720 view are ~440 MB).
inline constexpr int kDefaultShotGifFrames = 24, kMaxShotGifFrames = 120;

struct ShotOptions {
    std::string out;                 // PNG path (required)
    int width = 1280, height = 720;
    float font_scale = 1.0f;
    std::string theme = "dark";      // dark | light
    kernels::Params params;          // what to measure before the shot
    std::string sim_gpu;             // non-empty: simulated GPU; empty: GPU if present else H100
    std::string backend;             // non-empty (--backend): this Settings::backend, a recording included
    int reps = 20;
    // --view memory: the memory-hierarchy animation tab at `step` of `variant` (and, when
    // `compare` is set, that variant side by side); "results" is the measurements tab.
    std::string view = "results";
    std::string variant, compare;  // "" = the workload's first variant / no side by side
    int64_t step = -1;             // -1 = the middle of the schedule
    // What the picture holds, by --out's extension: "png" (the window, or `chart` / the view alone),
    // "svg" (`chart` from its data) or "gif" (the memory view, `gif_frames` steps of its schedule).
    std::string format = "png";
    std::string chart;             // --chart: one chart alone (app/core/views.h charts())
    bool view_only = false;        // --view-only: the view's page without the rest of the window
    int gif_frames = 0;            // --frames (GIF)
    // Non-empty: draw the measurements of this JSON export (e.g. `fusionlab bench --json` on a GPU
    // machine) instead of measuring; their workload and parameters replace params.
    std::string results;
    // Non-empty: PyTorch reference rows to draw beside the measurements (app/files/reference.h).
    std::string reference;
    // --lesson NAME: a lesson bundle instead of one PNG; `out` is then the bundle folder. One
    // step (lesson_step, 0-based) or every step (all_steps); classroom: the presenter view.
    std::string lesson;
    int lesson_step = 0;
    bool all_steps = false;
    bool classroom = false;
    // --exercise NAME: the exercise pane open at it (its parameters and compared variants measured,
    // unless --results gives them); --exercise-kernel FILE in its editor, compile-checked;
    // --exercise-hints N of its hints open.
    std::string exercise, exercise_kernel;
    int exercise_hints = 0;
    // --exercise-run: the kernel file is run on the GPU as the pane's "Run on the GPU" does (its own
    // `exercises run` process); its measurements, rows and verdict are what the picture shows.
    bool exercise_run = false;
    // --predictions-posed: the steps' predictions as a class first sees them (numbers hidden);
    // else a bundle shows them revealed.
    bool predictions_posed = false;
};

}  // namespace app
