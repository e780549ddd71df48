// fusionlab_soak_headless SECONDS [PASSES] [SEED]: the GUI soak's seeded actions (tests/tools/soak_driver.h)
// without a window, for a machine that has a GPU but no display server (the lent GPU machines: the
// Xvfb and Mesa that the GUI needs there do not fit the 12 MiB a device bundle may carry; see
// docs/RELIABILITY.md, "GPU soaks in passes"). The same driver, state, runner and measurement loop
// as the GUI (update_measurements: a quick pass then a full pass with the DRAM counters and the
// CUPTI trace on a GPU), the same actions, exports (CSV and JSON) and lesson steps; what needs a
// window is left out and counted: drawing (frame times here are the loop's own work) and PNG
// exports. The backend is the settings' default: the GPU when one answers, else simulated.
// Prints the soak's report; exit 0 passed, 1 failed, 2 bad arguments.
#include "app/core/panels_state.h"
#include "app/core/roofline_points.h"
#include "app/core/runner.h"
#include "tests/tools/soak_driver.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

namespace {

bool parse_whole(const char* text, long lo, long hi, long& out) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < lo || v > hi) return false;
    out = v;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    long seconds = 0, passes = 1, seed = 7;
    if (argc < 2 || argc > 4 || !parse_whole(argv[1], 1, 86400, seconds) ||
        (argc > 2 && !parse_whole(argv[2], 1, 10, passes)) || (argc > 3 && !parse_whole(argv[3], 0, 1L << 30, seed))) {
        std::fprintf(stderr, "usage: fusionlab_soak_headless SECONDS (1..86400) [PASSES (1..10)] [SEED (0..2^30)]\n");
        return 2;
    }
    app::platform::configure_heap();  // as the program's main_entry does (app/platform/platform.h)
    app::AppState state;
    app::SoakOptions opts;
    opts.seconds = static_cast<double>(seconds);
    opts.passes = static_cast<int>(passes);
    opts.seed = static_cast<uint64_t>(seed);
    opts.progress = &std::cerr;
    app::SoakDriver soak(opts, state);
    soak.set_renderer("none: headless (no window; PNG exports and drawing left out)");
    app::Runner runner;
    soak.jobs_running = [&runner] { return runner.busy(); };
    double now = 0;  // the GUI's clock: the driver's simulated seconds, as ImGui's time in the GUI
    soak.lesson_step = [&now](app::AppState& s, uint64_t random) { app::student_lesson_step(s, random, now); };
    uint64_t pngs_left_out = 0;
    while (!soak.done()) {
        std::this_thread::sleep_for(std::chrono::duration<double>(soak.wait_seconds()));
        if (!soak.before_frame(state, now)) {  // waiting: take what finished, draw nothing
            app::update_measurements(state, runner, now);
            continue;
        }
        now += static_cast<double>(soak.frame_seconds());
        soak.frame_started();
        if (state.png_requested) {  // a picture of the window needs a window
            state.png_requested = false;
            ++pngs_left_out;
        }
        app::update_measurements(state, runner, now);
        app::update_roofline_trails(state);
        soak.frame_finished(state);
    }
    const int code = soak.finish(std::cout);
    std::cout << "  headless     " << pngs_left_out << " PNG exports left out (no window); backend "
              << (runner.gpu_available() ? "GPU: " + runner.gpu_status() : "simulated (" + runner.gpu_status() + ")") << "\n";
    soak.jobs_running = nullptr;  // the runner goes first
    return code;
}
