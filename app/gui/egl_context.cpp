// A headless OpenGL context through EGL (app/gui/egl_context.h).
// [SECTION] The EGL entry points and constants we use (no EGL headers: libegl-dev is not a build
//           dependency; values from the Khronos registry's egl.h / eglext.h)
// [SECTION] EglContext
#include "app/gui/egl_context.h"

#if defined(__EMSCRIPTEN__)

// The browser build draws through the page's WebGL context (app/gui/page_window_web.cpp); it has
// no EGL library to open and no `shot` command to give a context to.
namespace app {
EglContext::~EglContext() = default;
void EglContext::close() { library_ = display_ = surface_ = context_ = nullptr; }
std::string EglContext::open() { return "the browser build has no EGL: its frames are drawn by the page's WebGL"; }
}  // namespace app

#else

#include <glad/gl.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace app {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] EGL entry points and constants
// ---------------------------------------------------------------------------------------------
using EGLint = int32_t;
using EGLBoolean = unsigned int;
using EGLenum = unsigned int;
using EGLDisplay = void*;
using EGLConfig = void*;
using EGLContextHandle = void*;
using EGLSurface = void*;
using EGLDeviceEXT = void*;

constexpr EGLint kEglNone = 0x3038;
constexpr EGLint kEglSurfaceType = 0x3033, kEglPbufferBit = 0x0001;
constexpr EGLint kEglRenderableType = 0x3040, kEglOpenglBit = 0x0008;
constexpr EGLint kEglRedSize = 0x3024, kEglGreenSize = 0x3023, kEglBlueSize = 0x3022;
constexpr EGLint kEglWidth = 0x3057, kEglHeight = 0x3056;
constexpr EGLenum kEglOpenglApi = 0x30A2;
constexpr EGLint kEglContextMajorVersion = 0x3098, kEglContextMinorVersion = 0x30FB;
constexpr EGLint kEglContextOpenglProfileMask = 0x30FD, kEglContextOpenglCoreProfileBit = 0x1;
constexpr EGLint kEglVendor = 0x3053, kEglVersion = 0x3054;
constexpr EGLenum kEglPlatformDeviceExt = 0x313F;
constexpr EGLint kEglCudaDeviceNv = 0x323A;  // EGL_NV_device_cuda: the CUDA device an EGL device is

struct EglFunctions {
    void* (*GetProcAddress)(const char*) = nullptr;
    EGLint (*GetError)() = nullptr;
    EGLDisplay (*GetDisplay)(void*) = nullptr;
    EGLBoolean (*Initialize)(EGLDisplay, EGLint*, EGLint*) = nullptr;
    EGLBoolean (*Terminate)(EGLDisplay) = nullptr;
    const char* (*QueryString)(EGLDisplay, EGLint) = nullptr;
    EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*) = nullptr;
    EGLBoolean (*BindAPI)(EGLenum) = nullptr;
    EGLContextHandle (*CreateContext)(EGLDisplay, EGLConfig, EGLContextHandle, const EGLint*) = nullptr;
    EGLBoolean (*DestroyContext)(EGLDisplay, EGLContextHandle) = nullptr;
    EGLSurface (*CreatePbufferSurface)(EGLDisplay, EGLConfig, const EGLint*) = nullptr;
    EGLBoolean (*DestroySurface)(EGLDisplay, EGLSurface) = nullptr;
    EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContextHandle) = nullptr;
    // extensions (EGL_EXT_device_enumeration, EGL_EXT_platform_base), through GetProcAddress
    EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT*, EGLint*) = nullptr;
    EGLDisplay (*GetPlatformDisplayEXT)(EGLenum, void*, const EGLint*) = nullptr;
    EGLBoolean (*QueryDeviceAttribEXT)(EGLDeviceEXT, EGLint, intptr_t*) = nullptr;
};

EglFunctions g_egl;

template <typename F> bool resolve(void* library, F& f, const char* name) {
    void* p = dlsym(library, name);
    std::memcpy(&f, &p, sizeof(p));
    return p != nullptr;
}
template <typename F> void resolve_extension(F& f, const char* name) {
    void* p = g_egl.GetProcAddress(name);
    std::memcpy(&f, &p, sizeof(p));
}

std::string egl_error_text(const char* call) {
    char code[16];
    std::snprintf(code, sizeof code, "0x%04X", static_cast<unsigned>(g_egl.GetError()));
    return std::string(call) + " failed (EGL error " + code + ")";
}

GLADapiproc egl_gl_proc(const char* name) {
    void* p = g_egl.GetProcAddress(name);
    GLADapiproc f = nullptr;
    std::memcpy(&f, &p, sizeof(p));
    return f;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] EglContext
// ---------------------------------------------------------------------------------------------
EglContext::~EglContext() { close(); }

void EglContext::close() {
    if (display_) {
        g_egl.MakeCurrent(display_, nullptr, nullptr, nullptr);
        if (context_) g_egl.DestroyContext(display_, context_);
        if (surface_) g_egl.DestroySurface(display_, surface_);
        g_egl.Terminate(display_);
    }
    display_ = surface_ = context_ = nullptr;
    // libEGL stays loaded: the vendor library registers exit handlers that must find it there.
}

std::string EglContext::open() {
    library_ = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!library_)
        return std::string("cannot open libEGL.so.1 (") + dlerror() +
               "): install libegl1, or unset FUSIONLAB_GL to draw through GLX";
    bool ok = resolve(library_, g_egl.GetProcAddress, "eglGetProcAddress") &&
              resolve(library_, g_egl.GetError, "eglGetError") && resolve(library_, g_egl.GetDisplay, "eglGetDisplay") &&
              resolve(library_, g_egl.Initialize, "eglInitialize") && resolve(library_, g_egl.Terminate, "eglTerminate") &&
              resolve(library_, g_egl.QueryString, "eglQueryString") &&
              resolve(library_, g_egl.ChooseConfig, "eglChooseConfig") && resolve(library_, g_egl.BindAPI, "eglBindAPI") &&
              resolve(library_, g_egl.CreateContext, "eglCreateContext") &&
              resolve(library_, g_egl.DestroyContext, "eglDestroyContext") &&
              resolve(library_, g_egl.CreatePbufferSurface, "eglCreatePbufferSurface") &&
              resolve(library_, g_egl.DestroySurface, "eglDestroySurface") &&
              resolve(library_, g_egl.MakeCurrent, "eglMakeCurrent");
    if (!ok) return "libEGL.so.1 lacks an EGL 1.4 entry point";
    resolve_extension(g_egl.QueryDevicesEXT, "eglQueryDevicesEXT");
    resolve_extension(g_egl.GetPlatformDisplayEXT, "eglGetPlatformDisplayEXT");
    resolve_extension(g_egl.QueryDeviceAttribEXT, "eglQueryDeviceAttribEXT");

    // A display without a window system: each EGL device in turn (the GPU's driver first where
    // it lists one), else the default display.
    std::vector<EGLDisplay> candidates;
    std::vector<std::string> notes;
    if (g_egl.QueryDevicesEXT && g_egl.GetPlatformDisplayEXT) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (!g_egl.QueryDevicesEXT(16, devices, &count)) count = 0;
        // EGL lists every GPU of the machine whatever CUDA_VISIBLE_DEVICES says: draw on the GPU
        // that is CUDA device 0 of this process where the driver says which that is (EGL_NV_device_cuda),
        // so a shot never draws on a GPU lent to another job; FUSIONLAB_EGL_DEVICE=K picks device K.
        int preferred = -1;
        std::string preferred_why;
        if (const char* pick = std::getenv("FUSIONLAB_EGL_DEVICE")) {
            preferred = std::atoi(pick);
            preferred_why = " (FUSIONLAB_EGL_DEVICE)";
        }
        for (EGLint i = 0; preferred < 0 && g_egl.QueryDeviceAttribEXT && i < count; ++i) {
            intptr_t cuda_device = -1;
            if (g_egl.QueryDeviceAttribEXT(devices[i], kEglCudaDeviceNv, &cuda_device) && cuda_device == 0) {
                preferred = i;
                preferred_why = " (CUDA device 0)";
            }
        }
        for (EGLint pass = 0; pass < 2; ++pass)
            for (EGLint i = 0; i < count; ++i) {
                if ((pass == 0) != (i == preferred)) continue;
                if (EGLDisplay d = g_egl.GetPlatformDisplayEXT(kEglPlatformDeviceExt, devices[i], nullptr)) {
                    candidates.push_back(d);
                    notes.push_back("device platform, EGL device " + std::to_string(i) + " of " + std::to_string(count) +
                                    (i == preferred ? preferred_why : std::string()));
                }
            }
    }
    if (EGLDisplay d = g_egl.GetDisplay(nullptr)) {
        candidates.push_back(d);
        notes.push_back("default display");
    }
    std::string why = "no EGL display";
    for (size_t i = 0; i < candidates.size() && !display_; ++i) {
        EGLint major = 0, minor = 0;
        if (!g_egl.Initialize(candidates[i], &major, &minor)) {
            why = egl_error_text("eglInitialize");
            continue;
        }
        const EGLint config_attributes[] = {kEglSurfaceType, kEglPbufferBit, kEglRenderableType, kEglOpenglBit,
                                            kEglRedSize, 8, kEglGreenSize, 8, kEglBlueSize, 8, kEglNone};
        EGLConfig config = nullptr;
        EGLint configs = 0;
        if (!g_egl.ChooseConfig(candidates[i], config_attributes, &config, 1, &configs) || configs < 1 ||
            !g_egl.BindAPI(kEglOpenglApi)) {
            why = "no OpenGL pbuffer configuration on the " + notes[i];
            g_egl.Terminate(candidates[i]);
            continue;
        }
        const EGLint context_attributes[] = {kEglContextMajorVersion, 3, kEglContextMinorVersion, 3,
                                             kEglContextOpenglProfileMask, kEglContextOpenglCoreProfileBit, kEglNone};
        const EGLint surface_attributes[] = {kEglWidth, 16, kEglHeight, 16, kEglNone};
        EGLContextHandle context = g_egl.CreateContext(candidates[i], config, nullptr, context_attributes);
        EGLSurface surface = context ? g_egl.CreatePbufferSurface(candidates[i], config, surface_attributes) : nullptr;
        if (!context || !surface || !g_egl.MakeCurrent(candidates[i], surface, surface, context)) {
            why = egl_error_text(!context ? "eglCreateContext (OpenGL 3.3 core)" : !surface ? "eglCreatePbufferSurface"
                                                                                            : "eglMakeCurrent");
            if (context) g_egl.DestroyContext(candidates[i], context);
            if (surface) g_egl.DestroySurface(candidates[i], surface);
            g_egl.Terminate(candidates[i]);
            continue;
        }
        display_ = candidates[i];
        context_ = context;
        surface_ = surface;
        const char* vendor = g_egl.QueryString(display_, kEglVendor);
        const char* version = g_egl.QueryString(display_, kEglVersion);
        display_note_ = std::string("EGL ") + (version ? version : "?") + " (" + (vendor ? vendor : "?") + "), " + notes[i];
    }
    if (!display_) return "no EGL display gave an OpenGL 3.3 core context: " + why;
    if (gladLoadGL(egl_gl_proc) == 0) {
        close();
        return "cannot load OpenGL 3.3 functions through EGL (glad)";
    }
    return "";
}

}  // namespace app

#endif  // __EMSCRIPTEN__
