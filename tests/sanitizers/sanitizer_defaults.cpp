// Default options of the host sanitizers, linked into every executable of a FUSIONLAB_SANITIZE
// build (CMakeLists.txt), so ctest, the GUI smoke tests under xvfb-run and a hand-run binary all
// behave alike without exporting ASAN_OPTIONS. Options given in the environment still win.
//   ASan: stop at the first error (halt_on_error), leaks checked at exit, use-after-return too.
//   UBSan: every finding is fatal (also -fno-sanitize-recover=all), with a stack trace.
//   LSan: the suppressions in tests/sanitizers/lsan.supp (third-party code only, each explained).
extern "C" {

const char* __asan_default_options() {
    return "halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:"
           "strict_init_order=1";
}

const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

const char* __lsan_default_options() { return "suppressions=" FL_LSAN_SUPPRESSIONS ":print_suppressions=0"; }

}  // extern "C"
