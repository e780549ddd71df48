// The GUI's state and the logic the panels share, kept apart from drawing so panels stay thin:
// which backend the settings resolve to, turning the current parameters into a runner batch
// (debounced, validated first), keeping the latest result per variant, and the export actions.
#pragma once

#include "app/exercises/exercise_session.h"
#include "app/lessons/model/lesson.h"
#include "app/files/reference.h"
#include "app/core/jobs.h"
#include "app/core/sweep.h"
#include "app/core/runner.h"
#include "app/core/settings.h"
#include "app/core/view_state.h"
#include "kernels/core/types.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace app {

// Seconds a parameter must stay unchanged before it is measured: dragging a slider sends one
// batch when the hand stops, not one per frame.
inline constexpr double kSubmitDebounceSeconds = 0.15;

// Which pass of the live loop is in flight for the current parameters.
struct LivePass {
    bool quick_running = false;   // the quick batch was submitted and has not answered for all
    bool full_pending = false;    // submit the full batch once the quick one has answered
    bool full_running = false;
    uint64_t first_id = 0;        // first job id of the batch in flight
    size_t count = 0;             // jobs in it
    size_t done = 0;              // results received of it
};

// kernels::validate() of the parameters last asked about, and each variant's device refusal on the
// device last asked about, kept until they change: the panels ask every frame, the answers change
// only with the parameters (or the backend).
class ValidationCache {
public:
    const std::string& error(const kernels::Params& p) const;
    // kernels::device_refusal() against the device's whole memory ("" when it can run).
    const std::string& refusal(const kernels::Params& p, const kernels::DeviceInfo& device,
                               const std::string& variant) const;

private:
    mutable bool filled_ = false;
    mutable kernels::Params params_;
    mutable std::string error_;
    mutable kernels::Params refusal_params_;
    mutable std::string refusal_device_;
    mutable std::map<std::string, std::string> refusals_;  // by variant
};

struct InlineMessage {
    std::string text;
    bool error = false;
};

// A picture of one chart or view alone, asked for from an export menu or `fusionlab shot --chart /
// --view ... --out F.png|F.svg|F.gif`. The frame after the request is drawn with no hover, no
// tooltip, no highlight ring and no watermark over values (AppState::capturing); the panel that
// draws the chart writes the SVG from its data during that frame, and the frame loop crops the PNG
// to the rectangle the panel recorded (AppState::picture_rects), or collects GIF frames.
struct PictureRequest {
    std::string target;     // a chart id (app/core/views.h charts()), a view id, or "window"
    std::string format;     // "png", "svg" or "gif"
    std::string path;       // the file to write
    bool done = false;      // written (or failed: error)
    std::string error;
    // GIF: the memory animation's frames, one per step sampled (app/gui/screenshot.h).
    int gif_frames = 0;     // frames wanted
    int gif_next = 0;       // frames captured so far
};
// Where a chart or view was drawn in the last frame, in framebuffer pixels.
struct PictureRect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool cut = false;  // part of it lay outside the window's visible area (scrolled away, too big)
    bool empty() const { return !(x1 > x0) || !(y1 > y0); }
};

struct AppState {
    Settings settings;
    std::string settings_path;       // "" = do not persist (shots)
    InlineMessage settings_message;  // a corrupt file, a failed save
    std::string font_note;           // which font file is in use

    std::vector<kernels::Measurement> results;  // latest result per (workload, variant)
    std::string validation_error;                // why the current parameters are not measured
    ValidationCache validation;                  // the current parameters' validate(): params_error()
    bool params_dirty = true;                    // parameters changed since the last batch
    double changed_at = -1e9;                    // ImGui time of the last change
    bool settings_dirty = false;

    // Requests the panels make and the frame loop services (they touch GL or the font atlas).
    float applied_font_scale = 0;    // scale the atlas was built for
    viz::Theme applied_theme = viz::Theme::dark;
    bool png_requested = false;
    InlineMessage export_message;
    // A chart or view exported alone (PictureRequest above): pending until done; `capturing` is
    // true for the frames drawn for it, so panels leave out hover, rings, watermarks and buttons.
    std::optional<PictureRequest> picture;
    bool capturing = false;
    std::map<std::string, PictureRect> picture_rects;  // by chart or view id, this frame's

    bool stack_by_kernel = false;    // bytes chart: one segment per kernel instead of per buffer
    bool interactive = true;         // false in shots: no hover tooltips, nothing animated
    MemoryPanelState memory;         // the memory-hierarchy animation (app/gui/panel_memory.h)
    TimelinePanelState timeline;     // the kernel timeline (app/gui/panel_timeline.h)

    // The right-hand tabs (app/core/views.h ids). A shot or a lesson step sets requested_view; the tab
    // bar selects it on the next frame (every frame in shots). active_view: the tab shown last frame.
    std::string requested_view;
    std::string active_view = "results";
    // Element a lesson step points at ("" = none); panels that own it draw a highlight ring.
    std::string highlight;
    // A lesson step asked for a sweep; the sweep view starts one and clears the flag.
    bool sweep_requested = false;

    // Measurements read from a JSON export (`--results F`) instead of measured here: the panels
    // show them as measured on their own device; the first parameter change goes back to live.
    std::string imported_from;
    // PyTorch reference rows (`--reference F`, app/files/reference.h): shown beside the results in their
    // own style, never in our ratios; empty: the results area shows how to make a file.
    ReferenceFile reference;
    std::string reference_input;     // the results area's "load..." field
    InlineMessage reference_message;
    // The lesson player: loaded lessons, current lesson and step, classroom mode (app/lessons/model/lesson.h).
    LessonPlayerState lesson;
    // The exercise pane (app/exercises/exercise_session.h, app/gui/panel_exercise.cpp): the student's
    // kernel, its compile check and its runs, shown as the variant `yours` beside the built-in ones.
    exercises::ExerciseSession exercise;
    // Its predictions, parsed and played by the lesson engine (app/lessons/exercise_predictions.h).
    ExercisePredictionState exercise_predictions;

    LivePass live;                   // quick pass, then full pass (kQuickReps)
    RooflinePanelState roofline;     // trails and the modeled/measured toggle (app/gui/panel_roofline.h)
    SweepState sweep;                // the sweep view's run and results (app/core/sweep.h)
};

// What the panels show: the imported results' device while state.imported_from is set, else
// resolve_backend's.
ResolvedBackend current_backend(const AppState& state, const Runner& runner);

// Shows the measurements of a JSON export: the first one's workload and parameters, every
// variant the file has for them. Returns "" or why not (the file's path and what is wrong).
std::string import_results(AppState& state, const std::string& path);

// The reference rows to show beside the visible results (their parameters, dtype and device; see
// reference_rows_for). `why_none` gets the one-line hint when there are none and something is shown.
std::vector<const ReferenceRow*> shown_reference(const AppState& state, std::string* why_none = nullptr);

// Why the current parameters cannot be measured ("" when they can): kernels::validate(), computed
// once per parameter change rather than once per frame.
const std::string& params_error(const AppState& state);

// Marks the parameters (and settings) changed now.
void mark_changed(AppState& state, double now);

// Called once per frame: collects finished results, and submits a new batch when the
// parameters have been still for kSubmitDebounceSeconds and are valid. Never blocks.
void update_measurements(AppState& state, Runner& runner, double now);

// Stores results, replacing older ones of the same workload and variant.
void store_results(AppState& state, std::vector<kernels::Measurement> fresh);

// The results to show, in variant order: current workload, selected variants only.
std::vector<const kernels::Measurement*> visible_results(const AppState& state);

// Where shown numbers come from, for the captions and watermarks of charts: "" (all measured here),
// "model estimate" (all simulated), "recorded 2026-11-25" (all read from a recording) or both joined
// with " + " when a recorded backend fell back to the model for some variants.
std::string results_source_caption(const std::vector<const kernels::Measurement*>& shown);
// The same in capitals for a watermark across a plot: "SIMULATED", "RECORDED 2026-11-25", both.
std::string results_watermark(const std::vector<const kernels::Measurement*>& shown);
// The recording a recorded backend answers from, as a line for banners and tooltips: "H100 (recorded
// 2026-11-25): measured on NVIDIA H100 80GB HBM3, driver ..., read from FILE"; "" for other backends.
std::string recording_line(const ResolvedBackend& backend);

// True when `m` was measured with different parameters or backend than those now selected.
bool is_stale(const kernels::Measurement& m, const Settings& s, const ResolvedBackend& backend);

// ---- the results headline: what each variant changed against its declared baseline ----

// One variant beside the baseline its definition names (kernels::VariantInfo::improves_on); where
// that baseline is not shown, the nearest shown one up its chain (flash_wgmma -> flash_tc -> naive).
struct BaselinePair {
    const kernels::Measurement* variant = nullptr;
    const kernels::Measurement* baseline = nullptr;
};
// The pairs among `shown` (both measured ok), in variant order.
std::vector<BaselinePair> baseline_pairs(const std::vector<const kernels::Measurement*>& shown);

struct HeadlineLine {
    std::string text;
    bool stale = false;  // numbers of earlier settings (both sides), or waiting for one side
};
// One sentence per baseline pair: "fused is 3.10× faster than unfused: 4.00× fewer DRAM bytes
// (64.0 MiB instead of 256 MiB), 1 kernel instead of 4." A pair never mixes numbers of different
// settings: when only one side is stale the line says it is updating and gives no ratio; when
// both are, the ratio is given and the line is marked stale. `stale[i]` belongs to shown[i].
std::vector<HeadlineLine> headline_lines(const std::vector<const kernels::Measurement*>& shown,
                                         const std::vector<bool>& stale);

// Asks for a picture of `target` (a chart or view id, or "window") as `format` ("png", "svg",
// "gif"), written to a new timestamped file in the export folder; GIF: `gif_frames` frames.
void request_picture(AppState& state, const std::string& target, const std::string& format, int gif_frames = 0);
// Records where chart or view `id` was drawn this frame (screen coordinates of the current ImGui
// frame, which are the framebuffer's at DisplayFramebufferScale 1).
void record_picture_rect(AppState& state, const std::string& id, float x0, float y0, float x1, float y1,
                         bool cut = false);
// The panel drawing chart `id` calls this with the chart's SVG maker: when a picture of it as SVG
// is pending and being captured, the SVG is written and the request finished. Returns true then.
bool service_svg_request(AppState& state, const std::string& id, const std::function<std::string()>& make_svg);

// Export actions: write next to the export folder with a timestamped name; the message says
// "saved /path" or why not.
InlineMessage export_results(const AppState& state, const std::string& extension);

}  // namespace app
