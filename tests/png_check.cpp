// png_check FILE WIDTH HEIGHT: exits 0 when FILE is a PNG of exactly WIDTH x HEIGHT pixels that
// shows something (many distinct colours and real contrast), else 1 with the reason. The GUI
// smoke test runs it on `fusionlab shot` output: a blank, black or one-colour image means the
// window did not render, even though a PNG was written.
#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

namespace {

// Thresholds: a rendered window has text, bars and widgets in several colours; a failed render
// is one flat colour (or a handful of them from a clear plus a rectangle).
constexpr size_t kMinDistinctColours = 32;
constexpr double kMinLumaStddev = 12.0;  // 0..255 scale

int fail(const std::string& message) {
    std::fprintf(stderr, "png_check: %s\n", message.c_str());
    return 1;
}

bool parse_side(const char* text, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (!end || *end || v < 1 || v > 100000) return false;
    out = static_cast<int>(v);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    int want_w = 0, want_h = 0;
    if (argc != 4 || !parse_side(argv[2], want_w) || !parse_side(argv[3], want_h))
        return fail("usage: png_check FILE WIDTH HEIGHT");
    const std::string path = argv[1];
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &channels, 4);
    if (!pixels) return fail("cannot read " + path + " as an image: " + stbi_failure_reason());
    if (w != want_w || h != want_h) {
        stbi_image_free(pixels);
        return fail(path + " is " + std::to_string(w) + "x" + std::to_string(h) + ", expected " +
                    std::to_string(want_w) + "x" + std::to_string(want_h));
    }
    std::set<unsigned> colours;
    double sum = 0, sum_sq = 0;
    const size_t count = static_cast<size_t>(w) * static_cast<size_t>(h);
    for (size_t i = 0; i < count; ++i) {
        const unsigned char* p = pixels + 4 * i;
        colours.insert(static_cast<unsigned>(p[0]) << 16 | static_cast<unsigned>(p[1]) << 8 | p[2]);
        const double luma = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
        sum += luma;
        sum_sq += luma * luma;
    }
    stbi_image_free(pixels);
    const double mean = sum / static_cast<double>(count);
    const double stddev = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(count) - mean * mean));
    std::printf("png_check: %s %dx%d, %zu distinct colours, luma mean %.1f stddev %.1f\n", path.c_str(), w, h,
                colours.size(), mean, stddev);
    if (colours.size() < kMinDistinctColours)
        return fail("only " + std::to_string(colours.size()) + " distinct colours: the window did not render");
    if (stddev < kMinLumaStddev) return fail("almost no contrast (luma stddev " + std::to_string(stddev) + ")");
    return 0;
}
