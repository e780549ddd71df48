// Catch2 v2 main of the GPU tests. Without a usable CUDA device it prints why and exits 77, which
// ctest reports as "skipped" (SKIP_RETURN_CODE), so machines without a GPU stay green; a test case
// that cannot run on this GPU is skipped with its reason (tests/test_skip.h).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "kernels/gpu/gpu_testing.h"
#include "test_skip.h"

#include <cstdio>
#include <string>

int main(int argc, char* argv[]) {
    // Listing the test cases (scripts/gpu_sanitize.sh shards them) needs no GPU.
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]).rfind("--list", 0) == 0 || std::string(argv[i]) == "-l")
            return Catch::Session().run(argc, argv);
    std::string why_not;
    if (kernels::gpu::usable_device_count(&why_not) == 0) {
        std::printf("no CUDA device: GPU tests skipped (%s)\n", why_not.c_str());
        return fl_test::kSkipExitCode;
    }
    Catch::Session session;
    return fl_test::run_session(session, argc, argv);
}
