// One GPU interface for every workload: the device side of a workload, implemented in its folder
// (a .cu file) and made by WorkloadDef::make_gpu: a workload's whole device side, what the GPU
// backend runs and what the GPU tests run through it. The harness (kernels/gpu/gpu_backend.cu) owns
// the device, the stream, the L2 policy, timing, the timeline, the counters and out-of-memory
// handling, and drives a workload through these calls only:
//
//   bytes_per_set, buffers_named   what one buffer set takes (the out-of-memory message)
//   prepare(variant, p, sets)      allocate `sets` buffer sets (the harness's L2 decision)
//   fill_inputs, poison_outputs    random inputs (never zeros); outputs set to NaN bytes
//   begin_check                    before the checked run (may start the CPU reference)
//   launch_kernel / launch_run     the checked run, the timed reps, the timeline
//   gather_output                  after the checked run: what the check needs, copied to the host
//   finish_check                   after the timed reps: compare with the float64 reference
//   release                        free everything (another workload's job is next)
//   student_argument               the variant `yours` (exercises/): what a student's kernel that
//                                  takes the place of one of the prepared variant's kernels is passed
//
// Every call throws (CudaError, std::runtime_error) on failure; the harness catches.
#pragma once

#include "kernels/core/output_check.h"
#include "kernels/core/schedule.h"
#include "kernels/core/types.h"
#include "kernels/cuda/gpu_fill.cuh"  // fill_input: what fill_inputs calls

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernels {

// How a workload's timed reps treat L2 (the harness makes the one decision, plan_l2()):
enum class L2Handling {
    rotate_or_flush,  // rotate up to 8 buffer sets so a rep's inputs are not in L2, else flush it
    flush,            // one buffer set; flush L2 before each rep when the working set would sit there
    keep,             // never flush: the data stays in L2 between runs, as in the real loop it models
};

// How the harness times a rep.
enum class TimingStyle {
    kernel_events,   // a CUDA event at every kernel boundary: per-kernel times, reps queued back to back
    whole_run_idle,  // one event before the first launch and one after the last, on an idle GPU: the
                     // host's launch rate is inside the time (events between launches would add their cost)
};

// The check of one checked run against the float64 CPU reference.
struct GpuCheck {
    int64_t nonfinite = 0;        // NaN/inf (unwritten poison) in the whole output, counted on the device
    // The first compared element that is wrong (ErrorSum::first_wrong), where the workload names it:
    // "out[5, 17] (element 20497)"; empty when every compared element is right or it is not named.
    std::string first_wrong;
    int64_t output_elements = 0;  // size of that output
    double max_abs = 0, rel_l2 = 0;
    int64_t elements = 0;         // compared with the reference
    std::string note;             // what was compared: "all 4096 rows", "64 of 8192 rows sampled ..."
};

// One argument of a student's kernel (the variant `yours`): its value as the kernel takes it, its C
// type in the exercise's words, and, for a buffer the kernel writes, its size (the harness puts
// guard zones around it and checks them after the run).
struct StudentArgument {
    std::vector<unsigned char> bytes;  // a device pointer or a scalar, as cuLaunchKernel copies it
    std::string type;                  // "const T*", "T*", "int64_t", "uint64_t", "uint32_t", "int", "float"
    uint64_t output_bytes = 0;         // > 0: a buffer the kernel writes

    template <typename V> static StudentArgument of(const V& value, const std::string& type, uint64_t output_bytes = 0) {
        StudentArgument a;
        a.bytes.resize(sizeof(V));
        const unsigned char* p = reinterpret_cast<const unsigned char*>(&value);
        a.bytes.assign(p, p + sizeof(V));
        a.type = type;
        a.output_bytes = output_bytes;
        return a;
    }
};

class GpuWorkload {
public:
    virtual ~GpuWorkload() = default;

    // What one buffer set of variant/p takes on the device, and its buffers by name.
    virtual uint64_t bytes_per_set(const std::string& variant, const Params& p) const = 0;
    virtual std::string buffers_named(const std::string& variant, const Params& p) const = 0;
    virtual L2Handling l2_handling() const { return L2Handling::flush; }
    virtual TimingStyle timing_style() const { return TimingStyle::kernel_events; }

    // Allocates `sets` buffer sets for variant and p (keeps what it holds when it already fits them;
    // frees the old buffers first otherwise, so a smaller configuration never needs both).
    virtual void prepare(const std::string& variant, const Params& p, int sets, cudaStream_t stream) = 0;
    virtual void release() = 0;
    virtual uint64_t bytes_held() const = 0;

    virtual void fill_inputs(cudaStream_t stream) = 0;
    virtual void poison_outputs(cudaStream_t stream) = 0;

    // Kernels per run, in the model's order; kernel k of a run on buffer set `set`.
    virtual size_t kernel_count() const = 0;
    virtual void launch_kernel(size_t k, int set, cudaStream_t stream) = 0;
    // One whole run as the variant really runs it, on set 0 (default: kernel by kernel; a graph
    // replay is one call).
    virtual void launch_run(cudaStream_t stream) {
        for (size_t k = 0; k < kernel_count(); ++k) launch_kernel(k, 0, stream);
    }
    // The run the hardware counters profile, and what to say when it is not launch_run().
    virtual void launch_counted_run(cudaStream_t stream) { launch_run(stream); }
    virtual std::string counted_run_note() const { return ""; }
    // The event timeline's fallback can time kernel by kernel (false for a graph replay: one span).
    virtual bool kernels_separable() const { return true; }
    // Words for the timing note of a whole_run_idle workload: "100 cudaLaunchKernel calls".
    virtual std::string launches_text() const { return ""; }

    virtual void begin_check(const CheckBudget& /*budget*/) {}
    virtual void gather_output(cudaStream_t stream, unsigned long long* counter_device) = 0;
    virtual GpuCheck finish_check() = 0;

    // The variant `yours`: argument `name` of a student's kernel run on buffer set 0 of the prepared
    // variant (nullopt when this workload has no such argument), and every name it offers (for the
    // message when a signature asks for another). The defaults offer none: no exercise on this workload.
    virtual std::optional<StudentArgument> student_argument(const std::string& /*name*/) const { return std::nullopt; }
    virtual std::vector<std::string> student_argument_names() const { return {}; }

    // What the compiled kernels on this device differ in from the model's register facts ("" when
    // nothing differs or nothing is known).
    virtual std::string register_note(const Model& /*model*/, const Params& /*p*/) const { return ""; }
};

namespace gpu {

// Counts NaN/inf elements of a device tensor into *count_device (zeroed first by the caller's
// scan) and converts raw dtype bits to float on the host (kernels/gpu/gpu_output.cu).
void count_nonfinite(DType t, const void* tensor, int64_t elements, unsigned long long* count_device,
                     cudaStream_t stream);
int64_t scan_nonfinite(DType t, const void* tensor, int64_t elements, unsigned long long* counter_device,
                       cudaStream_t stream);
void to_float(DType t, const void* host_bits, float* dst, uint64_t elements);

// A workload's buffer set kept between jobs while `same` says the next job's buffers are the ones
// it holds; otherwise the old ones are freed first (a smaller configuration never needs both) and
// `allocate(buffers)` makes the new ones. `held`: whether it holds any (release() clears it).
template <typename Buffers, typename Allocate>
void keep_or_allocate(Buffers& buffers, bool& held, bool same, Allocate&& allocate) {
    if (held && same) return;
    buffers = Buffers{};
    held = false;
    allocate(buffers);
    held = true;
}

}  // namespace gpu

}  // namespace kernels
