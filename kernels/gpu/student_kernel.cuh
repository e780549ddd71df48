// The variant `yours` on the GPU (kernels/gpu/gpu_backend.cu drives it): a student's kernel
// (exercises/) compiled by NVRTC for this device (kernels/gpu/nvrtc_compile.h), loaded through the
// driver API into the harness's own context (driver entry points from the runtime, so nothing
// links libcuda), given the arguments its signature names from the workload
// (GpuWorkload::student_argument), and launched on the harness's stream.
//
// Every buffer the kernel writes is replaced by a guarded copy: [1 MiB guard | output | 1 MiB
// guard], guards filled with 0xA5 and the output poisoned with 0xFF (NaN) before the checked run.
// After it the guards are compared byte by byte (a write outside the output is reported as such,
// with where it landed) and the output is copied into the workload's own buffer, where the
// workload's check against the float64 reference reads it. The workload names no exercise and the
// harness names no workload.
#pragma once

#include "kernels/cuda/gpu_memory.cuh"
#include "kernels/gpu/gpu_workload.h"
#include "kernels/core/types.h"

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

namespace kernels::gpu {

class StudentLaunch {
public:
    // Compiles for the device, loads the module and gathers the arguments; throws
    // std::runtime_error with the message (compile errors as "file:line: error: ...").
    // T is `dtype`'s element type.
    StudentLaunch(const StudentKernel& kernel, const GpuWorkload& workload, const DeviceInfo& device, DType dtype);
    ~StudentLaunch();
    StudentLaunch(const StudentLaunch&) = delete;
    StudentLaunch& operator=(const StudentLaunch&) = delete;

    // Guards := 0xA5, outputs := 0xFF (NaN in every dtype).
    void poison(cudaStream_t stream);
    void launch(cudaStream_t stream);
    // After a synchronised run: "" when every guard is intact, else which output and where.
    std::string check_guards();
    // The outputs into the workload's buffers (for its check).
    void copy_outputs_back(cudaStream_t stream);
    // The kernel is still running (the watchdog gave up on it): free nothing and unload nothing on
    // destruction, since both would wait for it forever; the process's end frees them.
    void abandon();
    // "chain_yours: grid 4096x1x1, block 256x1x1, 0 B dynamic shared memory; NVRTC 13.0 for sm_90, 40 registers"
    const std::string& description() const { return description_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string description_;
};

// The guard zone on each side of an output, in bytes.
inline constexpr size_t kGuardBytes = size_t{1} << 20;

}  // namespace kernels::gpu
