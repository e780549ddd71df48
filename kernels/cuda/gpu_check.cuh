// CUDA error handling for every .cu file (the harness, the workloads, profiling): every runtime call
// goes through check(), every launch is followed by check_launch(). Errors become a CudaError
// exception inside the backend, which catches it at its boundary and reports ok == false: the
// process never crashes on a CUDA error.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace kernels::gpu {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& what)
        : std::runtime_error(what + ": " + cudaGetErrorString(code) + " (" + cudaGetErrorName(code) + ", error " +
                             std::to_string(static_cast<int>(code)) + ")"),
          code_(code) {}
    cudaError_t code() const { return code_; }
    // Errors after which the context is unusable until the process restarts (a kernel faulted).
    bool sticky() const {
        return code_ == cudaErrorIllegalAddress || code_ == cudaErrorLaunchFailure ||
               code_ == cudaErrorHardwareStackError || code_ == cudaErrorIllegalInstruction ||
               code_ == cudaErrorMisalignedAddress || code_ == cudaErrorInvalidAddressSpace ||
               code_ == cudaErrorInvalidPc || code_ == cudaErrorAssert || code_ == cudaErrorECCUncorrectable ||
               code_ == cudaErrorUnknown;
    }

private:
    cudaError_t code_;
};

inline void check(cudaError_t code, const char* what) {
    if (code != cudaSuccess) {
        (void)cudaGetLastError();  // clear a non-sticky error so the backend stays usable
        throw CudaError(code, what);
    }
}

inline void check(cudaError_t code, const std::string& what) { check(code, what.c_str()); }

// After a <<<...>>> launch: configuration errors show up here, faults at the next synchronisation.
inline void check_launch(const char* kernel_name) { check(cudaGetLastError(), std::string("launch of ") + kernel_name); }

}  // namespace kernels::gpu
