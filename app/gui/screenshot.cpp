#include "app/gui/screenshot.h"

#include "app/files/export.h"
#include "app/files/gif_writer.h"
#include "app/core/panels_state.h"
#include "app/core/views.h"
#include "kernels/core/registry.h"
#include "viz/model/memory_player.h"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace app {

std::vector<uint8_t> read_pixels_rgba(unsigned buffer, int width, int height) {
    const size_t row = static_cast<size_t>(width) * 4;
    std::vector<uint8_t> pixels(row * static_cast<size_t>(height));
    glReadBuffer(buffer);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);  // rows are width*4 bytes, no padding
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // GL's first row is the bottom one; PNG's is the top one.
    std::vector<uint8_t> swap(row);
    for (int y = 0; y < height / 2; ++y) {
        uint8_t* top = pixels.data() + row * static_cast<size_t>(y);
        uint8_t* bottom = pixels.data() + row * static_cast<size_t>(height - 1 - y);
        std::memcpy(swap.data(), top, row);
        std::memcpy(top, bottom, row);
        std::memcpy(bottom, swap.data(), row);
    }
    // The window's alpha channel is whatever blending left there: a screenshot is opaque.
    for (size_t i = 3; i < pixels.size(); i += 4) pixels[i] = 255;
    return pixels;
}

std::string save_back_buffer_png(const std::string& path, int width, int height) {
    if (width <= 0 || height <= 0) return "cannot save " + path + ": the window has no pixels (minimised?)";
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    return export_png(path, width, height, read_pixels_rgba(GL_BACK, width, height));
}

OffscreenTarget::~OffscreenTarget() {
    if (framebuffer_) glDeleteFramebuffers(1, &framebuffer_);
    if (color_) glDeleteRenderbuffers(1, &color_);
}

std::string OffscreenTarget::create(int width, int height) {
    GLint max_renderbuffer = 0, max_viewport[2] = {0, 0};
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_renderbuffer);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_viewport);
    const int limit = std::min({max_renderbuffer, max_viewport[0], max_viewport[1]});
    if (width < 1 || height < 1 || width > limit || height > limit)
        return "image size " + std::to_string(width) + "x" + std::to_string(height) +
               " is not supported by this OpenGL driver (each side must be 1.." + std::to_string(limit) + ")";
    width_ = width;
    height_ = height;
    glGenFramebuffers(1, &framebuffer_);
    glGenRenderbuffers(1, &color_);
    glBindRenderbuffer(GL_RENDERBUFFER, color_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return "cannot create a " + std::to_string(width) + "x" + std::to_string(height) +
               " offscreen framebuffer (OpenGL status 0x" + [status] {
                   char hex[16];
                   std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(status));
                   return std::string(hex);
               }() + ")";
    return {};
}

void OffscreenTarget::bind() const {
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    glViewport(0, 0, width_, height_);
}

std::vector<uint8_t> OffscreenTarget::read_rgba() const {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_);
    return read_pixels_rgba(GL_COLOR_ATTACHMENT0, width_, height_);
}

std::vector<uint8_t> crop_rgba(const std::vector<uint8_t>& rgba, int width, int height, const PictureRect& rect,
                               float scale, int* out_w, int* out_h) {
    *out_w = *out_h = 0;
    const int x0 = std::clamp(static_cast<int>(std::floor(rect.x0 * scale)), 0, width);
    const int y0 = std::clamp(static_cast<int>(std::floor(rect.y0 * scale)), 0, height);
    const int x1 = std::clamp(static_cast<int>(std::ceil(rect.x1 * scale)), 0, width);
    const int y1 = std::clamp(static_cast<int>(std::ceil(rect.y1 * scale)), 0, height);
    if (x1 <= x0 || y1 <= y0 || rgba.size() < static_cast<size_t>(width) * static_cast<size_t>(height) * 4) return {};
    *out_w = x1 - x0;
    *out_h = y1 - y0;
    std::vector<uint8_t> out(static_cast<size_t>(*out_w) * static_cast<size_t>(*out_h) * 4);
    for (int y = y0; y < y1; ++y)
        std::memcpy(out.data() + static_cast<size_t>(y - y0) * static_cast<size_t>(*out_w) * 4,
                    rgba.data() + (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x0)) * 4,
                    static_cast<size_t>(*out_w) * 4);
    return out;
}

int64_t gif_step_of(int frame, int frames, int64_t steps) {
    if (frames <= 1 || steps <= 1) return 0;
    return static_cast<int64_t>(std::llround(static_cast<double>(frame) * static_cast<double>(steps - 1) /
                                             static_cast<double>(frames - 1)));
}

namespace {

// Frames a picture may wait for its chart to be drawn (a tab opening) before it gives up.
constexpr int kPictureWaitFrames = 4;
// A GIF frame's delay: the memory view's default pace of 2 steps a second, a little faster.
constexpr int kGifDelayCs = 40;

// The pixels the picture's own state keeps between frames (a GIF's frames so far).
struct PictureProgress {
    int waited = 0;
    bool was_interactive = true;
    int width = 0, height = 0;
    std::vector<GifFrame> frames;
    int64_t steps = 0;
};
PictureProgress g_progress;

// The view a picture's target is drawn in: a chart's view, "view:<id>"'s id, "" for the window.
std::string view_of_target(const std::string& target) {
    if (const ChartInfo* c = find_chart(target)) return c->view;
    if (target.rfind("view:", 0) == 0) return target.substr(5);
    return "";
}

std::string target_words(const std::string& target) {
    if (const ChartInfo* c = find_chart(target)) return std::string("the ") + c->label;
    if (target.rfind("view:", 0) == 0)
        if (const ViewInfo* v = find_view(target.substr(5))) return std::string("the ") + v->label + " view";
    return "the window";
}

void end_picture(AppState& state, const std::string& error, const std::string& path) {
    PictureRequest& r = *state.picture;
    r.done = true;
    r.error = error;
    state.export_message = error.empty() ? InlineMessage{"saved " + path, false} : InlineMessage{error, true};
    state.capturing = false;
    state.interactive = g_progress.was_interactive;
    g_progress = PictureProgress{};
}

}  // namespace

bool begin_picture_frame(AppState& state) {
    state.picture_rects.clear();
    if (!state.picture) return false;
    if (state.picture->done) {  // finished last frame (a shot read the outcome before this frame)
        state.picture.reset();
        return false;
    }
    PictureRequest& r = *state.picture;
    if (!state.capturing) {
        g_progress = PictureProgress{};
        g_progress.was_interactive = state.interactive;
        state.capturing = true;
    }
    if (const std::string view = view_of_target(r.target); !view.empty()) state.requested_view = view;
    if (r.format == "gif") {
        // Playback's own clock stops and its controls go: each frame shows the step set here.
        state.interactive = false;
        MemoryPanelState& m = state.memory;
        if (g_progress.steps == 0) {
            const kernels::Params& p = state.settings.params;
            const std::string variant = m.variant.empty() ? kernels::variants(p.workload).front().name : m.variant;
            try {
                g_progress.steps = static_cast<int64_t>(kernels::MemoryPlayer(variant, p).step_count()) + 1;
            } catch (const std::invalid_argument& e) {
                end_picture(state, std::string("no animation to export: ") + e.what(), "");
                return false;
            }
            m.playing = false;
        }
        m.pending_step = gif_step_of(r.gif_next, std::max(1, r.gif_frames), g_progress.steps);
        m.pending_flight = 0.55;
    }
    return true;
}

void finish_picture_frame(AppState& state, const std::function<std::vector<uint8_t>()>& capture, int width, int height,
                          float scale) {
    if (!state.picture || !state.capturing) return;
    PictureRequest& r = *state.picture;
    if (r.done) {  // an SVG, written while the chart was drawn
        const std::string error = r.error, path = r.path;
        end_picture(state, error, path);
        return;
    }
    if (r.format == "svg") {  // the chart did not come up this frame (its tab is opening)
        if (++g_progress.waited > kPictureWaitFrames)
            end_picture(state, "no SVG written: " + target_words(r.target) + " is not on screen (nothing to draw yet?)", "");
        return;
    }
    PictureRect rect{0, 0, static_cast<float>(width) / scale, static_cast<float>(height) / scale};
    if (r.target != "window") {
        const auto it = state.picture_rects.find(r.target);
        if (it == state.picture_rects.end() || it->second.empty()) {
            if (++g_progress.waited > kPictureWaitFrames)
                end_picture(state, "no picture saved: " + target_words(r.target) + " is not on screen (nothing to draw yet?)", "");
            return;
        }
        rect = it->second;
        if (rect.cut) {  // the panel scrolls it into view: wait a few frames for that
            if (++g_progress.waited <= kPictureWaitFrames) return;
            end_picture(state, "no picture saved: " + target_words(r.target) + " does not fit the window at this size and "
                        "font scale (part of it is scrolled out of view): enlarge the window (shot: a larger --size), "
                        "lower the font scale, or export it as SVG",
                        "");
            return;
        }
        // The memory view's first frames settle its layout: a GIF starts once the view was drawn twice.
        if (r.format == "gif" && g_progress.waited < 1) {
            ++g_progress.waited;
            return;
        }
    }
    int w = 0, h = 0;
    std::vector<uint8_t> pixels = crop_rgba(capture(), width, height, rect, scale, &w, &h);
    if (pixels.empty()) {
        end_picture(state, "no picture saved: " + target_words(r.target) + " lies outside the window", "");
        return;
    }
    if (r.format == "png") {
        const std::string error = export_png(r.path, w, h, pixels);
        end_picture(state, error, r.path);
        return;
    }
    // GIF: every frame the size of the first (a layout that moved by a pixel is cut or padded).
    if (g_progress.frames.empty()) {
        g_progress.width = w;
        g_progress.height = h;
    }
    GifFrame frame;
    frame.rgba.assign(static_cast<size_t>(g_progress.width) * static_cast<size_t>(g_progress.height) * 4, 0);
    for (int y = 0; y < std::min(h, g_progress.height); ++y)
        std::memcpy(frame.rgba.data() + static_cast<size_t>(y) * static_cast<size_t>(g_progress.width) * 4,
                    pixels.data() + static_cast<size_t>(y) * static_cast<size_t>(w) * 4,
                    static_cast<size_t>(std::min(w, g_progress.width)) * 4);
    g_progress.frames.push_back(std::move(frame));
    if (++r.gif_next < std::max(1, r.gif_frames)) return;
    std::string error;
    try {
        const std::vector<uint8_t> bytes = encode_gif(g_progress.width, g_progress.height, g_progress.frames, kGifDelayCs);
        error = write_file_atomic(r.path, std::string(bytes.begin(), bytes.end()));
    } catch (const std::invalid_argument& e) {
        error = std::string("no GIF written: ") + e.what();
    }
    end_picture(state, error, r.path);
}

}  // namespace app
