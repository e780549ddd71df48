// What differs between the desktop program and the same app compiled to WebAssembly and run in a
// browser page (web/README.md): who drives the frame loop, whether a worker thread exists, where
// written files end up (a folder, or the browser's downloads), where settings persist (a file, or
// the page's localStorage), which GLSL dialect the renderer speaks, and files the user hands over
// from their disk. Desktop implementations: platform_host.cpp; browser ones: platform_web.cpp.
// Everything else in app/ calls these and stays the same for both targets.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace app::platform {

// The runner's worker thread exists (desktop). Without it (a browser page without cross-origin
// isolation, so without SharedArrayBuffer and emscripten's pthreads) the frame loop does the
// runner's work in steps between frames (Runner::step, app/core/runner.h).
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
inline constexpr bool kWorkerThread = false;
#else
inline constexpr bool kWorkerThread = true;
#endif

// True in the browser build.
#if defined(__EMSCRIPTEN__)
inline constexpr bool kBrowser = true;
#else
inline constexpr bool kBrowser = false;
#endif

// The first line of the renderer's shaders: "#version 330" (OpenGL 3.3 core) on the desktop,
// "#version 300 es" (WebGL 2 = OpenGL ES 3.0) in the browser.
const char* glsl_version();

// Runs `frame` until it returns false. The desktop loops here; the browser hands `frame` to the
// page's animation callback (emscripten_set_main_loop) and never returns: whatever `frame` uses
// must therefore outlive this call (allocate it on the heap).
void run_frame_loop(std::function<bool()> frame);

// Called once per frame by the frame loop, after drawing. The browser offers every file that
// exports wrote into the download folder (export_dir "" = the page's current folder) as a download
// and removes it; lesson bundles (a folder) go as one .zip. No-op on the desktop.
void after_frame();

// Makes a settings file just written at `path` survive the page (localStorage in the browser).
// Returns "" or why it could not be kept (storage full or switched off). No-op on the desktop.
std::string persist_file(const std::string& path);

// Files the user opened from their disk through the page (<input type=file>), written into the
// page's file system, each with the path the app can open. Empty on the desktop (it opens paths).
struct OpenedFile {
    std::string path;
    std::string name;  // the name the user's file had
};
std::vector<OpenedFile> take_opened_files();

// A message for the page outside the canvas (the browser's status line), e.g. why an opened file
// was refused. Desktop: nothing (the app's own panels show it).
void show_page_message(const std::string& text, bool error);

}  // namespace app::platform
