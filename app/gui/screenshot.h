// Reading rendered pixels back for PNG export: from the window's back buffer (F12 / the PNG
// button) or from an offscreen framebuffer of any size (`fusionlab shot`). Needs a current
// OpenGL 3.3 context loaded through glad.
#pragma once

#include "app/core/gui_options.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace app {

struct AppState;
struct PictureRect;

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

// The pixels of `rgba` (width x height, rows top to bottom) inside `rect` (screen coordinates times
// `scale`, clamped to the image): the rows of the part, and its size in *out_w x *out_h. Empty when
// the rectangle misses the image.
std::vector<uint8_t> crop_rgba(const std::vector<uint8_t>& rgba, int width, int height, const PictureRect& rect,
                               float scale, int* out_w, int* out_h);

// ---- pictures of one chart or view (AppState::picture) ----
// Before a frame: starts capturing a pending picture (AppState::capturing: no hover, rings,
// watermarks over values or buttons), opens the view that draws it, and for a GIF sets the memory
// view's step for the next frame. Returns true when the mouse must be hidden this frame (so no
// item is hovered and no tooltip opens). Clears AppState::picture_rects for the frame.
bool begin_picture_frame(AppState& state);
// After the frame is rendered, before the swap: crops and writes a PNG, adds a GIF frame (and
// writes the GIF after the last), or reports why not; ends capturing when done. `capture` reads
// the rendered frame (RGBA, rows top to bottom, width x height); `scale` maps ImGui coordinates to
// framebuffer pixels.
void finish_picture_frame(AppState& state, const std::function<std::vector<uint8_t>()>& capture, int width, int height,
                          float scale);
// The GIF's frames as steps of the memory player: frame k of n shows step round(k (steps - 1) / (n - 1)).
int64_t gif_step_of(int frame, int frames, int64_t steps);
// Frames a GIF gets when none are asked for (app/core/gui_options.h).
inline constexpr int kDefaultGifFrames = kDefaultShotGifFrames;

}  // namespace app
