// Owners of device memory and streams for every .cu file of the GPU side: each releases what it
// holds when it goes out of scope, so a CudaError thrown half-way through leaks nothing.
#pragma once

#include "kernels/core/format.h"
#include "kernels/cuda/gpu_check.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace kernels::gpu {

class DeviceMemory {
public:
    DeviceMemory() = default;
    // `what` names the buffer in the error message ("Q", "rotation set 2").
    explicit DeviceMemory(size_t bytes, const std::string& what = "") : bytes_(bytes) {
        if (bytes == 0) return;
        check(cudaMalloc(&ptr_, bytes), "cudaMalloc of " + format_bytes(static_cast<double>(bytes)) +
                                            (what.empty() ? "" : " for " + what));
    }
    DeviceMemory(DeviceMemory&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; o.bytes_ = 0; }
    DeviceMemory& operator=(DeviceMemory&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = o.ptr_; bytes_ = o.bytes_;
            o.ptr_ = nullptr; o.bytes_ = 0;
        }
        return *this;
    }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    ~DeviceMemory() { release(); }
    void* get() const { return ptr_; }
    size_t bytes() const { return bytes_; }
    // Lets go of the memory without freeing it: for a context that a kernel still running holds
    // (the watchdog's case), where cudaFree would wait for that kernel forever. The process's end frees it.
    void abandon() {
        ptr_ = nullptr;
        bytes_ = 0;
    }

private:
    void release() {
        if (ptr_) (void)cudaFree(ptr_);  // nothing useful to do with an error while freeing
        ptr_ = nullptr;
    }
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
    ~Stream() { if (s_) (void)cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

}  // namespace kernels::gpu
