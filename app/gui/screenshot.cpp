#include "app/gui/screenshot.h"

#include "app/core/export.h"

#include <glad/gl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

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

}  // namespace app
