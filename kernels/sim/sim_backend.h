// The simulated backend: each kernel's time is its slowest resource (DRAM, L2, shared memory,
// tensor-core MMA, FP32 FMA, SFU), plus launch or graph-replay cost; the result names it. Its
// calibration per simulated GPU, the pricing of a kernel and of a run, and the modeled side every
// backend records (record_model). The Backend interface is kernels/core/backend.h.
#pragma once

#include "kernels/core/backend.h"
#include "kernels/core/limiter.h"
#include "kernels/core/registry.h"
#include "kernels/core/types.h"

#include <memory>
#include <string>
#include <vector>

namespace kernels {

// What a simulated GPU achieves, resource by resource. Calibrated from measurements where we
// have them (H100: assets/measurements/h100-bench-2026-11-25; H200: kernels/PERF.md), from the
// datasheet and the H100's measured-to-datasheet ratios elsewhere. `source` says which, per GPU;
// sim_backend.cpp has each constant's source next to it.
struct SimCalibration {
    double dram_gbps = 0;         // DRAM bandwidth a 16-byte-vector kernel reaches (the copy kernel)
    double narrow_dram_gbps = 0;  // the same for kernels whose threads move 4 bytes per access
    double dram_read_gbps = 0;    // DRAM bandwidth a kernel that only reads reaches (0: the copy rate); its writes then
                                  // go at the rate that gives a copy, as many bytes written as read, the copy rate
                                  // (dram_gbps); narrow accesses scaled alike (price_kernel)
    double l2_gbps = 0;           // L2 <-> SM bandwidth
    double shared_gbps = 0;       // shared-memory wavefront bytes per second (128 B per wavefront)
    double gemm_tflops = 0;       // library tensor-core GEMM (cuBLAS), fp16, fp32 accumulate
    double gemm_bf16_tflops = 0;  // the same in bf16 (the roofline's bf16 tensor roof)
    double mma_sync_tflops = 0;   // hand-written mma.sync kernels with a softmax between products
    double fp32_tflops = 0;       // FP32 FMA (2 FLOPs each)
    double sgemm_tflops = 0;      // a library FP32 GEMM (cuBLAS SGEMM)
    double sfu_per_s = 0;         // exp2 and other SFU results per second
    double issue_per_s = 0;       // thread instructions issued per second (4 warp-instructions per
                                  // clock per SM x the share of issue slots a streaming kernel keeps busy)
    double first_launch_us = 0;   // the first launch of a run timed from an idle GPU
    double host_launch_us = 0;    // the host's cost per dependent launch on a stream
    double gpu_gap_us = 0;        // a kernel's start-up on the GPU when launches are queued ahead, as CUDA
                                  // events around each kernel see it (runs timed kernel by kernel)
    double queued_gap_us = 0;     // the GPU's gap between dependent kernels of a run timed from idle when the
                                  // host is ahead (CUPTI: 1.0-1.2 us between ffn's kernels)
    double graph_launch_us = 0;   // one cudaGraphLaunch from an idle GPU
    double graph_node_us = 0;     // per kernel node of a replayed graph
    double library_node_gap_us = 0; // a replayed graph's gap before a library GEMM's node (cuBLASLt's kernels
                                    // start later after the previous node than our own kernels do)
    double host_library_us = 0;   // the host's cost of one library GEMM call (cuBLASLt) in a run timed from idle
    double memory_latency_us = 0; // one dependent trip to DRAM: a kernel's first bytes, a block's first loads
    std::string source;           // "measured on an H100, 2026-11-25 (...)"
};

struct SimGpu {
    std::string key;          // "H100" (CLI --sim value)
    DeviceInfo info;          // datasheet numbers, simulated = true
    SimCalibration cal;
};

// The calibration of a device: a simulated GPU's own; for a real one, the simulated GPU of the
// same name when there is one, with its measured ceilings (copy, GEMM, FMA) where known, else
// datasheet ratios from its DeviceInfo.
SimCalibration calibration_for(const DeviceInfo& d);

// One kernel priced resource by resource: each resource's time, the largest (busy_ms), and which.
// The on-chip resources (shared memory, tensor cores, FMA, SFU, issue) are priced per SM: each SM
// runs its share of the blocks, `resident_blocks` at a time, and a wave of blocks takes the longer
// of their work at the SM's full rate and the time one block needs alone when too few warps share
// the SM to hide its latencies (ScheduleKernel::block). The per-resource times below are the
// whole-GPU throughput times; `onchip_ms` is what the blocks' waves make of the largest of them.
struct KernelPrice {
    double dram_ms = 0, l2_ms = 0, shared_ms = 0, tensor_ms = 0, fp32_ms = 0, sfu_ms = 0, issue_ms = 0;
    double onchip_ms = 0;       // the slowest on-chip resource after occupancy and latency
    int resident_blocks = 0;    // blocks per SM at once (0: not known, a library kernel)
    int waves = 0;              // rounds of resident blocks on the busiest SM
    bool latency_bound = false; // a wave waited on one block's latency, not on the SM's throughput
    double busy_ms = 0;
    Limiter limiter = Limiter::unknown;  // the resource that sets busy_ms (kernels/core/limiter.h)
    std::string detail;   // "1.06 GiB at 2986 GB/s = 0.377 ms"
};
KernelPrice price_kernel(const SimCalibration& c, const KernelModel& k, const DeviceInfo& device);

// A whole run priced as the simulated backend times it: each kernel's price and step (busy + its
// launch or queue gap), and the resource that sets the most time over the run, launches included.
struct RunPrice {
    std::vector<KernelPrice> kernels;  // in launch order
    std::vector<double> step_ms;       // each kernel's share of the run's time
    std::vector<double> node_gap_us;   // a replayed graph's gap before each node on the GPU clock
    double total_ms = 0, launch_ms = 0;
    double gap_us = 0;                 // the gap between kernels the timeline draws
    bool graph_replay = false;         // a graph replayed from an idle GPU
    bool launch_bound = false;         // launches and gaps set more time than any resource
    Limiter limiter = Limiter::unknown; // the resource that sets the most time, launches included
    double limiter_ms = 0;
    std::string limiter_detail;        // "kernel: what it prices", the busiest kernel under it ("" when launch bound)
};
RunPrice price_run(const SimCalibration& c, const Model& model, const DeviceInfo& device, bool graph, bool from_idle);
// The variant's graph replay and its workload's idle-GPU timing from its definition.
RunPrice price_run(const SimCalibration& c, const std::string& variant, const Params& p, const Model& model,
                   const DeviceInfo& device);
// The same for a workload and variant already found (no lookup by name).
RunPrice price_run(const SimCalibration& c, const WorkloadDef& def, const VariantInfo& variant, const Model& model,
                   const DeviceInfo& device);

// "bound by <resource>: <the kernel that speaks for it and its numbers> (x% of the run)", or the
// launches and gaps when they set the most time: the words a result says its limiter in.
std::string limiter_text(const RunPrice& run, size_t kernels);

const std::vector<SimGpu>& sim_gpus();
const SimGpu* find_sim_gpu(const std::string& key);  // case-insensitive; nullptr if unknown
std::unique_ptr<Backend> make_sim_backend(const SimGpu& gpu);

// The modeled side of a measurement, as every backend reports it: FLOPs, DRAM bytes (the L2 reuse
// model's), L2<->SM and shared bytes, the minimum bytes, the register spills on this device, and
// what the calibrated model says sets the time (m.job.variant's run priced for this device, or
// `priced` when the caller has priced it already).
void record_model(const Model& mod, const Params& p, const DeviceInfo& device, Measurement& m,
                  const RunPrice* priced = nullptr);
// The same for a job whose workload, parameters and run are already found, decoded and priced (the
// simulated backend's).
void record_model(const WorkloadDef& def, const Model& mod, const DecodedParams& decoded, const DeviceInfo& device,
                  Measurement& m, const RunPrice& run);

// A two-roof estimate: max(bytes / datasheet bandwidth, FLOPs / datasheet peak) + one launch.
double sim_kernel_ms(const DeviceInfo& gpu, double flops, uint64_t bytes, bool tensor_cores);
// One kernel of a model as the simulated backend prices it (price_kernel on calibration_for(gpu))
// plus the GPU-side start-up of a queued kernel.
double sim_kernel_ms(const DeviceInfo& gpu, const KernelModel& k);

}  // namespace kernels
