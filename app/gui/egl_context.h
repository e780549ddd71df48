// A headless OpenGL 3.3 core context through EGL, for `fusionlab shot` where there is no X server:
// `FUSIONLAB_GL=egl fusionlab shot ...`. On a lent GPU machine the NVIDIA driver's EGL draws the
// frames with no Xvfb, no Mesa and no LLVM beside it (scripts/device_exercises_prepare.sh carries
// the GUI in a few MiB that way). libEGL.so.1 is opened at run time, so the program needs no EGL
// package to start; where it cannot be had, open() says why.
#pragma once

#include <string>

namespace app {

class EglContext {
public:
    EglContext() = default;
    ~EglContext();
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    // Makes a context current on this thread (a 16x16 pbuffer behind it: the shot draws into its
    // own framebuffer object) and loads the GL functions through glad. "" on success, else why.
    std::string open();

    // "EGL 1.5 (NVIDIA), device platform": which EGL display the context is on.
    const std::string& display_note() const { return display_note_; }

private:
    void close();
    void* library_ = nullptr;  // dlopen handle of libEGL.so.1
    void* display_ = nullptr;  // EGLDisplay
    void* surface_ = nullptr;  // EGLSurface
    void* context_ = nullptr;  // EGLContext
    std::string display_note_;
};

}  // namespace app
