// [SECTION] Palette: the frames' most frequent colours
// [SECTION] LZW encoder and the file's blocks
// [SECTION] Reader: sizes, frame count, one frame decoded
// GIF89a as the specification (https://www.w3.org/Graphics/GIF/spec-gif89a.txt) lays it out.
#include "app/files/gif_writer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace app {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] Palette
// ---------------------------------------------------------------------------------------------

// A colour's 5-5-5 bucket: 32768 of them, so a histogram and a lookup table stay small.
uint32_t bucket_of(const uint8_t* p) { return (uint32_t{p[0]} >> 3) << 10 | (uint32_t{p[1]} >> 3) << 5 | (p[2] >> 3); }

struct Palette {
    std::vector<std::array<uint8_t, 3>> colors;  // at most 256
    std::vector<uint8_t> index_of_bucket;        // 32768 entries
};

Palette build_palette(const std::vector<GifFrame>& frames) {
    std::vector<uint64_t> count(32768, 0), sum_r(32768, 0), sum_g(32768, 0), sum_b(32768, 0);
    for (const GifFrame& f : frames)
        for (size_t i = 0; i + 3 < f.rgba.size(); i += 4) {
            const uint32_t b = bucket_of(&f.rgba[i]);
            ++count[b];
            sum_r[b] += f.rgba[i];
            sum_g[b] += f.rgba[i + 1];
            sum_b[b] += f.rgba[i + 2];
        }
    std::vector<uint32_t> used;
    for (uint32_t b = 0; b < 32768; ++b)
        if (count[b]) used.push_back(b);
    // The most frequent buckets get entries: flat fills and text colours first.
    std::stable_sort(used.begin(), used.end(), [&](uint32_t a, uint32_t b) { return count[a] > count[b]; });
    Palette p;
    p.index_of_bucket.assign(32768, 0);
    const size_t entries = std::min<size_t>(used.size(), 256);
    for (size_t i = 0; i < entries; ++i) {
        const uint32_t b = used[i];
        p.colors.push_back({static_cast<uint8_t>(sum_r[b] / count[b]), static_cast<uint8_t>(sum_g[b] / count[b]),
                            static_cast<uint8_t>(sum_b[b] / count[b])});
        p.index_of_bucket[b] = static_cast<uint8_t>(i);
    }
    if (p.colors.empty()) p.colors.push_back({0, 0, 0});
    // The rest map to the nearest entry (squared distance of the bucket's mean colour).
    for (size_t k = entries; k < used.size(); ++k) {
        const uint32_t b = used[k];
        const int r = static_cast<int>(sum_r[b] / count[b]), g = static_cast<int>(sum_g[b] / count[b]),
                  bl = static_cast<int>(sum_b[b] / count[b]);
        int best = 0, best_d = 1 << 30;
        for (size_t i = 0; i < p.colors.size(); ++i) {
            const int dr = r - p.colors[i][0], dg = g - p.colors[i][1], db = bl - p.colors[i][2];
            const int d = dr * dr * 3 + dg * dg * 4 + db * db * 2;  // green weighs most to the eye
            if (d < best_d) best_d = d, best = static_cast<int>(i);
        }
        p.index_of_bucket[b] = static_cast<uint8_t>(best);
    }
    return p;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] LZW encoder
// ---------------------------------------------------------------------------------------------

// Codes packed least significant bit first into 255-byte sub-blocks.
class BitPacker {
public:
    explicit BitPacker(std::vector<uint8_t>& out) : out_(out) {}
    void put(uint32_t code, int bits) {
        acc_ |= code << used_;
        used_ += bits;
        while (used_ >= 8) {
            byte(static_cast<uint8_t>(acc_ & 0xFF));
            acc_ >>= 8;
            used_ -= 8;
        }
    }
    void finish() {
        if (used_ > 0) byte(static_cast<uint8_t>(acc_ & 0xFF));
        acc_ = 0;
        used_ = 0;
        flush_block();
        out_.push_back(0);  // block terminator
    }

private:
    void byte(uint8_t b) {
        block_.push_back(b);
        if (block_.size() == 255) flush_block();
    }
    void flush_block() {
        if (block_.empty()) return;
        out_.push_back(static_cast<uint8_t>(block_.size()));
        out_.insert(out_.end(), block_.begin(), block_.end());
        block_.clear();
    }
    std::vector<uint8_t>& out_;
    std::vector<uint8_t> block_;
    uint32_t acc_ = 0;
    int used_ = 0;
};

void lzw_encode(const std::vector<uint8_t>& indices, std::vector<uint8_t>& out) {
    constexpr int kMinCodeSize = 8;
    constexpr uint32_t kClear = 1u << kMinCodeSize, kEnd = kClear + 1;
    out.push_back(kMinCodeSize);
    BitPacker bits(out);
    std::unordered_map<uint32_t, uint32_t> table;  // (prefix code << 8 | byte) -> code
    table.reserve(8192);
    uint32_t next = kEnd + 1;
    int width = kMinCodeSize + 1;
    bits.put(kClear, width);
    if (indices.empty()) {
        bits.put(kEnd, width);
        bits.finish();
        return;
    }
    uint32_t prefix = indices[0];
    for (size_t i = 1; i < indices.size(); ++i) {
        const uint32_t key = prefix << 8 | indices[i];
        if (auto it = table.find(key); it != table.end()) {
            prefix = it->second;
            continue;
        }
        bits.put(prefix, width);
        if (next < 4096) {
            table.emplace(key, next);
            // The decoder widens its codes once it has made the code 2^width; it runs one entry
            // behind the encoder, so widen after emitting the code that fills this width.
            if (next == (1u << width) && width < 12) ++width;
            ++next;
        } else {  // the table is full: start over
            bits.put(kClear, width);
            table.clear();
            next = kEnd + 1;
            width = kMinCodeSize + 1;
        }
        prefix = indices[i];
    }
    bits.put(prefix, width);
    bits.put(kEnd, width);
    bits.finish();
}

void put16(std::vector<uint8_t>& out, int v) {
    out.push_back(static_cast<uint8_t>(v & 0xFF));
    out.push_back(static_cast<uint8_t>((v >> 8) & 0xFF));
}

}  // namespace

std::vector<uint8_t> encode_gif(int width, int height, const std::vector<GifFrame>& frames, int delay_cs) {
    if (frames.empty()) throw std::invalid_argument("a GIF needs at least one frame");
    if (width < 1 || height < 1 || width > 65535 || height > 65535)
        throw std::invalid_argument("GIF size " + std::to_string(width) + "x" + std::to_string(height) +
                                    " is outside 1 .. 65535 per side");
    const size_t pixels = static_cast<size_t>(width) * static_cast<size_t>(height);
    for (size_t i = 0; i < frames.size(); ++i)
        if (frames[i].rgba.size() != pixels * 4)
            throw std::invalid_argument("GIF frame " + std::to_string(i + 1) + " is not " + std::to_string(width) + "x" +
                                        std::to_string(height) + " RGBA");
    const Palette palette = build_palette(frames);
    std::vector<uint8_t> out = {'G', 'I', 'F', '8', '9', 'a'};
    put16(out, width);
    put16(out, height);
    out.push_back(0xF7);  // global colour table of 256 entries, 8 bits per primary
    out.push_back(0);     // background colour index
    out.push_back(0);     // square pixels
    for (size_t i = 0; i < 256; ++i) {
        const std::array<uint8_t, 3> c = i < palette.colors.size() ? palette.colors[i] : std::array<uint8_t, 3>{0, 0, 0};
        out.insert(out.end(), c.begin(), c.end());
    }
    // Loop for ever (the NETSCAPE2.0 application extension every viewer honours).
    const uint8_t loop[] = {0x21, 0xFF, 0x0B, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0', 0x03, 0x01, 0x00, 0x00, 0x00};
    out.insert(out.end(), std::begin(loop), std::end(loop));
    std::vector<uint8_t> indices(pixels);
    for (const GifFrame& f : frames) {
        // Graphic control: the frame's delay; frames replace each other whole.
        out.insert(out.end(), {0x21, 0xF9, 0x04, 0x04});
        put16(out, std::clamp(delay_cs, 0, 65535));
        out.insert(out.end(), {0x00, 0x00});
        out.push_back(0x2C);  // image descriptor: the whole screen, no local table, not interlaced
        put16(out, 0);
        put16(out, 0);
        put16(out, width);
        put16(out, height);
        out.push_back(0);
        for (size_t i = 0; i < pixels; ++i) indices[i] = palette.index_of_bucket[bucket_of(&f.rgba[i * 4])];
        lzw_encode(indices, out);
    }
    out.push_back(0x3B);  // trailer
    return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Reader
// ---------------------------------------------------------------------------------------------

namespace {

struct Reader {
    const std::vector<uint8_t>& b;
    size_t at = 0;
    bool has(size_t n) const { return at + n <= b.size(); }
    int u16() {
        const int v = b[at] | b[at + 1] << 8;
        at += 2;
        return v;
    }
    // Skips data sub-blocks up to and past the terminator; false when the bytes end first.
    bool skip_blocks() {
        while (has(1)) {
            const uint8_t n = b[at++];
            if (n == 0) return true;
            if (!has(n)) return false;
            at += n;
        }
        return false;
    }
};

std::vector<uint8_t> lzw_decode(const std::vector<uint8_t>& data, int min_code_size, size_t pixels) {
    const uint32_t clear = 1u << min_code_size, end = clear + 1;
    std::vector<std::vector<uint8_t>> table;
    auto reset = [&] {
        table.assign(clear + 2, {});
        for (uint32_t i = 0; i < clear; ++i) table[i] = {static_cast<uint8_t>(i)};
    };
    reset();
    int width = min_code_size + 1;
    std::vector<uint8_t> out;
    uint32_t acc = 0;
    int used = 0;
    int prev = -1;
    for (size_t i = 0; i < data.size() || used >= width;) {
        while (used < width && i < data.size()) {
            acc |= uint32_t{data[i++]} << used;
            used += 8;
        }
        if (used < width) break;
        const uint32_t code = acc & ((1u << width) - 1);
        acc >>= width;
        used -= width;
        if (code == clear) {
            reset();
            width = min_code_size + 1;
            prev = -1;
            continue;
        }
        if (code == end) break;
        std::vector<uint8_t> entry;
        if (code < table.size()) entry = table[code];
        else if (prev >= 0 && code == table.size()) {
            entry = table[static_cast<size_t>(prev)];
            entry.push_back(entry.front());
        } else {
            return {};
        }
        out.insert(out.end(), entry.begin(), entry.end());
        if (prev >= 0 && table.size() < 4096) {
            std::vector<uint8_t> added = table[static_cast<size_t>(prev)];
            added.push_back(entry.front());
            table.push_back(std::move(added));
            if (table.size() == (1u << width) && width < 12) ++width;
        }
        prev = static_cast<int>(code);
        if (out.size() >= pixels) break;
    }
    return out;
}

// Walks the file; for frame `want` >= 0 decodes it into *rgba.
GifInfo walk(const std::vector<uint8_t>& bytes, int want, std::vector<uint8_t>* rgba) {
    GifInfo info;
    Reader r{bytes};
    if (!r.has(13) || std::memcmp(bytes.data(), "GIF89a", 6) != 0) {
        info.error = "not a GIF89a file";
        return info;
    }
    r.at = 6;
    info.width = r.u16();
    info.height = r.u16();
    const uint8_t flags = bytes[r.at];
    r.at += 3;
    std::vector<uint8_t> palette;
    if (flags & 0x80) {
        const size_t n = size_t{3} << ((flags & 7) + 1);
        if (!r.has(n)) return info.error = "the colour table is cut short", info;
        palette.assign(bytes.begin() + static_cast<long>(r.at), bytes.begin() + static_cast<long>(r.at + n));
        r.at += n;
    }
    while (r.has(1)) {
        const uint8_t kind = bytes[r.at++];
        if (kind == 0x3B) {
            info.ok = true;
            return info;
        }
        if (kind == 0x21) {
            if (!r.has(1)) break;
            const uint8_t label = bytes[r.at++];
            if (label == 0xFF && r.has(12) && std::memcmp(&bytes[r.at + 1], "NETSCAPE2.0", 11) == 0) info.loops = true;
            if (!r.skip_blocks()) break;
            continue;
        }
        if (kind != 0x2C || !r.has(10)) {
            info.error = "unexpected block 0x" + std::to_string(kind);
            return info;
        }
        r.at += 4;
        const int w = r.u16(), h = r.u16();
        const uint8_t image_flags = bytes[r.at++];
        if (image_flags & 0x80) r.at += size_t{3} << ((image_flags & 7) + 1);
        if (!r.has(1)) break;
        const int min_code = bytes[r.at++];
        const size_t data_start = r.at;
        if (!r.skip_blocks()) break;
        if (info.frames == want && rgba) {
            std::vector<uint8_t> data;
            for (size_t at = data_start; at < bytes.size() && bytes[at] != 0; at += size_t{bytes[at]} + 1)
                data.insert(data.end(), bytes.begin() + static_cast<long>(at + 1),
                            bytes.begin() + static_cast<long>(at + 1 + bytes[at]));
            const size_t pixels = static_cast<size_t>(w) * static_cast<size_t>(h);
            const std::vector<uint8_t> idx = lzw_decode(data, min_code, pixels);
            if (idx.size() >= pixels) {
                rgba->resize(pixels * 4);
                for (size_t i = 0; i < pixels; ++i) {
                    const size_t c = size_t{idx[i]} * 3;
                    for (size_t k = 0; k < 3; ++k) (*rgba)[i * 4 + k] = c + k < palette.size() ? palette[c + k] : uint8_t{0};
                    (*rgba)[i * 4 + 3] = 255;
                }
            }
        }
        ++info.frames;
    }
    info.error = "the file ends before its trailer";
    return info;
}

}  // namespace

GifInfo read_gif_info(const std::vector<uint8_t>& bytes) { return walk(bytes, -1, nullptr); }

std::vector<uint8_t> decode_gif_frame(const std::vector<uint8_t>& bytes, int index) {
    std::vector<uint8_t> rgba;
    walk(bytes, index, &rgba);
    return rgba;
}

}  // namespace app
