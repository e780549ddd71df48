// The browser side of app/platform/platform_host.h (compiled only by emscripten, web/CMakeLists.txt).
// The JavaScript half is web/site/page.js: it restores stored files before main() runs, turns the
// user's opened files into files in /uploads, and shows messages on the page.
//
// Index:
//   [SECTION] Frame loop
//   [SECTION] Downloads (the export folder, emptied each frame)
//   [SECTION] Persistent files (localStorage)
//   [SECTION] Files opened from the user's disk, page messages
#include "app/platform/platform_host.h"

#if defined(__EMSCRIPTEN__)

#include <emscripten.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

namespace app::platform {

namespace fs = std::filesystem;

const char* glsl_version() { return "#version 300 es"; }

// ---------------------------------------------------------------------------------------------
// [SECTION] Frame loop
// ---------------------------------------------------------------------------------------------

namespace {

// page.js keeps the last frames' durations (the app's work per frame: runner step, drawing) for
// the test's frame time.
EM_JS(void, fl_js_frame_done, (double ms), { flPage.frameDone(ms); });

void call_frame(void* arg) {
    auto* frame = static_cast<std::function<bool()>*>(arg);
    const double start = emscripten_get_now();
    const bool more = (*frame)();
    fl_js_frame_done(emscripten_get_now() - start);
    if (!more) emscripten_cancel_main_loop();
}

}  // namespace

void run_frame_loop(std::function<bool()> frame) {
    // Kept for the page's life: the browser calls it once per display frame (requestAnimationFrame).
    auto* kept = new std::function<bool()>(std::move(frame));
    // simulate_infinite_loop = 1: this call does not return, so nothing after it runs early.
    emscripten_set_main_loop_arg(call_frame, kept, 0, 1);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Downloads
// ---------------------------------------------------------------------------------------------

namespace {

// page.js: a Blob download of the bytes under `name` (and a record the test hook reads).
EM_JS(void, fl_js_offer_download, (const char* name, const uint8_t* bytes, int size), {
    flPage.offerDownload(UTF8ToString(name), HEAPU8.slice(bytes, bytes + size));
});

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// CRC-32 (IEEE), for the zip of a bundle folder.
uint32_t crc32(const std::string& bytes) {
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char c : bytes) {
        crc ^= c;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put16(std::string& out, uint32_t v) {
    out.push_back(static_cast<char>(v & 0xFF));
    out.push_back(static_cast<char>((v >> 8) & 0xFF));
}
void put32(std::string& out, uint32_t v) {
    put16(out, v & 0xFFFF);
    put16(out, v >> 16);
}

// A zip archive (stored, not compressed: the PNGs inside already are) of every file under `dir`,
// named "<folder>/<relative path>", so one download carries a whole lesson bundle.
std::string zip_folder(const fs::path& dir) {
    std::string out, central;
    uint32_t entries = 0;
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
        const std::string name = (dir.filename() / fs::relative(file, dir, ec)).generic_string();
        const std::string data = read_all(file);
        const uint32_t crc = crc32(data), size = static_cast<uint32_t>(data.size());
        const uint32_t offset = static_cast<uint32_t>(out.size());
        put32(out, 0x04034b50u); put16(out, 20); put16(out, 0); put16(out, 0); put16(out, 0); put16(out, 0x21);
        put32(out, crc); put32(out, size); put32(out, size);
        put16(out, static_cast<uint32_t>(name.size())); put16(out, 0);
        out += name;
        out += data;
        put32(central, 0x02014b50u); put16(central, 20); put16(central, 20); put16(central, 0); put16(central, 0);
        put16(central, 0); put16(central, 0x21); put32(central, crc); put32(central, size); put32(central, size);
        put16(central, static_cast<uint32_t>(name.size())); put16(central, 0); put16(central, 0); put16(central, 0);
        put16(central, 0); put32(central, 0); put32(central, offset);
        central += name;
        ++entries;
    }
    const uint32_t central_at = static_cast<uint32_t>(out.size());
    out += central;
    put32(out, 0x06054b50u); put16(out, 0); put16(out, 0); put16(out, entries); put16(out, entries);
    put32(out, static_cast<uint32_t>(central.size())); put32(out, central_at); put16(out, 0);
    return out;
}

// Half-written things: export.cpp's temporary files end in ".tmp", lesson_bundle.cpp builds a
// bundle in a hidden folder and renames it when complete.
bool in_progress(const fs::path& p) {
    const std::string name = p.filename().string();
    return name.empty() || name.front() == '.' || (name.size() > 4 && name.ends_with(".tmp"));
}

}  // namespace

void after_frame() {
    // The page's current folder is the export folder (page.js starts the app in /downloads; an
    // export_dir set in settings is honoured too, which the settings' folder field shows).
    std::error_code ec;
    const fs::path folder = fs::current_path(ec);
    if (ec || folder.empty() || folder == "/") return;
    std::vector<fs::path> ready;
    for (const auto& e : fs::directory_iterator(folder, ec))
        if (!in_progress(e.path())) ready.push_back(e.path());
    for (const fs::path& p : ready) {
        std::string bytes, name = p.filename().string();
        if (fs::is_directory(p, ec)) {
            bytes = zip_folder(p);
            name += ".zip";
        } else {
            bytes = read_all(p);
        }
        fl_js_offer_download(name.c_str(), reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
        fs::remove_all(p, ec);
    }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Persistent files
// ---------------------------------------------------------------------------------------------

namespace {

// page.js: stores the text under the path's key; returns a malloc'd "" or the reason it could not.
EM_JS(char*, fl_js_store_file, (const char* path, const char* text), {
    const why = flPage.storeFile(UTF8ToString(path), UTF8ToString(text));
    const size = lengthBytesUTF8(why) + 1;
    const out = _malloc(size);
    stringToUTF8(why, out, size);
    return out;
});

std::string take_js_string(char* text) {
    std::string out = text ? text : "";
    std::free(text);
    return out;
}

}  // namespace

std::string persist_file(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return "the settings file " + path + " is missing";
    return take_js_string(fl_js_store_file(path.c_str(), read_all(path).c_str()));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Opened files, page messages
// ---------------------------------------------------------------------------------------------

namespace {

// page.js: the files opened since the last call, one "path\tname" per line (malloc'd).
EM_JS(char*, fl_js_take_opened, (), {
    const text = flPage.takeOpened();
    const size = lengthBytesUTF8(text) + 1;
    const out = _malloc(size);
    stringToUTF8(text, out, size);
    return out;
});

EM_JS(void, fl_js_page_message, (const char* text, int error), {
    flPage.message(UTF8ToString(text), error != 0);
});

}  // namespace

std::vector<OpenedFile> take_opened_files() {
    std::vector<OpenedFile> out;
    std::istringstream lines(take_js_string(fl_js_take_opened()));
    std::string line;
    while (std::getline(lines, line)) {
        const size_t tab = line.find('\t');
        if (tab == std::string::npos) continue;
        out.push_back({line.substr(0, tab), line.substr(tab + 1)});
    }
    return out;
}

void show_page_message(const std::string& text, bool error) { fl_js_page_message(text.c_str(), error ? 1 : 0); }

}  // namespace app::platform

#endif
