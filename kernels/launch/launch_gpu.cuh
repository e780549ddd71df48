// What the GPU backend needs from kernels/launch/launch.cu: device buffers x and y, the input fill,
// the three ways to run K steps (K launches, a replayed CUDA graph, one fused kernel) and a check
// of y against the float64 CPU reference. All functions throw CudaError on failure.
#pragma once

#include "kernels/core/types.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

namespace kernels::launch::gpu {

struct Check {
    int64_t nonfinite = 0;  // NaN/inf in all of y (unwritten poison counts here)
    double max_abs = 0, rel_l2 = 0;
    int64_t elements = 0;   // compared against the reference
    std::string note;
};

class Workspace {
public:
    Workspace();
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    // Allocates x and y for p (kept while elements and dtype stay the same); drops a cached graph
    // that was built for other parameters.
    void prepare(const LaunchParams& p);
    void release();
    uint64_t bytes() const;  // device memory held

    void fill_inputs(cudaStream_t stream) const;   // x = input_value(seed, kX, i) in the dtype
    void poison_output(cudaStream_t stream) const;  // y = 0xFF bytes (NaN in every dtype)

    // One run of `variant`: stream = K launches of the step kernel, graph = one cudaGraphLaunch of
    // the K launches captured on `stream` the first time (instantiated outside any timing by
    // build_graph()), fused = one launch.
    void run(const std::string& variant, cudaStream_t stream);
    // Captures and instantiates the graph for the current parameters (no-op when cached).
    void build_graph(cudaStream_t stream);
    // Step k (0-based) of the stream/graph variants alone: the events fallback of the timeline.
    void launch_step(int64_t k, cudaStream_t stream) const;

    Check check_output(const std::string& variant, unsigned long long* counter_device, cudaStream_t stream) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace kernels::launch::gpu
