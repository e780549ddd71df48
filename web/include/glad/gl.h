// The browser build's stand-in for glad (the desktop's OpenGL 3.3 core loader, third_party/glad):
// WebGL 2 is OpenGL ES 3.0, whose functions emscripten links directly, so there is nothing to load.
// Every GL call the app makes (app/gui/gui.cpp, app/gui/screenshot.cpp: clears, viewports,
// framebuffer and renderbuffer objects, glReadBuffer/glReadPixels of RGBA bytes) exists in ES 3.0.
#pragma once

#include <GLES3/gl3.h>

#define gladLoadGL(loader) 1
