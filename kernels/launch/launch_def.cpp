// The launch-overhead workload as the rest of the program sees it (kernels/core/workload_def.h):
// K dependent steps y = y*a + b launched as K kernels, a replayed CUDA graph, or one fused kernel.
// launch.h says what each variant does.
#include "kernels/sim/emulate.h"
#include "kernels/core/workload_def.h"
#include "kernels/launch/launch.h"

#include <cmath>
#include <cstdio>
#include <memory>

namespace kernels {

#if FUSIONLAB_HAVE_CUDA
namespace launch::gpu {
std::unique_ptr<GpuWorkload> make_gpu_workload();  // launch.cu
}  // namespace launch::gpu
#endif

namespace launch {

LaunchParams to_launch(const Params& p) {
    LaunchParams l;
    l.dtype = p.dtype;
    l.steps = p.get_int("steps");
    l.elements = p.get_int("elements");
    l.seed = seed_of(p);
    return l;
}

namespace {

// The default vector (256 KiB in fp32) sits in L2, so each step costs little more than its launch.
const ParamSpec kSteps{"steps", "K (dependent steps)", 1, static_cast<double>(kMaxSteps), true, true,
                       "How many times y = y*a + b is applied. Each step needs the previous one's y, so stream and "
                       "graph\nrun K kernels one after another: K launches, K-1 gaps between kernels. fused runs one "
                       "kernel.",
                       100};
const ParamSpec kElements{"elements", "vector length", 1, static_cast<double>(kMaxElements), true, true,
                          "Values in y. Small vectors sit in L2 and a step takes less time than its launch: the "
                          "launch cost\ndominates. Large ones (more than the L2) make each step a trip through HBM, "
                          "and launch cost fades.",
                          65536};

// The pricing and model hooks read the job's LaunchParams, decoded once (WorkloadDef::decode).
const LaunchParams& job_params(const DecodedParams& d) { return decoded_as<LaunchParams>(d); }

Schedule schedule_of(const std::string& variant, const DecodedParams& p) { return schedule(variant, job_params(p)); }
uint64_t min_bytes_of(const DecodedParams& p) { return min_bytes(job_params(p)); }
std::string describe_of(const Params& p, const std::string&) {
    return "K=" + std::to_string(p.get_int("steps")) + ", n=" + std::to_string(p.get_int("elements"));
}

// x and y: one vector each.
TensorFootprint footprint(const DecodedParams& p, const std::string&) {
    const LaunchParams& l = job_params(p);
    const std::string es = std::to_string(dtype_bytes(l.dtype)) + " B";
    return {static_cast<uint64_t>(l.elements) * static_cast<uint64_t>(dtype_bytes(l.dtype)),
            "elements x " + es + " = " + std::to_string(l.elements) + " x " + es};
}

OnChip on_chip(const std::string&, const Params&, const ScheduleKernel&) { return OnChip::registers; }

EmulatedCheck emulate_of(const std::string& variant, const Params& p, const EmulationBudget& budget) {
    return emulate(variant, to_launch(p), budget);
}

// The launch lesson in a few words: time per step (whole run / K) and how many kernels ran it.
std::string bench_note(const Measurement& m) {
    const LaunchParams p = to_launch(m.job.params);
    const double per_step_us = m.time.median_ms * 1e3 / static_cast<double>(p.steps);
    const int64_t launched = kernel_count(m.job.variant, p);
    char text[96];
    std::snprintf(text, sizeof text, per_step_us < 0.1 ? "per step %.4f us" : "per step %.2f us", per_step_us);
    return text + std::string(m.device.simulated ? " (simulated)" : "") + "; " + std::to_string(launched) +
           (launched == 1 ? " kernel" : " kernels");
}

}  // namespace
}  // namespace launch

const WorkloadDef& launch_workload() {
    static const WorkloadDef def = [] {
        WorkloadDef w;
        w.name = "launch";
        w.title = "launch overhead: K dependent steps";
        w.description =
            "K dependent steps y = y*a + b on one vector. stream: K kernel launches, each a driver call and a "
            "gap on the GPU. graph: the K kernels captured once as a CUDA graph and replayed (smaller gaps). "
            "fused: one kernel applies the K steps in registers. See the Timeline tab for the gaps.";
        w.params = {launch::kSteps, launch::kElements, seed_param()};
        // Both against stream: graph removes the host's per-launch work (same K kernels), fused removes
        // the launches and y's K trips through memory.
        w.variants = with_baselines(launch::variants(), {{"graph", "stream"}, {"fused", "stream"}});
        w.decode = decode_with<launch::LaunchParams, launch::to_launch>;
        w.schedule = launch::schedule_of;
        w.min_bytes = launch::min_bytes_of;
        w.describe = launch::describe_of;
        w.footprint = launch::footprint;
        w.on_chip = launch::on_chip;
        w.bench_note = launch::bench_note;
        w.emulate = launch::emulate_of;
        w.timed_from_idle = true;  // one event pair around all launches, from an idle GPU
#if FUSIONLAB_HAVE_CUDA
        w.make_gpu = launch::gpu::make_gpu_workload;
#endif
        return w;
    }();
    return def;
}

}  // namespace kernels
