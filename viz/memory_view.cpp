// [SECTION] Data: a player step -> plain data
// [SECTION] Drawing helpers: text, tooltips, colours
// [SECTION] Layout: header, HBM, L2, SMs, footer
// [SECTION] HBM: tensors as grids of tiles
// [SECTION] L2 band and SMs (shared memory to scale, registers)
// [SECTION] The moving tile, the footer, the byte race
#include "viz/memory_view.h"

#include "kernels/common/format.h"
#include "viz/highlight.h"
#include "viz/palette.h"
#include "viz/theme.h"

#include <algorithm>
#include <cmath>

namespace viz {

// =============================================================================================
// [SECTION] Data
// =============================================================================================
MemoryViewData memory_view_data(const kernels::MemoryPlayer& player, size_t step, float flight,
                                const kernels::DeviceInfo& device, Theme theme) {
    MemoryViewData d;
    step = std::min(step, player.step_count());
    d.title = player.variant();
    d.device = device.name;
    d.simulated = device.simulated;
    d.l2_bytes = static_cast<uint64_t>(std::max<int64_t>(device.l2_bytes, 0));
    d.sm_count = device.sm_count;
    d.smem_limit = static_cast<uint64_t>(std::max(device.smem_per_block_optin, device.smem_per_block));
    d.smem_default = static_cast<uint64_t>(std::max(device.smem_per_block, 0));
    d.step = step;
    d.step_count = player.step_count();
    d.flight = std::clamp(flight, 0.0f, 1.0f);
    d.theme = theme;
    for (size_t t = 0; t < player.tensors().size(); ++t) {
        const kernels::HbmTensor& h = player.tensors()[t];
        MemTensor m{h.name, h.formula, h.bytes, player.read_after(step, t), player.written_after(step, t),
                    h.total_read, h.total_written, h.tile_bytes, h.input, 0, static_cast<int>(t), h.local};
        if (h.local) {
            // What the GPU reserves: a stack frame for every thread that can be resident.
            const kernels::ScheduleKernel& k = player.schedule().kernels.at(static_cast<size_t>(h.kernel));
            const int resident = kernels::resident_threads_per_sm(k.threads_per_block, k.registers.registers, device);
            m.bytes = h.stack_bytes_per_thread * static_cast<uint64_t>(resident) *
                      static_cast<uint64_t>(std::max(device.sm_count, 1));
            m.name = "local (spills)";
            m.formula = "stack frame x resident threads per SM x SMs = " + std::to_string(h.stack_bytes_per_thread) +
                        " B x " + std::to_string(resident) + " x " + std::to_string(device.sm_count) +
                        ": the local memory the GPU reserves for this kernel (" + h.formula + ")";
        }
        if (m.bytes) {
            const uint64_t at = player.detail_offset_before(step, t) % m.bytes;
            m.tile_at = static_cast<float>(static_cast<double>(at) / static_cast<double>(m.bytes));
        }
        d.tensors.push_back(m);
    }
    const size_t last = player.step_count();
    d.read = player.total_read_after(step);
    d.written = player.total_written_after(step);
    d.total_read = player.total_read_after(last);
    d.total_written = player.total_written_after(last);
    d.local_read = player.local_read_after(step);
    d.local_written = player.local_written_after(step);
    d.local_total = player.local_read_after(last) + player.local_written_after(last);
    const kernels::TileEvent* current = player.current_event(step);
    const size_t current_kernel = current ? static_cast<size_t>(current->kernel) : 0;
    if (current_kernel < player.schedule().kernels.size()) {
        const kernels::RegisterUse& r = player.schedule().kernels[current_kernel].registers;
        d.registers = r.registers;
        d.stack_bytes = r.stack_bytes;
    }
    if (d.local_total > 0) {
        const kernels::ModelSpills spills = kernels::model_spills(player.model(), device);
        d.spill_note = spills.note;
        if (current_kernel < spills.per_kernel.size()) d.spill_beyond_l1 = spills.per_kernel[current_kernel].beyond_l1;
    }
    // Before the first step the first kernel's working set is shown, empty-handed.
    const kernels::TileEvent* e = player.current_event(step);
    const int kernel = e ? e->kernel : 0;
    if (e) {
        d.has_event = true;
        d.kind = e->kind;
        d.tensor = player.tensor_index(e->buffer);
        d.event_bytes = e->bytes;
        d.repeat = e->repeat;
        d.event_flops = e->flops;
        d.what = e->what;
        // "ᵀ" is not in every UI font: write the transpose the way a keyboard does.
        for (size_t at = d.what.find("\u1D40"); at != std::string::npos; at = d.what.find("\u1D40"))
            d.what.replace(at, std::string("\u1D40").size(), "^T");
    } else {
        d.what = "ready: nothing has moved yet (press play or step forward)";
    }
    const auto& kernels_list = player.schedule().kernels;
    if (!kernels_list.empty()) {
        const kernels::ScheduleKernel& k = kernels_list[static_cast<size_t>(kernel)];
        d.kernel_blocks = k.blocks;
        d.kernel = "kernel " + std::to_string(kernel + 1) + " of " + std::to_string(kernels_list.size()) + ": " +
                   k.name + ", " + kernels::format_count(static_cast<int64_t>(k.blocks)) +
                   (k.threads_per_block ? " blocks"
                    : " " + (k.blocks_are.empty() ? std::string("units (the library picks its blocks)") : k.blocks_are));
    }
    d.on_chip = player.on_chip(kernel);
    d.on_chip_note = player.on_chip_note(kernel);
    for (const kernels::SramPart& part : player.sram_parts(kernel)) {
        bool touched = false;
        if (e && e->kind == kernels::EventKind::compute) touched = true;
        else if (e && !e->buffer.empty()) touched = part.name.rfind(e->buffer, 0) == 0;
        d.sram.push_back({part.name, part.formula, part.bytes, touched});
        d.sram_needed += part.bytes;
    }
    return d;
}

// =============================================================================================
// [SECTION] Drawing helpers
// =============================================================================================
namespace {

using kernels::format_bytes;

std::string bytes_text(uint64_t b) { return format_bytes(static_cast<double>(b)); }
std::string exact_bytes(uint64_t b) {
    return kernels::format_count(static_cast<int64_t>(b)) + " bytes (" + bytes_text(b) + ")";
}

struct Pen {
    ImDrawList* draw;
    ChartColors c;
    Theme theme;
    float em;
    bool interactive;

    // Text drawn at this font's size times em / the UI font size: the diagram shrinks as a whole
    // when a large projector font would not leave it room.
    float px(ImFont* f) const { return f->FontSize * em / ImGui::GetFontSize(); }
    ImVec2 text_size(const std::string& s, ImFont* font = nullptr) const {
        ImFont* f = font ? font : ImGui::GetFont();
        return f->CalcTextSizeA(px(f), FLT_MAX, 0, s.c_str());
    }
    void text(ImVec2 at, ImU32 col, const std::string& s, ImFont* font = nullptr) const {
        ImFont* f = font ? font : ImGui::GetFont();
        draw->AddText(f, px(f), at, col, s.c_str());
    }
    // Text that must stay inside max_w: cut with an ellipsis.
    void text_fit(ImVec2 at, ImU32 col, std::string s, float max_w, ImFont* font = nullptr) const {
        if (max_w <= 0) return;
        while (s.size() > 1 && text_size(s, font).x > max_w) {
            s.pop_back();
            while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole UTF-8
            if (text_size(s + "...", font).x <= max_w) {
                s += "...";
                break;
            }
        }
        text(at, col, s, font);
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

ImU32 with_alpha(ImU32 col, float alpha) {
    const ImU32 a = static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f);
    return (col & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}
ImU32 accent(Theme t) { return t == Theme::dark ? rgb(0xF0E442) : rgb(0xD55E00); }
ImU32 overflow_color(Theme t) { return t == Theme::dark ? rgb(0xFF5C5C) : rgb(0xC00000); }
ImVec2 lerp(ImVec2 a, ImVec2 b, float t) { return ImVec2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t); }
ImVec2 center(ImVec2 a, ImVec2 b) { return ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f); }

// The tensor colours skip the palette's yellow: it is the accent (current tile, lit SM).
ImU32 tensor_color(int i, Theme t) {
    static constexpr int kOrder[] = {0, 1, 2, 4, 5, 6, 7};
    return series_color(kOrder[i % 7], t);
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
};

Boxes layout(ImVec2 o, ImVec2 size, const MemoryViewData& d, float em) {
    Boxes b;
    const float line = em * 1.25f;
    const float header_h = heading_font()->FontSize * (em / ImGui::GetFontSize()) * 1.2f + line * 2.2f;
    const float footer_h = line * static_cast<float>(1 + d.notes.size() + (d.local_total > 0 ? 1 : 0)) + em * 0.3f;
    const float l2_h = line * 1.3f;
    const float gap = em * 0.4f;
    b.header_min = o;
    b.header_max = ImVec2(o.x + size.x, o.y + header_h);
    b.footer_min = ImVec2(o.x, o.y + size.y - footer_h);
    b.footer_max = ImVec2(o.x + size.x, o.y + size.y);
    const float body_h = size.y - header_h - footer_h - gap;
    if (size.x > body_h * 3.0f) {
        // Wide and short (a projector font on a small window, or side by side): HBM | L2 | SMs
        // left to right, so the squares keep the height they need.
        const float l2_w = em * 5.5f;
        const float hbm_w = (size.x - l2_w - gap * 2) * 0.52f;
        b.hbm_min = ImVec2(o.x, b.header_max.y);
        b.hbm_max = ImVec2(o.x + hbm_w, b.header_max.y + body_h);
        b.l2_min = ImVec2(b.hbm_max.x + gap, b.hbm_min.y);
        b.l2_max = ImVec2(b.l2_min.x + l2_w, b.hbm_max.y);
        b.sms_min = ImVec2(b.l2_max.x + gap, b.hbm_min.y);
        b.sms_max = ImVec2(o.x + size.x, b.hbm_max.y);
        return b;
    }
    const float rest = std::max(size.y - header_h - footer_h - l2_h - gap * 3, em * 6);
    const float hbm_h = rest * 0.66f;
    b.hbm_min = ImVec2(o.x, b.header_max.y);
    b.hbm_max = ImVec2(o.x + size.x, b.hbm_min.y + hbm_h);
    b.l2_min = ImVec2(o.x, b.hbm_max.y + gap);
    b.l2_max = ImVec2(o.x + size.x, b.l2_min.y + l2_h);
    b.sms_min = ImVec2(o.x, b.l2_max.y + gap);
    b.sms_max = ImVec2(o.x + size.x, o.y + size.y - footer_h - gap);
    return b;
}

void draw_header(const Pen& pen, const Boxes& b, const MemoryViewData& d) {
    const float w = b.header_max.x - b.header_min.x;
    ImVec2 at = b.header_min;
    const std::string title = d.title + (d.simulated ? "  (model; simulated GPU)" : "  (model)");
    pen.text_fit(at, pen.c.text, title, w, heading_font());
    pen.tip(at, ImVec2(at.x + pen.text_size(title, heading_font()).x, at.y + pen.px(heading_font())),
            "The variant's tile schedule from the model (kernels/), the same loop as its CUDA kernel. One thread "
            "block is followed in detail; the other blocks doing the same step are counted in the byte counters.");
    at.y += pen.px(heading_font()) * 1.2f;
    const std::string step = "step " + std::to_string(d.step) + " / " + std::to_string(d.step_count) +
                             (d.kernel.empty() ? "" : "  |  " + d.kernel);
    pen.text_fit(at, pen.c.text_dim, step, w);
    pen.tip(at, ImVec2(at.x + w, at.y + pen.em), "Each step is one event of the schedule (a load, a compute or a "
                                                  "store of one block); " +
                                                      std::to_string(d.step_count) + " steps in all.");
    at.y += pen.em * 1.25f;
    const ImU32 what_col = d.has_event ? accent(pen.theme) : pen.c.text_dim;
    std::string what = d.what;
    if (d.has_event && d.repeat > 1) what += "   x " + kernels::format_count(static_cast<int64_t>(d.repeat)) + " blocks";
    pen.text_fit(at, pen.theme == Theme::dark ? what_col : pen.c.text, what, w, bold_font());
    pen.tip(at, ImVec2(at.x + w, at.y + pen.em), d.what + (d.has_event ? "\n\nOne block moves " +
                                                                             exact_bytes(d.event_bytes) + "; " +
                                                                             kernels::format_count(static_cast<int64_t>(d.repeat)) +
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
std::string read_label(const MemTensor& t) { return (t.local ? "reloaded " : "read ") + bytes_text(t.read); }
std::string written_label(const MemTensor& t) { return (t.local ? "spilled " : "wrote ") + bytes_text(t.written); }

// Flow layout: squares whose area is proportional to bytes (k px per sqrt(byte), at least
// min_side), rows wrapping. A square with room for its three label lines carries them inside,
// a smaller one to its right. Returns false when the flow overflows the area at this scale.
bool flow(const Pen& pen, const std::vector<MemTensor>& ts, const std::vector<size_t>& order, ImVec2 min, ImVec2 max,
          double k, float min_side, std::vector<TensorBox>& out, int compact = 0) {
    out.assign(ts.size(), {});
    const float gap = pen.em * 0.8f, line = pen.em * 1.15f, label_h = line * (compact ? 1 : 3);
    float x = min.x, y = min.y, row_h = 0;
    bool fits = true;
    for (size_t i : order) {
        const float side = std::max(min_side, static_cast<float>(k * std::sqrt(static_cast<double>(ts[i].bytes))));
        const float label_w = compact ? pen.text_size(tensor_label(ts[i], compact)).x
                                      : std::max({pen.text_size(tensor_label(ts[i])).x, pen.text_size(read_label(ts[i])).x,
                                                  pen.text_size(written_label(ts[i])).x});
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

// The largest scale (px per sqrt(byte)) at which some order's flow fits (bisection); at the
// smallest, whatever overflows is clipped.
double fit_scale(const Pen& pen, const std::vector<MemTensor>& ts, ImVec2 min, ImVec2 max) {
    std::vector<TensorBox> boxes;
    double largest = 1;
    for (const MemTensor& t : ts) largest = std::max(largest, static_cast<double>(t.bytes));
    double best = 0;
    for (const auto& order : candidate_orders(ts)) {
        double hi = (max.y - min.y) / std::sqrt(largest), lo = 0;
        for (int i = 0; i < 24; ++i) {
            const double mid = (lo + hi) * 0.5;
            (flow(pen, ts, order, min, max, mid, pen.em * 1.2f, boxes) ? lo : hi) = mid;
        }
        best = std::max(best, lo);
    }
    return best;
}

std::vector<TensorBox> layout_tensors(const Pen& pen, const std::vector<MemTensor>& ts, ImVec2 min, ImVec2 max, double k) {
    std::vector<TensorBox> boxes;
    const auto orders = candidate_orders(ts);
    // Three label lines in the schedule's order, then largest first; when neither fits (a short
    // view: side by side at projector fonts), shorter labels, so that every tensor is on screen.
    bool fits = false;
    for (int compact : {0, 1, 2})
        for (const auto& order : orders)
            if (!fits) fits = flow(pen, ts, order, min, max, k, pen.em * 1.2f, boxes, compact);
    if (!fits) flow(pen, ts, orders[1], min, max, k, pen.em * 1.2f, boxes);  // clipped: the fullest labels
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

std::string tensor_tip(const MemTensor& t, const TensorBox& b) {
    if (t.local)
        return "Local memory: each thread's private stack frame, where ptxas puts the registers it could not "
               "keep (a spill). It lives in HBM but is cached in L1 and L2, so spill traffic reaches HBM only "
               "when those caches cannot hold the frames of all resident threads.\n\n" +
               exact_bytes(t.bytes) + " reserved = " + t.formula + "\n\nSpilled so far: " + exact_bytes(t.written) +
               " of " + exact_bytes(t.total_written) + "\nReloaded so far: " + exact_bytes(t.read) + " of " +
               exact_bytes(t.total_read) +
               "\n\nNot in the HBM counters below: how much of it leaves the SM is an estimate (footer); the "
               "measured DRAM bytes say what really reached HBM.";
    std::string s = t.name + " in HBM: " + exact_bytes(t.bytes) + "\n= " + t.formula + "\n\n";
    s += t.input ? "An input: it exists before the kernels run.\n"
                 : "Written by this variant (it exists only because the variant writes it to HBM).\n";
    s += "Read so far: " + exact_bytes(t.read) + " of " + exact_bytes(t.total_read) + "\n";
    s += "Written so far: " + exact_bytes(t.written) + " of " + exact_bytes(t.total_written) + "\n";
    if (t.total_read > t.bytes && t.bytes)
        s += "Read " + std::to_string(static_cast<double>(t.total_read) / static_cast<double>(t.bytes)).substr(0, 5) +
             " times over: each block streams it again.\n";
    s += "\nArea is proportional to bytes. One cell = one block's tile of " + exact_bytes(t.tile_bytes) + " (" +
         kernels::format_count(static_cast<int64_t>(b.tiles)) + " tiles" +
         (static_cast<uint64_t>(b.cells_x * b.cells_y) < b.tiles ? "; a drawn cell stands for several" : "") + ").";
    return s;
}

void draw_hbm(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d, std::vector<TensorBox>& boxes) {
    pen.draw->AddRectFilled(min, max, with_alpha(pen.c.grid, 0.35f), pen.em * 0.3f);
    pen.draw->AddRect(min, max, pen.c.axis, pen.em * 0.3f);
    const std::string label = "HBM (GPU memory)";
    pen.text(ImVec2(min.x + pen.em * 0.4f, min.y + pen.em * 0.2f), pen.c.text, label, bold_font());
    pen.tip(min, ImVec2(min.x + pen.text_size(label, bold_font()).x + pen.em, min.y + pen.em * 1.3f),
            "High-bandwidth memory: large and far. Every byte a kernel reads or writes here costs bandwidth; the "
            "counters under each tensor add up the bytes all blocks moved so far.");
    const ImVec2 area_min(min.x + pen.em * 0.5f, min.y + pen.em * 1.5f), area_max(max.x - pen.em * 0.5f, max.y - pen.em * 0.2f);
    const double k = d.hbm_scale > 0 ? d.hbm_scale : fit_scale(pen, d.tensors, area_min, area_max);
    boxes = layout_tensors(pen, d.tensors, area_min, area_max, k);
    // Say how to read the squares; tensors too small to see are drawn at a minimum size.
    bool enlarged = false;
    for (const MemTensor& t : d.tensors) enlarged = enlarged || k * std::sqrt(static_cast<double>(t.bytes)) < pen.em * 1.2f;
    const std::string scale_note = enlarged ? "area ~ bytes (smallest enlarged to be seen)" : "area ~ bytes";
    const float note_x = min.x + pen.em * 0.4f + pen.text_size(label, bold_font()).x + pen.em;
    pen.text_fit(ImVec2(note_x, min.y + pen.em * 0.2f), pen.c.text_dim, scale_note, max.x - note_x - pen.em * 0.4f);
    for (size_t i = 0; i < d.tensors.size(); ++i) {
        const MemTensor& t = d.tensors[i];
        const TensorBox& b = boxes[i];
        const ImU32 col = tensor_color(t.series, pen.theme);
        const float w = b.max.x - b.min.x, h = b.max.y - b.min.y;
        if (t.input) {
            pen.draw->AddRectFilled(b.min, b.max, with_alpha(col, 0.55f));
        } else if (t.bytes) {  // fills top-down as it is written: S and P appear in HBM
            const float f = static_cast<float>(std::min(1.0, static_cast<double>(t.written) / static_cast<double>(t.bytes)));
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
        if (d.has_event && static_cast<int>(i) == d.tensor) {
            ImVec2 cmax;
            const ImVec2 cmin = tile_cell(b, t.tile_at, &cmax);
            pen.draw->AddRect(ImVec2(cmin.x - 1, cmin.y - 1), ImVec2(cmax.x + 1, cmax.y + 1), accent(pen.theme), 0, 0,
                              std::max(2.0f, pen.em * 0.15f));
        }
        if (b.label_inside) {
            const float lw = std::max({pen.text_size(tensor_label(t), bold_font()).x, pen.text_size(read_label(t)).x,
                                       pen.text_size(written_label(t)).x});
            pen.draw->AddRectFilled(ImVec2(b.label.x - 3, b.label.y - 2),
                                    ImVec2(b.label.x + lw + 3, b.label.y + pen.em * (b.compact ? 1.3f : 3.5f)),
                                    with_alpha(pen.c.background, 0.8f), pen.em * 0.2f);
        }
        const bool moving = d.has_event && static_cast<int>(i) == d.tensor;
        pen.text(b.label, moving && b.compact ? accent(pen.theme) : pen.c.text, tensor_label(t, b.compact), bold_font());
        const ImU32 counter = moving ? accent(pen.theme) : pen.c.text_dim;
        const bool is_read = moving && d.kind == kernels::EventKind::load;
        if (!b.compact) {
            pen.text(ImVec2(b.label.x, b.label.y + pen.em * 1.15f), is_read ? counter : pen.c.text_dim, read_label(t));
            pen.text(ImVec2(b.label.x, b.label.y + pen.em * 2.3f), moving && !is_read ? counter : pen.c.text_dim,
                     written_label(t));
        }
        pen.tip(b.min, ImVec2(b.min.x + b.col_w, std::max(b.max.y, b.label.y + pen.em * (b.compact ? 1.2f : 3.4f))),
                tensor_tip(t, b));
    }
}

// =============================================================================================
// [SECTION] L2 band and SMs
// =============================================================================================
void draw_l2(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d) {
    const bool moving = d.has_event && d.kind != kernels::EventKind::compute;
    pen.draw->AddRectFilled(min, max, with_alpha(moving ? accent(pen.theme) : pen.c.grid, moving ? 0.25f : 0.5f),
                            pen.em * 0.3f);
    pen.draw->AddRect(min, max, pen.c.axis, pen.em * 0.3f);
    const std::string size = d.l2_bytes ? bytes_text(d.l2_bytes) : std::string("(size unknown)");
    if (max.y - min.y > max.x - min.x) {  // an upright band: the words stacked
        const std::string lines[] = {"L2 cache", size, "all " + std::to_string(d.sm_count), "SMs share it"};
        float y = center(min, max).y - pen.em * 2.4f;
        for (const std::string& l : lines) {
            pen.text_fit(ImVec2(min.x + pen.em * 0.3f, y), pen.c.text, l, max.x - min.x - pen.em * 0.4f);
            y += pen.em * 1.2f;
        }
    } else {
        const std::string label = "L2 cache  " + size + "  shared by all " + std::to_string(d.sm_count) + " SMs";
        pen.text_fit(ImVec2(min.x + pen.em * 0.4f, center(min, max).y - pen.em * 0.5f), pen.c.text, label,
                     max.x - min.x - pen.em);
    }
    pen.tip(min, max, "L2: " + (d.l2_bytes ? exact_bytes(d.l2_bytes) : std::string("size not reported")) +
                          " on chip, between HBM and every SM. Every HBM byte passes through it; data read again "
                          "while still in L2 (gamma, beta, bias after the first block) costs no HBM traffic, which is "
                          "why the schedule charges those vectors once.");
}

// Shared memory of the detailed SM, to scale: the bar's full width is the per-block limit;
// parts beyond it overflow the SM box in red.
void draw_shared_memory(const Pen& pen, ImVec2 min, ImVec2 max, float overflow_room, const MemoryViewData& d) {
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
    const std::string limit = "shared mem " + (d.smem_limit ? bytes_text(d.smem_limit) : std::string("?")) + "/block";
    pen.tip(min, max, "Shared memory: on-chip SRAM of one SM, " + exact_bytes(d.smem_limit) +
                          " per block with opt-in (" + exact_bytes(d.smem_default) + " without). The bar's width is "
                          "that limit; the working set is drawn to the same scale.\n\n" + d.on_chip_note);
    if (d.on_chip == kernels::OnChip::library) {
        for (float x = min.x; x < max.x; x += pen.em * 0.6f)
            pen.draw->AddLine(ImVec2(x, max.y), ImVec2(std::min(x + (max.y - min.y), max.x), min.y), with_alpha(pen.c.grid, 0.9f));
        pen.text_fit(ImVec2(min.x + pen.em * 0.3f, min.y + pen.em * 0.1f), pen.c.text, limit + ": cuBLAS tiles", w);
        return;
    }
    if (d.on_chip == kernels::OnChip::registers || d.sram_needed == 0 || d.smem_limit == 0) {
        pen.text_fit(ImVec2(min.x + pen.em * 0.3f, min.y + pen.em * 0.1f), pen.c.text_dim, limit + ": not used", w);
        return;
    }
    float x = min.x;
    const float bar_top = min.y + pen.em * 1.2f;
    for (const MemSramPart& part : d.sram) {
        const float pw = static_cast<float>(static_cast<double>(part.bytes) * px_per_byte);
        const float clipped_end = std::min(x + pw, max.x + overflow_room);
        const ImVec2 pmin(x, bar_top), pmax(std::max(clipped_end, x + 1), max.y);
        const bool over = x + pw > limit_x + 0.5f;
        const ImU32 col = part.touched ? accent(pen.theme) : series_color(1, pen.theme);
        pen.draw->AddRectFilled(pmin, pmax, with_alpha(col, part.touched ? 0.85f : 0.55f));
        pen.draw->AddRect(pmin, pmax, pen.c.background);
        if (pmax.x - pmin.x > pen.text_size(part.name).x + 4)
            pen.text(ImVec2(pmin.x + 2, pmin.y + (pmax.y - pmin.y - pen.em) * 0.5f), text_color_on(col), part.name);
        pen.tip(pmin, pmax, part.name + ": " + exact_bytes(part.bytes) + "\n= " + part.formula +
                                (over ? "\n\nThis part lies beyond the SM's limit." : ""));
        x += pw;
    }
    const bool overflows = d.sram_needed > d.smem_limit;
    const std::string need = limit + ", uses " + bytes_text(d.sram_needed);
    pen.text_fit(ImVec2(min.x + pen.em * 0.3f, min.y + pen.em * 0.05f), overflows ? overflow_color(pen.theme) : pen.c.text,
                 need, w + (overflows ? overflow_room : 0));
    if (overflows) {
        const float end = std::min(x, max.x + overflow_room);
        pen.draw->AddRect(ImVec2(limit_x, bar_top), ImVec2(end, max.y), overflow_color(pen.theme), 0, 0, std::max(2.0f, pen.em * 0.15f));
        pen.draw->AddLine(ImVec2(limit_x, min.y - pen.em * 0.2f), ImVec2(limit_x, max.y + pen.em * 0.2f),
                          overflow_color(pen.theme), std::max(3.0f, pen.em * 0.2f));
        const std::string ratio = std::to_string(static_cast<double>(d.sram_needed) / static_cast<double>(d.smem_limit)).substr(0, 4);
        const std::string msg = "does not fit: " + ratio + "x the limit";
        pen.text_fit(ImVec2(min.x + pen.em * 0.3f, max.y + pen.em * 0.15f), overflow_color(pen.theme), msg,
                     w + overflow_room, bold_font());
        pen.tip(ImVec2(limit_x, bar_top), ImVec2(end, max.y),
                "The working set needs " + exact_bytes(d.sram_needed) + ", the SM allows " + exact_bytes(d.smem_limit) +
                    " per block: the kernel cannot launch. Choose smaller Br, Bc or a 2-byte dtype.");
    }
}

void draw_registers(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d) {
    pen.draw->AddRectFilled(min, max, with_alpha(pen.c.background, 0.9f));
    pen.draw->AddRect(min, max, pen.c.axis);
    std::string s = "registers";
    const bool spills = d.local_total > 0 && d.stack_bytes > 0;
    const bool spills_out = spills && d.spill_beyond_l1 > 0;  // L1 cannot hold the resident threads' frames
    if (spills) {
        // The longest wording that fits the box: side by side at projector fonts it is narrow.
        const std::string regs = std::to_string(d.registers), stack = std::to_string(d.stack_bytes);
        const float room = max.x - min.x - pen.em * 0.6f;
        for (const std::string& text : {"registers: " + regs + "/thread, spill " + stack + " B/thread",
                                        "regs " + regs + ", spill " + stack + " B", "spill " + stack + " B"}) {
            s = text;
            if (pen.text_size(s).x <= room) break;
        }
    } else if (d.on_chip == kernels::OnChip::registers)
        for (const MemSramPart& p : d.sram) s += (s == "registers" ? ": " : ", ") + p.name + " " + bytes_text(p.bytes);
    else if (d.on_chip == kernels::OnChip::shared_memory)
        s += ": each thread's slice of Sij, Oi";
    ImU32 text_col = pen.c.text;
    if (spills) {
        const ImU32 col = spills_out ? overflow_color(pen.theme) : accent(pen.theme);
        pen.draw->AddRect(min, max, col, 0, 0, std::max(2.0f, pen.em * 0.15f));
        if (pen.theme == Theme::dark || spills_out) text_col = col;
    }
    pen.text_fit(ImVec2(min.x + pen.em * 0.3f, center(min, max).y - pen.em * 0.5f), text_col, s,
                 max.x - min.x - pen.em * 0.6f);
    std::string tip = "Registers: the fastest storage, private to each thread.";
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
    {
        // The full title when it fits the box, else the short one (side by side at projector fonts).
        const float room = detail_w - pen.em * 0.8f;
        const std::string title = pen.text_size("SM 0: the block we follow", bold_font()).x <= room ? "SM 0: the block we follow"
                                                                                                     : "SM 0 (followed)";
        pen.text_fit(ImVec2(min.x + pen.em * 0.4f, min.y + pen.em * 0.2f), pen.c.text, title, room, bold_font());
    }
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
    draw_shared_memory(pen, out.smem_min, out.smem_max, overflow_room, d);
    const float title_w = pen.text_size("SM 0: the block we follow", bold_font()).x;
    const std::string f = d.event_flops > 0 ? kernels::format_flops(d.event_flops) + " / block" : "computing";
    if (computing && title_w + pen.text_size(f).x + pen.em * 1.5f < detail_w)
        pen.text(ImVec2(inner_x1 - pen.text_size(f).x, min.y + pen.em * 0.2f), accent(pen.theme), f);
    pen.tip(out.detail_min, ImVec2(out.detail_max.x, out.detail_min.y + pen.em * 1.5f),
            "A streaming multiprocessor running the block this animation follows. " + d.kernel +
                (computing ? "\nComputing now: " + kernels::format_flops(d.event_flops * static_cast<double>(d.repeat)) +
                                 " over all blocks in this step."
                           : ""));

    // The other SMs: same step, other blocks; counted, not drawn in detail.
    const float x0 = out.detail_max.x + gap + overflow_room;
    const float ow = (max.x - x0 - gap * static_cast<float>(others - 1)) / static_cast<float>(others);
    if (ow < pen.em * 3) return out;
    const uint64_t busy = d.has_event ? std::min<uint64_t>(d.repeat, static_cast<uint64_t>(std::max(d.sm_count, 1))) : 0;
    for (int i = 0; i < others; ++i) {
        const ImVec2 a(x0 + static_cast<float>(i) * (ow + gap), min.y), b(a.x + ow, max.y);
        const bool active = static_cast<uint64_t>(i + 1) < busy;
        pen.draw->AddRectFilled(a, b, active && computing ? lit : with_alpha(pen.c.grid, active ? 0.35f : 0.15f), pen.em * 0.3f);
        pen.draw->AddRect(a, b, with_alpha(pen.c.axis, active ? 1.0f : 0.4f), pen.em * 0.3f);
        const std::string name = i + 1 == others && d.sm_count > others + 1
                                     ? "SM " + std::to_string(i + 1) + ".." + std::to_string(d.sm_count - 1)
                                     : "SM " + std::to_string(i + 1);
        pen.text_fit(ImVec2(a.x + pen.em * 0.3f, a.y + pen.em * 0.2f), pen.c.text_dim, name, ow - pen.em * 0.5f);
        pen.text_fit(ImVec2(a.x + pen.em * 0.3f, a.y + pen.em * 1.5f), pen.c.text_dim, active ? "same step" : "idle",
                     ow - pen.em * 0.5f);
        pen.tip(a, b, "Other SMs run other blocks. This step is done by " +
                          kernels::format_count(static_cast<int64_t>(d.repeat)) + " identical blocks in all (" +
                          kernels::format_count(static_cast<int64_t>(d.kernel_blocks)) + " in the kernel, " +
                          std::to_string(d.sm_count) + " SMs): they are counted in the byte counters, not drawn.");
    }
    if (d.has_event && d.repeat > 1) {
        const std::string more = "+" + kernels::format_count(static_cast<int64_t>(d.repeat - 1)) + " blocks";
        pen.text_fit(ImVec2(x0 + pen.em * 0.3f, max.y - pen.em * 1.4f), pen.c.text, more, max.x - x0 - pen.em * 0.5f, bold_font());
    }
    return out;
}

// =============================================================================================
// [SECTION] The moving tile, the footer, the byte race
// =============================================================================================
// The tile flies between its cell in HBM (kept inside the HBM box: a tensor the layout had to
// clip must not pull the flight over the footer) and where the kernel keeps it on chip.
void draw_flight(const Pen& pen, const MemoryViewData& d, const std::vector<TensorBox>& boxes, const SmBoxes& sm,
                 ImVec2 hbm_min, ImVec2 hbm_max) {
    if (!d.has_event || d.kind == kernels::EventKind::compute || d.tensor < 0 ||
        static_cast<size_t>(d.tensor) >= boxes.size())
        return;
    const TensorBox& b = boxes[static_cast<size_t>(d.tensor)];
    ImVec2 cmax;
    const ImVec2 cmin = tile_cell(b, d.tensors[static_cast<size_t>(d.tensor)].tile_at, &cmax);
    const ImVec2 cell = center(cmin, cmax);
    const ImVec2 hbm(std::clamp(cell.x, hbm_min.x, hbm_max.x), std::clamp(cell.y, hbm_min.y, hbm_max.y));
    // Tiles land where the kernel keeps them: shared memory, or registers (elementwise, softmax).
    const ImVec2 chip = d.on_chip == kernels::OnChip::registers ? center(sm.reg_min, sm.reg_max) : center(sm.smem_min, sm.smem_max);
    const bool load = d.kind == kernels::EventKind::load;
    const bool local = d.tensors[static_cast<size_t>(d.tensor)].local;
    const ImVec2 from = load ? hbm : chip, to = load ? chip : hbm;
    const ImU32 col = tensor_color(d.tensors[static_cast<size_t>(d.tensor)].series, pen.theme);
    pen.draw->AddLine(from, to, with_alpha(accent(pen.theme), 0.6f), std::max(1.5f, pen.em * 0.1f));
    const float side = std::max(pen.em * 1.1f, std::min(cmax.x - cmin.x, pen.em * 2.0f));
    const ImVec2 at = lerp(from, to, d.flight);
    const ImVec2 a(at.x - side * 0.5f, at.y - side * 0.5f), z(at.x + side * 0.5f, at.y + side * 0.5f);
    pen.draw->AddRectFilled(a, z, col);
    pen.draw->AddRect(a, z, accent(pen.theme), 0, 0, std::max(2.0f, pen.em * 0.15f));
    const std::string label = (local ? (load ? "reload " : "spill ") : (load ? "load " : "store ")) + bytes_text(d.event_bytes);
    const ImVec2 label_at(z.x + pen.em * 0.3f, a.y), label_size = pen.text_size(label, bold_font());
    pen.draw->AddRectFilled(ImVec2(label_at.x - 2, label_at.y - 1), ImVec2(label_at.x + label_size.x + 2, label_at.y + label_size.y + 1),
                            with_alpha(pen.c.background, 0.9f), pen.em * 0.2f);
    pen.text(label_at, pen.c.text, label, bold_font());
    pen.tip(a, z, label + " per block, x " + kernels::format_count(static_cast<int64_t>(d.repeat)) + " blocks = " +
                      exact_bytes(d.event_bytes * d.repeat) +
                      (local ? (load ? " reloaded from local memory (through L1 and L2)"
                                     : " spilled to local memory (through L1 and L2)")
                             : (load ? " read through L2" : " written through L2")));
}

void draw_footer(const Pen& pen, ImVec2 min, ImVec2 max, const MemoryViewData& d) {
    // The schedule's events are the loads and stores the kernels ask for (L2 <-> SM); DRAM bytes
    // come from the L2 reuse model and are the results table's "HBM bytes (model)".
    const std::string line = "L2<->SM read " + bytes_text(d.read) + " of " + bytes_text(d.total_read) + "   written " +
                             bytes_text(d.written) + " of " + bytes_text(d.total_written);
    pen.text_fit(min, pen.c.text, line, max.x - min.x, bold_font());
    pen.tip(min, ImVec2(max.x, min.y + pen.em * 1.2f),
            "Running totals over all blocks, from the model: read " + exact_bytes(d.read) + " of " +
                exact_bytes(d.total_read) + ", written " + exact_bytes(d.written) + " of " + exact_bytes(d.total_written) +
                ". These are the loads and stores the kernels ask for, between L2 and the SMs; at the last step they "
                "equal the model's L2<->SM totals. DRAM (HBM) sees less where blocks running together share a tile or "
                "an intermediate stays in L2: the results table's \"HBM bytes (model)\".");
    float y = min.y + pen.em * 1.25f;
    if (d.local_total > 0) {
        const std::string spills =
            "spills: " + bytes_text(d.local_read + d.local_written) + " of " + bytes_text(d.local_total) +
            " to and from local memory, " +
            (d.spill_beyond_l1 > 0 ? "~" + std::to_string(static_cast<int>(std::lround(d.spill_beyond_l1 * 100))) +
                                         "% past L1 (estimate)"
                                   : std::string("L1 holds it (estimate)"));
        pen.text_fit(ImVec2(min.x, y), d.spill_beyond_l1 > 0 ? overflow_color(pen.theme) : pen.c.text_dim, spills,
                     max.x - min.x);
        pen.tip(ImVec2(min.x, y), ImVec2(max.x, y + pen.em * 1.2f),
                "Register spills so far: " + exact_bytes(d.local_written) + " spilled, " + exact_bytes(d.local_read) +
                    " reloaded, " + exact_bytes(d.local_total) + " in the whole run.\n\n" + d.spill_note +
                    "\n\nA fused kernel that spills is an unfused kernel in disguise: the intermediates it kept "
                    "out of HBM come back as local-memory traffic.");
        y += pen.em * 1.25f;
    }
    for (size_t i = 0; i < d.notes.size(); ++i) {
        pen.text_fit(ImVec2(min.x, y), pen.c.text_dim, d.notes[i], max.x - min.x);
        pen.tip(ImVec2(min.x, y), ImVec2(max.x, y + pen.em * 1.2f), i < d.note_tips.size() ? d.note_tips[i] : d.notes[i]);
        y += pen.em * 1.25f;
    }
}

// The diagram's "em": the UI font size, unless the view is too small for ~26 x 19 of them
// (projector fonts on a small window); never below 60 % of a 1x font, past which text is unreadable.
float view_em(ImVec2 size) {
    const float ui = ImGui::GetFontSize(), smallest = kBaseFontPx * 0.6f;
    return std::max(std::min({ui, size.x / 26.0f, size.y / 19.0f}), std::min(ui, smallest));
}

}  // namespace

void draw_memory_view(ImDrawList* draw, ImVec2 origin, ImVec2 size, const MemoryViewData& d) {
    const float em = view_em(size);
    if (size.x < em * 8 || size.y < em * 10) return;
    const Pen pen{draw, chart_colors(d.theme), d.theme, em, d.interactive};
    draw->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
    const Boxes b = layout(origin, size, d, em);
    draw_header(pen, b, d);
    std::vector<TensorBox> boxes;
    draw->PushClipRect(b.hbm_min, b.hbm_max, true);  // at the smallest scale the flow may overflow
    draw_hbm(pen, b.hbm_min, b.hbm_max, d, boxes);
    draw->PopClipRect();
    draw_l2(pen, b.l2_min, b.l2_max, d);
    const SmBoxes sm = draw_sms(pen, b.sms_min, b.sms_max, d);
    draw_flight(pen, d, boxes, sm, b.hbm_min, b.hbm_max);
    draw_footer(pen, b.footer_min, b.footer_max, d);
    draw->PopClipRect();
    // Lesson highlight: the ring drawn just inside the part, so the view's edges never clip it.
    const auto ring = [&](ImVec2 a, ImVec2 z) {
        const float in = em * 0.35f;
        draw_highlight_ring(draw, ImVec2(a.x + in, a.y + in), ImVec2(z.x - in, z.y - in), em, d.highlight_pulse);
    };
    if (d.highlight == "memory.hbm") ring(b.hbm_min, b.hbm_max);
    if (d.highlight == "memory.l2") ring(b.l2_min, b.l2_max);
    if (d.highlight == "memory.sram") ring(b.sms_min, b.sms_max);
    if (d.highlight == "memory.footer") ring(b.footer_min, b.footer_max);
}

double memory_view_hbm_scale(ImVec2 size, const MemoryViewData& d) {
    const float em = view_em(size);
    const Pen pen{nullptr, chart_colors(d.theme), d.theme, em, false};
    const Boxes b = layout(ImVec2(0, 0), size, d, em);
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
    const Pen pen{draw, chart_colors(theme), theme, em, views[0]->interactive};
    uint64_t scale = 1;
    float label_w = 0;
    for (const MemoryViewData* v : views) {
        scale = std::max(scale, v->total_read + v->total_written);
        label_w = std::max(label_w, pen.text_size(v->title, bold_font()).x);
    }
    label_w += em;
    const float value_w = pen.text_size("000.0 MiB of 000.0 MiB").x + em;
    const float bar_w = size.x - label_w - value_w;
    if (bar_w < em * 4) return;
    for (size_t i = 0; i < views.size(); ++i) {
        const MemoryViewData& v = *views[i];
        const float y = origin.y + em * 0.2f + static_cast<float>(i) * em * 1.6f;
        pen.text(ImVec2(origin.x, y), pen.c.text, v.title, bold_font());
        const ImVec2 a(origin.x + label_w, y), z(a.x + bar_w, y + em * 1.2f);
        const auto x_of = [&](uint64_t bytes) {
            return a.x + static_cast<float>(static_cast<double>(bytes) / static_cast<double>(scale)) * bar_w;
        };
        draw->AddRectFilled(a, z, with_alpha(pen.c.grid, 0.4f));
        const ImU32 col = series_color(static_cast<int>(i), theme);
        draw->AddRectFilled(a, ImVec2(x_of(v.read), z.y), col);
        draw->AddRectFilled(ImVec2(x_of(v.read), a.y), ImVec2(x_of(v.read + v.written), z.y), with_alpha(col, 0.55f));
        draw->AddLine(ImVec2(x_of(v.total_read + v.total_written), a.y - 2), ImVec2(x_of(v.total_read + v.total_written), z.y + 2),
                      pen.c.text, 2.0f);
        pen.text(ImVec2(z.x + em * 0.5f, y), pen.c.text,
                 bytes_text(v.read + v.written) + " of " + bytes_text(v.total_read + v.total_written));
        pen.tip(a, z, v.title + ": HBM bytes moved so far (solid: read " + exact_bytes(v.read) + "; light: written " +
                          exact_bytes(v.written) + "). The tick marks its total, " +
                          exact_bytes(v.total_read + v.total_written) +
                          ". Both variants step through the same fraction of their schedules.");
    }
}

}  // namespace viz
