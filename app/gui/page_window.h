// The browser page's side of each interactive frame (app/gui/gui.cpp calls it before drawing):
// the canvas follows the page's size and pixel density, files the user opened from their disk
// (app/platform/platform_host.h) are opened, and the page's test hook (web/README.md) reads and sets
// the app's state. Desktop: nothing to do (page_window.cpp); browser: page_window_web.cpp.
#pragma once

struct GLFWwindow;

namespace app {

struct AppState;
class Runner;

void serve_page(GLFWwindow* window, AppState& state, Runner& runner);

}  // namespace app
