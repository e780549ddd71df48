// Something that drives the interactive frame loop (app/gui/gui.cpp run_gui) in place of a person:
// the soak test's driver (tests/tools/soak_driver.h, built into the test tool fusionlab_soak, not
// into the program users get). run_gui calls it around every frame; it changes the state as a
// user would, paces the frames and, once done, reports and gives the exit code.
// No GLFW or ImGui here, so a driver builds (and is unit-tested) without a GUI.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

namespace app {

struct AppState;
struct GuiOptions;

class FrameDriver {
public:
    virtual ~FrameDriver() = default;

    // The window it wants (opened at this size, vsync off: the frame's work is what gets timed).
    virtual int width() const = 0;
    virtual int height() const = 0;
    virtual void set_renderer(std::string renderer) = 0;  // what draws the frames (GL_RENDERER)

    // Before a frame: maybe change the state (now = ImGui time, for mark_changed).
    virtual void before_frame(AppState& state, double now) = 0;
    // Around the frame's own work (not the wait for events).
    virtual void frame_started() = 0;
    virtual void frame_finished(const AppState& state) = 0;
    // Seconds to wait for events before the next frame.
    virtual double wait_seconds() const = 0;
    // True once the loop should end.
    virtual bool done() const = 0;
    // After the loop: prints what it found to `out` and returns the exit code.
    virtual int finish(std::ostream& out) = 0;

    // Set by run_gui. Lesson steps as a student clicks them (the GUI's lesson player), called with
    // a random number the step choice can use; unset: no lessons, no lesson steps.
    std::function<void(AppState&, uint64_t random)> lesson_step;
    // Whether a measurement is queued or running (Runner::busy); unset: not known.
    std::function<bool()> jobs_running;
};

// Makes the driver for these options (null: run_gui runs for a person); run_gui's caller passes it.
using FrameDriverFactory = std::unique_ptr<FrameDriver> (*)(const GuiOptions& opts, AppState& state);

}  // namespace app
