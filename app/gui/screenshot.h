// Reading rendered pixels back for PNG export: from the window's back buffer (F12 / the PNG
// button) or from an offscreen framebuffer of any size (`fusionlab shot`). Needs a current
// OpenGL 3.3 context loaded through glad.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace app {

// Reads the currently bound read framebuffer's colour buffer `buffer` (GL_BACK or
// GL_COLOR_ATTACHMENT0) as RGBA8 rows top to bottom (GL returns them bottom-up).
std::vector<uint8_t> read_pixels_rgba(unsigned buffer, int width, int height);

// Reads the window's back buffer (call after rendering, before swapping) and writes a PNG
// atomically. Returns "" or the error.
std::string save_back_buffer_png(const std::string& path, int width, int height);

// An offscreen RGBA8 framebuffer, so shots have exactly the requested size whatever the screen.
class OffscreenTarget {
public:
    OffscreenTarget() = default;
    ~OffscreenTarget();
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;

    // Returns "" or why the framebuffer could not be made (size above the GL limits, ...).
    std::string create(int width, int height);
    void bind() const;
    std::vector<uint8_t> read_rgba() const;

private:
    unsigned framebuffer_ = 0, color_ = 0;
    int width_ = 0, height_ = 0;
};

}  // namespace app
