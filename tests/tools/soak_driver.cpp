// [SECTION] Memory and statistics helpers
// [SECTION] SoakDriver: setup and pacing
// [SECTION] SoakDriver: random actions
// [SECTION] SoakDriver: report
#include "tests/tools/soak_driver.h"

#include "app/lessons/lesson_player.h"
#include "app/platform/platform.h"
#include "app/core/views.h"
#include "kernels/gpu/gpu_memory_info.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <system_error>

namespace app {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// [SECTION] Memory and statistics helpers
// ---------------------------------------------------------------------------------------------
void student_lesson_step(AppState& s, uint64_t random, double now) {
    ensure_lessons_loaded(s);
    if (s.lesson.lessons.empty()) return;
    s.lesson.open = true;
    const int lessons = static_cast<int>(s.lesson.lessons.size());
    if (s.lesson.lesson < 0 || random % 5 == 0) {
        open_lesson(s, static_cast<int>((random / 5) % static_cast<uint64_t>(lessons)), 0, now);
    } else if (random % 5 == 1) {
        previous_step(s, now);
    } else if (random % 5 == 2) {
        const int steps = static_cast<int>(s.lesson.lessons[static_cast<size_t>(s.lesson.lesson)].steps.size());
        enter_step(s, static_cast<int>((random / 5) % static_cast<uint64_t>(steps)), now);
    } else if (!next_step(s, now)) {
        s.lesson.open = false;  // the end of a lesson: close the pane, as a student would
    }
}

void FrameTimeHistogram::add(double ms) {
    const double r = ms > kLowestMs ? std::log(ms / kLowestMs) / std::log(kRatio) : 0.0;
    const size_t bin = std::min(static_cast<size_t>(std::ceil(std::max(r, 0.0))), kBins - 1);
    ++bins_[bin];
    ++count_;
    max_ = std::max(max_, ms);
}

double FrameTimeHistogram::percentile(double p) const {
    if (count_ == 0) return 0;
    const double rank = std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * double(count_));
    const uint64_t want = rank < 1 ? 1 : static_cast<uint64_t>(rank);
    uint64_t seen = 0;
    for (size_t i = 0; i < kBins; ++i) {
        seen += bins_[i];
        if (seen >= want) return std::min(kLowestMs * std::pow(kRatio, double(i)), max_);
    }
    return max_;
}

double percentile(std::vector<double> samples, double p) {
    if (samples.empty()) return 0;
    std::sort(samples.begin(), samples.end());
    const double rank = std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * double(samples.size()));
    const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
    return samples[std::min(index, samples.size() - 1)];
}

namespace {

std::string mib_text(const std::optional<int64_t>& bytes) {
    if (!bytes) return "n/a";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", double(*bytes) / double(1 << 20));
    return text;
}

std::string growth_text(const std::optional<int64_t>& from, const std::optional<int64_t>& to) {
    if (!from || !to) return "n/a";
    char text[40];
    std::snprintf(text, sizeof text, "%+.1f MiB", double(*to - *from) / double(1 << 20));
    return text;
}

// "label 962 912 1034 MiB": whole MiB; nothing when empty.
void print_mib_list(std::ostream& out, const char* label, const std::vector<int64_t>& bytes) {
    if (bytes.empty()) return;
    out << label;
    for (int64_t b : bytes) out << " " << std::lround(double(b) / double(1 << 20));
    out << " MiB\n";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] SoakDriver: setup and pacing
// ---------------------------------------------------------------------------------------------
SoakDriver::SoakDriver(const SoakOptions& opts, AppState& state) : opts_(opts), rng_(opts.seed) {
    opts_.passes = std::max(opts_.passes, 1);
    report_.passes = opts_.passes;
    report_.new_shapes_per_pass.assign(static_cast<size_t>(opts_.passes), 0);
    report_.new_gemm_configs_per_pass.assign(static_cast<size_t>(opts_.passes), 0);
    gemm_configs_before_pass_ = kernels::cublas_gemm_configs_issued();
    reset_state(state);
    std::error_code ec;
    const fs::path dir = fs::temp_directory_path(ec) / ("fusionlab-soak-" + std::to_string(opts.seed) + "-" +
                                                        std::to_string(std::random_device{}()));
    fs::create_directories(dir, ec);
    export_dir_ = ec ? std::string() : dir.string();
    state.settings.export_dir = export_dir_;
    start_ = last_frame_end_ = frame_start_ = pass_start_ = last_drawn_start_ = Clock::now();
    sample_memory(report_.rss_start, report_.gpu_start);
    schedule_next_action();
}

// Never touch the user's settings file; start from defaults like a first run (and again at the
// start of every pass, so a replay starts where the first pass did).
void SoakDriver::reset_state(AppState& state) const {
    const std::string backend = state.settings.backend;
    state.settings = Settings{};
    state.settings.backend = backend;
    state.settings.export_dir = export_dir_;
    state.settings_path.clear();
    state.settings_message = {};
    // No lesson open, as at start (the loaded lessons stay: loading them is part of the warm-up).
    state.lesson.open = false;
    state.lesson.classroom = false;
    state.lesson.lesson = -1;
    state.lesson.step = 0;
    state.lesson.step_applied = false;
    state.lesson.revealed.clear();
}

// Seconds of the soak spent warming up (fonts at each scale, every view once, the runner's
// backends made) before the memory baseline is taken. With replays the baseline is the end of
// pass 1 instead (sample_pass_end).
double SoakDriver::warmup_seconds() const {
    return std::min(60.0, 0.2 * opts_.seconds);
}

double SoakDriver::quiet_seconds() const { return std::clamp(opts_.quiet_seconds, 0.0, 0.1 * pass_seconds()); }

// Pass 1 acts for this many wall seconds; replays do the same actions on the simulated clock, so
// 30 % of a pass's share is left to a replay whose frames or measurements run slower (on a shared
// machine whose load rises, a replay at 80 % ran 15 % past its share).
double SoakDriver::acting_wall_seconds() const {
    return std::max(0.0, pass_seconds() * (opts_.passes > 1 ? 0.7 : 1.0) - quiet_seconds());
}

double SoakDriver::wall_in_pass() const { return std::chrono::duration<double>(Clock::now() - pass_start_).count(); }

float SoakDriver::frame_seconds() const {
    return frames_in_pass_ < kClockFrames || clock_step_ <= 0 ? 1.0f / 60.0f : clock_step_;
}

// The next action's time on the simulated clock (seeded intervals from the pass's start, not from
// the frame that did the last action), its kind, and whether it waits for the measurement in flight.
void SoakDriver::schedule_next_action() {
    next_action_at_ += std::exponential_distribution<double>(1.0 / std::max(opts_.mean_action_seconds, 1e-3))(rng_);
    next_pick_ = std::uniform_int_distribution<int>(0, 99)(rng_);
    // What changes what is measured waits (parameters, workload, variants, lesson steps), except one
    // parameter change in four, which cancels the batch in flight as an impatient user does. Views,
    // theme and fonts, exports and the animation change nothing measured, so they go ahead.
    if (next_pick_ < 45) next_waits_ = std::uniform_int_distribution<int>(0, 3)(rng_) != 0;
    else next_waits_ = next_pick_ < 63 || next_pick_ >= 93;
}

// The memory a pass ended with, after its quiet seconds. Freed heap pages go back to the system
// first, so RSS counts what is held rather than what malloc keeps for later. The end of pass 1 is
// the baseline when there are replays.
void SoakDriver::sample_pass_end() {
    platform::release_free_heap();
    const auto rss = host_rss_split();
    if (rss) {
        report_.rss_pass_end.push_back(rss->total);
        report_.rss_anon_pass_end.push_back(rss->anon);
        report_.rss_file_pass_end.push_back(rss->file);
    }
    const auto heap = platform::heap_stats();
    if (heap) report_.heap_pass_end.push_back(heap->in_use);
    const std::optional<int64_t> gpu = gpu_in_use();
    if (gpu) report_.gpu_pass_end.push_back(*gpu);
    if (jobs_running && jobs_running()) report_.busy_pass_end.push_back(pass_ + 1);
    // This pass's frames, actions and exports (the report's per-pass table).
    report_.frames_per_pass.push_back(frames_pass_.count());
    report_.frame_p50_per_pass.push_back(frames_pass_.percentile(50));
    report_.frame_p95_per_pass.push_back(frames_pass_.percentile(95));
    report_.frame_max_per_pass.push_back(frames_pass_.max());
    frames_pass_ = FrameTimeHistogram{};
    report_.actions_per_pass.push_back(report_.actions - actions_before_pass_);
    report_.exports_per_pass.push_back(report_.exports_ok - exports_before_pass_);
    report_.wall_seconds_per_pass.push_back(wall_in_pass());
    report_.held_turns_per_pass.push_back(held_in_pass_);
    held_in_pass_ = 0;
    actions_before_pass_ = report_.actions;
    exports_before_pass_ = report_.exports_ok;
    const int64_t gemm_configs = kernels::cublas_gemm_configs_issued();
    report_.new_gemm_configs_per_pass[static_cast<size_t>(pass_)] = gemm_configs - gemm_configs_before_pass_;
    gemm_configs_before_pass_ = gemm_configs;
    if (opts_.progress) {  // the time lets a heap profile's snapshots be matched to pass ends
        *opts_.progress << "soak: pass " << pass_ + 1 << " ends";
        if (const auto t = platform::seconds_since_process_start()) *opts_.progress << " " << std::lround(*t) << " s after start";
        if (rss) *opts_.progress << ", host RSS " << mib_text(rss->total);
        if (heap) *opts_.progress << ", C heap in use " << mib_text(heap->in_use);
        if (gpu) *opts_.progress << ", GPU memory " << mib_text(gpu);
        *opts_.progress << ", " << report_.actions_per_pass.back() << " actions and " << report_.exports_per_pass.back()
                        << " exports in the pass" << std::endl;
    }
    // FUSIONLAB_SOAK_EXIT_AFTER_PASS=N: end the process right here, running no destructor, so a
    // heap profiler (heaptrack, scripts/device_diagnose.sh) reports as "leaked" exactly what was
    // alive at the end of pass N; two such recordings differ by what the later passes kept.
    if (const char* stop = std::getenv("FUSIONLAB_SOAK_EXIT_AFTER_PASS"); stop && std::atoi(stop) == pass_ + 1) {
        if (opts_.progress) *opts_.progress << "soak: exiting after pass " << pass_ + 1 << " (FUSIONLAB_SOAK_EXIT_AFTER_PASS)" << std::endl;
        std::_Exit(0);
    }
    if (pass_ == 0 && opts_.passes > 1) {
        if (rss) report_.rss_warm = rss->total;
        report_.gpu_warm = gpu;
        if (heap) {
            report_.heap_in_use_warm = heap->in_use;
            report_.heap_free_warm = heap->free_held;
        }
        warm_sampled_ = true;
    }
}

// The same seeded actions again, from the same defaults, and the memory the last pass ended with.
void SoakDriver::start_pass(AppState& state) {
    ++pass_;
    rng_.seed(opts_.seed);
    reset_state(state);
    phase_ = Phase::acting;
    sim_in_pass_ = 0;
    frames_in_pass_ = 0;
    settle_frame_drawn_ = false;
    pass_start_ = Clock::now();
    next_action_at_ = 0;
    schedule_next_action();
    if (opts_.progress) *opts_.progress << "soak: pass " << pass_ + 1 << " of " << opts_.passes << " starts" << std::endl;
}

SoakDriver::~SoakDriver() {
    std::error_code ec;
    if (!export_dir_.empty()) fs::remove_all(export_dir_, ec);
}

double SoakDriver::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

// The last pass, like the others, rests until its share of the run is over, so the run lasts what
// was asked (a pass that ran long makes it longer).
bool SoakDriver::done() const {
    return pass_ + 1 >= opts_.passes && phase_ == Phase::rest && wall_in_pass() >= pass_seconds();
}

double SoakDriver::wait_seconds() const {
    if (phase_ == Phase::rest) return std::clamp(pass_seconds() - wall_in_pass(), 0.0, 0.25);
    if (holding_) return 0.004;
    const double since = std::chrono::duration<double>(Clock::now() - frame_start_).count();
    return std::max(0.0, 1.0 / 60.0 - since);
}

std::optional<int64_t> SoakDriver::gpu_in_use() {
    const kernels::GpuMemoryUse use = kernels::gpu_memory_use();
    if (use.available) return use.used_bytes;
    report_.gpu_note = use.why_not;
    return std::nullopt;
}

void SoakDriver::sample_memory(std::optional<int64_t>& rss, std::optional<int64_t>& gpu) {
    rss = host_rss_bytes(&report_.rss_note);
    if (rss) report_.rss_peak = std::max(report_.rss_peak.value_or(0), *rss);
    if (const auto used = gpu_in_use()) gpu = used;
}

void SoakDriver::frame_started() {
    frame_start_ = Clock::now();
    // The clock's step: the median interval between pass 1's frames 20..kClockFrames (the first
    // frames build fonts and wait for the first measurements), as 1/n s for a whole n from 4 to 60.
    if (pass_ == 0 && clock_step_ <= 0) {
        if (frames_in_pass_ > 20) first_intervals_.push_back(std::chrono::duration<double>(frame_start_ - last_drawn_start_).count());
        if (frames_in_pass_ + 1 >= kClockFrames && !first_intervals_.empty()) {
            const double median = percentile(first_intervals_, 50);
            const double per_second = std::clamp(std::round(1.0 / std::max(median, 1e-6)), 4.0, 60.0);
            clock_step_ = static_cast<float>(1.0 / per_second);
            report_.clock_step_seconds = 1.0 / per_second;
            first_intervals_.clear();
            first_intervals_.shrink_to_fit();
        }
    }
    last_drawn_start_ = frame_start_;
}

// Counts a measured job's shape if no pass has measured it before (this pass's entry).
void SoakDriver::count_shape(const kernels::Job& job) {
    const kernels::Params& p = job.params;
    std::ostringstream key;
    key << p.workload << ' ' << job.variant << ' ' << kernels::to_string(p.dtype);
    for (const kernels::ParamSpec& spec : kernels::param_specs(p.workload)) key << ' ' << spec.name << '=' << p.get(spec.name);
    uint64_t hash = 1469598103934665603ull;  // FNV-1a
    for (const char c : key.str()) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    if (shapes_seen_.insert(hash).second) ++report_.new_shapes_per_pass[static_cast<size_t>(pass_)];
}

void SoakDriver::frame_finished(const AppState& state) {
    const Clock::time_point end = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(end - frame_start_).count();
    frames_all_.add(ms);
    frames_pass_.add(ms);
    ++report_.frames;
    sim_in_pass_ += static_cast<double>(frame_seconds());
    ++frames_in_pass_;
    uint64_t newest = report_.results_seen;
    for (const kernels::Measurement& m : state.results) {
        if (m.job.id <= report_.results_seen) continue;
        newest = std::max<uint64_t>(newest, m.job.id);
        if (m.ok) count_shape(m.job);
    }
    report_.results_seen = newest;
    // A PNG export finishes inside the frame: its message says whether it was written.
    if (state.export_message.text != last_export_message_) {
        last_export_message_ = state.export_message.text;
        const std::string& text = last_export_message_;
        if (text.rfind("saved ", 0) == 0 && text.size() > 4 && text.compare(text.size() - 4, 4, ".png") == 0) {
            std::error_code ec;
            if (fs::remove(text.substr(6), ec)) ++report_.exports_ok;
            else export_failed("a PNG export said saved but wrote no file: " + text);
        } else if (state.export_message.error) {
            export_failed("export failed: " + text);
        }
    }
    tick();
}

// Memory: once a second for the peak, once after warm-up for the baseline, a line a minute; called
// on every turn, drawn or not, so a pass that rests or waits still reports.
void SoakDriver::tick() {
    const Clock::time_point end = Clock::now();
    if (std::chrono::duration<double>(end - last_frame_end_).count() >= 1.0 || !warm_sampled_) {
        if (!warm_sampled_ && opts_.passes == 1 && elapsed() >= warmup_seconds()) {
            sample_memory(report_.rss_warm, report_.gpu_warm);
            if (const auto heap = platform::heap_stats()) {
                report_.heap_in_use_warm = heap->in_use;
                report_.heap_free_warm = heap->free_held;
            }
            warm_sampled_ = true;
            last_frame_end_ = end;
        } else if (std::chrono::duration<double>(end - last_frame_end_).count() >= 1.0) {
            std::optional<int64_t> rss, gpu;
            sample_memory(rss, gpu);
            last_frame_end_ = end;
            if (rss && elapsed() >= 60.0 * static_cast<double>(report_.rss_by_minute.size() + 1)) {
                report_.rss_by_minute.push_back(*rss);
                const auto heap = platform::heap_stats();
                if (heap) report_.heap_by_minute.push_back(heap->in_use);
                if (opts_.progress) {
                    *opts_.progress << "soak: minute " << report_.rss_by_minute.size() << ": host RSS " << mib_text(rss)
                                    << ", C heap in use " << (heap ? mib_text(heap->in_use) : std::string("n/a"))
                                    << ", GPU memory " << mib_text(gpu) << ", jobs up to id " << report_.results_seen
                                    << ", " << report_.actions << " actions" << std::endl;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] SoakDriver: random actions
// ---------------------------------------------------------------------------------------------
bool SoakDriver::before_frame(AppState& state, double now) {
    tick();
    holding_ = false;
    if (phase_ == Phase::rest) {
        if (pass_ + 1 >= opts_.passes || wall_in_pass() < pass_seconds()) return false;
        start_pass(state);
    }
    if (phase_ == Phase::acting) {
        // Pass 1 acts until its wall time is up and notes where that fell on the simulated clock;
        // a replay stops at the same simulated second, after the same actions.
        const bool stop = pass_ == 0 ? wall_in_pass() >= acting_wall_seconds() : sim_in_pass_ >= acting_end_sim_;
        if (stop) {
            if (pass_ == 0) acting_end_sim_ = sim_in_pass_;
            phase_ = Phase::tail;
        } else {
            if (sim_in_pass_ < next_action_at_) return true;
            if (next_waits_) {
                // A change still in its debounce: draw, do nothing (the debounce runs on the simulated
                // clock). A batch running or its results not yet taken: wait without drawing while the
                // caller takes them, so the action comes in the same frame in every pass whether the
                // batch ended before it was due or after.
                if (state.params_dirty) return true;
                if (busy() || results_pending(state)) {
                    holding_ = true;
                    ++held_in_pass_;
                    return false;
                }
            }
            act(state, now);
            return true;
        }
    }
    if (phase_ == Phase::tail) {
        if (sim_in_pass_ < acting_end_sim_ + quiet_seconds()) return true;
        phase_ = Phase::settle;
    }
    // Settle: nothing measured or pending (the caller takes the last results while this waits), one
    // more frame draws the final state, then the sample.
    if (state.params_dirty) {
        settle_frame_drawn_ = false;
        return true;
    }
    if (busy() || results_pending(state)) {
        settle_frame_drawn_ = false;
        holding_ = true;
        return false;
    }
    if (!settle_frame_drawn_) {
        settle_frame_drawn_ = true;
        return true;
    }
    sample_pass_end();
    phase_ = Phase::rest;
    return false;
}

// Results of the live batch not yet taken into the state (a GPU's full pass not yet submitted after
// its quick pass counts, unless a change is waiting: then the next batch replaces both).
bool SoakDriver::results_pending(const AppState& state) {
    return state.live.quick_running || state.live.full_running || (state.live.full_pending && !state.params_dirty);
}

void SoakDriver::act(AppState& state, double now) {
    const int pick = next_pick_;
    ++report_.actions;
    if (pick < 45) change_param(state);
    else if (pick < 55) switch_workload(state);
    else if (pick < 63) toggle_variant(state);
    else if (pick < 78) switch_view(state);
    else if (pick < 83) change_look(state);
    else if (pick < 93) export_something(state);
    else {
        if (lesson_step) lesson_step(state, rng_());
        else student_lesson_step(state, rng_(), now);
        ++report_.lesson_steps;
    }
    if (pick < 63) mark_changed(state, now);
    schedule_next_action();
}

void SoakDriver::change_param(AppState& state) {
    const auto& specs = kernels::param_specs(state.settings.params.workload);
    const kernels::ParamSpec& spec = specs[std::uniform_int_distribution<size_t>(0, specs.size() - 1)(rng_)];
    double value = spec.min;
    if (spec.kind == kernels::ParamKind::choice && !spec.choices.empty()) {
        value = spec.choices[std::uniform_int_distribution<size_t>(0, spec.choices.size() - 1)(rng_)];
    } else if (spec.kind == kernels::ParamKind::boolean) {
        value = double(std::uniform_int_distribution<int>(0, 1)(rng_));
    } else if (std::uniform_int_distribution<int>(0, 9)(rng_) == 0) {
        value = std::uniform_int_distribution<int>(0, 1)(rng_) ? spec.max : spec.min;  // the edges
    } else if (spec.log_scale && spec.min > 0) {
        const double e = std::uniform_real_distribution<double>(std::log2(spec.min), std::log2(spec.max))(rng_);
        value = std::exp2(e);
    } else {
        value = std::uniform_real_distribution<double>(spec.min, spec.max)(rng_);
    }
    if (spec.integer) value = std::clamp(std::round(value), spec.min, spec.max);
    state.settings.params.set(spec.name, value);
    // Most changes stay measurable; an illegal combination (total size) is kept one time in five
    // so the "not measured" path is soaked too.
    if (!kernels::validate(state.settings.params).empty() && std::uniform_int_distribution<int>(0, 4)(rng_) != 0) {
        const std::string w = state.settings.params.workload;
        const kernels::DType t = state.settings.params.dtype;
        state.settings.params = kernels::Params{};
        state.settings.params.workload = w;
        state.settings.params.dtype = t;
    }
    if (std::uniform_int_distribution<int>(0, 7)(rng_) == 0) {
        state.settings.params.dtype =
            kernels::kAllDTypes[std::uniform_int_distribution<size_t>(0, std::size(kernels::kAllDTypes) - 1)(rng_)];
    }
    ++report_.param_changes;
}

void SoakDriver::switch_workload(AppState& state) {
    const std::vector<std::string> names = kernels::workload_names();
    state.settings.params.workload = names[std::uniform_int_distribution<size_t>(0, names.size() - 1)(rng_)];
    ++report_.workload_switches;
}

void SoakDriver::toggle_variant(AppState& state) {
    const std::string w = state.settings.params.workload;
    const auto& all = kernels::variants(w);
    std::vector<std::string> chosen = selected_variants(state.settings);
    const std::string& name = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng_)].name;
    const auto it = std::find(chosen.begin(), chosen.end(), name);
    if (it == chosen.end()) chosen.push_back(name);
    else if (chosen.size() > 1) chosen.erase(it);  // the GUI keeps at least one selected
    state.settings.variants[w] = chosen;
    ++report_.variant_toggles;
}

void SoakDriver::switch_view(AppState& state) {
    const auto& all = views();
    state.requested_view = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng_)].id;
    ++report_.view_switches;
}

void SoakDriver::change_look(AppState& state) {
    static constexpr float kScales[] = {1.0f, 1.25f, 1.5f, 2.0f, 3.0f};
    if (std::uniform_int_distribution<int>(0, 1)(rng_)) {
        state.settings.theme = state.settings.theme == Theme::dark ? Theme::light : Theme::dark;
    } else {
        state.settings.font_scale = kScales[std::uniform_int_distribution<size_t>(0, std::size(kScales) - 1)(rng_)];
    }
    ++report_.look_changes;
}

void SoakDriver::export_something(AppState& state) {
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng_);
    if (kind < 2) {
        state.png_requested = true;  // written by the frame loop; counted in frame_finished
        ++report_.pngs_requested;
        return;
    }
    const std::string extension = kind < 6 ? "csv" : "json";
    const InlineMessage message = export_results(state, extension);
    state.export_message = message;
    last_export_message_ = message.text;
    if (message.text.rfind("saved ", 0) == 0) {
        // The file must exist and hold something; then it goes, so the disk does not fill.
        const std::string path = message.text.substr(6);
        std::error_code ec;
        const auto size = fs::file_size(path, ec);
        if (ec || size == 0) {
            export_failed("export said saved but " + path + " is missing or empty");
        } else {
            ++report_.exports_ok;
        }
        fs::remove(path, ec);
    } else if (message.text.rfind("nothing to export yet", 0) != 0) {
        export_failed("export failed: " + message.text);
    }
}

void SoakDriver::export_failed(const std::string& why) {
    ++report_.exports_failed;
    if (report_.failures.size() < 10) report_.failures.push_back(why);  // the first few say enough
}

// ---------------------------------------------------------------------------------------------
// [SECTION] SoakDriver: report
// ---------------------------------------------------------------------------------------------
// AddressSanitizer keeps freed blocks in a quarantine (256 MiB by default) before reusing them, so
// under it RSS climbs without a leak; its leak checker at exit answers that question instead.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

void SoakDriver::check_thresholds() {
    if (kUnderAddressSanitizer) {
        report_.rss_note = "not checked under AddressSanitizer (its quarantine holds freed memory; LeakSanitizer checks at exit)";
    } else if (report_.rss_warm && report_.rss_end && *report_.rss_end - *report_.rss_warm > kSoakHostGrowthBytes)
        report_.failures.push_back("host RSS grew by " + growth_text(report_.rss_warm, report_.rss_end) +
                                   " after warm-up (limit " + mib_text(kSoakHostGrowthBytes) + ")");
    if (report_.gpu_warm && report_.gpu_end && *report_.gpu_end - *report_.gpu_warm > kSoakGpuGrowthBytes)
        report_.failures.push_back("GPU memory in use grew by " + growth_text(report_.gpu_warm, report_.gpu_end) +
                                   " after warm-up (limit " + mib_text(kSoakGpuGrowthBytes) + ")");
    // Passes: what the replays (2..P) ended with against pass 1's end, for RSS and the C heap.
    const auto replay_growth = [](const std::vector<int64_t>& at_pass_end) -> std::optional<int64_t> {
        if (at_pass_end.size() < 2) return std::nullopt;
        return *std::max_element(at_pass_end.begin() + 1, at_pass_end.end()) - at_pass_end.front();
    };
    report_.rss_replay_growth = replay_growth(report_.rss_pass_end);
    report_.heap_replay_growth = replay_growth(report_.heap_pass_end);
    const std::string passes = report_.passes == 2 ? std::string("pass 2") : "passes 2-" + std::to_string(report_.passes);
    if (!kUnderAddressSanitizer && report_.rss_replay_growth && *report_.rss_replay_growth > kSoakPassGrowthBytes)
        report_.failures.push_back("host RSS at the end of " + passes + " rose up to " +
                                   growth_text(0, report_.rss_replay_growth) + " over pass 1's end (limit " +
                                   mib_text(kSoakPassGrowthBytes) + ")");
    if (!kUnderAddressSanitizer && report_.heap_replay_growth && *report_.heap_replay_growth > kSoakPassGrowthBytes)
        report_.failures.push_back("C heap in use at the end of " + passes + " rose up to " +
                                   growth_text(0, report_.heap_replay_growth) + " over pass 1's end (limit " +
                                   mib_text(kSoakPassGrowthBytes) + ")");
    if (report_.exports_ok == 0) report_.failures.push_back("no export succeeded");
    if (report_.frames == 0) report_.failures.push_back("no frame was drawn");
}

int SoakDriver::finish(std::ostream& out) {
    report_.seconds = elapsed();
    if (phase_ != Phase::rest) sample_pass_end();  // cut short (the window closed)
    sample_memory(report_.rss_end, report_.gpu_end);
    if (const auto heap = platform::heap_stats()) {
        report_.heap_in_use_end = heap->in_use;
        report_.heap_free_end = heap->free_held;
    }
    if (!warm_sampled_) {  // a soak shorter than its warm-up: the start is the baseline
        report_.rss_warm = report_.rss_start;
        report_.gpu_warm = report_.gpu_start;
    }
    report_.frame_p50_ms = frames_all_.percentile(50);
    report_.frame_p95_ms = frames_all_.percentile(95);
    report_.frame_max_ms = frames_all_.max();
    check_thresholds();

    const SoakReport& r = report_;
    char line[256];
    out << "soak: " << (r.failures.empty() ? "PASSED" : "FAILED") << "  seed " << opts_.seed << ", "
        << opts_.width << "x" << opts_.height << ", " << std::lround(r.seconds) << " s, " << r.frames << " frames";
    if (r.passes > 1)
        out << ", " << r.passes << " passes of the same actions (baseline: the end of pass 1, the warm-up)";
    out << "\n";
    std::snprintf(line, sizeof line, "  frame time   p50 %.2f ms   p95 %.2f ms   max %.2f ms   (60 fps budget: 16.7 ms)\n",
                  r.frame_p50_ms, r.frame_p95_ms, r.frame_max_ms);
    out << line;
    if (!r.gl_renderer.empty()) out << "  drawn by     " << r.gl_renderer << "\n";
    out << "  host RSS     start " << mib_text(r.rss_start) << "   after warm-up " << mib_text(r.rss_warm) << "   end "
        << mib_text(r.rss_end) << "   peak " << mib_text(r.rss_peak) << "   growth after warm-up "
        << growth_text(r.rss_warm, r.rss_end) << (r.rss_note.empty() ? "" : "  (" + r.rss_note + ")") << "\n";
    print_mib_list(out, "  host RSS by minute ", r.rss_by_minute);
    print_mib_list(out, "  host RSS at the end of each pass ", r.rss_pass_end);
    print_mib_list(out, "    of it anonymous                ", r.rss_anon_pass_end);
    print_mib_list(out, "    of it files (code, data)       ", r.rss_file_pass_end);
    print_mib_list(out, "  C heap at the end of each pass   ", r.heap_pass_end);
    print_mib_list(out, "  GPU memory at the end of each pass ", r.gpu_pass_end);
    if (r.passes > 1) {
        out << "  shapes measured for the first time, by pass:";
        for (int64_t n : r.new_shapes_per_pass) out << " " << n;
        out << "\n  GEMM configurations handed to cuBLAS for the first time, by pass:";
        for (int64_t n : r.new_gemm_configs_per_pass) out << " " << n;
        out << " (cuBLAS keeps the kernels each one loads)";
        out << "\n  (each pass ends with " << std::lround(quiet_seconds()) << " s without changes; freed heap returned before reading)";
        out << "\n  (replays: the GUI's clock advances " << (r.clock_step_seconds > 0 ? std::to_string(std::lround(1.0 / r.clock_step_seconds)) : std::string("60"))
            << " simulated steps a second, one per frame, after each pass's first " << kClockFrames
            << " frames at 1/60 s; actions wait for the measurement in flight)";
        out << "\n  pass   frames   p50 ms   p95 ms   max ms   actions   exports   host RSS   C heap   wall s    waits   (MiB at the pass's end)";
        for (size_t i = 0; i < r.frames_per_pass.size(); ++i) {
            const auto mib_at = [i](const std::vector<int64_t>& v) {
                return i < v.size() ? double(v[i]) / double(1 << 20) : std::nan("");
            };
            const double wall = i < r.wall_seconds_per_pass.size() ? r.wall_seconds_per_pass[i] : std::nan("");
            const unsigned long long waits = i < r.held_turns_per_pass.size() ? r.held_turns_per_pass[i] : 0;
            std::snprintf(line, sizeof line, "\n  %4zu %8llu %8.1f %8.1f %8.1f %9llu %9llu %10.1f %8.1f %8.0f %8llu", i + 1,
                          static_cast<unsigned long long>(r.frames_per_pass[i]), r.frame_p50_per_pass[i],
                          r.frame_p95_per_pass[i], r.frame_max_per_pass[i],
                          static_cast<unsigned long long>(r.actions_per_pass[i]),
                          static_cast<unsigned long long>(r.exports_per_pass[i]), mib_at(r.rss_pass_end),
                          mib_at(r.heap_pass_end), wall, waits);
            out << line;
        }
        out << "\n  replays (passes 2-" << r.passes << ") over pass 1's end, largest: host RSS "
            << growth_text(0, r.rss_replay_growth) << ", C heap " << growth_text(0, r.heap_replay_growth) << " (limit "
            << mib_text(kSoakPassGrowthBytes) << " each)";
        if (!r.busy_pass_end.empty()) {
            out << "; a job was still running at the end of pass";
            for (int p : r.busy_pass_end) out << " " << p;
        }
        out << "\n";
    }
    print_mib_list(out, "  C heap by minute   ", r.heap_by_minute);
    if (r.heap_in_use_end)
        out << "  C heap       in use " << mib_text(r.heap_in_use_warm) << " after warm-up, " << mib_text(r.heap_in_use_end)
            << " at the end; freed but held by malloc " << mib_text(r.heap_free_warm) << ", "
            << mib_text(r.heap_free_end) << "\n";
    if (r.gpu_end)
        out << "  GPU memory   start " << mib_text(r.gpu_start) << "   after warm-up " << mib_text(r.gpu_warm) << "   end "
            << mib_text(r.gpu_end) << "   growth after warm-up " << growth_text(r.gpu_warm, r.gpu_end)
            << "  (device-wide: other processes count too)\n";
    else
        out << "  GPU memory   " << r.gpu_note << "\n";
    out << "  actions      " << r.actions << ": " << r.param_changes << " parameter changes, " << r.workload_switches
        << " workload switches, " << r.variant_toggles << " variant toggles, " << r.view_switches << " view switches, "
        << r.look_changes << " theme/font changes, "
        << r.lesson_steps << " lesson steps"
        << "\n";
    out << "  exports      " << r.exports_ok << " written and checked, " << r.exports_failed << " failed ("
        << r.pngs_requested << " PNG requested); runner returned jobs up to id " << r.results_seen << "\n";
    for (const std::string& f : r.failures) out << "  FAILURE: " << f << "\n";
    return r.failures.empty() ? 0 : 1;
}

}  // namespace app
