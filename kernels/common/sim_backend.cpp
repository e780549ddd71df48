// Simulated backend: datasheet GPUs. Each kernel of a variant costs
//   max(bytes / bandwidth, FLOPs / peak) + one launch,
// where peak is the tensor-core peak for kernels the model marks tensor_cores (fp16/bf16 GEMMs,
// flash_tc) and the FP32 peak otherwise,
// summed over the variant's kernels, with bytes and FLOPs from the same model the GPU side
// reports. Numbers are estimates and every Measurement says so.
#include "kernels/common/backend.h"
#include "kernels/common/timeline.h"
#include "kernels/common/registry.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#ifndef FUSIONLAB_BUILD_TYPE
#define FUSIONLAB_BUILD_TYPE "unknown"
#endif

namespace kernels {

const char* build_type() { return FUSIONLAB_BUILD_TYPE; }

// ---------------------------------------------------------------------------------------------
// Datasheet GPUs (vendor datasheets: SXM parts; tensor = dense fp16/bf16 with fp32 accumulate).
// Launch cost: the typical gap a dependent kernel launched from C++ adds on that generation.
// Graph cost: the gap per kernel node when the kernels are replayed as a CUDA graph (no driver call
// per kernel); about 1 us per kernel as measured on an H200 (NOTES.md anchors: 0.98 us per kernel),
// older generations a little more. Both are estimates, and every simulated number says so.
// ---------------------------------------------------------------------------------------------
static SimGpu with_graph_cost(SimGpu g, double graph_us) {
    g.info.graph_kernel_us = graph_us;
    return g;
}

static SimGpu make(const char* key, const char* name, int ccM, int ccm, int sms, double bw, double fp32,
                   double tensor, int64_t mem_gib, int64_t l2_mib, int smem_optin_kib, int sm_mhz, double launch_us) {
    SimGpu g;
    g.key = key;
    DeviceInfo& d = g.info;
    d.name = std::string(name) + " (simulated)";
    d.simulated = true;
    d.driver = "n/a (simulated)";
    d.runtime = "n/a (simulated)";
    d.cc_major = ccM;
    d.cc_minor = ccm;
    d.sm_count = sms;
    d.sm_clock_mhz = sm_mhz;
    d.global_mem_bytes = mem_gib << 30;
    d.l2_bytes = l2_mib << 20;
    d.smem_per_block = 48 * 1024;
    d.smem_per_block_optin = smem_optin_kib * 1024;
    d.peak_bw_gbps = bw;
    d.peak_fp32_tflops = fp32;
    d.peak_tensor_tflops = tensor;
    d.launch_overhead_us = launch_us;
    d.ceiling_note = "datasheet peak bandwidth (simulated GPU: nothing measured)";
    return g;
}

const std::vector<SimGpu>& sim_gpus() {
    static const std::vector<SimGpu> gpus{
        with_graph_cost(make("V100", "Tesla V100 SXM2 32GB", 7, 0, 80, 900, 15.7, 125, 32, 6, 96, 1530, 4.0), 1.5),
        with_graph_cost(make("A100", "A100 SXM4 80GB", 8, 0, 108, 2039, 19.5, 312, 80, 40, 163, 1410, 3.0), 1.2),
        with_graph_cost(make("H100", "H100 SXM5 80GB", 9, 0, 132, 3350, 67, 989, 80, 50, 227, 1980, 2.5), 1.0),
        with_graph_cost(make("H200", "H200 SXM 141GB", 9, 0, 132, 4800, 67, 989, 141, 60, 227, 1980, 2.5), 1.0),
        with_graph_cost(make("RTX4090", "GeForce RTX 4090", 8, 9, 128, 1008, 82.6, 165, 24, 72, 99, 2520, 2.5), 1.0),
    };
    return gpus;
}

const SimGpu* find_sim_gpu(const std::string& key) {
    auto same = [](const std::string& a, const std::string& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                   return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
               });
    };
    for (const SimGpu& g : sim_gpus())
        if (same(g.key, key)) return &g;
    return nullptr;
}

// Spill traffic that leaves the SM is charged at HBM bandwidth (an upper bound: L2 may hold some
// of it); what L1 holds costs nothing here.
double sim_kernel_ms(const DeviceInfo& gpu, const KernelModel& k) {
    return sim_kernel_ms(gpu, k.flops, k.bytes_read() + k.bytes_written() + spill_estimate(k, gpu).beyond_l1_bytes,
                         k.tensor_cores);
}

double sim_kernel_ms(const DeviceInfo& gpu, double flops, uint64_t bytes, bool tensor_cores) {
    const double memory_s = static_cast<double>(bytes) / (gpu.peak_bw_gbps * 1e9);
    const double peak = (tensor_cores ? gpu.peak_tensor_tflops : gpu.peak_fp32_tflops) * 1e12;
    const double compute_s = flops / peak;
    return (std::max(memory_s, compute_s) + gpu.launch_overhead_us * 1e-6) * 1e3;
}

// The gap before each kernel of this job after the first: a replayed graph's per-node cost for the
// variant that replays a CUDA graph (VariantInfo::graph_replay), one launch otherwise. The first kernel always costs one launch
// (a graph replay is one cudaGraphLaunch, which costs about what a kernel launch does).
static double sim_gap_us(const DeviceInfo& gpu, const Job& job) {
    const VariantInfo* v = workload_def(job.params).find_variant(job.variant);
    return v && v->graph_replay ? gpu.graph_kernel_us : gpu.launch_overhead_us;
}

// ---------------------------------------------------------------------------------------------
// Backend
// ---------------------------------------------------------------------------------------------
namespace {

class SimBackend final : public Backend {
public:
    explicit SimBackend(const SimGpu& gpu) : gpu_(gpu) {}
    const DeviceInfo& device() const override { return gpu_.info; }

    // The datasheet GPU's limits: shared memory per block (default and opt-in), total memory.
    std::string unavailable_reason(const Job& job) const override {
        if (std::string why = validate(job.params); !why.empty()) return why;
        if (!has_variant(job.params.workload, job.variant))
            return unknown_variant_message(job.params.workload, job.variant);
        return device_refusal(job.variant, job.params, total_memory_budget(gpu_.info));
    }

    Measurement run(const Job& job, const CancelToken&) override {
        Measurement m;
        m.job = job;
        m.device = gpu_.info;
        m.build_type = build_type();
        m.timing_note = "simulated: sum over kernels of max(bytes/bandwidth, FLOPs/peak) + launch cost; "
                        "a model estimate, not a measurement";
        m.check_note = "n/a: simulated, no kernel ran";
        m.measured_bytes_note = "unavailable: simulated GPU has no counters";
        if (std::string why = unavailable_reason(job); !why.empty()) {
            m.error = why;
            m.refused = validate(job.params).empty();  // a device limit, not bad input
            return m;
        }
        const Model model = kernels::model(job.variant, job.params);
        const double gap_us = sim_gap_us(gpu_.info, job);
        double total_ms = 0;
        std::vector<std::string> names;
        std::vector<double> busy_ms;
        std::vector<uint64_t> bytes;
        const ModelSpills spills = model_spills(model, gpu_.info);
        for (const KernelModel& k : model.kernels) {
            // sim_kernel_ms() charges one launch; after the first kernel, swap it for this job's gap.
            const double busy = sim_kernel_ms(gpu_.info, k) - gpu_.info.launch_overhead_us * 1e-3;
            const double ms = busy + (names.empty() ? gpu_.info.launch_overhead_us : gap_us) * 1e-3;
            KernelTime kt;
            kt.name = k.name;
            kt.time = {ms, ms, ms, 0};
            kt.bytes = k.bytes_read() + k.bytes_written();
            m.kernels.push_back(kt);
            names.push_back(k.name);
            busy_ms.push_back(busy);
            bytes.push_back(kt.bytes);
            total_ms += ms;
        }
        m.kernels = aggregate_kernel_times(m.kernels);
        m.timeline = modeled_timeline(names, busy_ms, bytes, gap_us);
        char gap_text[64];
        std::snprintf(gap_text, sizeof gap_text, "%.2f us", gap_us);
        m.timeline_source = std::string("simulated: kernel = max(bytes/bandwidth, FLOPs/peak), gap = ") + gap_text +
                            (gap_us == gpu_.info.graph_kernel_us && gap_us != gpu_.info.launch_overhead_us
                                 ? " (graph replay cost per kernel)"
                                 : " (launch cost)");
        m.time = {total_ms, total_ms, total_ms, 0};
        m.flops = model.flops();
        m.bytes_read = model.bytes_read();
        m.bytes_written = model.bytes_written();
        m.min_bytes = min_bytes(job.params);
        m.local_bytes = model.local_bytes();
        m.local_beyond_l1_bytes = spills.beyond_l1_bytes;
        m.spill_note = spills.note;
        if (m.local_bytes > 0)
            m.timing_note += "; spill traffic beyond L1 (estimate) charged at HBM bandwidth";
        m.ok = true;
        return m;
    }

private:
    SimGpu gpu_;
};

}  // namespace

std::unique_ptr<Backend> make_sim_backend(const SimGpu& gpu) { return std::make_unique<SimBackend>(gpu); }

}  // namespace kernels
