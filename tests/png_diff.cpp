// png_diff A B MIN_PERCENT: exits 0 when A and B are PNGs of the same size whose pixels differ in
// at least MIN_PERCENT % of places, else 1 with the reason. The GUI smoke test runs it on two
// `fusionlab shot --view memory` renders at different steps: the animation must show the step.
#include <stb/stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int fail(const std::string& message) {
    std::fprintf(stderr, "png_diff: %s\n", message.c_str());
    return 1;
}

struct Image {
    int w = 0, h = 0;
    unsigned char* pixels = nullptr;
    explicit Image(const char* path) {
        int channels = 0;
        pixels = stbi_load(path, &w, &h, &channels, 4);
    }
    ~Image() {
        if (pixels) stbi_image_free(pixels);
    }
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;
};

}  // namespace

int main(int argc, char** argv) {
    char* end = nullptr;
    const double min_percent = argc == 4 ? std::strtod(argv[3], &end) : -1;
    if (argc != 4 || !end || *end || !(min_percent >= 0 && min_percent <= 100))
        return fail("usage: png_diff A.png B.png MIN_PERCENT (0..100)");
    const Image a(argv[1]), b(argv[2]);
    if (!a.pixels) return fail(std::string("cannot read ") + argv[1] + " as an image");
    if (!b.pixels) return fail(std::string("cannot read ") + argv[2] + " as an image");
    if (a.w != b.w || a.h != b.h)
        return fail("sizes differ: " + std::to_string(a.w) + "x" + std::to_string(a.h) + " vs " + std::to_string(b.w) +
                    "x" + std::to_string(b.h));
    const size_t count = static_cast<size_t>(a.w) * static_cast<size_t>(a.h);
    size_t differing = 0;
    for (size_t i = 0; i < count; ++i)
        for (size_t c = 0; c < 3; ++c)
            if (a.pixels[4 * i + c] != b.pixels[4 * i + c]) {
                ++differing;
                break;
            }
    const double percent = 100.0 * static_cast<double>(differing) / static_cast<double>(count);
    std::printf("png_diff: %zu of %zu pixels differ (%.2f %%)\n", differing, count, percent);
    if (percent < min_percent)
        return fail("only " + std::to_string(percent) + " % of pixels differ, expected at least " + argv[3] + " %");
    return 0;
}
