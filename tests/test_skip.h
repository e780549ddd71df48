// A test case that cannot run here is skipped with its reason, never passed (Catch2 v2 has no SKIP).
//   fl_test::skip("why");  return;
// Under ctest every test case runs alone (catch_discover_tests) and a skip exits with 77, which
// tests/CMakeLists.txt declares as the skip code: ctest reports the case as skipped, the reason in
// its output. When a run selects several test cases (the whole GPU binary on a lent GPU, a tag), the
// skip is recorded instead and the run goes on; the mains (catch_main.cpp, gpu_main.cpp) list every
// skipped case with its reason at the end, and exit 77 when nothing failed but something was skipped
// (so no run reads as a clean pass while part of it did not run).
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace fl_test {

struct SkipRecord {
    bool exit_on_skip = false;          // the run selected one test case: a skip ends it with 77
    std::vector<std::string> skipped;   // "test case: reason"
};

inline SkipRecord& skip_record() {
    static SkipRecord r;
    return r;
}

inline constexpr int kSkipExitCode = 77;

inline void skip(const std::string& reason) {
    const std::string line = Catch::getResultCapture().getCurrentTestName() + ": " + reason;
    std::printf("SKIPPED %s\n", line.c_str());
    std::fflush(stdout);
    if (skip_record().exit_on_skip) std::exit(kSkipExitCode);
    skip_record().skipped.push_back(line);
}

#ifdef CATCH_CONFIG_RUNNER
// For the mains (catch_main.cpp, gpu_main.cpp, where Catch::Session exists): parse the command
// line, note whether it selects exactly one test case, run, list the skips. Returns the exit code.
inline int run_session(Catch::Session& session, int argc, char* argv[]) {
    if (const int bad = session.applyCommandLine(argc, argv); bad != 0) return bad;
    const Catch::Config& config = session.config();
    const auto selected = Catch::filterTests(Catch::getAllTestCasesSorted(config), config.testSpec(), config);
    skip_record().exit_on_skip = selected.size() == 1;
    const int failed = session.run();
    const std::vector<std::string>& skipped = skip_record().skipped;
    if (skipped.empty()) return failed;
    std::printf("%zu test case(s) skipped, with their reasons:\n", skipped.size());
    for (const std::string& s : skipped) std::printf("  %s\n", s.c_str());
    return failed != 0 ? failed : kSkipExitCode;
}
#endif

}  // namespace fl_test
