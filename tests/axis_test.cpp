// Log-axis ticks (roofline, sweep): whole decades as major ticks, 2 and 5 between them, the range
// widened to decades without an extra decade from rounding; log_fraction places values.
#if defined(FUSIONLAB_HAVE_GUI)  // viz is built with the GUI

#include "viz/axis.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

TEST_CASE("viz log axis: decades as majors, 2 and 5 as minors", "[viz]") {
    const viz::LogTicks t = viz::log_ticks(3, 450);
    CHECK(t.lo == 1);
    CHECK(t.hi == 1000);
    CHECK(t.major == std::vector<double>{1, 10, 100, 1000});
    CHECK(t.minor == std::vector<double>{2, 5, 20, 50, 200, 500});
}

TEST_CASE("viz log axis: exact decades stay, tiny and huge ranges work", "[viz]") {
    viz::LogTicks t = viz::log_ticks(10, 1000);
    CHECK(t.lo == 10);
    CHECK(t.hi == 1000);
    CHECK(t.major.size() == 3);
    t = viz::log_ticks(1e-3, 2e15);
    CHECK(t.lo == Approx(1e-3));
    CHECK(t.hi == Approx(1e16));
    CHECK(t.major.size() == 20);
    CHECK(t.minor.size() == 2 * 19);
    t = viz::log_ticks(0.25, 0.25);  // one value: the decade around it
    CHECK(t.lo == Approx(0.1));
    CHECK(t.hi == Approx(1));
    t = viz::log_ticks(500, 5);  // swapped
    CHECK(t.lo == 1);
    CHECK(t.hi == 1000);
}

TEST_CASE("viz log axis: invalid ends fall back instead of failing", "[viz]") {
    viz::LogTicks t = viz::log_ticks(0, 0);
    CHECK(t.lo == 1);
    CHECK(t.hi == 10);
    t = viz::log_ticks(-5, 300);
    CHECK(t.lo == 100);
    CHECK(t.hi == 1000);
    t = viz::log_ticks(7, NAN);
    CHECK(t.lo == 1);
    CHECK(t.hi == 10);
}

TEST_CASE("viz log axis: log_fraction places decades evenly", "[viz]") {
    CHECK(viz::log_fraction(1, 1, 1000) == 0);
    CHECK(viz::log_fraction(10, 1, 1000) == Approx(1.0 / 3));
    CHECK(viz::log_fraction(1000, 1, 1000) == 1);
    CHECK(viz::log_fraction(10000, 1, 1000) > 1);
    CHECK(std::isinf(viz::log_fraction(0, 1, 1000)));
}

TEST_CASE("viz log axis 1-2-5: ends snap to 1, 2 or 5 x 10^k, decades inside stay major", "[viz]") {
    viz::LogTicks t = viz::log_ticks_125(4.8e12, 1.04e15);
    CHECK(t.lo == Approx(2e12));
    CHECK(t.hi == Approx(2e15));
    CHECK(t.major == std::vector<double>{1e13, 1e14, 1e15});
    CHECK(t.minor.size() == 5);  // 5e12, 2e13, 5e13, 2e14, 5e14
    t = viz::log_ticks_125(1, 1000);  // exact decades stay
    CHECK(t.lo == 1);
    CHECK(t.hi == 1000);
    CHECK(t.major.size() == 4);
    t = viz::log_ticks_125(3, 3);  // one value: a non-empty range around it
    CHECK(t.lo < t.hi);
    CHECK(t.lo <= 3);
    CHECK(t.hi >= 3);
}

#endif  // FUSIONLAB_HAVE_GUI
