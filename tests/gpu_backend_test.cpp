// The GPU backend when the device runs out of memory: a message that names the bytes, no crash,
// and the backend measures again once memory is back.
#include "kernels/core/backend.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <vector>

namespace {

// Takes nearly all free device memory in 1 GiB pieces (then smaller ones) and gives it back at
// the end of the scope, so a run that needs more than `leave` bytes must fail to allocate.
class MemoryHog {
public:
    explicit MemoryHog(size_t leave) {
        for (size_t piece = size_t{1} << 30; piece >= (size_t{1} << 20); piece /= 2) {
            size_t free_bytes = 0, total = 0;
            while (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess && free_bytes > leave + piece) {
                void* p = nullptr;
                if (cudaMalloc(&p, piece) != cudaSuccess) {
                    (void)cudaGetLastError();  // not sticky: clear it and try a smaller piece
                    break;
                }
                held_.push_back(p);
            }
        }
    }
    ~MemoryHog() {
        for (void* p : held_) (void)cudaFree(p);
    }
    MemoryHog(const MemoryHog&) = delete;
    MemoryHog& operator=(const MemoryHog&) = delete;

private:
    std::vector<void*> held_;
};

}  // namespace

TEST_CASE("GPU out of memory: a message with the bytes needed, then the backend works again", "[gpu][oom]") {
    std::string why;
    auto backend = kernels::make_gpu_backend(&why);
    REQUIRE(backend != nullptr);

    kernels::Job big;
    big.backend = kernels::BackendKind::gpu;
    big.variant = "unfused";
    big.params.workload = "chain";
    big.params.dtype = kernels::DType::f32;
    big.params.set("rows", 16384);
    big.params.set("hidden", 16384);  // 1 GiB per tensor, 6 tensors
    big.reps = 20;

    kernels::Job small = big;
    small.params.set("rows", 256);
    small.params.set("hidden", 1024);

    {
        const MemoryHog hog(size_t{512} << 20);  // leave 512 MiB: the big run needs ~6 GiB
        const kernels::Measurement m = backend->run(big, {});
        INFO(m.error);
        CHECK_FALSE(m.ok);
        CHECK_THAT(m.error, Catch::Contains("out of GPU memory") && Catch::Contains("needs"));
    }
    const kernels::Measurement again = backend->run(small, {});
    INFO(again.error);
    CHECK(again.ok);
    CHECK(again.checked);
    const kernels::Measurement big_again = backend->run(big, {});
    INFO(big_again.error);
    CHECK(big_again.ok);
}
