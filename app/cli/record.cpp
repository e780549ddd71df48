// [SECTION] Points
// [SECTION] Estimate
// [SECTION] Recording
#include "app/cli/record.h"

#include "app/files/export.h"
#include "app/recordings/recording_file.h"
#include "app/core/runner.h"
#include "app/core/sweep.h"
#include "app/lessons/lesson_files.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <ostream>

namespace app {

namespace fs = std::filesystem;

namespace {

[[gnu::format(printf, 1, 2)]] std::string printf_text(const char* format, ...) {
    char text[256];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    return text;
}

}  // namespace

// =============================================================================================
// [SECTION] Points
// =============================================================================================
namespace {

class PointList {
public:
    void add(const kernels::Params& p, const std::string& origin, const std::vector<std::string>& shown = {}) {
        if (!kernels::validate(p).empty()) return;  // the GUI would not measure it either
        const std::string key = point_key(p, "");
        auto it = index_.find(key);
        if (it == index_.end()) {
            it = index_.emplace(key, points_.size()).first;
            points_.push_back({p, {}, {}});
        }
        RecordPoint& point = points_[it->second];
        if (std::find(point.origins.begin(), point.origins.end(), origin) == point.origins.end())
            point.origins.push_back(origin);
        for (const std::string& v : shown)
            if (std::find(point.shown.begin(), point.shown.end(), v) == point.shown.end()) point.shown.push_back(v);
    }
    std::vector<RecordPoint> take() { return std::move(points_); }

private:
    std::vector<RecordPoint> points_;
    std::map<std::string, size_t> index_;
};

// The sweep the sweep view starts from these parameters when nothing was chosen in it: its first
// size parameter (N where the workload has one: SweepState's default) over the default range.
void add_sweep(PointList& list, const kernels::Params& base, const std::string& param, const std::string& origin,
               const std::vector<std::string>& shown = {}) {
    double from = 0, to = 0;
    default_sweep_range(base.workload, param, from, to);
    for (double v : sweep_values(from, to)) {
        kernels::Params p = base;
        p.set(param, v);
        list.add(p, origin, shown);
    }
}

// Whether any variant of p's workload takes p on some simulated GPU: the variants' own refusals
// (kernels::device_refusal: a tile a variant has no kernel for, then the device's limits). A
// refusal on every GPU the app knows is the variants' rule, not a card's.
bool some_variant_takes(const kernels::Params& p) {
    if (!kernels::validate(p).empty()) return false;
    for (const kernels::VariantInfo& v : kernels::variants(p.workload))
        for (const kernels::SimGpu& gpu : kernels::sim_gpus())
            if (kernels::device_refusal(v.name, p, kernels::total_memory_budget(gpu.info)).empty()) return true;
    return false;
}

}  // namespace

std::vector<RecordPoint> recording_points(const std::vector<Lesson>& lessons) {
    PointList list;
    for (const Lesson& lesson : lessons)
        for (size_t i = 0; i < lesson.steps.size(); ++i) {
            const StepState& st = lesson.steps[i].state;
            const std::string origin = "lesson " + lesson.name + " step " + std::to_string(i + 1);
            list.add(st.params, origin, st.variants);
            if (!st.sweep) continue;
            const auto allowed = sweepable_params(st.params.workload);
            if (allowed.empty()) continue;
            const std::string param = std::find(allowed.begin(), allowed.end(), SweepState{}.param) != allowed.end()
                                          ? SweepState{}.param
                                          : allowed.front();
            add_sweep(list, st.params, param, origin + " (sweep " + param + ")", st.variants);
        }
    for (const std::string& w : kernels::workload_names()) {
        const kernels::Params base = kernels::default_params(w);
        for (const std::string& param : sweepable_params(w)) add_sweep(list, base, param, "sweep " + w + " " + param);
        // Tile-like choices (a log-scaled list of sizes: Br, Bc), one at a time; a choice no variant takes
        // at the defaults' other sizes (skip's Bc = 176 at d = 64) is no point to record.
        for (const kernels::ParamSpec& spec : kernels::param_specs(w)) {
            if (spec.kind != kernels::ParamKind::choice || !spec.log_scale) continue;
            for (double c : spec.choices) {
                kernels::Params p = base;
                p.set(spec.name, c);
                if (some_variant_takes(p)) list.add(p, "sweep " + w + " " + spec.name);
            }
        }
    }
    return list.take();
}

// =============================================================================================
// [SECTION] Estimate
// =============================================================================================

// Host costs per job measured on an H100 (assets/measurements/h100-bench-2026-11-25, the timing
// notes' "host phases"): the range profiler's set-up 0.22-0.5 s, the CPU reference 0-0.4 s, the
// checked run's copy back 0.01-0.1 s. Runs of the variant per job besides the timed reps: the
// checked run, the counters' run and the timeline's warm run and 3 traced runs.
inline constexpr double kJobHostSeconds = 0.45;
inline constexpr int kUntimedRuns = 6;

int record_reps(int asked, double run_ms) {
    if (!(run_ms > 0)) return asked;
    const double fit = kRepSeconds * 1e3 / run_ms;
    return fit >= asked ? asked : std::max(kMinRecordReps, static_cast<int>(fit));
}

double estimated_job_seconds(const kernels::Measurement& simulated, int reps, int warmup) {
    if (!simulated.ok) return 0.05;  // refused: answered at once
    return kJobHostSeconds + simulated.time.median_ms * 1e-3 * (reps + warmup + kUntimedRuns);
}

// =============================================================================================
// [SECTION] Recording
// =============================================================================================
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string utc_now(const char* format) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    if (const std::tm* t = std::gmtime(&now)) utc = *t;
    char text[40];
    std::strftime(text, sizeof text, format, &utc);
    return text;
}

std::string origins_text(const RecordPoint& p) {
    std::string out;
    for (const std::string& o : p.origins) out += (out.empty() ? "" : "; ") + o;
    return out;
}

// A parameter-value list for the log ("N=4096 d=64 heads=16 br=64 bc=64 causal=0 seed=1234 fp16").
std::string params_text(const kernels::Params& p) {
    std::string out = p.workload;
    for (const kernels::ParamSpec& spec : kernels::param_specs(p.workload))
        out += " " + spec.name + "=" + kernels::param_number_text(p.get(spec.name));
    return out + " " + kernels::to_string(p.dtype);
}

struct PlannedJob {
    kernels::Job job;
    double seconds = 0;  // expected, on the GPU
};

// The jobs of a point: every variant, reps cut for slow kernels, costly unshown variants left out
// (into `cut`). Estimates from the simulated GPU of the card.
std::vector<PlannedJob> plan_point(kernels::Backend& sim, const RecordPoint& point, const RecordOptions& o,
                                   kernels::BackendKind backend, const std::string& sim_gpu, std::vector<std::string>* cut) {
    std::vector<PlannedJob> jobs;
    for (const kernels::VariantInfo& v : kernels::variants(point.params.workload)) {
        kernels::Job job;
        job.params = point.params;
        job.variant = v.name;
        job.backend = kernels::BackendKind::simulated;
        const kernels::Measurement estimate = sim.run(job, kernels::CancelToken{});
        job.backend = backend;
        job.sim_gpu = sim_gpu;
        job.reps = record_reps(o.reps, estimate.ok ? estimate.time.median_ms : 0);
        job.warmup = o.warmup;
        job.reps_as_asked = true;
        job.measure_counters = true;
        const double seconds = estimated_job_seconds(estimate, job.reps, job.warmup);
        const bool shown = std::find(point.shown.begin(), point.shown.end(), v.name) != point.shown.end();
        if (!shown && seconds > kMaxUnshownJobSeconds) {
            if (cut)
                cut->push_back(printf_text("not measured (no lesson shows it here; expected %.0f s, over %.0f s): ", seconds,
                                           kMaxUnshownJobSeconds) +
                               kernels::describe(point.params, v.name));
            continue;
        }
        jobs.push_back({job, seconds});
    }
    return jobs;
}

double total_seconds(const std::vector<PlannedJob>& jobs) {
    double s = 0;
    for (const PlannedJob& j : jobs) s += j.seconds;
    return s;
}

int list_points(const std::vector<RecordPoint>& points, const RecordOptions& o, kernels::Backend& sim, std::ostream& out) {
    size_t jobs = 0;
    double seconds = 0;
    std::vector<std::string> cut;
    for (const RecordPoint& point : points) {
        const std::vector<PlannedJob> planned = plan_point(sim, point, o, kernels::BackendKind::simulated, "", &cut);
        const double s = total_seconds(planned);
        jobs += planned.size();
        seconds += s;
        std::string reps;
        for (const PlannedJob& j : planned) {
            if (!reps.empty()) reps += ',';
            reps += std::to_string(j.job.reps);
        }
        out << params_text(point.params) << "  x" << planned.size() << " (reps " << reps << ")  ~"
            << printf_text("%.1f s", s) << "  [" << origins_text(point) << "]\n";
    }
    for (const std::string& c : cut) out << "cut: " << c << "\n";
    out << points.size() << " points, " << jobs << " jobs; estimated " << printf_text("%.0f s", seconds)
        << " on the GPU at up to " << o.reps << " reps (" << sim.device().name << " model + " << kJobHostSeconds
        << " s of host work per job)\n";
    return 0;
}

}  // namespace

int run_record(const RecordOptions& o, std::ostream& out, std::ostream& err) {
    std::vector<Lesson> lessons;
    std::vector<LessonError> lesson_errors;
    load_all_lessons(lessons, lesson_errors);
    for (const LessonError& e : lesson_errors) err << "fusionlab record: lesson skipped: " << e.text() << "\n";
    const std::vector<RecordPoint> points = recording_points(lessons);

    Runner runner;
    const bool rehearsal = !o.sim_gpu.empty();
    kernels::DeviceInfo device;
    std::string card;
    if (rehearsal) {
        card = kernels::find_sim_gpu(o.sim_gpu)->key;
        device = kernels::find_sim_gpu(card)->info;
    } else if (!o.list) {
        runner.wait_until_probed();
        if (!runner.gpu_available()) {
            err << "fusionlab record: no GPU (" << runner.gpu_status() << "); rehearse with --sim H100\n";
            return 1;
        }
        device = runner.gpu_device();
        card = card_of_device(device.name);
        if (card.empty()) {
            err << "fusionlab record: " << device.name
                << " is not a GPU this build simulates, so a recording of it could not fall back anywhere\n";
            return 1;
        }
    }
    const kernels::SimGpu* sim_gpu = kernels::find_sim_gpu(card.empty() ? "H100" : card);
    std::unique_ptr<kernels::Backend> sim = kernels::make_sim_backend(*sim_gpu);
    if (o.list) return list_points(points, o, *sim, out);

    Recording rec;
    rec.card = card;
    rec.date = utc_now("%Y-%m-%d");
    rec.key = recording_key(card, rec.date);
    rec.command = o.command;
    rec.started_at = utc_now("%Y-%m-%dT%H:%M:%SZ");
    rec.build_type = kernels::build_type();
    rec.reps = o.reps;
    rec.points = static_cast<int>(points.size());
    rec.rehearsal = rehearsal;
    rec.device = device;
    const fs::path folder = fs::path(o.out) / rec.key;
    std::error_code ec;
    fs::create_directories(folder, ec);
    const std::string file = (folder / kRecordingFile).string();
    if (std::string why = check_writable(file); !why.empty()) {
        err << "fusionlab record: " << why << "\n";
        return 1;
    }
    out << (rehearsal ? "REHEARSAL on the simulated " : "recording on ") << device.name << " into " << file << ": "
        << points.size() << " points, " << o.reps << " reps"
        << (o.budget_s > 0 ? printf_text(", budget %.0f s", o.budget_s) : std::string()) << "\n";

    const kernels::BackendKind kind = rehearsal ? kernels::BackendKind::simulated : kernels::BackendKind::gpu;
    const auto start = Clock::now();
    auto last_write = start;
    size_t done = 0, over_budget = 0;
    std::set<std::string> recorded_keys;  // point_key of every measurement kept
    auto write = [&](bool final) {
        Recording snapshot = rec;
        snapshot.finished_at = utc_now("%Y-%m-%dT%H:%M:%SZ");
        if (!final)
            snapshot.cut.push_back("points " + std::to_string(done + 1) + " .. " + std::to_string(points.size()) +
                                   ": not measured yet (written while recording)");
        return write_file_atomic(file, recording_to_json(snapshot));
    };
    for (size_t i = 0; i < points.size(); ++i) {
        const RecordPoint& point = points[i];
        const std::string what = params_text(point.params) + " [" + origins_text(point) + "]";
        std::vector<std::string> cut;
        const std::vector<PlannedJob> planned = plan_point(*sim, point, o, kind, card, &cut);
        const double expected = total_seconds(planned);
        if (o.budget_s > 0 && seconds_since(start) + expected > o.budget_s) {
            rec.cut.push_back(printf_text("not measured (over the %.0f s budget, expected %.1f s): ", o.budget_s, expected) +
                              what);
            ++over_budget;
            done = i + 1;
            continue;
        }
        rec.cut.insert(rec.cut.end(), cut.begin(), cut.end());
        std::vector<kernels::Job> jobs;
        for (const PlannedJob& j : planned) jobs.push_back(j.job);
        std::vector<kernels::Measurement> results = runner.run_blocking(std::move(jobs));
        std::string line;
        for (kernels::Measurement& m : results) {
            line += (line.empty() ? "" : ", ") + m.job.variant + " " +
                    (m.ok ? kernels::format_time_ms(m.time.median_ms) : m.refused ? "refused" : "FAILED");
            if (!m.ok) {
                rec.cut.push_back(std::string(m.refused ? "refused: " : "failed: ") +
                                  kernels::describe(m.job.params, m.job.variant) + ": " + m.error);
                if (!m.refused) err << "fusionlab record: " << kernels::describe(m.job.params, m.job.variant) << ": " << m.error << "\n";
                continue;
            }
            if (!rehearsal) rec.device = m.device;  // the backend refines it (measured ceilings) per job
            // Two points can run the same job: an `auto` tile resolves naive (which has no tile) to
            // the one value every point shares. A recording holds each job once.
            if (!recorded_keys.insert(point_key(m.ran_params(), m.job.variant)).second) continue;
            rec.measurements.push_back(std::move(m));
        }
        done = i + 1;
        out << printf_text("[%3zu/%zu %6.1f s] ", done, points.size(), seconds_since(start)) << params_text(point.params)
            << ": " << line << "\n";
        out.flush();
        if (seconds_since(last_write) > 15) {
            if (std::string why = write(false); !why.empty()) err << "fusionlab record: checkpoint: " << why << "\n";
            last_write = Clock::now();
        }
    }
    if (rec.measurements.empty()) {
        err << "fusionlab record: nothing was measured\n";
        return 1;
    }
    if (std::string why = write(true); !why.empty()) {
        err << "fusionlab record: " << why << "\n";
        return 1;
    }
    Recording check;
    if (std::string why = load_recording(file, check, rehearsal); !why.empty()) {
        err << "fusionlab record: the file written does not read back: " << why << "\n";
        return 1;
    }
    out << "wrote " << file << " (" << kernels::format_bytes(double(fs::file_size(file, ec))) << "): "
        << check.measurements.size() << " measurements of " << points.size() << " points in "
        << printf_text("%.0f s", seconds_since(start)) << "; " << rec.cut.size() << " cut ("
        << over_budget << " points over the budget)\n";
    for (const std::string& c : rec.cut) out << "  cut: " << c << "\n";
    return 0;
}

}  // namespace app
