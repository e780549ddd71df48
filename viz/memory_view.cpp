// [SECTION] Data: the player's frame and how to draw it
// [SECTION] Pen: labels that record their rectangles, tooltips, colours
// [SECTION] Layout: header, HBM, L2, SMs, footer
// [SECTION] Header: variant, step, what the step does
// [SECTION] HBM: tensors as grids of tiles, DRAM bytes
// [SECTION] L2: its size, the kernel's data against it, hit or miss
// [SECTION] SMs: shared memory to scale, registers, the other SMs
// [SECTION] The moving tile: HBM -> L2 -> SM and back
// [SECTION] Footer: bytes per level, notes
// [SECTION] The view, the byte race
#include "viz/memory_view.h"

#include "kernels/core/format.h"
#include "kernels/core/levels.h"
#include "viz/highlight.h"
#include "viz/imgui_helpers.h"
#include "viz/label_layout.h"
#include "viz/palette.h"
#include "viz/theme.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>

namespace viz {

// =============================================================================================
// [SECTION] Data
// =============================================================================================
MemoryViewData memory_view_data(const kernels::MemoryPlayer& player, size_t step, float flight,
                                const kernels::DeviceInfo& device, Theme theme, const std::string& refusal) {
    MemoryViewData d;
    static_cast<kernels::MemoryFrame&>(d) = kernels::memory_frame(player, step, flight, device, kBufferColorCount, refusal);
    d.theme = theme;
    return d;
}

// =============================================================================================
// [SECTION] Pen
// =============================================================================================
namespace {

using kernels::format_bytes;

std::string bytes_text(uint64_t b) { return format_bytes(static_cast<double>(b)); }
std::string exact_bytes(uint64_t b) {
    return kernels::format_count(static_cast<int64_t>(b)) + " bytes (" + bytes_text(b) + ")";
}
std::string count_text(uint64_t n) { return kernels::format_count(static_cast<int64_t>(n)); }

LabelRect rect_of(ImVec2 a, ImVec2 b) { return {a.x, a.y, b.x, b.y}; }

// The draw list's channels of one memory view, bottom to top.
constexpr int kShapesLayer = 0, kRingLayer = 1, kTextLayer = 2, kLayerCount = 3;

struct Pen {
    ImDrawList* draw;
    ChartColors c;
    Theme theme;
    float em;
    bool interactive;
    LabelLayout* labels = nullptr;  // every label drawn is recorded here (null: measuring only)
    // The view's layers (null: one layer): shapes, then the lesson's highlight ring, then the
    // labels' text, so that a ring around a part never crosses a word inside it.
    ImDrawListSplitter* layers = nullptr;

    // Text drawn at this font's size times em / the UI font size: the diagram shrinks as a whole
    // when a large projector font would not leave it room.
    float px(ImFont* f) const { return f->FontSize * em / ImGui::GetFontSize(); }
    ImVec2 text_size(const std::string& s, ImFont* font = nullptr) const {
        ImFont* f = font ? font : ImGui::GetFont();
        return f->CalcTextSizeA(px(f), FLT_MAX, 0, s.c_str());
    }
    float width(const std::string& s, ImFont* font = nullptr) const { return text_size(s, font).x; }
    float line_h(ImFont* font = nullptr) const { return px(font ? font : ImGui::GetFont()); }

    // Draws one label at `at` and records the rectangle it covers as belonging to the box
    // [box_min, box_max] (`where` names the part of the view, for the checks' messages). `full`:
    // the whole text when `s` is a shortened form of it.
    LabelRect label(ImVec2 at, ImU32 col, const std::string& s, ImVec2 box_min, ImVec2 box_max, const char* where,
                    ImFont* font = nullptr, const std::string& full = "") const {
        if (s.empty()) return {};
        ImFont* f = font ? font : ImGui::GetFont();
        if (layers) layers->SetCurrentChannel(draw, kTextLayer);
        draw->AddText(f, px(f), at, col, s.c_str());
        if (layers) layers->SetCurrentChannel(draw, kShapesLayer);
        const LabelRect r{at.x, at.y, at.x + width(s, f), at.y + px(f)};
        if (labels) labels->add(s, r, rect_of(box_min, box_max), where, full, px(f));
        return r;
    }
    // `s` shortened with "..." until it fits max_w ("" when not even one character does).
    std::string elide(std::string s, float max_w, ImFont* font = nullptr) const {
        return elide_to_fit(std::move(s), max_w, [&](const std::string& t) { return width(t, font); });
    }
    // A label that must stay within max_w: shortened with "..." (the whole text recorded as `full`).
    LabelRect label_fit(ImVec2 at, ImU32 col, const std::string& s, float max_w, ImVec2 box_min, ImVec2 box_max,
                        const char* where, ImFont* font = nullptr) const {
        const std::string shown = elide(s, max_w, font);
        return label(at, col, shown, box_min, box_max, where, font, shown == s ? "" : s);
    }
    // The first of `texts` (longest wording first) that fits max_w; "" when none does.
    std::string first_fitting(const std::vector<std::string>& texts, float max_w, ImFont* font = nullptr) const {
        for (const std::string& t : texts)
            if (width(t, font) <= max_w) return t;
        return "";
    }
    void tip(ImVec2 a, ImVec2 b, const std::string& s) const {
        if (!interactive || !ImGui::IsMouseHoveringRect(a, b)) return;
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(em * 34);
        ImGui::TextUnformatted(s.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
};

// Words of `s` in at most `max_lines` lines of max_w: the last line takes every word left and is
// shortened with "..." when they do not fit (a single word longer than a line is shortened too).
std::vector<std::string> wrap_lines(const Pen& pen, const std::string& s, float max_w, int max_lines, ImFont* font) {
    std::vector<std::string> words;
    for (size_t at = 0; at < s.size();) {
        size_t end = s.find(' ', at);
        if (end == std::string::npos) end = s.size();
        if (end > at) words.push_back(s.substr(at, end - at));
        at = end + 1;
    }
    std::vector<std::string> lines;
    std::string line;
    size_t i = 0;
    for (; i < words.size(); ++i) {
        const std::string tried = line.empty() ? words[i] : line + " " + words[i];
        if (line.empty() || pen.width(tried, font) <= max_w) {
            line = tried;
            continue;
        }
        if (static_cast<int>(lines.size()) + 1 >= max_lines) break;  // the last line takes the rest
        lines.push_back(line);
        line = words[i];
    }
    for (; i < words.size(); ++i) line += " " + words[i];
    lines.push_back(line);
    for (std::string& l : lines) l = pen.elide(l, max_w, font);
    return lines;
}

ImU32 with_alpha(ImU32 col, float alpha) {
    const ImU32 a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f);
    return (col & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}
ImU32 accent(Theme t) { return t == Theme::dark ? rgb(0xF0E442) : rgb(0xD55E00); }
ImU32 overflow_color(Theme t) { return t == Theme::dark ? rgb(0xFF5C5C) : rgb(0xC00000); }
ImVec2 lerp(ImVec2 a, ImVec2 b, float t) { return ImVec2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t); }
ImVec2 center(ImVec2 a, ImVec2 b) { return ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f); }

// Tensors take the buffer colours (viz/palette.h): one each, none a variant's, the accent's
// yellow or the overflow's red.
ImU32 tensor_color(int i) { return buffer_color(i); }

// How much of the current event's traffic crosses DRAM: 0 = all of it stays between L2 and the
// SMs (a hit, or a store that stays in L2), 1 = all of it crosses (a miss, a write-back).
double dram_share(const MemoryViewData& d) {
    return d.event_l2_bytes ? static_cast<double>(d.event_dram_bytes) / static_cast<double>(d.event_l2_bytes) : 0.0;
}
bool moves_data(const MemoryViewData& d) {
    return d.has_event && d.kind != kernels::EventKind::compute && d.tensor >= 0 &&
           static_cast<size_t>(d.tensor) < d.tensors.size();
}
bool moves_local(const MemoryViewData& d) { return moves_data(d) && d.tensors[static_cast<size_t>(d.tensor)].local; }

// The hit-or-miss tag of the current event, long and short: "1 in 16 from DRAM" / "1/16 DRAM".
struct Tag {
    std::string full, brief;
};
Tag dram_tag(const MemoryViewData& d) {
    const double f = dram_share(d);
    const bool load = d.kind == kernels::EventKind::load;
    if (f >= 0.999) return load ? Tag{"miss: from DRAM", "miss"} : Tag{"written back to DRAM", "to DRAM"};
    if (f <= 0.001) return load ? Tag{"hit: already in L2", "hit"} : Tag{"stays in L2", "stays"};
    const double inverse = 1.0 / f;
    const long n = std::lround(inverse);
    const std::string to = load ? " from DRAM" : " to DRAM";
    if (n >= 2 && std::fabs(inverse - static_cast<double>(n)) < 0.02 * inverse)
        return {"1 in " + std::to_string(n) + to, "1/" + std::to_string(n) + (load ? " DRAM" : " out")};
    const std::string pct = std::to_string(static_cast<int>(std::lround(f * 100))) + "%";
    return {pct + to, pct + (load ? " DRAM" : " out")};
}

// =============================================================================================
// [SECTION] Layout
// =============================================================================================
struct Boxes {
    ImVec2 header_min, header_max;
    ImVec2 hbm_min, hbm_max;
    ImVec2 l2_min, l2_max;
    ImVec2 sms_min, sms_max;
    ImVec2 footer_min, footer_max;
    bool wide = false;       // HBM | L2 | SMs side by side (L2 an upright column)
    int what_lines = 1;      // the header's line of what the step does, wrapped
    bool title_beside = false;   // the step line beside the title, not under it
    bool notes_beside = false;   // the footer's notes beside the level counters, not under them
};

std::string what_text(const MemoryViewData& d) {
    std::string what = d.what;
    if (d.has_event && d.repeat > 1) what += "  x " + count_text(d.repeat) + " blocks";
    return what;
}

// Counters per level take two lines (name, value); the spill line and each note one. Beside the
// counters (a wide view), the notes and the spill line take a column of their own.
int note_lines(const MemoryViewData& d) { return static_cast<int>(d.notes.size()) + (d.local_total > 0 ? 1 : 0); }
int footer_lines(const MemoryViewData& d, bool notes_beside) {
    return notes_beside ? std::max(2, note_lines(d)) : 2 + note_lines(d);
}

// Heights in em: the header (title in the heading font, the step, the step's words), the footer,
// the L2 band, and the least the body needs: side by side the SMs (title, shared memory, its
// "does not fit" line, registers); stacked HBM, L2 and the SMs.
float header_em(int what_lines, bool title_beside) {
    return kHeadingRatio * 1.2f + (title_beside ? 0.0f : 1.25f) + 1.25f * static_cast<float>(what_lines) + 0.2f;
}
float footer_em(const MemoryViewData& d, bool notes_beside) { return 1.25f * static_cast<float>(footer_lines(d, notes_beside)) + 0.3f; }
constexpr float kGapEm = 0.4f, kL2BandEm = 2.6f, kWideBodyEm = 7.4f, kTallBodyEm = 15.0f;
// A view this many ems wide puts the footer's notes beside its counters: projector fonts on a
// landscape screen have width to spare and no height.
constexpr float kNotesBesideEm = 42.0f;
// The level counters' share of the footer's width when the notes sit beside them.
constexpr float kCountersShare = 0.56f;

std::string title_text(const MemoryViewData& d) { return d.title + (d.simulated ? "  (model; simulated GPU)" : "  (model)"); }

// The step line goes beside the title when that leaves it half the view's width: decided by the
// title and the width alone, so it stays put while the step's words change.
bool title_beside(const Pen& pen, float width, const MemoryViewData& d) {
    return pen.width(title_text(d), heading_font()) + pen.em * 1.5f <= width * 0.5f;
}
bool notes_beside(float em, float width) { return width >= kNotesBesideEm * em; }

Boxes layout(const Pen& pen, ImVec2 o, ImVec2 size, const MemoryViewData& d) {
    Boxes b;
    const float em = pen.em;
    // The step's words wrap to a second line rather than lose their end (ffn's GEMM events).
    // Sized for the schedule's longest words, not this step's: the boxes below must not move.
    const std::string longest = d.longest_what.size() > what_text(d).size() ? d.longest_what : what_text(d);
    b.what_lines = pen.width(longest, bold_font()) <= size.x && pen.width(what_text(d), bold_font()) <= size.x ? 1 : 2;
    b.title_beside = title_beside(pen, size.x, d);
    b.notes_beside = notes_beside(em, size.x);
    const float header_h = header_em(b.what_lines, b.title_beside) * em, footer_h = footer_em(d, b.notes_beside) * em,
                gap = kGapEm * em;
    b.header_min = o;
    b.header_max = ImVec2(o.x + size.x, o.y + header_h);
    b.footer_min = ImVec2(o.x, o.y + size.y - footer_h);
    b.footer_max = ImVec2(o.x + size.x, o.y + size.y);
    const float body_h = size.y - header_h - footer_h - gap;
    if (size.x > body_h * 3.0f || body_h < kTallBodyEm * em) {
        // Wide and short (a projector font on a small window, or side by side): HBM | L2 | SMs
        // left to right, so the squares keep the height they need.
        b.wide = true;
        const float l2_w = em * 6.0f;
        const float hbm_w = (size.x - l2_w - gap * 2) * 0.5f;
        b.hbm_min = ImVec2(o.x, b.header_max.y);
        b.hbm_max = ImVec2(o.x + hbm_w, b.header_max.y + body_h);
        b.l2_min = ImVec2(b.hbm_max.x + gap, b.hbm_min.y);
        b.l2_max = ImVec2(b.l2_min.x + l2_w, b.hbm_max.y);
        b.sms_min = ImVec2(b.l2_max.x + gap, b.hbm_min.y);
        b.sms_max = ImVec2(o.x + size.x, b.hbm_max.y);
        return b;
    }
    const float l2_h = kL2BandEm * em;
    const float rest = size.y - header_h - footer_h - l2_h - gap * 3;
    // The SMs take what their contents need (or a third); HBM, whose squares scale, the rest.
    const float hbm_h = rest - std::max(kWideBodyEm * em, rest * 0.34f);
    b.hbm_min = ImVec2(o.x, b.header_max.y);
    b.hbm_max = ImVec2(o.x + size.x, b.hbm_min.y + hbm_h);
    b.l2_min = ImVec2(o.x, b.hbm_max.y + gap);
    b.l2_max = ImVec2(o.x + size.x, b.l2_min.y + l2_h);
    b.sms_min = ImVec2(o.x, b.l2_max.y + gap);
    b.sms_max = ImVec2(o.x + size.x, o.y + size.y - footer_h - gap);
    return b;
}

// =============================================================================================
// [SECTION] Header
// =============================================================================================
void draw_header(const Pen& pen, const Boxes& b, const MemoryViewData& d) {
    const float w = b.header_max.x - b.header_min.x;
    ImVec2 at = b.header_min;
    const std::string title = title_text(d);
    const LabelRect t = pen.label_fit(at, pen.c.text, title, w, b.header_min, b.header_max, "title", heading_font());
    pen.tip(at, ImVec2(t.x1, t.y1),
            title + "\nThe variant's tile schedule from the model (kernels/), the same loop as its CUDA kernel. One "
                    "thread block is followed in detail; the other blocks doing the same step are counted in the byte "
                    "counters.");
    // Beside the title: on its baseline, after it; else on a line of its own.
    const float step_x = b.title_beside ? t.x1 + pen.em * 1.5f : at.x;
    if (b.title_beside) at.y += pen.px(heading_font()) - pen.em;
    else at.y += pen.px(heading_font()) * 1.2f;
    at.x = step_x;
    const float step_w = b.header_max.x - step_x;
    const std::string step = (d.refusal.empty() ? "step " + std::to_string(d.step) + " / " + std::to_string(d.step_count)
                                                : std::string("not run")) +
                             (d.kernel.empty() ? "" : "  |  " + d.kernel);
    pen.label_fit(at, pen.c.text_dim, step, step_w, b.header_min, b.header_max, "step");
    pen.tip(at, ImVec2(at.x + step_w, at.y + pen.em),
            step + "\nEach step is one event of the schedule (a load, a compute or a store of one block); " +
                std::to_string(d.step_count) + " steps in all.");
    at.x = b.header_min.x;
    at.y = b.title_beside ? b.header_min.y + pen.px(heading_font()) * 1.2f : at.y + pen.em * 1.25f;
    const ImU32 what_col = !d.refusal.empty()                         ? overflow_color(pen.theme)
                           : d.has_event && pen.theme == Theme::dark ? accent(pen.theme)
                           : d.has_event                             ? pen.c.text
                                                                     : pen.c.text_dim;
    const ImVec2 what_at = at;
    for (const std::string& line : wrap_lines(pen, what_text(d), w, b.what_lines, bold_font())) {
        pen.label(at, what_col, line, b.header_min, b.header_max, "what",
                  bold_font(), line == what_text(d) ? "" : what_text(d));
        at.y += pen.em * 1.25f;
    }
    pen.tip(what_at, ImVec2(what_at.x + w, at.y),
            d.what + (!d.refusal.empty() ? "\n\nThe app does not launch a variant the device refuses, so there is no "
                                           "schedule to play here: the boxes below show what it would need."
                      : d.has_event ? "\n\nOne block moves " + exact_bytes(d.event_bytes) + "; " + count_text(d.repeat) +
                                        " blocks do exactly this step."
                                  : std::string()));
}

// =============================================================================================
// [SECTION] HBM
// =============================================================================================
struct TensorBox {
    ImVec2 min, max;     // the square
    ImVec2 label;        // first label line
    float col_w = 0;
    bool label_inside = false;  // big squares carry their labels inside, on a backing
    // Where three label lines do not fit: 1 = name and size, 2 = name only (the rest in the tooltip
    // and the footer's totals), so that every tensor stays on screen.
    int compact = 0;
    int cells_x = 1, cells_y = 1;
    uint64_t tiles = 1;
};

std::string tensor_label(const MemTensor& t, int compact = 0) {
    return compact >= 2 ? t.name : t.name + "  " + bytes_text(t.bytes);
}
// A tensor's counters in HBM are its DRAM bytes; register spills count local-memory traffic.
std::string read_label(const MemTensor& t) {
    return t.local ? "reloaded " + bytes_text(t.read) : "read " + bytes_text(t.dram_read);
}
std::string written_label(const MemTensor& t) {
    return t.local ? "spilled " + bytes_text(t.written) : "wrote " + bytes_text(t.dram_written);
}

// The widest a counter line gets at any step: its words with the widest number of each form
// format_bytes writes ("1023 B", "888 MiB", "88.8 MiB", "8.88 MiB"). The layout reserves that
// much, so a growing counter never resizes a square or sends a tensor to another row.
float widest_counter(const Pen& pen, const std::string& words) {
    float w = pen.width(words + "1023 B");
    for (const char* unit : {"KiB", "MiB", "GiB", "TiB"})
        for (const char* digits : {"888 ", "88.8 ", "8.88 "}) w = std::max(w, pen.width(words + digits + unit));
    return w;
}

// Each tensor's label width at each compactness (0: name and size, then its two counters;
// 1: name and size; 2: the name), the same at every step.
struct LabelWidths {
    float at[3] = {0, 0, 0};
};
std::vector<LabelWidths> label_widths(const Pen& pen, const std::vector<MemTensor>& ts) {
    const float read = widest_counter(pen, "read "), wrote = widest_counter(pen, "wrote ");
    const float reloaded = widest_counter(pen, "reloaded "), spilled = widest_counter(pen, "spilled ");
    std::vector<LabelWidths> out(ts.size());
    for (size_t i = 0; i < ts.size(); ++i) {
        const float sized = pen.width(tensor_label(ts[i], 1), bold_font());
        out[i].at[0] = std::max({sized, ts[i].local ? reloaded : read, ts[i].local ? spilled : wrote});
        out[i].at[1] = sized;
        out[i].at[2] = pen.width(tensor_label(ts[i], 2), bold_font());
    }
    return out;
}

// Flow layout: squares whose area is proportional to bytes (k px per sqrt(byte), at least
// min_side), rows wrapping. A square with room for its three label lines carries them inside,
// a smaller one to its right. Returns false when the flow overflows the area at this scale.
bool flow(const Pen& pen, const std::vector<MemTensor>& ts, const std::vector<LabelWidths>& widths,
          const std::vector<size_t>& order, ImVec2 min, ImVec2 max, double k, float min_side, std::vector<TensorBox>& out,
          int compact = 0) {
    out.assign(ts.size(), {});
    const float gap = pen.em * 0.8f, line = pen.em * 1.15f, label_h = line * (compact ? 1 : 3);
    float x = min.x, y = min.y, row_h = 0;
    bool fits = true;
    for (size_t i : order) {
        const float side = std::max(min_side, static_cast<float>(k * std::sqrt(static_cast<double>(ts[i].bytes))));
        const float label_w = widths[i].at[std::clamp(compact, 0, 2)];
        const bool inside = side >= label_w + pen.em * 0.6f && side >= label_h + pen.em * 0.6f;
        const float col_w = inside ? side : side + pen.em * 0.4f + label_w;
        const float col_h = inside ? side : std::max(side, label_h);
        if (x > min.x && x + col_w > max.x) {
            x = min.x;
            y += row_h + gap * 0.5f;
            row_h = 0;
        }
        TensorBox& b = out[i];
        b.min = ImVec2(x, y);
        b.max = ImVec2(x + side, y + side);
        b.label = inside ? ImVec2(x + pen.em * 0.3f, y + pen.em * 0.2f) : ImVec2(x + side + pen.em * 0.4f, y);
        b.label_inside = inside;
        b.compact = compact;
        b.col_w = col_w;
        row_h = std::max(row_h, col_h);
        x += col_w + gap;
        if (x - gap > max.x || y + row_h > max.y) fits = false;
    }
    return fits;
}

// Two orders are tried: the schedule's (Q, K, S, P, V, O) and largest first (big squares
// share a row, small ones pack after them); the one that allows the larger squares wins.
std::vector<std::vector<size_t>> candidate_orders(const std::vector<MemTensor>& ts) {
    std::vector<size_t> given(ts.size());
    for (size_t i = 0; i < ts.size(); ++i) given[i] = i;
    std::vector<size_t> largest = given;
    std::stable_sort(largest.begin(), largest.end(), [&](size_t a, size_t b) { return ts[a].bytes > ts[b].bytes; });
    return {given, largest};
}

// The largest scale (px per sqrt(byte)) at which some order's flow fits with labels of this
// compactness (bisection); 0 when none does.
double fit_scale_at(const Pen& pen, const std::vector<MemTensor>& ts, const std::vector<LabelWidths>& widths, ImVec2 min,
                    ImVec2 max, int compact) {
    std::vector<TensorBox> boxes;
    double largest = 1;
    for (const MemTensor& t : ts) largest = std::max(largest, static_cast<double>(t.bytes));
    double best = 0;
    for (const auto& order : candidate_orders(ts)) {
        double hi = (max.y - min.y) / std::sqrt(largest), lo = 0;
        for (int i = 0; i < 24; ++i) {
            const double mid = (lo + hi) * 0.5;
            (flow(pen, ts, widths, order, min, max, mid, pen.em * 1.2f, boxes, compact) ? lo : hi) = mid;
        }
        best = std::max(best, lo);
    }
    return best;
}

// The scale the view draws at: the largest with three label lines, unless shorter labels allow
// squares more than twice as large (a short view, where full labels would leave every tensor at
// its minimum size and S no bigger than Q). At the smallest, whatever overflows is clipped.
double fit_scale(const Pen& pen, const std::vector<MemTensor>& ts, ImVec2 min, ImVec2 max) {
    const std::vector<LabelWidths> widths = label_widths(pen, ts);
    double k = fit_scale_at(pen, ts, widths, min, max, 0);
    for (int compact : {1, 2}) {
        const double shorter = fit_scale_at(pen, ts, widths, min, max, compact);
        if (shorter > 2 * k) k = shorter;
    }
    // The bisection ends on the edge of fitting; the view lays out at another origin, whose
    // rounding may tip it over (then every tensor lost its counters to the short labels).
    return k * 0.995;
}

std::vector<TensorBox> layout_tensors(const Pen& pen, const std::vector<MemTensor>& ts, ImVec2 min, ImVec2 max, double k) {
    std::vector<TensorBox> boxes;
    const auto orders = candidate_orders(ts);
    const std::vector<LabelWidths> widths = label_widths(pen, ts);
    // Three label lines in the schedule's order, then largest first; when neither fits (a short
    // view: side by side at projector fonts), shorter labels, so that every tensor is on screen.
    bool fits = false;
    for (int compact : {0, 1, 2})
        for (const auto& order : orders)
            if (!fits) fits = flow(pen, ts, widths, order, min, max, k, pen.em * 1.2f, boxes, compact);
    if (!fits) flow(pen, ts, widths, orders[1], min, max, k, pen.em * 1.2f, boxes, 2);  // clipped: the shortest labels
    for (size_t i = 0; i < ts.size(); ++i) {
        TensorBox& b = boxes[i];
        b.tiles = ts[i].tile_bytes ? std::max<uint64_t>(1, (ts[i].bytes + ts[i].tile_bytes - 1) / ts[i].tile_bytes) : 1;
        // At most 24 x 24 cells are drawn (and no cell under 4 px): a cell then stands for several tiles.
        const int max_cells = std::clamp(static_cast<int>((b.max.x - b.min.x) / 4.0f), 1, 24);
        const int side = std::clamp(static_cast<int>(std::ceil(std::sqrt(static_cast<double>(b.tiles)))), 1, max_cells);
        b.cells_x = side;
        b.cells_y = std::clamp(static_cast<int>((b.tiles + static_cast<uint64_t>(side) - 1) / static_cast<uint64_t>(side)), 1,
                               max_cells);
    }
    return boxes;
}

// The detailed block's current tile inside a tensor's square.
ImVec2 tile_cell(const TensorBox& b, float at, ImVec2* cell_max) {
    const int cells = b.cells_x * b.cells_y;
    const int index = std::clamp(static_cast<int>(at * static_cast<float>(cells)), 0, cells - 1);
    const float cw = (b.max.x - b.min.x) / static_cast<float>(b.cells_x);
    const float ch = (b.max.y - b.min.y) / static_cast<float>(b.cells_y);
    const ImVec2 cmin(b.min.x + cw * static_cast<float>(index % b.cells_x), b.min.y + ch * static_cast<float>(index / b.cells_x));
    *cell_max = ImVec2(cmin.x + cw, cmin.y + ch);
    return cmin;
}

std::string times_text(uint64_t part, uint64_t whole) {
    return std::to_string(static_cast<double>(part) / static_cast<double>(whole)).substr(0, 5);
}

std::string tensor_tip(const MemTensor& t, const TensorBox& b) {
    if (t.local)
        return "Local memory: each thread's private stack frame, where ptxas puts the registers it could not "
               "keep (a spill). It lives in HBM but is cached in L1 and L2, so spill traffic reaches HBM only "
               "when those caches cannot hold the frames of all resident threads.\n\n" +
               exact_bytes(t.bytes) + " reserved = " + t.formula + "\n\nSpilled so far: " + exact_bytes(t.written) +
               " of " + exact_bytes(t.total_written) + "\nReloaded so far: " + exact_bytes(t.read) + " of " +
               exact_bytes(t.total_read) +
               "\n\nNot in the DRAM counters: how much of it leaves the SM is an estimate (footer); the "
               "measured DRAM bytes say what really reached HBM.";
    std::string s = t.name + " in HBM: " + exact_bytes(t.bytes) + "\n= " + t.formula + "\n\n";
    s += t.input ? "An input: it exists before the kernels run.\n"
                 : "Written by this variant (it exists only because the variant writes it to HBM).\n";
    s += "\nDRAM (what crosses between HBM and L2; the counters measure it):\n";
    s += "  read so far " + exact_bytes(t.dram_read) + " of " + exact_bytes(t.total_dram_read) + "\n";
    s += "  written so far " + exact_bytes(t.dram_written) + " of " + exact_bytes(t.total_dram_written) + "\n";
    s += std::string(kernels::level_name(kernels::TrafficLevel::l2_sm)) + " (what the blocks' loads and stores ask for):\n";
    s += "  read so far " + exact_bytes(t.read) + " of " + exact_bytes(t.total_read) + "\n";
    s += "  written so far " + exact_bytes(t.written) + " of " + exact_bytes(t.total_written) + "\n";
    if (t.total_read > t.bytes && t.bytes) {
        s += "The blocks read it " + times_text(t.total_read, t.bytes) + " times over";
        s += t.total_dram_read < t.total_read ? "; DRAM delivers it " + times_text(t.total_dram_read, t.bytes) +
                                                    " times: the re-reads hit L2.\n"
                                              : ", each time from DRAM.\n";
    }
    s += "\nArea is proportional to bytes. One cell = one block's tile of " + exact_bytes(t.tile_bytes) + " (" +
         count_text(b.tiles) + " tiles" +
         (static_cast<uint64_t>(b.cells_x * b.cells_y) < b.tiles ? "; a drawn cell stands for several" : "") + ").";
    return s;
}

// The scale note beside the box's title: the longest wording that fits, or none (its tooltip
// says it all).
void draw_hbm_title(const Pen& pen, ImVec2 min, ImVec2 max, bool enlarged) {
    const std::string label = kernels::level_name(kernels::TrafficLevel::dram);  // the HBM stacks: one word per level
    const ImVec2 at(min.x + pen.em * 0.4f, min.y + pen.em * 0.2f);
    const LabelRect r = pen.label(at, pen.c.text, label, min, max, "HBM title", bold_font());
    const float note_x = r.x1 + pen.em;
    const std::string note = pen.first_fitting({enlarged ? "area ~ bytes (smallest enlarged to be seen)" : "area ~ bytes",
                                                "area ~ bytes"},
                                               max.x - note_x - pen.em * 0.4f);
    pen.label(ImVec2(note_x, at.y), pen.c.text_dim, note, min, max, "HBM scale note");
    pen.tip(min, ImVec2(max.x, min.y + pen.em * 1.3f),
            "High-bandwidth memory, the GPU's DRAM: large and far. What crosses between it and L2 is what the "
            "DRAM counters measure; the counters under each tensor add up the bytes the L2 reuse model sends "
            "through DRAM so far (the L2 -> SM bytes, often several times more, are in the footer and each "
            "tensor's tooltip).\nArea is proportional to bytes" +
                std::string(enlarged ? "; tensors too small to see are drawn at a minimum size." : "."));
}

void draw_tensor_square(const Pen& pen, const MemTensor& t, const TensorBox& b, bool current, bool from_dram) {
    const ImU32 col = tensor_color(t.series);
    const float w = b.max.x - b.min.x, h = b.max.y - b.min.y;
    if (t.input) {
        pen.draw->AddRectFilled(b.min, b.max, with_alpha(col, 0.55f));
    } else if (t.bytes) {  // fills top-down as it is written: S and P appear in HBM
        const uint64_t written = t.local ? t.written : t.dram_written;
        const float f = static_cast<float>(std::min(1.0, static_cast<double>(written) / static_cast<double>(t.bytes)));
        pen.draw->AddRectFilled(b.min, ImVec2(b.max.x, b.min.y + h * f), with_alpha(col, 0.75f));
    }
    if (b.cells_x * b.cells_y > 1 && w / static_cast<float>(b.cells_x) >= 4.0f) {
        const ImU32 grid = with_alpha(pen.c.background, 0.45f);
        for (int x = 1; x < b.cells_x; ++x) {
            const float gx = b.min.x + w * static_cast<float>(x) / static_cast<float>(b.cells_x);
            pen.draw->AddLine(ImVec2(gx, b.min.y), ImVec2(gx, b.max.y), grid);
        }
        for (int y = 1; y < b.cells_y; ++y) {
            const float gy = b.min.y + h * static_cast<float>(y) / static_cast<float>(b.cells_y);
            pen.draw->AddLine(ImVec2(b.min.x, gy), ImVec2(b.max.x, gy), grid);
        }
    }
    pen.draw->AddRect(b.min, b.max, col, 0, 0, std::max(1.0f, pen.em * 0.1f));
    // The current tile's cell is lit only when its bytes cross DRAM: a hit leaves HBM alone.
    if (current && from_dram) {
        ImVec2 cmax;
        const ImVec2 cmin = tile_cell(b, t.tile_at, &cmax);
        pen.draw->AddRect(ImVec2(cmin.x - 1, cmin.y - 1), ImVec2(cmax.x + 1, cmax.y + 1), accent(pen.theme), 0, 0,
                          std::max(2.0f, pen.em * 0.15f));
    }
}

void draw_tensor_labels(const Pen& pen, const MemTensor& t, const TensorBox& b, ImVec2 area_min, ImVec2 area_max,
                        bool current, bool loading) {
    // A label the layout could not fit inside the HBM box (many small tensors at projector fonts:
    // decode's split counters beside its cache) is left out rather than drawn over the L2 box;
    // the square's tooltip still names the tensor and its bytes.
    if (b.label.y + pen.em > area_max.y) return;
    if (b.label_inside) {
        const float lw = b.compact ? pen.width(tensor_label(t, b.compact), bold_font())
                                   : std::max({pen.width(tensor_label(t), bold_font()), pen.width(read_label(t)),
                                               pen.width(written_label(t))});
        pen.draw->AddRectFilled(ImVec2(b.label.x - 3, b.label.y - 2),
                                ImVec2(b.label.x + lw + 3, b.label.y + pen.em * (b.compact ? 1.3f : 3.5f)),
                                with_alpha(pen.c.background, 0.8f), pen.em * 0.2f);
    }
    // The name shortens ("local (sp...", the tooltip has it whole) where even the flow's shortest
    // labels leave a column narrower than it (two views side by side at projector fonts).
    pen.label_fit(b.label, current && b.compact ? accent(pen.theme) : pen.c.text, tensor_label(t, b.compact),
                  area_max.x - b.label.x, area_min, area_max, "HBM tensor", bold_font());
    if (b.compact) return;
    const ImU32 lit = accent(pen.theme);
    pen.label(ImVec2(b.label.x, b.label.y + pen.em * 1.15f), current && loading ? lit : pen.c.text_dim, read_label(t),
              area_min, area_max, "HBM tensor");
    pen.label(ImVec2(b.label.x, b.label.y + pen.em * 2.3f), current && !loading ? lit : pen.c.text_dim, written_label(t),
              area_min, area_max, "HBM tensor");
}

void draw_hbm(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d, std::vector<TensorBox>& boxes) {
    pen.draw->AddRectFilled(min, max, with_alpha(pen.c.grid, 0.35f), pen.em * 0.3f);
    pen.draw->AddRect(min, max, pen.c.axis, pen.em * 0.3f);
    const ImVec2 area_min(min.x + pen.em * 0.5f, min.y + pen.em * 1.5f), area_max(max.x - pen.em * 0.5f, max.y - pen.em * 0.2f);
    const double k = d.hbm_scale > 0 ? d.hbm_scale : fit_scale(pen, d.tensors, area_min, area_max);
    boxes = layout_tensors(pen, d.tensors, area_min, area_max, k);
    bool enlarged = false;
    for (const MemTensor& t : d.tensors) enlarged = enlarged || k * std::sqrt(static_cast<double>(t.bytes)) < pen.em * 1.2f;
    draw_hbm_title(pen, min, max, enlarged);
    // Only the bytes that cross DRAM light HBM up: a load served by L2 leaves it dark.
    const bool from_dram = moves_local(d) || d.event_dram_bytes > 0;
    for (size_t i = 0; i < d.tensors.size(); ++i) {
        const MemTensor& t = d.tensors[i];
        const TensorBox& b = boxes[i];
        const bool current = moves_data(d) && static_cast<int>(i) == d.tensor && from_dram;
        draw_tensor_square(pen, t, b, moves_data(d) && static_cast<int>(i) == d.tensor, from_dram);
        draw_tensor_labels(pen, t, b, min, max, current, d.kind == kernels::EventKind::load);
        pen.tip(b.min, ImVec2(b.min.x + b.col_w, std::max(b.max.y, b.label.y + pen.em * (b.compact ? 1.2f : 3.4f))),
                tensor_tip(t, b));
    }
}

// =============================================================================================
// [SECTION] L2
// =============================================================================================
// Where the L2's drawing put things the moving tile needs: the current tensor's place on the bar.
struct L2Boxes {
    ImVec2 bar_min, bar_max;
    ImVec2 tile = ImVec2(0, 0);  // the current tensor's segment centre (the bar's centre if none)
};

// The current kernel's data against the L2's size: "8.00 MiB = 16% of L2" / "512 MiB = 10x L2".
uint64_t l2_data_bytes(const MemoryViewData& d) {
    uint64_t sum = 0;
    for (size_t t : d.l2_tensors) sum += d.tensors.at(t).bytes;
    return sum;
}
std::string l2_share_text(const MemoryViewData& d) {
    if (!d.l2_bytes) return "";
    const double share = static_cast<double>(l2_data_bytes(d)) / static_cast<double>(d.l2_bytes);
    if (share < 1.0) return std::to_string(static_cast<int>(std::lround(share * 100))) + "% of L2";
    char text[32];
    std::snprintf(text, sizeof text, "%.1fx L2", share);
    return text;
}

std::string l2_tip(const MemoryViewData& d) {
    std::string names;
    for (size_t t : d.l2_tensors) names += (names.empty() ? "" : ", ") + d.tensors[t].name + " " + bytes_text(d.tensors[t].bytes);
    std::string s = "L2: " + (d.l2_bytes ? exact_bytes(d.l2_bytes) : std::string("size not reported")) +
                    " on chip, between HBM and all " + std::to_string(d.sm_count) +
                    " SMs. Every byte an SM loads or stores passes through it; only what L2 does not hold "
                    "crosses to DRAM.\n\nThe bar: this kernel's tensors (" + (names.empty() ? "none" : names) +
                    ") against the L2's size; the tick marks half of it. Blocks that run at the same time share "
                    "the tiles they re-read whatever the size; an intermediate stays for the next kernel only "
                    "when it fits in that half.";
    if (!d.l2_note.empty()) s += "\n\n" + d.l2_note;
    if (moves_data(d) && !moves_local(d)) {
        s += "\n\nThis step: " + bytes_text(d.event_l2_bytes) + " between L2 and the SMs, " + bytes_text(d.event_dram_bytes) +
             (d.kind == kernels::EventKind::load ? " of it brought from DRAM (" : " of it written back to DRAM (") +
             dram_tag(d).full + ")";
        if (!d.event_dram_rule.empty()) s += ".\nRule: " + d.event_dram_rule;
    }
    return s;
}

// The bar: capacity along its length, the kernel's tensors stacked from its start (clipped at
// the end when they are more than the L2), a tick at half. Upright bars fill from the bottom.
L2Boxes draw_l2_bar(const Pen& pen, ImVec2 a, ImVec2 z, const MemoryViewData& d, bool upright) {
    L2Boxes out{a, z, center(a, z)};
    pen.draw->AddRectFilled(a, z, with_alpha(pen.c.background, 0.9f));
    const float len = upright ? z.y - a.y : z.x - a.x;
    const double capacity = static_cast<double>(std::max<uint64_t>(d.l2_bytes, 1));
    const auto segment = [&](float from, float to) {
        return upright ? std::make_pair(ImVec2(a.x, z.y - to), ImVec2(z.x, z.y - from))
                       : std::make_pair(ImVec2(a.x + from, a.y), ImVec2(a.x + to, z.y));
    };
    float at = 0;
    for (size_t t : d.l2_tensors) {
        const MemTensor& m = d.tensors[t];
        const float w = static_cast<float>(static_cast<double>(m.bytes) / capacity) * len;
        const float end = std::min(at + std::max(w, 1.0f), len);
        if (end > at) {
            const auto [smin, smax] = segment(at, end);
            const bool current = moves_data(d) && static_cast<int>(t) == d.tensor;
            pen.draw->AddRectFilled(smin, smax, with_alpha(tensor_color(m.series), current ? 0.9f : 0.55f));
            if (current) {
                pen.draw->AddRect(smin, smax, accent(pen.theme), 0, 0, std::max(2.0f, pen.em * 0.15f));
                out.tile = center(smin, smax);
            }
        }
        at = end;
    }
    const float half = len * 0.5f;
    const auto [hmin, hmax] = segment(half, half);
    pen.draw->AddLine(hmin, hmax, pen.c.text_dim, std::max(1.5f, pen.em * 0.1f));
    pen.draw->AddRect(a, z, pen.c.axis);
    return out;
}

// The hit-or-miss tag of a moving tile, the longest wording that fits `room`.
std::string l2_tag(const Pen& pen, const MemoryViewData& d, float room) {
    if (!moves_data(d) || moves_local(d)) return "";
    const Tag tag = dram_tag(d);
    return pen.first_fitting({tag.full, tag.brief}, room, bold_font());
}

// A band across the view: its name and size, the tag and the kernel's share on one line, the
// bar under them.
L2Boxes draw_l2_band(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d) {
    const float y = min.y + pen.em * 0.12f, x_end = max.x - pen.em * 0.4f;
    ImVec2 at(min.x + pen.em * 0.4f, y);
    const std::string size = d.l2_bytes ? bytes_text(d.l2_bytes) : std::string("(size unknown)");
    const LabelRect name = pen.label(at, pen.c.text, pen.first_fitting({"L2 cache " + size, "L2 " + size, "L2"}, x_end - at.x, bold_font()),
                                     min, max, "L2", bold_font());
    at.x = name.x1 + pen.em;
    const std::string share = l2_share_text(d);
    const std::string data = pen.first_fitting({"kernel's data " + bytes_text(l2_data_bytes(d)) + " = " + share, share},
                                               x_end - at.x);
    const float data_x = x_end - pen.width(data);
    const std::string tag = l2_tag(pen, d, data_x - at.x - pen.em);
    pen.label(at, accent(pen.theme), tag, min, max, "L2 tag", bold_font());
    pen.label(ImVec2(data_x, y), pen.c.text_dim, data, min, max, "L2 data");
    const ImVec2 bar_min(min.x + pen.em * 0.4f, y + pen.em * 1.2f), bar_max(max.x - pen.em * 0.4f, max.y - pen.em * 0.2f);
    return draw_l2_bar(pen, bar_min, ImVec2(bar_max.x, std::max(bar_max.y, bar_min.y + 2)), d, false);
}

// An upright column (side by side): name, size, then the bar, the kernel's share and the tag
// under it, each on its own line.
L2Boxes draw_l2_column(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d) {
    const float x = min.x + pen.em * 0.3f, room = max.x - min.x - pen.em * 0.6f, line = pen.em * 1.2f;
    const std::string size = d.l2_bytes ? bytes_text(d.l2_bytes) : std::string("?");
    pen.label(ImVec2(x, min.y + pen.em * 0.2f), pen.c.text, pen.first_fitting({"L2 cache", "L2"}, room, bold_font()), min, max,
              "L2", bold_font());
    pen.label_fit(ImVec2(x, min.y + pen.em * 0.2f + line), pen.c.text, size, room, min, max, "L2");
    const float bottom = max.y - pen.em * 0.2f;
    std::string tag = l2_tag(pen, d, room);
    std::string share = pen.first_fitting({l2_share_text(d)}, room);
    float y = bottom - line * static_cast<float>((tag.empty() ? 0 : 1) + (share.empty() ? 0 : 1));
    const float bar_top = min.y + pen.em * 0.2f + line * 2 + pen.em * 0.2f, bar_bottom = y - pen.em * 0.2f;
    L2Boxes out{};
    if (bar_bottom - bar_top > pen.em) {
        const float bar_w = std::min(room, pen.em * 2.2f);
        const float bx = min.x + (max.x - min.x - bar_w) * 0.5f;
        out = draw_l2_bar(pen, ImVec2(bx, bar_top), ImVec2(bx + bar_w, bar_bottom), d, true);
    } else {
        out = {ImVec2(x, bar_top), ImVec2(x + room, std::max(bar_bottom, bar_top)), ImVec2(center(min, max))};
        y = bar_top;
        // No room for the bar, and perhaps not for both lines under it: the share goes first (the
        // tooltip and the band's wider form have it), then the moving tile's hit-or-miss tag.
        const auto lines_left = [&] { return static_cast<int>((bottom - y) / line); };
        if (lines_left() < (tag.empty() ? 0 : 1) + (share.empty() ? 0 : 1)) share.clear();
        if (lines_left() < (tag.empty() ? 0 : 1)) tag.clear();
    }
    pen.label(ImVec2(x, y), pen.c.text_dim, share, min, max, "L2 data");
    if (!share.empty()) y += line;
    pen.label(ImVec2(x, y), accent(pen.theme), tag, min, max, "L2 tag", bold_font());
    return out;
}

L2Boxes draw_l2(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d, bool upright) {
    const bool moving = moves_data(d) && !moves_local(d);
    pen.draw->AddRectFilled(min, max, with_alpha(moving ? accent(pen.theme) : pen.c.grid, moving ? 0.18f : 0.5f), pen.em * 0.3f);
    pen.draw->AddRect(min, max, pen.c.axis, pen.em * 0.3f);
    const L2Boxes out = upright ? draw_l2_column(pen, min, max, d) : draw_l2_band(pen, min, max, d);
    pen.tip(min, max, l2_tip(d));
    return out;
}

// =============================================================================================
// [SECTION] SMs
// =============================================================================================
// Shared memory of the detailed SM, to scale: the bar's full width is the per-block limit;
// parts beyond it overflow the SM box in red.
void draw_shared_memory(const Pen& pen, ImVec2 min, ImVec2 max, float overflow_room, const MemoryViewData& d,
                        ImVec2 sm_min, ImVec2 sm_max) {
    const float w = max.x - min.x;
    // The box is the per-block limit. When the working set overflows it, the scale shrinks so the
    // whole set (limit included) fits the SM plus the room beside it.
    const bool to_scale = d.on_chip == kernels::OnChip::shared_memory && d.sram_needed > 0 && d.smem_limit > 0;
    const double px_per_byte =
        to_scale ? std::min(static_cast<double>(w) / static_cast<double>(d.smem_limit),
                            static_cast<double>(w + overflow_room) / static_cast<double>(d.sram_needed))
                 : 0.0;
    const float limit_x = to_scale ? min.x + static_cast<float>(static_cast<double>(d.smem_limit) * px_per_byte) : max.x;
    pen.draw->AddRectFilled(min, ImVec2(limit_x, max.y), with_alpha(pen.c.background, 0.9f));
    pen.draw->AddRect(min, ImVec2(limit_x, max.y), pen.c.axis);
    const std::string limit = d.smem_limit ? bytes_text(d.smem_limit) : std::string("?");
    pen.tip(min, max, "Shared memory: on-chip SRAM of one SM, " + exact_bytes(d.smem_limit) +
                          " per block with opt-in (" + exact_bytes(d.smem_default) + " without). The bar's width is "
                          "that limit; the working set is drawn to the same scale.\n\n" + d.on_chip_note);
    const ImVec2 text_at(min.x + pen.em * 0.3f, min.y + pen.em * 0.1f);
    const float room = w - pen.em * 0.4f;
    if (d.on_chip == kernels::OnChip::library) {
        for (float x = min.x; x < max.x; x += pen.em * 0.6f)
            pen.draw->AddLine(ImVec2(x, max.y), ImVec2(std::min(x + (max.y - min.y), max.x), min.y), with_alpha(pen.c.grid, 0.9f));
        const std::string s = pen.first_fitting({"shared mem " + limit + "/block: cuBLAS tiles", "smem: cuBLAS tiles", "cuBLAS tiles"}, room);
        const ImVec2 sz = pen.text_size(s);
        pen.draw->AddRectFilled(text_at, ImVec2(text_at.x + sz.x, text_at.y + sz.y), with_alpha(pen.c.background, 0.9f));
        pen.label(text_at, pen.c.text, s, min, max, "shared memory");
        return;
    }
    if (d.on_chip == kernels::OnChip::registers || d.sram_needed == 0 || d.smem_limit == 0) {
        pen.label(text_at, pen.c.text_dim, pen.first_fitting({"shared mem " + limit + "/block: not used", "smem: not used", "not used"}, room),
                  min, max, "shared memory");
        return;
    }
    float x = min.x;
    const float bar_top = min.y + pen.em * 1.2f;
    for (const MemSramPart& part : d.sram) {
        const float pw = static_cast<float>(static_cast<double>(part.bytes) * px_per_byte);
        const float clipped_end = std::min(x + pw, max.x + overflow_room);
        const ImVec2 pmin(x, bar_top), pmax(std::max(clipped_end, x + 1), max.y);
        const bool over = x + pw > limit_x + 0.5f;
        const ImU32 col = part.touched ? accent(pen.theme) : part.series >= 0 ? tensor_color(part.series) : pen.c.text_dim;
        pen.draw->AddRectFilled(pmin, pmax, with_alpha(col, part.touched ? 0.85f : 0.55f));
        pen.draw->AddRect(pmin, pmax, pen.c.background);
        if (pmax.x - pmin.x > pen.width(part.name) + 4 && pmax.y - pmin.y >= pen.em)
            pen.label(ImVec2(pmin.x + 2, pmin.y + (pmax.y - pmin.y - pen.em) * 0.5f), text_color_on(col), part.name, pmin, pmax,
                      "shared memory part");
        pen.tip(pmin, pmax, part.name + ": " + exact_bytes(part.bytes) + "\n= " + part.formula +
                                (over ? "\n\nThis part lies beyond the SM's limit." : ""));
        x += pw;
    }
    const bool overflows = d.sram_needed > d.smem_limit;
    const std::string uses = bytes_text(d.sram_needed);
    const float need_room = room + (overflows ? overflow_room : 0);
    const std::string need = pen.first_fitting({"shared mem " + limit + "/block, uses " + uses, "smem " + limit + ", uses " + uses,
                                                "uses " + uses + " of " + limit, "uses " + uses},
                                               need_room);
    pen.label(ImVec2(text_at.x, min.y + pen.em * 0.05f), overflows ? overflow_color(pen.theme) : pen.c.text, need, sm_min,
              ImVec2(sm_max.x + overflow_room, sm_max.y), "shared memory");
    if (overflows) {
        const float end = std::min(x, max.x + overflow_room);
        pen.draw->AddRect(ImVec2(limit_x, bar_top), ImVec2(end, max.y), overflow_color(pen.theme), 0, 0, std::max(2.0f, pen.em * 0.15f));
        pen.draw->AddLine(ImVec2(limit_x, min.y - pen.em * 0.2f), ImVec2(limit_x, max.y + pen.em * 0.2f),
                          overflow_color(pen.theme), std::max(3.0f, pen.em * 0.2f));
        const std::string ratio = std::to_string(static_cast<double>(d.sram_needed) / static_cast<double>(d.smem_limit)).substr(0, 4);
        const std::string msg = pen.first_fitting({"does not fit: " + ratio + "x the limit", "does not fit: " + ratio + "x",
                                                   ratio + "x the limit"},
                                                  need_room, bold_font());
        pen.label(ImVec2(text_at.x, max.y + pen.em * 0.15f), overflow_color(pen.theme), msg, sm_min,
                  ImVec2(sm_max.x + overflow_room, sm_max.y), "shared memory", bold_font());
        pen.tip(ImVec2(limit_x, bar_top), ImVec2(end, max.y),
                "The working set needs " + exact_bytes(d.sram_needed) + ", the SM allows " + exact_bytes(d.smem_limit) +
                    " per block: the kernel cannot launch. Choose smaller Br, Bc or a 2-byte dtype.");
    }
}

// What the registers hold, in the longest wording that fits the box (side by side at projector
// fonts it is narrow).
std::string registers_text(const Pen& pen, const MemoryViewData& d, float room) {
    const bool spills = d.local_total > 0 && d.stack_bytes > 0;
    if (spills) {
        const std::string regs = std::to_string(d.registers), stack = std::to_string(d.stack_bytes);
        return pen.first_fitting({"registers: " + regs + "/thread, spill " + stack + " B/thread", "regs " + regs + ", spill " + stack + " B",
                                  "spill " + stack + " B", "spill"},
                                 room);
    }
    if (d.on_chip == kernels::OnChip::registers) {
        std::string parts;
        for (const MemSramPart& p : d.sram) parts += (parts.empty() ? "" : ", ") + p.name + " " + bytes_text(p.bytes);
        return pen.first_fitting({"registers: " + parts, "registers", "regs"}, room);
    }
    if (d.on_chip == kernels::OnChip::shared_memory)
        return pen.first_fitting({"registers: each thread's slice of Sij, Oi", "registers: slices of Sij, Oi", "registers", "regs"}, room);
    return pen.first_fitting({"registers", "regs"}, room);
}

void draw_registers(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d) {
    pen.draw->AddRectFilled(min, max, with_alpha(pen.c.background, 0.9f));
    pen.draw->AddRect(min, max, pen.c.axis);
    const bool spills = d.local_total > 0 && d.stack_bytes > 0;
    const bool spills_out = spills && d.spill_beyond_l1 > 0;  // L1 cannot hold the resident threads' frames
    ImU32 text_col = pen.c.text;
    if (spills) {
        const ImU32 col = spills_out ? overflow_color(pen.theme) : accent(pen.theme);
        pen.draw->AddRect(min, max, col, 0, 0, std::max(2.0f, pen.em * 0.15f));
        if (pen.theme == Theme::dark || spills_out) text_col = col;
    }
    pen.label(ImVec2(min.x + pen.em * 0.3f, center(min, max).y - pen.em * 0.5f), text_col,
              registers_text(pen, d, max.x - min.x - pen.em * 0.6f), min, max, "registers");
    std::string tip = "Registers: the fastest storage, private to each thread.";
    if (d.on_chip == kernels::OnChip::shared_memory) tip += " Each thread keeps its slice of Sij and Oi here.";
    if (spills)
        tip += "\n\n" + std::to_string(d.registers) + " registers per thread are too few for what this kernel holds: "
               "ptxas keeps " + std::to_string(d.stack_bytes) + " B per thread in local memory instead (a spill). " +
               (spills_out ? "The frames of all resident threads are more than L1 holds: the red footer line says how "
                             "much of the spill traffic leaves the SM."
                           : "L1 holds the frames of all resident threads, so the spills stay on chip.");
    for (const MemSramPart& p : d.sram)
        if (d.on_chip == kernels::OnChip::registers) tip += "\n" + p.name + ": " + exact_bytes(p.bytes) + " per block (" + p.formula + ")";
    pen.tip(min, max, tip + "\n\n" + d.on_chip_note);
}

struct SmBoxes {
    ImVec2 detail_min, detail_max;
    ImVec2 smem_min, smem_max;
    ImVec2 reg_min, reg_max;
};

void draw_detail_title(const Pen& pen, ImVec2 min, float detail_w, ImVec2 box_max, bool computing, const MemoryViewData& d) {
    // The full title when it fits the box, else the short one (side by side at projector fonts).
    const float room = detail_w - pen.em * 0.8f;
    const std::string title = pen.first_fitting({"SM 0: the block we follow", "SM 0 (followed)", "SM 0"}, room, bold_font());
    const LabelRect r = pen.label(ImVec2(min.x + pen.em * 0.4f, min.y + pen.em * 0.2f), pen.c.text, title, min, box_max,
                                  "SM 0", bold_font());
    const std::string f = d.event_flops > 0 ? kernels::format_flops(d.event_flops) + " / block" : "computing";
    const float fx = min.x + detail_w - pen.em * 0.5f - pen.width(f);
    if (computing && fx > (r.empty() ? min.x : r.x1) + pen.em)
        pen.label(ImVec2(fx, min.y + pen.em * 0.2f), accent(pen.theme), f, min, box_max, "SM 0");
}

// The other SMs: same step, other blocks; counted, not drawn in detail.
void draw_other_sms(const Pen& pen, ImVec2 min, ImVec2 max, int others, const MemoryViewData& d, bool computing) {
    const float gap = pen.em * 0.5f;
    const float ow = (max.x - min.x - gap * static_cast<float>(others - 1)) / static_cast<float>(others);
    if (ow < pen.em * 3) return;
    const uint64_t busy = d.has_event ? std::min<uint64_t>(d.repeat, static_cast<uint64_t>(std::max(d.sm_count, 1))) : 0;
    const ImU32 lit = with_alpha(accent(pen.theme), 0.22f);
    // "+255 blocks" along the bottom: the line the boxes' own labels must stay above.
    const std::string more = d.has_event && d.repeat > 1 ? "+" + count_text(d.repeat - 1) : "";
    const std::string more_text = more.empty() ? "" : pen.first_fitting({more + " blocks", more}, max.x - min.x - pen.em * 0.5f, bold_font());
    for (int i = 0; i < others; ++i) {
        const ImVec2 a(min.x + static_cast<float>(i) * (ow + gap), min.y), b(a.x + ow, max.y);
        const bool active = static_cast<uint64_t>(i + 1) < busy;
        pen.draw->AddRectFilled(a, b, active && computing ? lit : with_alpha(pen.c.grid, active ? 0.35f : 0.15f), pen.em * 0.3f);
        pen.draw->AddRect(a, b, with_alpha(pen.c.axis, active ? 1.0f : 0.4f), pen.em * 0.3f);
        const std::string name = i + 1 == others && d.sm_count > others + 1
                                     ? "SM " + std::to_string(i + 1) + ".." + std::to_string(d.sm_count - 1)
                                     : "SM " + std::to_string(i + 1);
        const float room = ow - pen.em * 0.5f;
        const float label_bottom = more_text.empty() ? b.y : b.y - pen.em * 1.5f;
        if (a.y + pen.em * 1.2f <= label_bottom)
            pen.label_fit(ImVec2(a.x + pen.em * 0.3f, a.y + pen.em * 0.2f), pen.c.text_dim, name, room, a, b, "other SMs");
        if (a.y + pen.em * 2.5f <= label_bottom)
            pen.label(ImVec2(a.x + pen.em * 0.3f, a.y + pen.em * 1.5f), pen.c.text_dim,
                      pen.first_fitting({active ? "same step" : "idle", active ? "same" : "idle"}, room), a, b, "other SMs");
        pen.tip(a, b, d.kernel_persistent
                          ? "Other SMs run other blocks. This step is done for " + count_text(d.repeat) + " row blocks in all (" +
                                count_text(d.kernel_blocks) + " in the kernel, walked by one block per SM of " +
                                std::to_string(d.sm_count) + ", each taking its row blocks in turn): they are counted in the "
                                "byte counters, not drawn."
                          : "Other SMs run other blocks. This step is done by " + count_text(d.repeat) + " identical blocks in all (" +
                                count_text(d.kernel_blocks) + " in the kernel, " + std::to_string(d.sm_count) +
                                " SMs): they are counted in the byte counters, not drawn.");
    }
    pen.label(ImVec2(min.x + pen.em * 0.3f, max.y - pen.em * 1.4f), pen.c.text, more_text, min, max, "other SMs", bold_font(),
              more_text == more + " blocks" ? "" : more + " blocks");
}

SmBoxes draw_sms(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d) {
    SmBoxes out;
    const float w = max.x - min.x, gap = pen.em * 0.5f;
    const bool computing = d.has_event && d.kind == kernels::EventKind::compute;
    const int others = std::clamp(static_cast<int>((w * 0.35f) / (pen.em * 4.5f)), 1, 3);
    const float overflow_room = d.sram_needed > d.smem_limit && d.on_chip == kernels::OnChip::shared_memory ? w * 0.32f : 0.0f;
    const float detail_w = overflow_room > 0 ? w * 0.48f : w * 0.62f;
    out.detail_min = min;
    out.detail_max = ImVec2(min.x + detail_w, max.y);
    const ImU32 lit = with_alpha(accent(pen.theme), 0.22f);
    pen.draw->AddRectFilled(out.detail_min, out.detail_max, computing ? lit : with_alpha(pen.c.grid, 0.35f), pen.em * 0.3f);
    pen.draw->AddRect(out.detail_min, out.detail_max, computing ? accent(pen.theme) : pen.c.axis, pen.em * 0.3f, 0,
                      computing ? std::max(2.0f, pen.em * 0.18f) : 1.0f);
    draw_detail_title(pen, min, detail_w, out.detail_max, computing, d);
    const float inner_x0 = min.x + pen.em * 0.5f, inner_x1 = out.detail_max.x - pen.em * 0.5f;
    const float top = min.y + pen.em * 1.6f, bottom = max.y - pen.em * 0.4f;
    // Registers along the bottom, one line tall; shared memory above them, with a line between
    // for the "does not fit" message; spare height goes to the shared-memory bar.
    const float reg_h = pen.em * 1.4f;
    const ImVec2 reg_min(inner_x0, bottom - reg_h), reg_max(inner_x1, bottom);
    out.smem_min = ImVec2(inner_x0, top);
    out.smem_max = ImVec2(inner_x1, std::max(top + pen.em * 2.4f, reg_min.y - pen.em * 1.4f));
    out.reg_min = reg_min;
    out.reg_max = reg_max;
    draw_registers(pen, reg_min, reg_max, d);
    draw_shared_memory(pen, out.smem_min, out.smem_max, overflow_room, d, out.detail_min, out.detail_max);
    pen.tip(out.detail_min, ImVec2(out.detail_max.x, out.detail_min.y + pen.em * 1.5f),
            "A streaming multiprocessor running the block this animation follows. " + d.kernel +
                (computing ? "\nComputing now: " + kernels::format_flops(d.event_flops * static_cast<double>(d.repeat)) +
                                 " over all blocks in this step."
                           : "") +
                (d.total_shared ? "\nShared memory so far, all blocks: " + exact_bytes(d.shared) + " of " + exact_bytes(d.total_shared)
                                : ""));
    draw_other_sms(pen, ImVec2(out.detail_max.x + gap + overflow_room, min.y), max, others, d, computing);
    return out;
}

// =============================================================================================
// [SECTION] The moving tile
// =============================================================================================
// The tile's path: a load crosses HBM -> L2 when its bytes come from DRAM, then L2 -> SM (a hit
// starts in L2); a store goes SM -> L2, then L2 -> HBM when it is written back. Register spills
// go between the SM and local memory directly (through L1 and L2, which the model does not split).
std::vector<ImVec2> flight_path(const MemoryViewData& d, ImVec2 hbm, ImVec2 l2, ImVec2 chip) {
    const bool load = d.kind == kernels::EventKind::load;
    if (moves_local(d)) return load ? std::vector<ImVec2>{hbm, chip} : std::vector<ImVec2>{chip, hbm};
    const bool dram = d.event_dram_bytes > 0;
    if (load) return dram ? std::vector<ImVec2>{hbm, l2, chip} : std::vector<ImVec2>{l2, chip};
    return dram ? std::vector<ImVec2>{chip, l2, hbm} : std::vector<ImVec2>{chip, l2};
}

// The point `t` (0..1) along a path whose legs take equal time.
ImVec2 along(const std::vector<ImVec2>& path, float t) {
    const float legs = static_cast<float>(path.size() - 1);
    const float at = std::clamp(t, 0.0f, 1.0f) * legs;
    const size_t leg = std::min(static_cast<size_t>(at), path.size() - 2);
    return lerp(path[leg], path[leg + 1], at - static_cast<float>(leg));
}

// The tile's label beside it, at the first spot no other label covers inside the body; none
// when there is no such spot (the header says what moves, the tooltip how many bytes).
void draw_flight_label(const Pen& pen, const std::string& label, ImVec2 a, ImVec2 z, ImVec2 body_min, ImVec2 body_max) {
    const ImVec2 size = pen.text_size(label, bold_font());
    const float g = pen.em * 0.3f, pad = 2;
    const float mid_y = (a.y + z.y - size.y) * 0.5f, mid_x = (a.x + z.x - size.x) * 0.5f;
    const ImVec2 spots[] = {{z.x + g, a.y}, {a.x - g - size.x, a.y}, {z.x + g, mid_y},           {a.x - g - size.x, mid_y},
                            {mid_x, a.y - g - size.y}, {mid_x, z.y + g}, {z.x + g, z.y + g},   {a.x - g - size.x, a.y - g - size.y}};
    std::vector<LabelRect> candidates;
    for (const ImVec2& s : spots) candidates.push_back({s.x - pad, s.y - 1, s.x + size.x + pad, s.y + size.y + 1});
    const int pick = pen.labels ? pen.labels->first_free(candidates, rect_of(body_min, body_max)) : 0;
    if (pick < 0) return;
    const LabelRect& r = candidates[static_cast<size_t>(pick)];
    pen.draw->AddRectFilled(ImVec2(r.x0, r.y0), ImVec2(r.x1, r.y1), with_alpha(pen.c.background, 0.9f), pen.em * 0.2f);
    pen.label(ImVec2(r.x0 + pad, r.y0 + 1), pen.c.text, label, body_min, body_max, "moving tile", bold_font());
}

void draw_flight(const Pen& pen, const MemoryViewData& d, const std::vector<TensorBox>& boxes, const L2Boxes& l2,
                 const SmBoxes& sm, ImVec2 hbm_min, ImVec2 hbm_max, ImVec2 body_min, ImVec2 body_max) {
    if (!moves_data(d) || static_cast<size_t>(d.tensor) >= boxes.size()) return;
    const MemTensor& t = d.tensors[static_cast<size_t>(d.tensor)];
    const TensorBox& b = boxes[static_cast<size_t>(d.tensor)];
    ImVec2 cmax;
    const ImVec2 cmin = tile_cell(b, t.tile_at, &cmax);
    const ImVec2 cell = center(cmin, cmax);
    // Kept inside the HBM box: a tensor the layout had to clip must not pull the flight over the footer.
    const ImVec2 hbm(std::clamp(cell.x, hbm_min.x, hbm_max.x), std::clamp(cell.y, hbm_min.y, hbm_max.y));
    // Tiles land where the kernel keeps them: shared memory, or registers (elementwise, softmax).
    const ImVec2 chip = d.on_chip == kernels::OnChip::registers ? center(sm.reg_min, sm.reg_max) : center(sm.smem_min, sm.smem_max);
    const std::vector<ImVec2> path = flight_path(d, hbm, l2.tile, chip);
    const ImU32 line = with_alpha(accent(pen.theme), 0.6f);
    for (size_t i = 0; i + 1 < path.size(); ++i) pen.draw->AddLine(path[i], path[i + 1], line, std::max(1.5f, pen.em * 0.1f));
    const float side = std::max(pen.em * 1.1f, std::min(cmax.x - cmin.x, pen.em * 2.0f));
    const ImVec2 at = along(path, d.flight);
    const ImVec2 a(at.x - side * 0.5f, at.y - side * 0.5f), z(at.x + side * 0.5f, at.y + side * 0.5f);
    pen.draw->AddRectFilled(a, z, tensor_color(t.series));
    pen.draw->AddRect(a, z, accent(pen.theme), 0, 0, std::max(2.0f, pen.em * 0.15f));
    const bool load = d.kind == kernels::EventKind::load;
    const std::string label = (t.local ? (load ? "reload " : "spill ") : (load ? "load " : "store ")) + bytes_text(d.event_bytes);
    draw_flight_label(pen, label, a, z, body_min, body_max);
    pen.tip(a, z, label + " per block, x " + count_text(d.repeat) + " blocks = " + exact_bytes(d.event_bytes * d.repeat) +
                      (t.local ? (load ? " reloaded from local memory (through L1 and L2)" : " spilled to local memory (through L1 and L2)")
                               : (load ? " read from L2; " : " written to L2; ") + exact_bytes(d.event_dram_bytes) +
                                     (load ? " of it brought from DRAM (" : " of it written back to DRAM (") + dram_tag(d).full + ")"));
}

// =============================================================================================
// [SECTION] Footer
// =============================================================================================
struct LevelCounter {
    std::string name;           // the level's word (kernels/core/levels.h)
    uint64_t so_far = 0, total = 0;
    std::string tip;
};

std::vector<LevelCounter> level_counters(const MemoryViewData& d) {
    std::vector<LevelCounter> out;
    out.push_back({kernels::level_name(kernels::TrafficLevel::dram), d.dram_read + d.dram_written, d.total_dram_read + d.total_dram_written,
                   "DRAM <-> L2, all blocks so far: read " + exact_bytes(d.dram_read) + " of " + exact_bytes(d.total_dram_read) +
                       ", written " + exact_bytes(d.dram_written) + " of " + exact_bytes(d.total_dram_written) +
                       ". What the L2 reuse model sends through DRAM: the bytes the DRAM counters measure, the results "
                       "table's \"DRAM bytes (model)\".\n\n" + d.l2_note});
    out.push_back({kernels::level_name(kernels::TrafficLevel::l2_sm), d.read + d.written, d.total_read + d.total_written,
                   "L2 <-> SM, all blocks so far: read " + exact_bytes(d.read) + " of " + exact_bytes(d.total_read) + ", written " +
                       exact_bytes(d.written) + " of " + exact_bytes(d.total_written) +
                       ". The loads and stores the kernels ask for; at the last step they equal the model's L2 <-> SM "
                       "totals. DRAM sees less where blocks running together share a tile or an intermediate stays in L2."});
    out.push_back({"shared mem", d.shared, d.total_shared,
                   "On chip: shared-memory bytes of all blocks so far, " + exact_bytes(d.shared) + " of " +
                       exact_bytes(d.total_shared) + ", counted as the banks serve them (128 B per warp wavefront). "
                       "Kernels that keep their tiles in registers, or cuBLAS (whose tiles the model does not know), "
                       "count none."});
    return out;
}

// Two lines per level: its name, then "so far / total" in the longest form that fits its column.
void draw_level_counters(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d) {
    const std::vector<LevelCounter> levels = level_counters(d);
    const float col_w = (max.x - min.x) / static_cast<float>(levels.size()), room = col_w - pen.em * 0.6f;
    for (size_t i = 0; i < levels.size(); ++i) {
        const LevelCounter& l = levels[i];
        const ImVec2 a(min.x + col_w * static_cast<float>(i), min.y), z(a.x + col_w, min.y + pen.em * 2.5f);
        pen.label_fit(a, pen.c.text, l.name, room, a, z, "level counters", bold_font());
        const std::string value = pen.first_fitting({bytes_text(l.so_far) + " of " + bytes_text(l.total),
                                                     bytes_text(l.so_far) + " / " + bytes_text(l.total), bytes_text(l.so_far)},
                                                    room);
        pen.label(ImVec2(a.x, a.y + pen.em * 1.2f), pen.c.text, value, a, z, "level counters");
        pen.tip(a, z, l.tip);
    }
}

// The level counters, then the spill line and the notes: under the counters, or in a column
// beside them (notes_beside: a wide view, where height is what the diagram lacks).
void draw_footer(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d, bool notes_beside) {
    const float counters_w = notes_beside ? (max.x - min.x) * kCountersShare : max.x - min.x;
    draw_level_counters(pen, min, ImVec2(min.x + counters_w, max.y), d);
    if (notes_beside) min.x += counters_w + pen.em * 0.5f;
    float y = notes_beside ? min.y : min.y + pen.em * 2.5f;
    const float w = max.x - min.x;
    if (d.local_total > 0) {
        const std::string spills =
            "spills: " + bytes_text(d.local_read + d.local_written) + " of " + bytes_text(d.local_total) +
            " to and from local memory, " +
            (d.spill_beyond_l1 > 0 ? "~" + std::to_string(static_cast<int>(std::lround(d.spill_beyond_l1 * 100))) +
                                         "% past L1 (estimate)"
                                   : std::string("L1 holds it (estimate)"));
        pen.label_fit(ImVec2(min.x, y), d.spill_beyond_l1 > 0 ? overflow_color(pen.theme) : pen.c.text_dim, spills, w, min, max,
                      "footer");
        pen.tip(ImVec2(min.x, y), ImVec2(max.x, y + pen.em * 1.2f),
                spills + "\nRegister spills so far: " + exact_bytes(d.local_written) + " spilled, " + exact_bytes(d.local_read) +
                    " reloaded, " + exact_bytes(d.local_total) + " in the whole run.\n\n" + d.spill_note +
                    "\n\nA fused kernel that spills is an unfused kernel in disguise: the intermediates it kept "
                    "out of HBM come back as local-memory traffic.");
        y += pen.em * 1.25f;
    }
    for (size_t i = 0; i < d.notes.size(); ++i) {
        pen.label_fit(ImVec2(min.x, y), pen.c.text_dim, d.notes[i], w, min, max, "footer");
        pen.tip(ImVec2(min.x, y), ImVec2(max.x, y + pen.em * 1.2f),
                d.notes[i] + "\n" + (i < d.note_tips.size() ? d.note_tips[i] : std::string()));
        y += pen.em * 1.25f;
    }
}

// The diagram's "em": the UI font size, so its labels grow with the font scale, unless the view
// is too small for 22 of them across or for its header, footer and the least body side by side
// down (projector fonts on a small window); never below kMinViewLabelPx, what the back of a room
// still reads (the panel gives the view the room for that: app/gui/panel_memory.cpp).
float view_em(ImVec2 size, const MemoryViewData& d) {
    const float ui = ImGui::GetFontSize(), smallest = std::min(ui, kMinViewLabelPx);
    const auto fit = [&](bool compact) {
        // Compact: the step beside the title and the notes beside the counters, where the view is wide.
        const float down = header_em(2, compact) + footer_em(d, compact) + kGapEm + kWideBodyEm;
        return std::max(std::min({ui, size.x / 22.0f, size.y / down}), smallest);
    };
    const float em = fit(true);
    const Pen pen{nullptr, chart_colors(d.theme), d.theme, em, false};
    // The compact header and footer only where their width conditions hold at that size.
    if (notes_beside(em, size.x) && title_beside(pen, size.x, d)) return em;
    return fit(false);
}

}  // namespace

// =============================================================================================
// [SECTION] The view, the byte race
// =============================================================================================
void draw_memory_view(ImDrawList* draw, ImVec2 origin, ImVec2 size, const MemoryViewData& d) {
    const float em = view_em(size, d);
    if (size.x < em * 8 || size.y < em * 10) return;
    LabelLayout labels("memory " + d.title);
    ImDrawListSplitter layers;
    layers.Split(draw, kLayerCount);
    layers.SetCurrentChannel(draw, kShapesLayer);
    const Pen pen{draw, chart_colors(d.theme), d.theme, em, d.interactive, &labels, &layers};
    draw->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
    const Boxes b = layout(pen, origin, size, d);
    const LabelRect view = rect_of(origin, ImVec2(origin.x + size.x, origin.y + size.y));
    labels.add_part("header", rect_of(b.header_min, b.header_max), view);
    labels.add_part("HBM", rect_of(b.hbm_min, b.hbm_max), view);
    labels.add_part("L2", rect_of(b.l2_min, b.l2_max), view);
    labels.add_part("SMs", rect_of(b.sms_min, b.sms_max), view);
    labels.add_part("footer", rect_of(b.footer_min, b.footer_max), view);
    draw_header(pen, b, d);
    std::vector<TensorBox> boxes;
    draw->PushClipRect(b.hbm_min, b.hbm_max, true);  // at the smallest scale the flow may overflow
    draw_hbm(pen, b.hbm_min, b.hbm_max, d, boxes);
    draw->PopClipRect();
    const L2Boxes l2 = draw_l2(pen, b.l2_min, b.l2_max, d, b.wide);
    const SmBoxes sm = draw_sms(pen, b.sms_min, b.sms_max, d);
    draw_flight(pen, d, boxes, l2, sm, b.hbm_min, b.hbm_max, b.hbm_min, b.sms_max);
    draw_footer(pen, b.footer_min, b.footer_max, d, b.notes_beside);
    draw->PopClipRect();
    record_labels(labels);
    // Lesson highlight: the ring drawn just inside the part, so the view's edges never clip it,
    // over the shapes and under the words.
    layers.SetCurrentChannel(draw, kRingLayer);
    const auto ring = [&](ImVec2 a, ImVec2 z) {
        const float in = em * 0.35f;
        draw_highlight_ring(draw, ImVec2(a.x + in, a.y + in), ImVec2(z.x - in, z.y - in), em, d.highlight_pulse);
    };
    if (d.highlight == "memory.hbm") ring(b.hbm_min, b.hbm_max);
    if (d.highlight == "memory.l2") ring(b.l2_min, b.l2_max);
    if (d.highlight == "memory.sram") ring(b.sms_min, b.sms_max);
    if (d.highlight == "memory.footer") ring(b.footer_min, b.footer_max);
    layers.Merge(draw);
}

double memory_view_hbm_scale(ImVec2 size, const MemoryViewData& d) {
    const float em = view_em(size, d);
    const Pen pen{nullptr, chart_colors(d.theme), d.theme, em, false};
    const Boxes b = layout(pen, ImVec2(0, 0), size, d);
    return fit_scale(pen, d.tensors, ImVec2(b.hbm_min.x + em * 0.5f, b.hbm_min.y + em * 1.5f),
                     ImVec2(b.hbm_max.x - em * 0.5f, b.hbm_max.y - em * 0.2f));
}

float byte_race_em(float height) {
    return std::min(ImGui::GetFontSize(), std::max(kBaseFontPx, height / 30.0f));
}

float byte_race_height(size_t views, float em) {
    if (em <= 0) em = ImGui::GetFontSize();
    return em * (1.6f * static_cast<float>(views) + 0.4f);
}

void draw_byte_race(ImDrawList* draw, ImVec2 origin, ImVec2 size, const std::vector<const MemoryViewData*>& views,
                    float race_em) {
    if (views.empty()) return;
    const float em = race_em > 0 ? race_em : ImGui::GetFontSize();
    const Theme theme = views[0]->theme;
    LabelLayout labels("byte race");
    const Pen pen{draw, chart_colors(theme), theme, em, views[0]->interactive, &labels};
    const ImVec2 box_max(origin.x + size.x, origin.y + size.y);
    uint64_t scale = 1;
    float label_w = 0;
    for (const MemoryViewData* v : views) {
        if (v->refusal.empty()) scale = std::max(scale, v->total_dram_read + v->total_dram_written);
        label_w = std::max(label_w, pen.width(v->title, bold_font()));
    }
    label_w += em;
    const float value_w = pen.width("000.0 MiB of 000.0 MiB DRAM") + em;
    const float bar_w = size.x - label_w - value_w;
    if (bar_w < em * 4) return;
    for (size_t i = 0; i < views.size(); ++i) {
        const MemoryViewData& v = *views[i];
        const float y = origin.y + em * 0.2f + static_cast<float>(i) * em * 1.6f;
        pen.label(ImVec2(origin.x, y), pen.c.text, v.title, origin, box_max, "title", bold_font());
        const ImVec2 a(origin.x + label_w, y), z(a.x + bar_w, y + em * 1.2f);
        const auto x_of = [&](uint64_t bytes) {
            return a.x + static_cast<float>(static_cast<double>(bytes) / static_cast<double>(scale)) * bar_w;
        };
        const uint64_t total = v.total_dram_read + v.total_dram_written;
        draw->AddRectFilled(a, z, with_alpha(pen.c.grid, 0.4f));
        if (!v.refusal.empty()) {  // it never runs: no bar, no total to race to
            pen.label(ImVec2(a.x + em * 0.3f, y), overflow_color(theme), "refused on this device", origin, box_max, "value", bold_font());
            pen.tip(a, z, v.title + " is refused on this device: " + v.refusal);
            continue;
        }
        const ImU32 col = series_color(static_cast<int>(i), theme);
        draw->AddRectFilled(a, ImVec2(x_of(v.dram_read), z.y), col);
        draw->AddRectFilled(ImVec2(x_of(v.dram_read), a.y), ImVec2(x_of(v.dram_read + v.dram_written), z.y), with_alpha(col, 0.55f));
        draw->AddLine(ImVec2(x_of(total), a.y - 2), ImVec2(x_of(total), z.y + 2), pen.c.text, 2.0f);
        pen.label(ImVec2(z.x + em * 0.5f, y), pen.c.text, bytes_text(v.dram_read + v.dram_written) + " of " + bytes_text(total) + " DRAM",
                  origin, box_max, "value");
        pen.tip(a, z, v.title + ": DRAM bytes moved so far, by the L2 reuse model (solid: read " + exact_bytes(v.dram_read) +
                          "; light: written " + exact_bytes(v.dram_written) + "). The tick marks its total, " + exact_bytes(total) +
                          ".\nBetween L2 and the SMs it moves " + exact_bytes(v.read + v.written) + " so far, " +
                          exact_bytes(v.total_read + v.total_written) +
                          " in all.\nBoth variants run on one clock of modeled time: the shorter bar at the end moved fewer "
                          "DRAM bytes, the one that finishes first is the faster.");
    }
    record_labels(labels);
}

}  // namespace viz
