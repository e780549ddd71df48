/* The PNG writer's implementation for the browser build: the desktop links Debian's libstb, which
   has it compiled in; here it is compiled from the same header (libstb-dev). */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
