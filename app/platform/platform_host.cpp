// The desktop side of app/platform/platform_host.h: the program owns its loop, writes files where the
// user asked and keeps settings in its settings file. The browser side is platform_web.cpp.
#include "app/platform/platform_host.h"

#if !defined(__EMSCRIPTEN__)

namespace app::platform {

const char* glsl_version() { return "#version 330"; }

void run_frame_loop(std::function<bool()> frame) {
    while (frame()) {
    }
}

void after_frame() {}

std::string persist_file(const std::string&) { return {}; }

std::vector<OpenedFile> take_opened_files() { return {}; }

void show_page_message(const std::string&, bool) {}

}  // namespace app::platform

#endif
