// Default options of the host sanitizers, linked into every executable of a FUSIONLAB_SANITIZE
// build (CMakeLists.txt), so ctest, the GUI smoke tests under xvfb-run and a hand-run binary all
// behave alike without exporting ASAN_OPTIONS. Options given in the environment still win.
//   ASan: stop at the first error (halt_on_error), leaks checked at exit, use-after-return too.
//   UBSan: every finding is fatal (also -fno-sanitize-recover=all), with a stack trace.
//   LSan: the suppressions in tests/sanitizers/lsan.supp (third-party code only, each explained).
//
// Mesa's OpenGL driver is loaded with dlopen by GLFW (libGL) and Mesa (its DRI driver) and unloaded
// again before the leak check runs at exit; its leaked blocks then have frames in "<unknown
// module>", which no suppression can name. Loading those modules once more here with
// RTLD_NODELETE keeps them mapped to the end, so LSan names them and lsan.supp can suppress them.
// (GUI builds on Linux only; a module that is not installed is simply skipped.)
#if defined(__linux__) && defined(FL_KEEP_GL_DRIVERS_MAPPED)
#include <dlfcn.h>

namespace {

struct KeepGlDriversMapped {
    KeepGlDriversMapped() {
        static const char* const kModules[] = {"libGL.so.1", "libGLX.so.0", "libGLX_mesa.so.0", "libglapi.so.0",
                                               "libLLVM-15.so.1", "/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"};
        for (const char* module : kModules) (void)dlopen(module, RTLD_LAZY | RTLD_GLOBAL | RTLD_NODELETE);
    }
} keep_gl_drivers_mapped;

}  // namespace
#endif

extern "C" {

const char* __asan_default_options() {
    return "halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:"
           "strict_init_order=1";
}

const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

const char* __lsan_default_options() { return "suppressions=" FL_LSAN_SUPPRESSIONS ":print_suppressions=0"; }

}  // extern "C"
