// `fusionlab exercises` (exercise_cli.h). [SECTION] index:
//   check and list
//   goals
//   run: the process watchdog, the GPU, the rows
#include "app/exercises/exercise_cli.h"

#include "app/exercises/exercise_reference.h"

#include "app/files/export.h"
#include "app/platform/platform_file.h"
#include "kernels/core/backend.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "kernels/gpu/sanitizer_run.h"
#include "kernels/gpu/nvrtc_compile.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <ostream>
#include <thread>

namespace fs = std::filesystem;

namespace app::exercises {

namespace {

constexpr int kOk = 0, kFailure = 1, kUsage = 2;

std::string pad(const std::string& s, size_t n) { return s.size() >= n ? s + " " : s + std::string(n - s.size(), ' '); }

std::string ratio_text(double r) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fx", r);
    return buf;
}

// Reads and checks one exercise file; with its predictions parsed by `check` (only where the file
// has them and is otherwise valid), their errors join the file's.
ExerciseParse load_checked(const std::string& path, const PredictionChecker& check) {
    ExerciseParse p = load_exercise(path);
    if (p.ok() && check && p.exercise.predictions_line > 0)
        for (ExerciseError& e : check(p.exercise, false).errors) p.errors.push_back(std::move(e));
    return p;
}

// An exercise by name (a shipped one) or by path.
ExerciseParse find_exercise(const std::string& name_or_path, const PredictionChecker& check, std::string& why) {
    const bool is_path = name_or_path.find('/') != std::string::npos ||
                         (name_or_path.size() > 9 && name_or_path.compare(name_or_path.size() - 9, 9, ".exercise") == 0);
    if (is_path) return load_checked(name_or_path, check);
    const std::string dir = exercises_dir(&why);
    if (dir.empty()) return {};
    std::vector<std::string> names;
    for (const std::string& f : exercise_files(dir)) {
        const std::string stem = fs::path(f).stem().string();
        if (stem == name_or_path) return load_checked(f, check);
        names.push_back(stem);
    }
    why = "no exercise named '" + name_or_path + "' (legal: ";
    for (size_t i = 0; i < names.size(); ++i) why += (i ? ", " : "") + names[i];
    why += "; or a path to an .exercise file)";
    return {};
}

}  // namespace

// =============================================================================================
// [SECTION] check and list
// =============================================================================================
std::vector<std::string> compile_check(const Exercise& ex, const std::vector<std::pair<std::string, std::string>>& headers,
                                       int cc_major, int cc_minor, bool* nvrtc_missing) {
    std::vector<std::string> lines;
    if (nvrtc_missing) *nvrtc_missing = false;
    for (const auto& [code, first_line, what] : {std::tuple{&ex.starter, ex.starter_line, "starter"},
                                                 std::tuple{&ex.solution, ex.solution_line, "solution"}}) {
        kernels::nvrtc::CompileRequest req;
        req.source = *code;
        req.source_name = std::string(what) + ".cu";
        req.element_type = element_type(ex.params.dtype);
        req.headers = headers;
        req.cc_major = cc_major;
        req.cc_minor = cc_minor;
        const kernels::nvrtc::CompileResult r = kernels::nvrtc::compile(req);
        if (!r.unavailable.empty()) {
            if (nvrtc_missing) *nvrtc_missing = true;
            lines.push_back(ex.path + ": note: the starter and solution were not compiled: " + r.unavailable);
            return lines;
        }
        if (r.ok) continue;
        bool any = false;
        for (const kernels::nvrtc::Diagnostic& d : r.diagnostics) {
            if (d.severity != "error") continue;
            any = true;
            lines.push_back(ex.path + ":" + std::to_string(first_line + d.line - 1) + ": " + what + " does not compile: " +
                            d.message);
        }
        if (!any) lines.push_back(ex.path + ":" + std::to_string(first_line) + ": " + what + " does not compile: " + r.log);
    }
    return lines;
}

namespace {

int run_check_or_list(const ExercisesOptions& o, std::ostream& out, std::ostream& err, const PredictionChecker& check_predictions) {
    std::vector<std::string> files = o.files;
    std::string why;
    const std::string dir = exercises_dir(&why);
    if (files.empty()) {
        if (!dir.empty()) files = exercise_files(dir);
        if (files.empty()) {
            err << "fusionlab exercises: " << (dir.empty() ? why : "no exercise files in " + dir) << "\n";
            return kUsage;
        }
    }
    const auto headers = exercise_headers(dir.empty() ? "exercises" : dir);
    bool any_error = false, said_missing = false;
    for (const std::string& file : files) {
        // list: a malformed prediction is a malformed file; check parses them below, with the rest.
        const ExerciseParse p = o.action == "list" ? load_checked(file, check_predictions) : load_exercise(file);
        for (const ExerciseError& e : p.errors) err << e.text() << "\n";
        any_error = any_error || !p.ok();
        if (!p.ok()) continue;
        const Exercise& ex = p.exercise;
        if (o.action == "list") {
            out << pad(ex.name, 18) << pad(ex.workload, 11) << pad(kernels::to_string(ex.params.dtype), 6) << ex.title << "\n";
            continue;
        }
        // The starter and the solution must compile (for the lab's H100, sm_90) where NVRTC is here.
        bool missing = false;
        const std::vector<std::string> lines = compile_check(ex, headers, 9, 0, &missing);
        for (const std::string& l : lines)
            if (!missing || !said_missing) err << l << "\n";
        said_missing = said_missing || missing;
        const bool compile_errors = !missing && !lines.empty();
        any_error = any_error || compile_errors;
        // Every prediction must be well formed and answerable on every device the pane may show it
        // on: a number with a value, a choice with exactly one option that holds (as `lessons check`).
        PredictionCheck predictions;
        if (ex.predictions_line > 0) {
            if (check_predictions) predictions = check_predictions(ex, true);
            else predictions.notes.push_back(ex.path + ": its predictions are not checked by this build");
        }
        for (const std::string& n : predictions.notes) err << "fusionlab exercises check: " << n << "\n";
        for (const ExerciseError& e : predictions.errors) err << e.text() << "\n";
        any_error = any_error || !predictions.errors.empty();
        if (!compile_errors && predictions.errors.empty())
            out << "ok  " << file << " (" << ex.hints.size() << " hints, " << ex.goals.size() << " goals, "
                << predictions.predictions << " predictions answered on " << predictions.devices << " devices"
                << (missing ? ", not compiled" : ", starter and solution compile for sm_90") << ")\n";
    }
    return any_error ? kUsage : kOk;
}

}  // namespace

// =============================================================================================
// [SECTION] goals
// =============================================================================================
std::vector<GoalVerdict> judge_goals(const Exercise& ex, const kernels::Measurement& yours,
                                     const std::vector<kernels::Measurement>& compared) {
    std::vector<GoalVerdict> out;
    for (const Goal& g : ex.goals) {
        GoalVerdict v;
        v.goal = g;
        const kernels::Measurement* other = nullptr;
        for (const kernels::Measurement& m : compared)
            if (m.job.variant == g.against) other = &m;
        if (!yours.ok) {
            v.reason = "not checked: yours did not run";
        } else if (!other || !other->ok) {
            v.reason = "not checked: " + g.against + " did not run" + (other ? " (" + other->error + ")" : "");
        } else if (g.kind == Goal::Kind::time) {
            v.checked = true;
            v.ratio = yours.time.median_ms / other->time.median_ms;
            v.met = v.ratio <= g.factor;
            v.reason = "time " + ratio_text(v.ratio) + " " + g.against + "'s (" + kernels::format_time_ms(yours.time.median_ms) +
                       " vs " + kernels::format_time_ms(other->time.median_ms) + "; goal <= " + ratio_text(g.factor) + ")";
        } else if (!yours.measured_bytes || !other->measured_bytes) {
            v.reason = "not checked: DRAM bytes unavailable (" +
                       (yours.measured_bytes ? other->measured_bytes_note : yours.measured_bytes_note) + ")";
        } else {
            v.checked = true;
            v.ratio = static_cast<double>(*yours.measured_bytes) / static_cast<double>(*other->measured_bytes);
            v.met = v.ratio <= g.factor;
            v.reason = "DRAM bytes " + ratio_text(v.ratio) + " " + g.against + "'s (" +
                       kernels::format_bytes(static_cast<double>(*yours.measured_bytes)) + " vs " +
                       kernels::format_bytes(static_cast<double>(*other->measured_bytes)) + ", hardware counters; goal <= " +
                       ratio_text(g.factor) + ")";
        }
        out.push_back(v);
    }
    return out;
}

// =============================================================================================
// [SECTION] run
// =============================================================================================
namespace {

// One row: variant, time, DRAM bytes measured and modeled, the check.
void print_row(std::ostream& out, const kernels::Measurement& m) {
    out << pad(m.job.variant, 12);
    if (!m.ok) {
        out << "FAILED: " << m.error << "\n";
        return;
    }
    out << pad(kernels::format_time_ms(m.time.median_ms), 11)
        << pad(m.measured_bytes ? kernels::format_bytes(static_cast<double>(*m.measured_bytes)) : std::string("n/a"), 12)
        << pad(kernels::format_bytes(static_cast<double>(m.bytes_read + m.bytes_written)), 12);
    if (!m.checked) {
        out << "not checked\n";  // a simulated row without the CPU emulation
        return;
    }
    char err_text[64];
    std::snprintf(err_text, sizeof err_text, "rel L2 %.2e", m.rel_l2_error);
    out << err_text << "\n";
}

// The process watchdog: a run that never returns (a kernel hung in a timed rep) ends the process
// with a message, as a student's hung kernel can be stopped no other way (CUDA has no call that
// ends one kernel; the driver frees the GPU when the process exits).
class ProcessWatchdog {
public:
    explicit ProcessWatchdog(double seconds) {
        thread_ = std::thread([this, seconds] {
            const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
            while (!done_.load()) {
                if (std::chrono::steady_clock::now() > until) {
                    std::fprintf(stderr, "fusionlab exercises run: stopped by the watchdog after %.0f s: the run did not "
                                         "finish (a kernel that never ends?); the process exits so the GPU is freed\n",
                                 seconds);
                    std::fflush(nullptr);
                    std::_Exit(kFailure);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        });
    }
    ~ProcessWatchdog() {
        done_ = true;
        thread_.join();
    }
    ProcessWatchdog(const ProcessWatchdog&) = delete;
    ProcessWatchdog& operator=(const ProcessWatchdog&) = delete;

private:
    std::atomic<bool> done_{false};
    std::thread thread_;
};

// The numbers a student compares against where nothing can run: the built-in variants on the
// simulated H100 (labelled so).
void print_reference_numbers(const Exercise& ex, std::ostream& out) {
    const kernels::SimGpu* gpu = kernels::find_sim_gpu("H100");
    if (!gpu) return;
    std::unique_ptr<kernels::Backend> sim = kernels::make_sim_backend(*gpu);
    out << "the built-in variants at the exercise's parameters, SIMULATED on " << gpu->info.name << ":\n";
    out << pad("variant", 12) << pad("time", 11) << pad("DRAM meas.", 12) << pad("DRAM model", 12) << "check\n";
    for (const std::string& v : ex.compare) {
        kernels::Job job;
        job.params = ex.params;
        job.variant = v;
        job.backend = kernels::BackendKind::simulated;
        job.emulate = false;
        print_row(out, sim->run(job, kernels::CancelToken{}));
    }
    // What the reference solution did on real GPUs (exercises/measured/), where measured.
    for (const MeasuredReference& r : measured_references(ex)) {
        if (!r.error.empty()) {
            out << "(" << r.error << ")\n";
            continue;
        }
        for (const std::string& line : r.lines) out << line << "\n";
    }
}

int run_one(const ExercisesOptions& o, std::ostream& out, std::ostream& err, const PredictionChecker& check_predictions) {
    if (o.name.empty()) {
        err << "fusionlab exercises run: give an exercise name (see `fusionlab exercises list`)\n";
        return kUsage;
    }
    if (o.kernel.empty() == !o.solution) {
        err << "fusionlab exercises run: give --kernel FILE (your kernel) or --solution (the exercise's reference "
               "solution), one of them\n";
        return kUsage;
    }
    std::string why;
    const ExerciseParse p = find_exercise(o.name, check_predictions, why);
    if (!why.empty() && p.exercise.path.empty()) {
        err << "fusionlab exercises run: " << why << "\n";
        return kUsage;
    }
    if (!p.ok()) {
        // One line (a usage error): the first error and where to see them all.
        err << "fusionlab exercises run: " << p.errors.front().text()
            << (p.errors.size() > 1 ? " (and " + std::to_string(p.errors.size() - 1) + " more: fusionlab exercises check " +
                                          p.exercise.path + ")"
                                    : std::string())
            << "\n";
        return kUsage;
    }
    const Exercise& ex = p.exercise;
    std::string source = ex.solution, source_name = ex.name + "_solution.cu";
    if (!o.solution) {
        const platform::ReadResult r = platform::read_user_file(o.kernel, platform::UserFile::kernel_source, source);
        if (!r.ok()) {
            err << "fusionlab exercises run: --kernel: " << r.message << "\n";
            return kUsage;
        }
        source_name = fs::path(o.kernel).filename().string();
    }
    const std::string dir = fs::path(ex.path).parent_path().string();
    const auto headers = exercise_headers(dir.empty() ? "." : dir);

    out << "exercise " << ex.name << ": " << ex.title << "\n";
    std::string no_gpu;
    std::unique_ptr<kernels::Backend> gpu = kernels::make_gpu_backend(&no_gpu);
    if (!gpu) {
        err << "fusionlab exercises run: cannot run " << ex.name << ": " << no_gpu
            << " (a student's kernel runs only on a CUDA GPU)\n";
        print_reference_numbers(ex, out);
        return kFailure;
    }
    // Every built-in run and the checked run of yours have their own limits; this one catches a
    // kernel that hangs later (a timed rep) and anything else that never returns.
    ProcessWatchdog watchdog(ex.watchdog_seconds * 10 + 120);
    out << "device: " << gpu->device().name << " (" << gpu->device().driver << ")\n";
    out << pad("variant", 12) << pad("time", 11) << pad("DRAM meas.", 12) << pad("DRAM model", 12) << "check\n";
    std::vector<kernels::Measurement> compared, all;
    for (const std::string& v : ex.compare) {
        kernels::Job job;
        job.params = ex.params;
        job.variant = v;
        job.backend = kernels::BackendKind::gpu;
        if (kernels::sanitizer_run()) job.reps = 1;  // under compute-sanitizer a time means nothing
        kernels::Measurement m = gpu->run(job, kernels::CancelToken{});
        print_row(out, m);
        compared.push_back(m);
        all.push_back(m);
    }
    kernels::Job job;
    try {
        job = submission_job(ex, ex.params, source, source_name, headers);
    } catch (const std::exception& e) {
        err << "fusionlab exercises run: " << e.what() << "\n";
        return kUsage;
    }
    if (kernels::sanitizer_run()) job.reps = 1;
    const kernels::Measurement yours = gpu->run(job, kernels::CancelToken{});
    print_row(out, yours);
    all.push_back(yours);
    if (!o.json.empty())
        if (std::string e = export_json(o.json, all); !e.empty()) err << "fusionlab exercises run: --json: " << e << "\n";
    if (yours.context_lost) {
        // A kernel is still running (watchdog) or the context faulted: only the process's end frees the GPU.
        err << "fusionlab exercises run: " << yours.error << "\n";
        out.flush();
        err.flush();
        std::fflush(nullptr);
        std::_Exit(kFailure);
    }
    if (!yours.ok) {
        err << "fusionlab exercises run: yours failed: " << yours.error << "\n";
        return kFailure;
    }
    out << yours.timing_note.substr(0, yours.timing_note.find("; median")) << "\n";  // "yours: NAME: grid ..."
    if (kernels::sanitizer_run()) {
        // Under compute-sanitizer kernels run many times slower and the counters are off.
        out << "correct; goals not judged: " << kernels::sanitizer_run_note() << "\n";
        return kOk;
    }
    bool all_met = true;
    for (const GoalVerdict& v : judge_goals(ex, yours, compared)) {
        out << "goal " << v.goal.text() << ": " << (v.checked ? (v.met ? "met" : "MISSED") : "unchecked") << " - " << v.reason
            << "\n";
        all_met = all_met && (v.met || !v.checked);
    }
    if (!all_met) {
        err << "fusionlab exercises run: correct, but a goal was missed (above)\n";
        return kFailure;
    }
    out << "correct and within every goal\n";
    return kOk;
}

}  // namespace

int run_exercises(const ExercisesOptions& o, std::ostream& out, std::ostream& err, const PredictionChecker& check_predictions) {
    if (o.action == "run") return run_one(o, out, err, check_predictions);
    return run_check_or_list(o, out, err, check_predictions);
}

}  // namespace app::exercises
