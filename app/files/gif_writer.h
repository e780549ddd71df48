// A small animated-GIF encoder (GIF89a, LZW), for exporting the memory animation: no Debian
// package in quickstart.sh's list encodes GIFs from C++ without pulling in an image stack, and
// the UI's pictures need little: one global palette of at most 256 colours, built from the frames'
// most frequent colours (UI pictures are mostly flat fills; antialiased edges map to the nearest
// palette entry), and full frames, each shown for `delay_cs` hundredths of a second, looping.
// No ImGui, no GL: RGBA8 frames in, bytes out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace app {

struct GifFrame {
    std::vector<uint8_t> rgba;  // width x height x 4, rows top to bottom (alpha ignored)
};

// The whole file. Every frame must be width x height; throws std::invalid_argument otherwise, or
// when there is no frame or a side is outside 1 .. 65535.
std::vector<uint8_t> encode_gif(int width, int height, const std::vector<GifFrame>& frames, int delay_cs);

// What a GIF file holds, read back from its bytes (for tests and for checking a written file):
// the logical screen size and the number of image descriptors; ok false with `error` when the
// bytes are not a GIF this encoder's reader understands.
struct GifInfo {
    bool ok = false;
    std::string error;
    int width = 0, height = 0;
    int frames = 0;
    bool loops = false;  // the NETSCAPE2.0 looping extension is present
};
GifInfo read_gif_info(const std::vector<uint8_t>& bytes);

// Decodes frame `index` (0-based) of a GIF written by encode_gif into RGBA8 (for tests: the
// picture survives the round trip within the palette's error). Empty when it cannot.
std::vector<uint8_t> decode_gif_frame(const std::vector<uint8_t>& bytes, int index);

}  // namespace app
