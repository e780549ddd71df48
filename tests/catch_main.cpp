// The Catch2 v2 main, alone in its translation unit so it compiles once. A skipped test case
// (tests/test_skip.h) exits with ctest's skip code.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test_skip.h"

int main(int argc, char* argv[]) {
    Catch::Session session;
    return fl_test::run_session(session, argc, argv);
}
