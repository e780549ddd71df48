// The operating-system calls of app/platform: where settings live, finding programs, the C heap's
// figures (which the soak judges) and the process's age (which places soak passes in a profile).
#include "app/platform/platform.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

namespace fs = std::filesystem;

#if defined(__linux__)
TEST_CASE("platform: config folder follows XDG_CONFIG_HOME, then HOME", "[settings][platform]") {
    const char* old_xdg = std::getenv("XDG_CONFIG_HOME");
    const std::string saved = old_xdg ? old_xdg : "";
    ::setenv("XDG_CONFIG_HOME", "/custom/config", 1);
    CHECK(app::platform::config_dir() == fs::path("/custom/config/fusionlab"));
    ::setenv("XDG_CONFIG_HOME", "relative/is/ignored", 1);
    if (const char* home = std::getenv("HOME"))
        CHECK(app::platform::config_dir() == fs::path(home) / ".config" / "fusionlab");
    if (old_xdg) ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else ::unsetenv("XDG_CONFIG_HOME");
}

TEST_CASE("platform: find_on_path finds sh and not a made-up name", "[platform]") {
    CHECK_FALSE(app::platform::find_on_path("sh").empty());
    CHECK(app::platform::find_on_path("fusionlab-no-such-program-xyz").empty());
}
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
TEST_CASE("platform: heap in use counts large blocks glibc mmaps on their own", "[platform][soak]") {
    const auto before = app::platform::heap_stats();
    REQUIRE(before.has_value());
    // 64 MiB: above glibc's largest mmap threshold (32 MiB), so always a block of its own. Counting
    // only the arenas' bytes would miss it, and a soak would miss a leak of such buffers.
    constexpr size_t kBytes = size_t{64} << 20;
    std::unique_ptr<char[]> block(new char[kBytes]);
    std::memset(block.get(), 1, kBytes);
    const auto during = app::platform::heap_stats();
    REQUIRE(during.has_value());
    CHECK(during->in_use - before->in_use >= static_cast<int64_t>(kBytes));
    CHECK(during->mmapped - before->mmapped >= static_cast<int64_t>(kBytes));
    CHECK(during->mmapped <= during->in_use);
    block.reset();
    const auto after = app::platform::heap_stats();
    REQUIRE(after.has_value());
    CHECK(during->in_use - after->in_use >= static_cast<int64_t>(kBytes));
}
#endif

#if defined(__GLIBC__) && defined(__linux__)
// What the runner does with a job's large host buffers: allocate, fill and free them on its own
// thread, job after job. Left to glibc's dynamic threshold, the second such block comes from that
// thread's arena and stays resident at its top after it is freed (malloc_trim trims only the main
// arena's top): 14 MB more RSS for good, which a soak reads as growth (docs/RELIABILITY.md, 2026-11-28).
TEST_CASE("platform: after configure_heap a large block freed on a worker thread leaves no resident memory", "[platform][soak]") {
    app::platform::configure_heap();
    const auto cycle = [] {
        for (int job = 0; job < 3; ++job) {
            constexpr size_t kBytes = 14u << 20;  // the emulation check's buffer at the chain's default size
            std::unique_ptr<char[]> buffer(new char[kBytes]);
            std::memset(buffer.get(), job + 1, kBytes);
            volatile char sink = buffer[kBytes / 2];
            (void)sink;
        }
    };
    app::platform::release_free_heap();
    const auto before = app::platform::host_rss_bytes(nullptr);
    REQUIRE(before.has_value());
    std::thread(cycle).join();
    std::thread(cycle).join();
    app::platform::release_free_heap();
    const auto after = app::platform::host_rss_bytes(nullptr);
    REQUIRE(after.has_value());
    INFO("RSS " << double(*before) / (1 << 20) << " -> " << double(*after) / (1 << 20) << " MiB");
    CHECK(*after - *before < (4 << 20));
}
#endif

#if defined(__linux__)
TEST_CASE("platform: the process's age is read and moves with the clock", "[platform][soak]") {
    const auto first = app::platform::seconds_since_process_start();
    REQUIRE(first.has_value());
    CHECK(*first >= 0.0);
    CHECK(*first < 24 * 3600.0);  // a test binary started moments ago, not at boot
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto second = app::platform::seconds_since_process_start();
    REQUIRE(second.has_value());
    CHECK(*second - *first >= 0.2);  // 10 ms ticks
    CHECK(*second - *first < 5.0);
}
#endif
