// [SECTION] Memory and statistics helpers
// [SECTION] SoakDriver: setup and pacing
// [SECTION] SoakDriver: random actions
// [SECTION] SoakDriver: report
#include "tests/tools/soak_driver.h"

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
    start_ = last_frame_end_ = frame_start_ = Clock::now();
    sample_memory(report_.rss_start, report_.gpu_start);
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
    if (jobs_running && jobs_running()) report_.busy_pass_end.push_back(pass_ + 1);
    // This pass's frames, actions and exports (the report's per-pass table).
    const std::vector<double> pass_frames(frame_ms_.begin() + static_cast<std::ptrdiff_t>(frames_before_pass_), frame_ms_.end());
    report_.frames_per_pass.push_back(pass_frames.size());
    report_.frame_p50_per_pass.push_back(percentile(pass_frames, 50));
    report_.frame_p95_per_pass.push_back(percentile(pass_frames, 95));
    report_.frame_max_per_pass.push_back(percentile(pass_frames, 100));
    report_.actions_per_pass.push_back(report_.actions - actions_before_pass_);
    report_.exports_per_pass.push_back(report_.exports_ok - exports_before_pass_);
    frames_before_pass_ = frame_ms_.size();
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
        report_.gpu_warm = gpu_in_use();
        if (heap) {
            report_.heap_in_use_warm = heap->in_use;
            report_.heap_free_warm = heap->free_held;
        }
        warm_sampled_ = true;
    }
}

// The same seeded actions again, from the same defaults, and the memory the last pass ended with.
void SoakDriver::start_pass(AppState& state) {
    sample_pass_end();
    ++pass_;
    rng_.seed(opts_.seed);
    reset_state(state);
    next_action_at_ = opts_.seconds * pass_ / opts_.passes;
    if (opts_.progress) *opts_.progress << "soak: pass " << pass_ + 1 << " of " << opts_.passes << " starts" << std::endl;
}

SoakDriver::~SoakDriver() {
    std::error_code ec;
    if (!export_dir_.empty()) fs::remove_all(export_dir_, ec);
}

double SoakDriver::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

bool SoakDriver::done() const { return elapsed() >= opts_.seconds; }

double SoakDriver::wait_seconds() const {
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

void SoakDriver::frame_started() { frame_start_ = Clock::now(); }

// Counts a measured job's shape if no pass has measured it before (this pass's entry).
void SoakDriver::count_shape(const kernels::Job& job) {
    const kernels::Params& p = job.params;
    std::ostringstream key;
    key << p.workload << ' ' << job.variant << ' ' << kernels::to_string(p.dtype);
    for (const kernels::ParamSpec& spec : kernels::param_specs(p.workload)) key << ' ' << spec.name << '=' << p.get(spec.name);
    const size_t pass = static_cast<size_t>(pass_);
    if (shapes_seen_.insert(key.str()).second) ++report_.new_shapes_per_pass[pass];
}

void SoakDriver::frame_finished(const AppState& state) {
    const Clock::time_point end = Clock::now();
    frame_ms_.push_back(std::chrono::duration<double, std::milli>(end - frame_start_).count());
    ++report_.frames;
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
    // Memory: once a second for the peak, once after warm-up for the baseline.
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
void SoakDriver::before_frame(AppState& state, double now) {
    const double t = elapsed();
    const double pass_end = pass_seconds() * (pass_ + 1);
    if (pass_ + 1 < opts_.passes && t >= pass_end) start_pass(state);
    else if (t >= pass_end - quiet_seconds()) return;  // the pass's quiet seconds
    if (t < next_action_at_) return;
    // The actions keep a schedule of their own (seeded intervals from the pass's start), not one
    // counted from the frame that did the last action: a replay whose frames run faster or slower
    // than pass 1's then does the same actions and ends in the same state, which the memory
    // comparison at pass ends needs. (Counted from the frame, a pass with faster frames did 12 %
    // more actions, ended elsewhere in the sequence and held 26 MiB more heap for its results.)
    // One action per frame; a backlog after slow frames is caught up before the quiet seconds.
    next_action_at_ += std::exponential_distribution<double>(1.0 / std::max(opts_.mean_action_seconds, 1e-3))(rng_);
    ++report_.actions;
    const int pick = std::uniform_int_distribution<int>(0, 99)(rng_);
    if (pick < 45) change_param(state);
    else if (pick < 55) switch_workload(state);
    else if (pick < 63) toggle_variant(state);
    else if (pick < 78) switch_view(state);
    else if (pick < 83) change_look(state);
    else if (pick < 93) export_something(state);
    else if (lesson_step) {
        lesson_step(state, rng_());
        ++report_.lesson_steps;
    } else {
        state.memory.playing = !state.memory.playing;  // until lessons exist: play/pause the animation
    }
    if (pick < 63) mark_changed(state, now);
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
    if (opts_.passes > 1) sample_pass_end();
    sample_memory(report_.rss_end, report_.gpu_end);
    if (const auto heap = platform::heap_stats()) {
        report_.heap_in_use_end = heap->in_use;
        report_.heap_free_end = heap->free_held;
    }
    if (!warm_sampled_) {  // a soak shorter than its warm-up: the start is the baseline
        report_.rss_warm = report_.rss_start;
        report_.gpu_warm = report_.gpu_start;
    }
    report_.frame_p50_ms = percentile(frame_ms_, 50);
    report_.frame_p95_ms = percentile(frame_ms_, 95);
    report_.frame_max_ms = percentile(frame_ms_, 100);
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
    if (r.passes > 1) {
        out << "  shapes measured for the first time, by pass:";
        for (int64_t n : r.new_shapes_per_pass) out << " " << n;
        out << "\n  GEMM configurations handed to cuBLAS for the first time, by pass:";
        for (int64_t n : r.new_gemm_configs_per_pass) out << " " << n;
        out << " (cuBLAS keeps the kernels each one loads)";
        out << "\n  (each pass ends with " << std::lround(quiet_seconds()) << " s without changes; freed heap returned before reading)";
        out << "\n  pass   frames   p50 ms   p95 ms   max ms   actions   exports   host RSS   C heap (MiB, at the pass's end)";
        for (size_t i = 0; i < r.frames_per_pass.size(); ++i) {
            const auto mib_at = [i](const std::vector<int64_t>& v) {
                return i < v.size() ? double(v[i]) / double(1 << 20) : std::nan("");
            };
            std::snprintf(line, sizeof line, "\n  %4zu %8llu %8.1f %8.1f %8.1f %9llu %9llu %10.1f %8.1f", i + 1,
                          static_cast<unsigned long long>(r.frames_per_pass[i]), r.frame_p50_per_pass[i],
                          r.frame_p95_per_pass[i], r.frame_max_per_pass[i],
                          static_cast<unsigned long long>(r.actions_per_pass[i]),
                          static_cast<unsigned long long>(r.exports_per_pass[i]), mib_at(r.rss_pass_end),
                          mib_at(r.heap_pass_end));
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
        << (lesson_step ? std::to_string(r.lesson_steps) + " lesson steps" : std::string("lesson steps: no lessons yet"))
        << "\n";
    out << "  exports      " << r.exports_ok << " written and checked, " << r.exports_failed << " failed ("
        << r.pngs_requested << " PNG requested); runner returned jobs up to id " << r.results_seen << "\n";
    for (const std::string& f : r.failures) out << "  FAILURE: " << f << "\n";
    return r.failures.empty() ? 0 : 1;
}

}  // namespace app
