// Model of the decode workload: parameter checks, the kernels' shape, the mapping from the app's
// Params, and the tile schedule of each variant, from the same loops as kernels/decode/decode.cu.
// model() sums the schedule (model_from_schedule).
//
// L2->SM bytes (es = bytes per element; C = 2 x batch x kv_heads x kv_len x d x es, the cache;
// G = heads / kv_heads; GP = the heads a block serves, the largest of 4, 2, 1 dividing G;
// s = splits; T = pages_per_seq; Q = batch x heads x d x es, the size of q and of out):
//   naive          naive_scores   q (Q per key tile), K: C / 2 x G, table, write S (batch heads kv_len es)
//                  naive_softmax  S twice (max and sum, then P), write P
//                  naive_pv       P, V: C / 2 x G, table, write out (Q)
//   flash          q (Q), K and V once (C), the table once per block (4 T batch kv_heads x G / GP),
//                  write out (Q)
//   split_kv       partial: q (Q x s), K and V once (C), the table, write O_split (fp32, batch heads s d 4)
//                  and m_l (batch heads s 8); combine: read both back, write out (Q)
//   split_kv_fused the partial kernel's bytes, a 4-byte atomic per block, and the last block of each
//                  (sequence, KV head, pass) reads its group's partials back and writes out
// DRAM: the cache once whatever G (the heads of a group run together: the generic rule "a buffer is
// read from DRAM at most once per kernel"); the partials' round trip stays in L2 when they fit half
// of it (split_kv: the generic intermediate rule; split_kv_fused: decode_def.cpp's l2_reuse).
// FLOPs: 2 x d per (head, key) for q Kᵀ and 2 x d for P V: 4 batch heads kv_len d; the combine adds
// 2 d per (head, split).
//
// [SECTION] Variants and validation
// [SECTION] The kernels' shape
// [SECTION] Params of the app <-> DecodeParams (the one mapping)
// [SECTION] Schedule
// [SECTION] Totals
#include "kernels/decode/decode.h"

#include "kernels/core/env.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kernels::decode {

namespace {
uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t es_of(const DecodeParams& p) { return u(dtype_bytes(p.dtype)); }
std::string n(int64_t v) { return std::to_string(v); }
std::string n(uint64_t v) { return std::to_string(v); }

std::string range_message(const char* name, int64_t value, int64_t lo, int64_t hi) {
    return std::string(name) + " = " + n(value) + " is out of range: it must be " + n(lo) + " .. " + n(hi);
}
}  // namespace

// =============================================================================================
// [SECTION] Variants and validation
// =============================================================================================
const std::vector<VariantInfo>& variants() {
    static const std::vector<VariantInfo> v = {
        {"naive", "eager mode's three kernels: S = q Kᵀ / sqrt(d) to HBM, softmax writes P, then P V; no GQA sharing", 3},
        {"flash", "one block per (sequence, KV head) walks the whole cache, online softmax: few blocks at small batch", 1},
        {"split_kv", "Flash-Decoding: the keys split across blocks chosen to fill the GPU, partial (m, l, O) to HBM, "
                     "then a combine kernel",
         2},
        {"split_kv_fused", "split_kv with the combine done by the last block of each (sequence, KV head) to finish "
                           "(atomic counter, __threadfence): one launch",
         1, false, "split_kv"},
    };
    return v;
}

bool has_variant(const std::string& variant) { return find_variant(variant).has_value(); }
bool is_split(const std::string& variant) {
    const std::optional<Variant> v = find_variant(variant);
    return v && is_split(*v);
}

std::string validate(const DecodeParams& p) {
    if (p.batch < 1 || p.batch > kMaxBatch) return range_message("batch", p.batch, 1, kMaxBatch);
    if (p.kv_len < 1 || p.kv_len > kMaxKvLen) return range_message("kv_len", p.kv_len, 1, kMaxKvLen);
    if (p.heads < 1 || p.heads > kMaxHeads) return range_message("heads", p.heads, 1, kMaxHeads);
    if (p.kv_heads < 1 || p.kv_heads > kMaxHeads) return range_message("kv_heads", p.kv_heads, 1, kMaxHeads);
    if (p.heads % p.kv_heads != 0)
        return "kv_heads = " + n(p.kv_heads) + " does not divide heads = " + n(p.heads) +
               ": each KV head serves heads / kv_heads query heads (kv_heads = heads: multi-head, 1: multi-query)";
    if (std::find(std::begin(kDChoices), std::end(kDChoices), p.d) == std::end(kDChoices))
        return "d = " + n(p.d) + " is not offered: the decode kernels are built for d = 64 or 128";
    if (p.dtype == DType::f32)
        return "dtype fp32 is not offered for decode: its kernels read an fp16 or bf16 cache (what serving keeps)";
    if (std::find(std::begin(kPageChoices), std::end(kPageChoices), p.page) == std::end(kPageChoices))
        return "page = " + n(p.page) + " is not offered: it must be 0 (a contiguous cache) or 16, 32, 64, 128 or 256 "
               "tokens a page";
    if (p.splits < 0 || p.splits > kMaxSplits) return range_message("splits", p.splits, 0, kMaxSplits);
    return "";
}

std::string validate(const std::string& variant, const DecodeParams& p) {
    if (!has_variant(variant))
        return "unknown decode variant '" + variant + "': naive, flash, split_kv or split_kv_fused";
    return validate(p);
}

std::string format_gib(uint64_t bytes) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / double(1ull << 30));
    return text;
}

std::string device_refusal(const std::string& variant, const DecodeParams& p, const DeviceBudget& dev) {
    if (std::string bad = validate(variant, p); !bad.empty()) return bad;
    // With kv_heads < heads, flash, split_kv and split_kv_fused run the tensor-core key loop (decode.cu,
    // v5): cp.async and mma.sync m16n8k16, compute capability 8.0 and newer. Built for sm_75 too (the
    // default build's oldest target), that loop compiles to nothing there: a real GPU below 8.0 is
    // refused, never run. A simulated one is priced as the model has it (lesson 11 on every simulated GPU).
    const std::optional<Variant> v = find_variant(variant);
    if (!dev.device.simulated && dev.device.cc_major > 0 && dev.device.cc_major < 8 && uses_mma(p) && v && *v != Variant::naive)
        return variant + " with kv_heads " + n(p.kv_heads) + " < heads " + n(p.heads) +
               " runs on tensor cores (mma.sync m16n8k16, cp.async), which need compute capability 8.0 or newer; " + dev.device.name +
               " is " + n(int64_t{dev.device.cc_major}) + "." + n(int64_t{dev.device.cc_minor}) +
               ": choose naive, or kv_heads = heads (one head a block on CUDA cores)";
    const uint64_t need = device_bytes(variant, p);
    if (need > dev.memory_bytes) {
        std::string text = variant + " needs " + format_gib(need) + " of GPU memory: the KV cache (K and V, 2 x batch " +
                           n(p.batch) + " x kv_heads " + n(p.kv_heads) + " x kv_len " + n(p.kv_len) + " x d " + n(p.d) +
                           " x " + n(int64_t{dtype_bytes(p.dtype)}) + " B" + (p.page > 0 ? ", in whole pages" : "") + ") is " +
                           format_gib(pool_bytes(p));
        if (find_variant(variant) == Variant::naive) text += ", S and P " + format_gib(2 * scores_bytes(p));
        return text + "; " + format_gib(dev.memory_bytes) + " of GPU memory " + dev.memory_what + " on " + dev.device.name;
    }
    return "";
}

// =============================================================================================
// [SECTION] The kernels' shape
// =============================================================================================
int64_t group_size(const DecodeParams& p) { return p.heads / std::max<int64_t>(p.kv_heads, 1); }
bool uses_mma(const DecodeParams& p) { return group_size(p) > 1; }
int64_t pass_heads(const DecodeParams& p) {
    if (!uses_mma(p)) return 1;
    const int64_t g = group_size(p);
    for (int64_t h = std::min<int64_t>(g, kMmaRows); h > 1; --h)
        if (g % h == 0) return h;
    return 1;
}
int blocks_per_sm(const DecodeParams& p) { return uses_mma(p) ? mma_blocks_per_sm(p.d) : kBlocksPerSmTarget; }
int64_t key_tile(const DecodeParams& p) { return uses_mma(p) ? int64_t{kWarps} * kMmaWarpKeys : kv_tile(p.d); }
int64_t head_passes(const DecodeParams& p) { return group_size(p) / pass_heads(p); }
int64_t work_items(const DecodeParams& p) { return p.batch * p.kv_heads * head_passes(p); }
int64_t pages_per_seq(const DecodeParams& p) { return p.page > 0 ? (p.kv_len + p.page - 1) / p.page : 0; }

bool persistent_grid() { return env_is("FUSIONLAB_DECODE_GRID", "persistent"); }
bool uses_persistent(const std::string& variant, const DecodeParams& p) {
    const std::optional<Variant> v = find_variant(variant);
    return v && is_split(*v) && uses_mma(p) && persistent_grid();
}
int64_t loop_units(const std::string& variant, const DecodeParams& p) { return work_items(p) * split_of(variant, p).splits; }
int64_t loop_blocks(const std::string& variant, const DecodeParams& p) {
    const int64_t units = loop_units(variant, p);
    return uses_persistent(variant, p) ? std::min<int64_t>(units, int64_t{kPlanSms} * blocks_per_sm(p)) : units;
}

int64_t auto_splits(const DecodeParams& p) {
    // Waves: as many as fit one wave: a second, partly filled wave costs a whole block's time (v2 took
    // ceil(528 / 64) = 9 splits at batch 8, GQA 8:1: 576 blocks, 48 in a second wave). The persistent
    // grid (decode.h) wants several units a slot, up to kMaxAutoSplits splits.
    const int64_t target = int64_t{kPlanSms} * blocks_per_sm(p);
    int64_t want = target / work_items(p);
    if (uses_mma(p) && persistent_grid())
        want = std::max(want, std::min(kPersistentUnitsPerSlot * target / work_items(p), kMaxAutoSplits));
    const int64_t most = std::max<int64_t>(1, p.kv_len / kMinChunk);
    return std::clamp<int64_t>(want, 1, most);
}

Split split_of(const std::string& variant, const DecodeParams& p) {
    Split s;
    if (!is_split(variant)) {
        s.splits = 1;
        s.chunk = p.kv_len;
        return s;
    }
    const int64_t asked = p.splits > 0 ? p.splits : auto_splits(p);
    const int64_t tile = key_tile(p);
    // Chunks of whole key tiles: only the last split is ragged; asking more splits than tiles gives
    // one tile each.
    const int64_t per = (p.kv_len + asked - 1) / asked;
    s.chunk = (per + tile - 1) / tile * tile;
    s.splits = (p.kv_len + s.chunk - 1) / s.chunk;
    return s;
}

uint64_t loop_smem_bytes(const DecodeParams& p) {
    return uses_mma(p) ? mma_ring_bytes(p.d) : u(kWarps) * u(pass_heads(p)) * (u(p.d) + 2) * 4;
}

// =============================================================================================
// [SECTION] Params of the app <-> DecodeParams (the one mapping)
// =============================================================================================
DecodeParams to_decode(const Params& p) {
    DecodeParams d;
    d.batch = p.get_int("batch");
    d.kv_len = p.get_int("kv_len");
    d.heads = p.get_int("heads");
    d.kv_heads = p.get_int("kv_heads");
    d.d = p.get_int("d");
    d.dtype = p.dtype;
    d.page = p.get_int("page");
    d.splits = p.get_int("splits");
    d.seed = seed_of(p);
    return d;
}

Params to_params(const DecodeParams& d) {
    Params p;
    p.workload = "decode";
    p.dtype = d.dtype;
    p.set("batch", d.batch).set("kv_len", d.kv_len).set("heads", d.heads).set("kv_heads", d.kv_heads);
    p.set("d", d.d).set("page", d.page).set("splits", d.splits).set("seed", static_cast<double>(d.seed));
    return p;
}

// =============================================================================================
// [SECTION] Schedule
// =============================================================================================
namespace {

// A block's key loop waits on its own loads once a step: each stream issues its kUnroll tokens'
// 16-byte loads, then uses them. A step costs about one loaded DRAM latency on the block's critical
// path: what leaves flash's few blocks at batch 1 far under the bandwidth, and what many resident
// blocks per SM hide. The step cycles are a lone block's whole time a step, its work under the wait
// (the simulator takes the longer of the two for a loop with BlockShape::pipelined_steps).
// Measured on the kernels as they are (v7; H200 bench of 2026-11-28, assets/measurements/
// h200-decode-2026-11-28-v7, points of the held-out study's fitted two thirds): flash_decode at batch
// 1, 32 heads, kv_len 32768, d = 128: 1147 us over 1024 steps of 32 keys, 1.12 us a step at 1980 MHz;
// naive_pv at the same shape (load, then use, no pipelining) 1187 us, 1.16 us. The H100 of 2026-11-28
// (v7, assets/measurements/h100-decode-2026-11-28-final) took 1136 us: a latency, the same on both.
// Before: 1980 cycles, v4b alone on the H100 (2026-11-27), which the simulator then scaled by 1.5.
constexpr double kStepCycles = 2200;
// The tensor-core loop (GQA, decode_loop_mma) keeps kMmaStages - 1 of its 64-key steps in flight a
// warp: a step is the loaded latency over about two steps, and its ldmatrix / mma.sync work runs under
// it. Measured (the same v7 bench, fitted points): flash_decode at batch 1, 32 / 4 heads, kv_len 32768:
// 385.8 us over 512 steps, 0.75 us a step; at 131072 0.74 us; at 8192 0.80 us.
constexpr double kMmaStepCycles = 1490;

// Blocks of the key loop that do the same work: `tokens` keys over `pages` pool pages.
struct KeyClass {
    uint64_t first, count, tokens, pages;
};

uint64_t pages_in(const DecodeParams& p, uint64_t t0, uint64_t t1) {
    if (p.page <= 0 || t1 <= t0) return 0;
    return (t1 - 1) / u(p.page) - t0 / u(p.page) + 1;
}

std::vector<KeyClass> key_classes(const DecodeParams& p, const Split& s) {
    std::vector<KeyClass> out;
    for (uint64_t i = 0; i < u(s.splits); ++i) {
        const uint64_t t0 = i * u(s.chunk), t1 = std::min(u(p.kv_len), t0 + u(s.chunk));
        const uint64_t tok = t1 - t0, pg = pages_in(p, t0, t1);
        if (!out.empty() && out.back().tokens == tok && out.back().pages == pg) {
            ++out.back().count;
            continue;
        }
        out.push_back({i, 1, tok, pg});
    }
    return out;
}

std::string class_suffix(const KeyClass& c, uint64_t splits, uint64_t chunk) {
    if (splits == 1) return "";
    std::string s = c.count == 1 ? " (split " + n(c.first) + ")" : " (splits " + n(c.first) + ".." + n(c.first + c.count - 1) + ")";
    if (c.first + c.count == splits && c.tokens < chunk) s += " [ragged: " + n(c.tokens) + " of " + n(chunk) + " keys]";
    return s;
}

// Calls group(j0, j1) for the tiles of a key loop as the schedule lists them: each of up to 3 tiles
// alone, else the first, the middle ones folded into one event, and the last.
template <typename Group> void for_tile_groups(uint64_t tiles, const Group& group) {
    if (tiles <= 3) {
        for (uint64_t j = 0; j < tiles; ++j) group(j, j + 1);
        return;
    }
    group(0, 1);
    group(1, tiles - 1);
    group(tiles - 1, tiles);
}

// The key loop over `tokens` keys of one block, tile by tile (kv_tile keys, the last ragged): the
// first tile, the middle ones folded, the last; bytes and FLOPs are the tiles' sums.
// heads: query heads each tile serves (GP; 1 in naive's kernels). what_kv names the loads.
struct LoopSpec {
    int kernel;
    uint64_t repeat, tokens, heads;
    bool scores, values;  // naive_scores: K only; naive_pv: P and V; the others both with the softmax
    std::string suffix;
};

void add_key_loop(Schedule& s, const DecodeParams& p, const LoopSpec& L) {
    const uint64_t es = es_of(p), d = u(p.d), T = u(kv_tile(p.d));
    const uint64_t tiles = ceil_div(L.tokens, T);
    const uint64_t streams = u(kWarps) * u(streams_per_warp(p.d));
    const std::string gather = p.page > 0 ? ", each key's address from the page table" : "";
    auto group = [&](uint64_t j0, uint64_t j1) {
        if (j0 >= j1) return;
        const uint64_t tok = std::min(L.tokens, j1 * T) - j0 * T, nt = j1 - j0;
        const std::string jj = nt == 1 ? "j = " + n(j0) : "j = " + n(j0) + ".." + n(j1 - 1) + ": " + n(nt) + " tiles, one after another";
        const std::string ragged = (j1 == tiles && tok - (nt - 1) * T < T && L.tokens % T != 0)
                                       ? " [last tile ragged: " + n(L.tokens - (tiles - 1) * T) + " of " + n(T) + " keys]"
                                       : "";
        const std::string tail = " (" + jj + ")" + ragged + L.suffix;
        const double mults = static_cast<double>(tok) * static_cast<double>(d) * static_cast<double>(L.heads);
        if (L.scores) {
            s.events.push_back({EventKind::load, L.kernel, "K", tok * d * es, 0, L.repeat,
                                (L.values ? "load Kj, Vj into registers" : "load Kj into registers") +
                                    std::string(": 16-byte loads, ") + n(uint64_t(kUnroll)) + " keys a stream in flight" + gather + tail});
        }
        if (L.values) {
            if (!L.scores)
                s.events.push_back({EventKind::load, L.kernel, "P", tok * es, 0, L.repeat, "load Pj into registers" + tail});
            s.events.push_back({EventKind::load, L.kernel, "V", tok * d * es, 0, L.repeat,
                                (L.scores ? "load Kj, Vj into registers" : "load Vj into registers") +
                                    std::string(": 16-byte loads") + gather + tail});
        }
        if (L.scores) {
            const std::string who = L.heads == 1 ? "" : " for the " + n(L.heads) + " query heads of the group (each Kj loaded once serves them all)";
            s.events.push_back({EventKind::compute, L.kernel, "", 0, 2 * mults, L.repeat, "compute s = q Kjᵀ / sqrt(d)" + who + tail});
        }
        if (L.scores && L.values) {
            TileEvent me{EventKind::compute, L.kernel, "", 0, 0, L.repeat,
                         "update m, l in registers: m_new = max(m, max s), p = exp2(s - m_new), l = l 2^(m - m_new) + sum p" + tail};
            me.sfu_ops = static_cast<double>(L.heads) * static_cast<double>(tok + nt * streams);
            s.events.push_back(me);
            s.events.push_back({EventKind::compute, L.kernel, "", 0, 2 * mults, L.repeat,
                                "accumulate O = O 2^(m - m_new) + p Vj in registers" + tail});
        }
        if (!L.scores) s.events.push_back({EventKind::compute, L.kernel, "", 0, 2 * mults, L.repeat, "accumulate O = O + Pj Vj in registers" + tail});
        if (L.scores && !L.values)
            s.events.push_back({EventKind::store, L.kernel, "S", tok * es, 0, L.repeat, "store Sj (the scores, in the dtype) to HBM" + tail});
    };
    for_tile_groups(tiles, group);
}

// The tensor-core key loop (decode.cu, "The GQA key loop on tensor cores") over `tokens` keys of one
// block: block steps of 64 keys (16 a warp), the first, the middle ones folded, the last. Each step's
// K and V go DRAM -> shared memory by cp.async (written there once, read once by ldmatrix), and serve
// the group's GP heads; the products run on the tensor cores with the heads padded to 16 rows (the
// FLOPs below are the GP heads' own, what the work is; the padding rides along on the tensor cores).
void add_mma_key_loop(Schedule& s, const DecodeParams& p, int k, uint64_t repeat, uint64_t tokens, uint64_t heads,
                      const std::string& suffix) {
    const uint64_t es = es_of(p), d = u(p.d), T = u(key_tile(p));
    const uint64_t tiles = ceil_div(tokens, T);
    const std::string gather = p.page > 0 ? ", each key's address from the page table" : "";
    auto group = [&](uint64_t j0, uint64_t j1) {
        if (j0 >= j1) return;
        const uint64_t tok = std::min(tokens, j1 * T) - j0 * T, nt = j1 - j0;
        const std::string jj = nt == 1 ? "j = " + n(j0) : "j = " + n(j0) + ".." + n(j1 - 1) + ": " + n(nt) + " steps, 2 in flight while one computes";
        const std::string ragged = (j1 == tiles && tokens % T != 0) ? " [last step ragged: " + n(tokens - (tiles - 1) * T) + " of " + n(T) + " keys]" : "";
        const std::string tail = " (" + jj + ")" + ragged + suffix;
        const double mults = static_cast<double>(tok) * static_cast<double>(d) * static_cast<double>(heads);
        TileEvent lk{EventKind::load, k, "K", tok * d * es, 0, repeat,
                     "copy Kj DRAM -> shared memory (cp.async, 16 bytes a lane, 2 steps ahead; each warp its own 16 keys)" + gather + tail};
        lk.shared_bytes = tok * d * es;
        s.events.push_back(lk);
        TileEvent lv{EventKind::load, k, "V", tok * d * es, 0, repeat, "copy Vj DRAM -> shared memory (cp.async, beside Kj)" + gather + tail};
        lv.shared_bytes = tok * d * es;
        s.events.push_back(lv);
        TileEvent sc{EventKind::compute, k, "", 0, 2 * mults, repeat,
                     "compute S = Q Kjᵀ on tensor cores (mma.sync m16n8k16, the group's " + n(heads) +
                         " heads as the 16 rows; Kj from shared memory by ldmatrix: one load serves them all)" + tail};
        sc.shared_bytes = tok * d * es;
        s.events.push_back(sc);
        TileEvent me{EventKind::compute, k, "", 0, 0, repeat,
                     "update m, l in registers: row max over the quad by shuffles, p = exp2(s - m_new), O and l rescaled" + tail};
        me.sfu_ops = static_cast<double>(heads) * static_cast<double>(tok + nt * u(kWarps));
        s.events.push_back(me);
        TileEvent pv{EventKind::compute, k, "", 0, 2 * mults, repeat,
                     "accumulate O = O + Pj Vj on tensor cores (P stays in registers as the A fragment; Vj by ldmatrix.trans)" + tail};
        pv.shared_bytes = tok * d * es;
        s.events.push_back(pv);
    };
    for_tile_groups(tiles, group);
}

// The end of a block of the key loop: its warps' streams merged through shared memory.
void add_block_merge(Schedule& s, const DecodeParams& p, int k, uint64_t repeat, uint64_t heads, const std::string& suffix,
                     bool with_max) {
    const uint64_t d = u(p.d);
    TileEvent e{EventKind::compute, k, "", 0, 0, repeat,
                with_max && uses_mma(p)
                    ? "merge the " + n(uint64_t(kWarps)) + " warps' (m, l, O) through shared memory, over the rings (M = max m, O = sum O 2^(m - M))" + suffix
                : with_max ? "merge the streams' (m, l, O): shuffles inside each warp, then the " + n(uint64_t(kWarps)) +
                               " warps' through shared memory (M = max m, O = sum O 2^(m - M))" + suffix
                         : "sum the streams' O: shuffles inside each warp, then the warps' through shared memory" + suffix};
    // Each warp writes its heads x (d + 2) floats, every thread reads all warps' back: 128-byte wavefronts.
    e.shared_bytes = 2 * u(kWarps) * ceil_div(heads * (d + 2) * 4, 128) * 128;
    if (with_max) e.sfu_ops = static_cast<double>(repeat > 0 ? heads * u(kWarps) * (d + 1) : 0);
    s.events.push_back(e);
}

// tensor_cores: the GQA key loop on mma.sync (decode_loop_mma); else the CUDA-core loop (decode_loop,
// and naive_pv, which runs it whatever the group: no GQA sharing in eager mode's kernels).
BlockShape loop_block_shape(const DecodeParams& p, uint64_t tokens_per_block, int trips, bool tensor_cores) {
    BlockShape b;
    b.shared_bytes = loop_smem_bytes(p);
    b.memory_trips = trips;
    if (tensor_cores) {
        b.serial_steps = ceil_div(tokens_per_block, u(key_tile(p)));
        b.step_cycles = kMmaStepCycles;
        b.source = "decode.cu: the tensor-core loop keeps 2 of its 64-key steps in flight a warp: 0.75 us a step alone "
                   "(flash_decode v7, H200 2026-11-28)";
    } else {
        b.serial_steps = ceil_div(tokens_per_block, u(kv_tile(p.d)));
        b.step_cycles = kStepCycles;
        b.source = "decode.cu: one loaded DRAM latency a key step (kUnroll keys a stream in flight): 1.12 us a step alone "
                   "(flash_decode v7, H200 2026-11-28)";
    }
    // The step's cycles are a lone block's time a step with its work under it (see kStepCycles).
    b.pipelined_steps = b.serial_steps;
    return b;
}

// What ptxas made of the key loop's instance (scripts/kernel_registers.py writes the table from
// `nvcc -Xptxas -v`; ctest kernel_registers_current checks it): the simulator's occupancy takes it.
struct DecodeRegisters {
    bool tensor_cores;
    bool persistent;  // decode_loop_mma_persistent (v6), else decode_loop_mma or decode_loop
    Variant variant;
    DType dtype;
    int d;
    int registers, stack_bytes, spill_store_bytes, spill_load_bytes;
};
#include "kernels/decode/decode_registers.inc"

RegisterUse loop_registers(const DecodeParams& p, Variant variant) {
    for (const DecodeRegisters& r : kDecodeRegisters)
        if (r.tensor_cores == uses_mma(p) && r.persistent == uses_persistent(name_of(variant), p) && r.variant == variant &&
            r.dtype == p.dtype && r.d == p.d)
            return RegisterUse{r.registers, r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes, kDecodeRegistersSource};
    return {};
}

void add_loop_kernel(Schedule& s, Variant variant, const DecodeParams& p) {
    const uint64_t es = es_of(p), d = u(p.d), GP = u(pass_heads(p)), W = u(work_items(p));
    const Split sp = split_of(name_of(variant), p);
    const std::vector<KeyClass> classes = key_classes(p, sp);
    const std::string name = variant == Variant::flash      ? "flash_decode"
                             : variant == Variant::split_kv ? "split_kv_partial"
                                                            : "split_kv_fused";
    const int k = static_cast<int>(s.kernels.size());
    ScheduleKernel kernel{name, W * u(sp.splits), kThreads, false};
    // Both key loops load their next steps under this one's arithmetic (v3 on CUDA cores, v5's rings);
    // the persistent grid's rings run on across a block's units, so its ramp comes once a block.
    kernel.block = loop_block_shape(p, u(sp.chunk), variant == Variant::split_kv_fused ? 4 : 2, uses_mma(p));
    if (uses_persistent(name_of(variant), p)) {
        const uint64_t grid = u(loop_blocks(name_of(variant), p));
        kernel.block.persistent = true;
        kernel.block.pipelined_steps *= ceil_div(kernel.blocks, grid);
        kernel.blocks_are = "(sequence, KV head, split) units, taken from a counter by a persistent grid of " + n(grid) + " blocks (" +
                            n(uint64_t(blocks_per_sm(p))) + " an SM)";
    }
    kernel.tensor_cores = kernel.mma_sync = uses_mma(p);
    kernel.registers = loop_registers(p, variant);
    s.kernels.push_back(kernel);
    const std::string heads_text = GP == 1 ? "its query head" : "the group's " + n(GP) + " query heads";
    for (const KeyClass& c : classes) {
        const uint64_t repeat = c.count * W;
        const std::string suffix = class_suffix(c, u(sp.splits), u(sp.chunk));
        s.events.push_back({EventKind::load, k, "q", GP * d * es, 0, repeat,
                            "load q of " + heads_text + " into registers" + (uses_mma(p) ? " (A fragments; rows past them zero)" : "") + suffix});
        if (p.page > 0)
            s.events.push_back({EventKind::load, k, "pages", c.pages * 4, 0, repeat,
                                "load the page table's entries for these keys (" + n(c.pages) + " pool pages, in random order)" + suffix});
        if (uses_mma(p)) add_mma_key_loop(s, p, k, repeat, c.tokens, GP, suffix);
        else add_key_loop(s, p, {k, repeat, c.tokens, GP, true, true, suffix});
        add_block_merge(s, p, k, repeat, GP, suffix, true);
        if (variant == Variant::flash) {
            s.events.push_back({EventKind::store, k, "out", GP * d * es, 0, repeat, "store out = O / l" + suffix});
            continue;
        }
        s.events.push_back({EventKind::store, k, "O_split", GP * d * 4, 0, repeat,
                            "store the partial O of this split (fp32, not yet divided by l) to HBM" + suffix});
        s.events.push_back({EventKind::store, k, "m_l", GP * 8, 0, repeat, "store the partial m, l of this split to HBM" + suffix});
        if (variant == Variant::split_kv_fused)
            s.events.push_back({EventKind::store, k, "counters", 4, 0, repeat,
                                "__threadfence(), then atomicAdd on the counter of (sequence, KV head): is this the last split to finish?" + suffix});
    }
    if (variant != Variant::split_kv_fused) return;
    // The last block of each (sequence, KV head, pass) to finish merges its group's partials.
    const uint64_t S = u(sp.splits);
    const std::string last = " (the last of the " + n(S) + " splits of each (sequence, KV head) to finish)";
    s.events.push_back({EventKind::load, k, "m_l", S * GP * 8, 0, W, "load every split's m, l of the group from L2" + last});
    s.events.push_back({EventKind::load, k, "O_split", S * GP * d * 4, 0, W, "load every split's partial O of the group from L2" + last});
    TileEvent merge{EventKind::compute, k, "", 0, 2.0 * static_cast<double>(S * GP * d), W,
                    "merge the partials exactly: M = max m_s, O = sum O_s 2^(m_s - M), l = sum l_s 2^(m_s - M)" + last};
    merge.sfu_ops = static_cast<double>(S * GP * (d + 1));
    s.events.push_back(merge);
    s.events.push_back({EventKind::store, k, "out", GP * d * es, 0, W, "store out = O / l" + last});
    s.events.push_back({EventKind::store, k, "counters", 4, 0, W, "reset the counter to 0 for the next run" + last});
}

void add_combine_kernel(Schedule& s, const DecodeParams& p) {
    const uint64_t es = es_of(p), d = u(p.d), BH = u(p.batch) * u(p.heads), S = u(split_of("split_kv", p).splits);
    const int k = static_cast<int>(s.kernels.size());
    ScheduleKernel kernel{"split_kv_combine", BH, kCombineThreads, false};
    kernel.block.memory_trips = 3;  // m, l of every split; then the partial O's; then out
    kernel.block.source = "decode.cu: reads m, l, then O_split, then stores";
    s.kernels.push_back(kernel);
    const std::string per = " (one block per (sequence, head))";
    s.events.push_back({EventKind::load, k, "m_l", S * 8, 0, BH, "load every split's m, l from L2" + per});
    s.events.push_back({EventKind::load, k, "O_split", S * d * 4, 0, BH, "load every split's partial O from L2" + per});
    TileEvent merge{EventKind::compute, k, "", 0, 2.0 * static_cast<double>(S * d), BH,
                    "merge the partials exactly: M = max m_s, O = sum O_s 2^(m_s - M), l = sum l_s 2^(m_s - M)" + per};
    merge.sfu_ops = static_cast<double>(S * (d + 1));
    s.events.push_back(merge);
    s.events.push_back({EventKind::store, k, "out", d * es, 0, BH, "store out = O / l" + per});
}

void add_naive_kernels(Schedule& s, const DecodeParams& p) {
    const uint64_t es = es_of(p), d = u(p.d), BH = u(p.batch) * u(p.heads), N = u(p.kv_len), T = u(kv_tile(p.d));
    const uint64_t tiles = ceil_div(N, T);
    // naive_scores: one block per (key tile, sequence, head).
    {
        ScheduleKernel kernel{"naive_scores", tiles * BH, kThreads, false};
        kernel.block.memory_trips = p.page > 0 ? 4 : 3;  // q, (the table,) Kj, then Sj's store
        kernel.block.source = "decode.cu: q, the table, Kj, store";
        s.kernels.push_back(kernel);
        auto one = [&](uint64_t tok, uint64_t repeat, const std::string& which) {
            s.events.push_back({EventKind::load, 0, "q", d * es, 0, repeat, "load q of one head into registers" + which});
            if (p.page > 0)
                s.events.push_back({EventKind::load, 0, "pages", ceil_div(tok, u(p.page)) * 4, 0, repeat,
                                    "load the page table's entries for this key tile" + which});
            add_key_loop(s, p, {0, repeat, tok, 1, true, false, which});
        };
        const uint64_t last = N - (tiles - 1) * T;
        if (tiles > 1) one(T, (tiles - 1) * BH, " (key tiles 0.." + n(tiles - 2) + ", one block each per (sequence, head))");
        one(last, BH, " (the last key tile" + (last < T ? ", ragged: " + n(last) + " of " + n(T) + " keys" : std::string()) + ")");
    }
    // naive_softmax: one block per (sequence, head) row of S.
    {
        ScheduleKernel kernel{"naive_softmax", BH, kSoftmaxThreads, false};
        kernel.block.memory_trips = 2;
        kernel.block.source = "decode.cu: the row twice, then P";
        s.kernels.push_back(kernel);
        const std::string per = " (one block per (sequence, head))";
        s.events.push_back({EventKind::load, 1, "S", N * es, 0, BH, "load S row into registers: running max and sum" + per});
        TileEvent sm{EventKind::compute, 1, "", 0, 0, BH, "compute the row's max M and sum l = sum 2^(s - M) (block reduction)" + per};
        sm.sfu_ops = static_cast<double>(N);
        s.events.push_back(sm);
        s.events.push_back({EventKind::load, 1, "S", N * es, 0, BH, "load S row again" + per});
        TileEvent pe{EventKind::compute, 1, "", 0, 0, BH, "compute P = 2^(s - M) / l" + per};
        pe.sfu_ops = static_cast<double>(N);
        s.events.push_back(pe);
        s.events.push_back({EventKind::store, 1, "P", N * es, 0, BH, "store P row (in the dtype) to HBM" + per});
    }
    // naive_pv: one block per (sequence, head) walks P and V.
    {
        ScheduleKernel kernel{"naive_pv", BH, kThreads, false};
        kernel.block = loop_block_shape(p, N, 2, false);  // the CUDA-core loop at every group size
        kernel.block.shared_bytes = u(kWarps) * d * 4;
        s.kernels.push_back(kernel);
        const std::string per = " (one block per (sequence, head))";
        if (p.page > 0)
            s.events.push_back({EventKind::load, 2, "pages", u(pages_per_seq(p)) * 4, 0, BH,
                                "load the page table's entries of the sequence" + per});
        add_key_loop(s, p, {2, BH, N, 1, false, true, per});
        add_block_merge(s, p, 2, BH, 1, per, false);
        s.events.push_back({EventKind::store, 2, "out", d * es, 0, BH, "store out" + per});
    }
}

}  // namespace

Schedule schedule(const std::string& variant, const DecodeParams& p) {
    if (const std::string bad = validate(variant, p); !bad.empty()) throw std::invalid_argument(bad);
    const Variant v = variant_of(variant);
    Schedule s;
    if (v == Variant::naive) {
        add_naive_kernels(s, p);
        return s;
    }
    add_loop_kernel(s, v, p);
    if (v == Variant::split_kv) add_combine_kernel(s, p);
    return s;
}

Model model(const std::string& variant, const DecodeParams& p) { return model_from_schedule(schedule(variant, p)); }

// =============================================================================================
// [SECTION] Totals
// =============================================================================================
uint64_t q_bytes(const DecodeParams& p) { return u(p.batch) * u(p.heads) * u(p.d) * es_of(p); }
uint64_t cache_bytes(const DecodeParams& p) { return 2 * u(p.batch) * u(p.kv_heads) * u(p.kv_len) * u(p.d) * es_of(p); }
uint64_t pool_bytes(const DecodeParams& p) {
    if (p.page == 0) return cache_bytes(p);
    return 2 * u(p.batch) * u(pages_per_seq(p)) * u(p.page) * u(p.kv_heads) * u(p.d) * es_of(p);
}
uint64_t table_bytes(const DecodeParams& p) { return u(p.batch) * u(pages_per_seq(p)) * 4; }
uint64_t scores_bytes(const DecodeParams& p) { return u(p.batch) * u(p.heads) * u(p.kv_len) * es_of(p); }
uint64_t partial_bytes(const std::string& variant, const DecodeParams& p) {
    const std::optional<Variant> v = find_variant(variant);
    if (!v || !is_split(*v)) return 0;
    const uint64_t S = u(split_of(variant, p).splits), BH = u(p.batch) * u(p.heads);
    return BH * S * u(p.d) * 4 + BH * S * 8 + (v == Variant::split_kv_fused ? u(work_items(p)) * 4 : 0);
}
uint64_t min_bytes(const DecodeParams& p) { return 2 * q_bytes(p) + cache_bytes(p) + table_bytes(p); }
uint64_t device_bytes(const std::string& variant, const DecodeParams& p) {
    return 2 * q_bytes(p) + pool_bytes(p) + table_bytes(p) + (find_variant(variant) == Variant::naive ? 2 * scores_bytes(p) : 0) +
           partial_bytes(variant, p);
}
double nominal_flops(const DecodeParams& p) {
    return 4.0 * static_cast<double>(p.batch) * static_cast<double>(p.heads) * static_cast<double>(p.kv_len) *
           static_cast<double>(p.d);
}

}  // namespace kernels::decode
