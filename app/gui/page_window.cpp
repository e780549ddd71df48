// Desktop side of app/gui/page_window.h: a desktop window is sized by its window manager and the
// program opens paths itself, so there is nothing to do. The browser side: page_window_web.cpp.
#include "app/gui/page_window.h"

#if !defined(__EMSCRIPTEN__)

namespace app {

void serve_page(GLFWwindow*, AppState&, Runner&) {}

}  // namespace app

#endif
