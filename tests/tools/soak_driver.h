// Soak test of the GUI: `fusionlab --soak SECONDS [--soak-seed N] [--soak-size WxH]` (hidden
// options; scripts/soak.sh runs it under Xvfb). The interactive frame loop runs as usual while a
// SoakDriver, seeded so a failure can be replayed, changes what a user would change: parameters
// (random legal values, and now and then an illegal combination), workloads, variants, views,
// theme and font scale, the memory animation, CSV/JSON/PNG exports and, once lessons exist,
// lesson steps (SoakDriver::lesson_step, a hook). At the end it prints frame-time percentiles,
// host RSS and GPU memory at start, after warm-up and at the end, and what it did; it fails
// (exit 1) when host or GPU memory grew beyond a threshold or no export succeeded.
//
// A test tool, not part of the program users get: the executable fusionlab_soak
// (tests/tools/soak_main.cpp) is fusionlab with this driver handed to the GUI's frame loop. No GLFW
// or ImGui here: app/gui/gui.cpp calls the driver around its frames (app/gui/frame_driver.h), so
// this file builds (and is unit-tested) without a GUI.
#pragma once

#include "app/core/panels_state.h"
#include "app/platform/platform.h"
#include "app/gui/frame_driver.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace app {

struct SoakOptions {
    double seconds = 0;          // > 0: run the soak for this long, then exit
    uint64_t seed = 1;           // the random actions; same seed, same sequence of actions
    int width = 1280, height = 720;
    double mean_action_seconds = 0.25;  // a busy user: about four changes a second
    // Where a line per minute goes (RSS, C heap, GPU memory, jobs), so a run cut off before its
    // report still says how memory moved; null: nowhere.
    std::ostream* progress = nullptr;
    // > 1: the run is cut into this many passes and each replays the same seeded actions from the
    // same defaults. The first pass is the warm-up, so memory is judged over the replays: code and
    // caches loaded on first use (cuBLAS loads a GEMM kernel the first time a shape class needs
    // it) are in the baseline, and whatever still grows while the same actions repeat is a leak.
    int passes = 1;
    // The last seconds of every pass make no change (a user who stopped to read), so the memory
    // read at each pass's end is read in the same state: the last batch measured, nothing in
    // flight. Capped at a tenth of the pass.
    double quiet_seconds = 10;
};

// What a soak measured; printed by SoakDriver::finish and checked against the thresholds.
struct SoakReport {
    double seconds = 0;
    uint64_t frames = 0;
    double frame_p50_ms = 0, frame_p95_ms = 0, frame_max_ms = 0;
    std::optional<int64_t> rss_start, rss_warm, rss_end, rss_peak;  // bytes; nullopt: unavailable
    std::string rss_note;                                          // why unavailable
    std::optional<int64_t> gpu_start, gpu_warm, gpu_end;           // device bytes in use
    std::string gpu_note;                                          // "no GPU (...)" when unavailable
    std::string gl_renderer;                                       // what drew the frames (GL_RENDERER)
    std::vector<int64_t> rss_by_minute;                            // host RSS at every whole minute
    std::vector<int64_t> heap_by_minute;                           // C heap in use at the same moments
    int passes = 1;
    // At the end of each pass (passes > 1; the end of the run is the last entry): host RSS, its
    // anonymous part (heap, thread stacks, driver buffers) and its file part (library code and data
    // paged in from disk: cuBLAS pages in a kernel's code the first time a GEMM shape needs it), C heap.
    std::vector<int64_t> rss_pass_end, rss_anon_pass_end, rss_file_pass_end, heap_pass_end;
    std::vector<int> busy_pass_end;   // passes whose end sample found a job still running (from 1)
    // Per pass (one entry each, passes > 1): frames drawn and their frame-time percentiles, and
    // the actions and exports (written and checked) done in that pass.
    std::vector<uint64_t> frames_per_pass, actions_per_pass, exports_per_pass;
    std::vector<double> frame_p50_per_pass, frame_p95_per_pass, frame_max_per_pass;
    // Passes > 1: the largest host RSS and C heap at the end of passes 2..P minus pass 1's end.
    std::optional<int64_t> rss_replay_growth, heap_replay_growth;
    // The C heap (platform::heap_stats) after warm-up and at the end: in use, freed but held.
    std::optional<int64_t> heap_in_use_warm, heap_in_use_end, heap_free_warm, heap_free_end;
    uint64_t actions = 0, param_changes = 0, workload_switches = 0, view_switches = 0, variant_toggles = 0,
             look_changes = 0, lesson_steps = 0;
    uint64_t exports_ok = 0, exports_failed = 0, pngs_requested = 0;
    uint64_t results_seen = 0;   // highest job id among the results the runner returned
    // Per pass (one entry each): measured results whose shape (workload, variant, dtype, sizes, tiles)
    // no earlier pass had measured, and the GEMM configurations handed to cuBLAS for the first time
    // (kernels::cublas_gemm_configs_issued(), cancelled jobs too): cuBLAS keeps the kernels each
    // new one loads, which heaptrack found to be what GPU replays kept (docs/RELIABILITY.md).
    std::vector<int64_t> new_shapes_per_pass, new_gemm_configs_per_pass;
    std::vector<std::string> failures;  // empty: passed
};

// Growth allowed between the warm-up baseline and the end. Host: glibc keeps freed pages and the
// font atlas is rebuilt at another scale now and then, so a few MiB come and go; a leak of one
// result or one export per action over 10 minutes is far above this.
inline constexpr int64_t kSoakHostGrowthBytes = 48ll << 20;
inline constexpr int64_t kSoakGpuGrowthBytes = 64ll << 20;
// With passes: the replays repeat pass 1's actions from the same defaults, so nothing new should
// be kept. Host RSS and the C heap at the end of every later pass stay within this of pass 1's end
// (a leak of 1 KiB per action is about 12 MiB over five 10-minute replays at four actions a second).
inline constexpr int64_t kSoakPassGrowthBytes = 8ll << 20;

// The resident set, read through the platform layer (app/platform/platform.h).
using platform::host_rss_bytes;
using platform::host_rss_split;
using platform::HostRss;

// Nearest-rank percentile (p in 0..100) of samples; 0 for none.
double percentile(std::vector<double> samples, double p);

class SoakDriver final : public FrameDriver {
public:
    // Prepares `state` for a soak: no settings file is read or written, exports go to a fresh
    // temporary folder (removed at the end), defaults everywhere else.
    SoakDriver(const SoakOptions& opts, AppState& state);
    ~SoakDriver() override;
    SoakDriver(const SoakDriver&) = delete;
    SoakDriver& operator=(const SoakDriver&) = delete;

    void set_renderer(std::string renderer) override { report_.gl_renderer = std::move(renderer); }
    int width() const override { return opts_.width; }
    int height() const override { return opts_.height; }

    // Before a frame: maybe one random action on the state (now = ImGui time, for mark_changed).
    void before_frame(AppState& state, double now) override;
    // Around the frame's own work (not the wait for events): its duration is the frame time.
    void frame_started() override;
    void frame_finished(const AppState& state) override;
    // Seconds to wait for events before the next frame: paces the loop at 60 frames per second.
    double wait_seconds() const override;
    bool done() const override;

    // Prints the report to `out` and returns the exit code (0 passed, 1 failed).
    int finish(std::ostream& out) override;
    const SoakReport& report() const { return report_; }
    int pass() const { return pass_; }  // the pass being run, from 0
    double elapsed() const;             // seconds since the soak started

    // FrameDriver::lesson_step is called for about one action in ten (unset: the soak skips lesson
    // steps); FrameDriver::jobs_running tells the end-of-pass memory sample whether it found a job
    // still running (unset: not known, not reported).

private:
    using Clock = std::chrono::steady_clock;
    double warmup_seconds() const;
    void start_pass(AppState& state);
    void count_shape(const kernels::Job& job);
    void sample_pass_end();
    double pass_seconds() const { return opts_.seconds / opts_.passes; }
    double quiet_seconds() const;
    void reset_state(AppState& state) const;
    std::optional<int64_t> gpu_in_use();  // device-wide; nullopt (and gpu_note says why) without a GPU
    void sample_memory(std::optional<int64_t>& rss, std::optional<int64_t>& gpu);
    void change_param(AppState& state);
    void switch_workload(AppState& state);
    void toggle_variant(AppState& state);
    void switch_view(AppState& state);
    void change_look(AppState& state);
    void export_something(AppState& state);
    void export_failed(const std::string& why);
    void check_thresholds();

    SoakOptions opts_;
    std::mt19937_64 rng_;
    Clock::time_point start_, frame_start_, last_frame_end_;
    double next_action_at_ = 0;
    int pass_ = 0;  // the pass being run, from 0
    bool warm_sampled_ = false;
    std::string export_dir_;
    std::string last_export_message_;
    std::vector<double> frame_ms_;
    std::set<std::string> shapes_seen_;
    size_t frames_before_pass_ = 0;        // frame_ms_.size() when the pass began
    uint64_t actions_before_pass_ = 0, exports_before_pass_ = 0;
    int64_t gemm_configs_before_pass_ = 0;  // kernels::cublas_gemm_configs_issued() when the pass began
    SoakReport report_;
};

}  // namespace app
