// The DRAM counters' text: privilege and busy messages say what to do, the nvidia params parser,
// the measured-vs-modeled cell, and (in simulated-only builds) the "built without CUDA" answer.
#include "kernels/profiling/dram_counters.h"

#include <catch2/catch.hpp>

using kernels::describe_cupti_failure;

TEST_CASE("RmProfilingAdminOnly is read from /proc/driver/nvidia/params text", "[counters]") {
    CHECK(kernels::profiling_admin_only("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nEnableMSI: 1\n") ==
          std::optional<bool>(true));
    CHECK(kernels::profiling_admin_only("RmProfilingAdminOnly: 0\n") == std::optional<bool>(false));
    CHECK_FALSE(kernels::profiling_admin_only("EnableMSI: 1\n").has_value());
    CHECK_FALSE(kernels::profiling_admin_only("RmProfilingAdminOnly: x\n").has_value());
    CHECK_FALSE(kernels::profiling_admin_only("").has_value());
}

TEST_CASE("no permission: the message says how to get it", "[counters]") {
    const std::string s = describe_cupti_failure("cuptiRangeProfilerEnable", 35, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES",
                                                 "", std::optional<bool>(true));
    CHECK(s.rfind("unavailable: no permission", 0) == 0);
    CHECK(s.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES from cuptiRangeProfilerEnable") != std::string::npos);
    CHECK(s.find("RmProfilingAdminOnly: 1") != std::string::npos);
    CHECK(s.find("NVreg_RestrictProfilingToAdminUsers=0") != std::string::npos);
    CHECK(s.find("root") != std::string::npos);
    // Unknown driver setting: no claim about RmProfilingAdminOnly, same advice.
    const std::string unknown = describe_cupti_failure("cuptiProfilerGetCounterAvailability", 35,
                                                       "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", "", std::nullopt);
    CHECK(unknown.find("RmProfilingAdminOnly") == std::string::npos);
    CHECK(unknown.find("NVreg_RestrictProfilingToAdminUsers=0") != std::string::npos);
    CHECK(kernels::cupti_failure_is_permanent(35));
}

TEST_CASE("busy counters: another profiler holds them, and that may pass", "[counters]") {
    const std::string s =
        describe_cupti_failure("cuptiRangeProfilerEnable", 26, "CUPTI_ERROR_HARDWARE_BUSY", "", std::nullopt);
    CHECK(s.rfind("unavailable: ", 0) == 0);
    CHECK(s.find("another profiler") != std::string::npos);
    CHECK_FALSE(kernels::cupti_failure_is_permanent(26));
}

TEST_CASE("other CUPTI failures name the call and the error", "[counters]") {
    const std::string s = describe_cupti_failure("cuptiProfilerHostInitialize", 1, "CUPTI error 1", "invalid parameter",
                                                 std::nullopt);
    CHECK(s == "unavailable: cuptiProfilerHostInitialize failed with CUPTI error 1: invalid parameter");
}

TEST_CASE("measured bytes beside the model", "[counters]") {
    CHECK(kernels::measured_vs_modeled(uint64_t{3} << 29, uint64_t{1} << 30) == "1.50 GiB (1.50x model)");
    CHECK(kernels::measured_vs_modeled(uint64_t{1} << 30, 0) == "1.00 GiB");
    kernels::DramBytes d;
    d.ok = true;
    d.passes = 1;
    const std::string note = kernels::measured_bytes_note(d);
    CHECK(note.find("dram__bytes_read.sum + dram__bytes_write.sum") != std::string::npos);
    CHECK(note.find("1 pass") != std::string::npos);
    CHECK(note.find("profiler's start") != std::string::npos);  // the old flush says what it lets in
    // Today's flush: the note gives what the run left dirty, and says when the ranges ran out.
    d.flushed_in_session = true;
    d.written_after = uint64_t{3} << 20;
    CHECK(kernels::measured_bytes_note(d).find("Writes include 3.00 MiB the run left dirty") != std::string::npos);
    d.truncated = true;
    d.ranges = 1022;
    CHECK(kernels::measured_bytes_note(d).find("only the first 1022 kernels") != std::string::npos);
    CHECK(kernels::counters_status_line("").rfind("readable", 0) == 0);
    CHECK(kernels::counters_status_line("unavailable: x") == "unavailable: x");
}

#ifndef FUSIONLAB_HAVE_CUDA
TEST_CASE("simulated-only build: counters unavailable, built without CUDA", "[counters]") {
    kernels::DramCounters counters(0);
    CHECK(counters.availability() == "unavailable: built without CUDA");
    bool launched = false;
    const kernels::DramBytes d = counters.measure([&] { launched = true; }, nullptr);
    CHECK_FALSE(d.ok);
    CHECK_FALSE(launched);
    CHECK(d.error == "unavailable: built without CUDA");
    CHECK(kernels::probe_hardware_counters(0) == "unavailable: built without CUDA");
}
#endif
