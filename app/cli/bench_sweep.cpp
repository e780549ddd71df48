// `fusionlab bench`: every parameter set of the sweep (app/cli/cli.h sweep_params), every selected
// variant of each, through the runner as one batch per parameter set, printed as each batch
// returns (app/cli/bench_table.h); then the reference rows and the CSV/JSON exports.
#include "app/cli/bench_table.h"
#include "app/cli/commands.h"
#include "app/cli/text.h"

#include "app/files/export.h"
#include "app/core/jobs.h"
#include "app/platform/platform.h"
#include "app/files/reference.h"
#include "app/core/runner.h"
#include "kernels/core/registry.h"
#include "kernels/gpu/sanitizer_run.h"

#include <algorithm>
#include <cstdlib>
#include <ostream>

namespace app::cli {

namespace {


std::vector<kernels::Job> jobs_for(const BenchOptions& o, const kernels::Params& p, const ResolvedBackend& backend) {
    std::vector<kernels::Job> jobs;
    for (const auto& v : kernels::variants(p.workload)) {
        if (!o.variants.empty() && std::find(o.variants.begin(), o.variants.end(), v.name) == o.variants.end())
            continue;
        kernels::Job job;
        job.params = p;
        job.variant = v.name;
        job.backend = backend.kind;
        job.sim_gpu = backend.sim_key;
        job.recording = backend.recording;
        job.reps = o.reps;
        if (o.interactive) {  // the GUI's quick pass (app/core/panels_state.cpp make_quick_batch)
            job.quick = true;
            job.reps = std::min(o.reps, kernels::kQuickReps);
            job.warmup = 1;
            job.measure_counters = false;
        }
        jobs.push_back(job);
    }
    return jobs;
}

}  // namespace

int run_bench(const BenchOptions& o, std::ostream& out, std::ostream& err) {
    Runner runner;
    Settings chosen;
    chosen.backend = o.backend;
    if (o.backend.empty() || o.backend == "gpu") runner.wait_until_probed();
    ResolvedBackend resolved = resolve_backend(chosen, runner);
    if (o.backend == "gpu" && resolved.kind != kernels::BackendKind::gpu) {
        err << "fusionlab bench: --backend gpu: no GPU (" << runner.gpu_status() << ")\n";
        return kExitFailure;
    }
    if (o.backend.empty() && resolved.kind == kernels::BackendKind::simulated)
        err << "fusionlab bench: no GPU (" << runner.gpu_status()
            << "); using the simulated H100 (choose with --sim or --backend)\n";
    const kernels::BackendKind backend = resolved.kind;
    if (backend == kernels::BackendKind::gpu && kernels::sanitizer_run())
        err << "fusionlab bench: " << kernels::sanitizer_run_note() << "\n";

    size_t shape_width = 0;
    for (auto w : o.workloads)
        for (auto t : o.dtypes)
            for (const auto& p : sweep_params(o, w, t))
                for (const auto& v : kernels::variants(w)) shape_width = std::max(shape_width, shape_text(p, v.name).size());

    std::vector<kernels::Measurement> all;
    int failures = 0;
    // FUSIONLAB_HEAP_TRACE=1: after each parameter set, the C heap in use and the resident set on
    // stderr, to tell a leak (in use grows with the jobs) from allocator retention.
    const bool heap_trace = std::getenv("FUSIONLAB_HEAP_TRACE") != nullptr;
    size_t jobs_done = 0;
    for (int pass = 0; pass < o.repeat; ++pass)
        for (auto w : o.workloads)
            for (auto t : o.dtypes)
                for (const auto& p : sweep_params(o, w, t)) {
                    std::vector<kernels::Measurement> batch = runner.run_blocking(jobs_for(o, p, resolved));
                    jobs_done += batch.size();
                    if (heap_trace) {
                        const auto heap = platform::heap_stats();
                        const auto rss = platform::host_rss_bytes(nullptr);
                        err << "heap trace: " << jobs_done << " jobs, in use "
                            << (heap ? std::to_string(heap->in_use >> 10) : std::string("?")) << " KiB, held free "
                            << (heap ? std::to_string(heap->free_held >> 10) : std::string("?")) << " KiB, rss "
                            << (rss ? std::to_string(*rss >> 10) : std::string("?")) << " KiB\n";
                    }
                    for (auto& m : batch) {
                        if (all.empty()) print_header(out, m, shape_width);
                        print_measurement(out, m, o.per_kernel, shape_width);
                        out.flush();
                        // A refusal (the device cannot run this variant here) is an answer, not a failure.
                        if (!m.ok && !m.refused) {
                            ++failures;
                            err << "fusionlab bench: " << w << " " << m.job.variant << " "
                                << kernels::to_string(t) << " " << shape_text(p, m.job.variant) << ": " << m.error
                                << "\n";
                        }
                        all.push_back(std::move(m));
                    }
                }

    if (!o.reference.empty()) {
        ReferenceFile reference;
        if (std::string why = load_reference_json(o.reference, reference); !why.empty())
            err << "fusionlab bench: --reference " << why << "\n";  // checked at parse time; changed since
        else
            print_reference(out, reference, all);
    }
    int code = failures ? kExitFailure : kExitOk;
    if (!o.csv.empty()) {
        if (std::string problem = export_csv(o.csv, all); !problem.empty()) {
            err << "fusionlab bench: --csv: " << problem << "\n";
            code = kExitFailure;
        } else {
            out << "\nwrote " << o.csv << " (" << all.size() << " rows)\n";
        }
    }
    if (!o.json.empty()) {
        if (std::string problem = export_json(o.json, all); !problem.empty()) {
            err << "fusionlab bench: --json: " << problem << "\n";
            code = kExitFailure;
        } else {
            out << (o.csv.empty() ? "\n" : "") << "wrote " << o.json << " (" << all.size() << " measurements)\n";
        }
    }
    return code;
}

}  // namespace app::cli
