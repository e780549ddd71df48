// Model of the attention workload: parameter checks, tiles and shared memory, and the tile
// schedule of each variant, generated from the same loop structure as kernels/attention/attention.cu.
// model() sums the schedule (model_from_schedule), so the totals below are its events' sums.
//
// HBM bytes per head (es = bytes per element; Tr = ceil(N/Br) row blocks; block i has r_i rows
// and visits key tiles j = 0..J_i - 1 of c_j rows; J_i = Tc = ceil(N/Bc) unless causal, where it
// stops at the tile holding key i*Br + r_i - 1):
//   naive    gemm_qk   read Q, K (2 N d es)            write S (N² es)
//            softmax   read S (N² es)                   write P (N² es)
//            gemm_pv   read P (N² es), V (N d es)       write O (N d es)  => (4 N² + 4 N d) es
//   flash,   read Qi once per block (Σ r_i d es = N d es), Kj and Vj once per (block, j)
//   flash_tc, (2 Σ_i Σ_{j<J_i} c_j d es: non-causal 2 Tr N d es, i.e. K and V are read Tr times),
//   flash_wgmma  write Oi once (N d es). m and l live on chip and are never written. flash_wgmma's
//            TMA copies whole boxes (rows past N are zero-filled on chip, not read from HBM), so
//            its bytes are the same.
// cuBLAS re-reads tiles of its operands through L2; the model charges each operand once (the
// compulsory HBM traffic), which is what a well-tiled GEMM achieves on these sizes.
//
// FLOPs per head: naive 4 N² d (the whole S even when causal); flash 4 Σ_i Σ_{j<J_i} r_i c_j d
// (skipped tiles cost nothing, diagonal tiles are computed in full and then masked).
//
// [SECTION] Parameters and validation
// [SECTION] Tiles and shared memory
// [SECTION] Params of the app <-> AttentionParams (the one mapping)
// [SECTION] Schedule
// [SECTION] Totals
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_switches.h"
#include "kernels/attention/wgmma_registers.h"
#include "kernels/core/env.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace kernels::attention {

// =============================================================================================
// [SECTION] Parameters and validation
// =============================================================================================
const std::vector<VariantInfo>& variants() {
    static const std::vector<VariantInfo> v = {
        {"naive", "cuBLAS S = QKᵀ, softmax kernel, cuBLAS O = PV: S and P (N x N) go through HBM", 3},
        {"flash", "teaching kernel: tiles of K, V stream through shared memory past Qi; online softmax", 1},
        {"flash_tc", "the same loop on tensor cores (mma.sync, ldmatrix, cp.async), fp16/bf16", 1},
        {"flash_wgmma", "Hopper (sm_90a): TMA ring of K, V tiles, producer warp + consumer warpgroups, wgmma", 1, false,
         "flash_tc"},
    };
    return v;
}

bool has_variant(const std::string& variant) { return find_variant(variant).has_value(); }

namespace {

bool is_tile_size(int b) { return std::find(std::begin(kTileSizes), std::end(kTileSizes), b) != std::end(kTileSizes); }
bool is_col_tile_size(int b) {
    return std::find(std::begin(kColTileSizes), std::end(kColTileSizes), b) != std::end(kColTileSizes);
}
bool is_row_tile_size(int b) {
    return std::find(std::begin(kRowTileSizes), std::end(kRowTileSizes), b) != std::end(kRowTileSizes);
}

std::string range_message(const char* name, int64_t value, int64_t lo, int64_t hi) {
    return std::string(name) + " = " + std::to_string(value) + " is out of range: it must be " + std::to_string(lo) +
           " .. " + std::to_string(hi);
}

uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
uint64_t es_of(const AttentionParams& p) { return static_cast<uint64_t>(dtype_bytes(p.dtype)); }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

std::string validate(const AttentionParams& p) {
    if (p.batch_heads < 1 || p.batch_heads > kMaxBatchHeads)
        return range_message("batch_heads", p.batch_heads, 1, kMaxBatchHeads);
    if (p.N < 1 || p.N > kMaxN) return range_message("N", p.N, 1, kMaxN);
    if (p.d < 1 || p.d > kMaxD) return range_message("d", p.d, 1, kMaxD);
    if (!is_row_tile_size(p.Br))
        return "Br = " + std::to_string(p.Br) + " is not a tile size: it must be 16, 32, 64, 128 or 192 (192: flash_wgmma only)";
    if (!is_col_tile_size(p.Bc))
        return "Bc = " + std::to_string(p.Bc) + " is not a tile size: it must be 16, 32, 64, 80, 128 or 176 (80 and 176: flash_wgmma only)";
    constexpr uint64_t kMaxElements = uint64_t{1} << 32;
    if (u(p.batch_heads) * u(p.N) * u(p.d) > kMaxElements)
        return "batch_heads x N x d = " + std::to_string(u(p.batch_heads) * u(p.N) * u(p.d)) +
               " elements per tensor is too large: at most 2^32 (4294967296)";
    return "";
}

std::string validate(const std::string& variant, const AttentionParams& p) {
    const std::optional<Variant> v = find_variant(variant);
    if (!v) return "unknown attention variant '" + variant + "': naive, flash, flash_tc or flash_wgmma";
    return validate(*v, p);
}

std::string validate(Variant variant, const AttentionParams& p) {
    if (!find_variant(name_of(variant))) return std::string("attention has no kernels for ") + name_of(variant);
    if (std::string bad = validate(p); !bad.empty()) return bad;
    if ((variant == Variant::flash || variant == Variant::flash_tc) && !is_tile_size(p.Br))
        return std::string(name_of(variant)) + " takes Br = 16, 32, 64 or 128, not Br = " + std::to_string(p.Br) +
               " (192 is flash_wgmma's tile: three consumer warpgroups of 64 rows)";
    if (variant == Variant::flash && !is_tile_size(p.Bc))
        return "flash takes Bc = 16, 32, 64 or 128, not Bc = " + std::to_string(p.Bc) +
               " (80 and 176 are flash_wgmma's tiles at d = 128: 192 x 80 and FlashAttention-3's 128 x 176)";
    if (variant == Variant::flash_tc) {
        if (p.dtype == DType::f32)
            return "flash_tc runs on tensor cores in fp16 or bf16 only (fp32 accumulation); for fp32 use flash or naive";
        if (p.d != 32 && p.d != 64 && p.d != 128)
            return "flash_tc is built for d = 32, 64 or 128, not d = " + std::to_string(p.d) +
                   "; the teaching kernel flash takes any d <= 128";
        if (std::find(std::begin(kTcTileSizes), std::end(kTcTileSizes), p.Bc) == std::end(kTcTileSizes))
            return "flash_tc takes Bc = 64 or 128 (its Sij accumulator, Bc / 2 floats per thread, is unrolled when "
                   "the kernel is compiled), not Bc = " + std::to_string(p.Bc) + "; the teaching kernel flash takes any Bc";
    }
    if (variant == Variant::flash_wgmma) {
        if (p.dtype == DType::f32)
            return "flash_wgmma runs on tensor cores in fp16 or bf16 only (fp32 accumulation); for fp32 use flash or naive";
        if (p.d != 64 && p.d != 128)
            return "flash_wgmma is built for d = 64 or 128, not d = " + std::to_string(p.d) +
                   "; the teaching kernel flash takes any d <= 128";
        const auto in = [](const auto& list, int b) { return std::find(std::begin(list), std::end(list), b) != std::end(list); };
        if (!in(kWgmmaRowTiles, p.Br))
            return "flash_wgmma takes Br = 64, 128 or 192 (64 rows of Qi per consumer warpgroup, one to three warpgroups), not Br = " +
                   std::to_string(p.Br);
        if (!in(kWgmmaColTiles, p.Bc))
            return "flash_wgmma takes Bc = 64, 80, 128 or 176 (the N of its wgmma m64nBck16 for S = Qi Kj^T), not Bc = " +
                   std::to_string(p.Bc);
        if (p.Bc == 176 && !wgmma_tile_built(p.Br, p.Bc, p.d))
            return "flash_wgmma takes Bc = 176 at d = 128 with Br = 128 only, not at d = " + std::to_string(p.d) + " with Br = " +
                   std::to_string(p.Br) + ": it is FlashAttention-3's d = 128 tile, for two consumer warpgroups of 240 registers "
                   "(Sij 88 + Oi 64 + Pij 44 a thread); three warpgroups have 160 registers, and the other tiles have no instance. "
                   "Choose Bc = 64 or 128";
        if (p.Bc == 80 && !wgmma_tile_built(p.Br, p.Bc, p.d))
            return "flash_wgmma takes Bc = 80 at d = 128 with Br = 192 only, not at d = " + std::to_string(p.d) + " with Br = " +
                   std::to_string(p.Br) + ": it is the d = 128 tile of three consumer warpgroups of 160 registers (Sij 40 + Oi 64 + "
                   "Pij 20 a thread; Bc = 96 spills 108 bytes), and the other tiles have no instance. Choose Bc = 64 or 128";
        if (!wgmma_tile_built(p.Br, p.Bc, p.d))
            return "flash_wgmma at Br = 192, Bc = 128, d = 128 would need ~200 registers per consumer thread (Sij 64 + Oi 64 + "
                   "Pij 32), and its 512 threads leave 160 (setmaxnreg): ptxas spills 272 bytes a thread. Choose Bc = 64 or "
                   "Br = 128";
        if (std::string bad = flash_wgmma_switch_problem(); !bad.empty()) return bad;
    }
    return "";
}

// =============================================================================================
// [SECTION] Tiles and shared memory
// =============================================================================================
int flash_tc_warp_rows(int Br, int Bc, int64_t d) {
    // Experiment switch (kernels/PERF.md): FUSIONLAB_FLASH_TC_WARP_ROWS=16 keeps 16 rows per warp.
    if (const char* v = std::getenv("FUSIONLAB_FLASH_TC_WARP_ROWS"); v != nullptr && std::string(v) == "16") return 16;
    return Br == 128 && tc_has_warp_rows_32(d, Bc) ? 32 : 16;
}
int flash_tc_threads(int Br, int Bc, int64_t d) { return Br / flash_tc_warp_rows(Br, Bc, d) * 32; }

namespace {
struct FlashTcRegisters {
    DType dtype;
    int d, Bc, warp_rows;
    bool skip;
    int registers, stack_bytes, spill_store_bytes, spill_load_bytes;
};
#include "kernels/attention/flash_tc_registers.inc"
struct FlashWgmmaRegisters {
    DType dtype;
    int d, Bc, Br, stages;
    bool skip, v6, v14;
    int producer_registers, registers, stack_bytes, spill_store_bytes, spill_load_bytes;
};
#include "kernels/attention/flash_wgmma_registers.inc"
}  // namespace

RegisterUse flash_wgmma_launch_registers(const AttentionParams& p, bool skip_epilogue) {
    const Tile t = flash_tile(Variant::flash_wgmma, p);
    const int threads = flash_wgmma_threads(t.Br);
    RegisterUse share{std::min(255, 65536 / threads / 8 * 8), 0, 0, 0,
                      "__launch_bounds__(" + std::to_string(threads) + ", 1): the whole register file"};
    // The default build: v6's softmax off, Oi's rescale in the turn but at three consumer warpgroups and d = 64
    // (attention_wgmma.cu, v14_order); of the producer's register splits the one with the most registers.
    const bool v14 = !(t.Br == 192 && p.d == 64);
    const FlashWgmmaRegisters* found = nullptr;
    for (const FlashWgmmaRegisters& r : kFlashWgmmaRegisters)
        if (r.dtype == p.dtype && r.d == p.d && r.Bc == t.Bc && r.Br == t.Br && r.skip == skip_epilogue && !r.v6 &&
            (skip_epilogue || r.v14 == v14) && (!found || r.registers > found->registers))
            found = &r;
    if (!found) return share;
    return RegisterUse{found->registers, found->stack_bytes, found->spill_store_bytes, found->spill_load_bytes,
                       std::string(kFlashWgmmaRegistersSource) + (t.Br == 64 ? "" : "; __launch_bounds__(" +
                                                                                          std::to_string(threads) + ", 1)")};
}

RegisterUse flash_tc_registers(const AttentionParams& p, bool skip_epilogue) {
    if (!validate(Variant::flash_tc, p).empty()) return {};
    const int rows = flash_tc_warp_rows(p.Br, p.Bc, p.d);
    for (const FlashTcRegisters& r : kFlashTcRegisters)
        if (r.dtype == p.dtype && r.d == p.d && r.Bc == p.Bc && r.warp_rows == rows && r.skip == skip_epilogue)
            return RegisterUse{r.registers, r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes, kFlashTcRegistersSource};
    return {};
}
int flash_threads() { return 128; }
int flash_wgmma_threads(int Br) { return 128 * (Br / 64 + 1); }
bool flash_wgmma_persistent() { return !env_is("FUSIONLAB_FLASH_WGMMA_GRID", "waves"); }
bool flash_wgmma_softmax_v6() { return env_is("FUSIONLAB_FLASH_WGMMA_SOFTMAX", "v6"); }
bool flash_wgmma_release_per_warp() { return !env_is("FUSIONLAB_FLASH_WGMMA_RELEASE", "thread"); }
bool flash_wgmma_claim_late() { return !env_is("FUSIONLAB_FLASH_WGMMA_CLAIM", "ahead"); }
bool flash_wgmma_ragged_section_first() { return !env_is("FUSIONLAB_FLASH_WGMMA_SECTIONS", "ragged_last"); }
// flash_wgmma's comparison switches and the values each takes (README, "diagnostic switches"); the first value is
// the default's name. Anything else is refused by validate() with this list, so a typo never runs the default silently.
namespace {
struct WgmmaSwitch {
    const char* name;
    std::vector<const char*> values;
    const char* what;
};
const std::vector<WgmmaSwitch>& wgmma_switches() {
    static const std::vector<WgmmaSwitch> switches = {
        {"FUSIONLAB_FLASH_WGMMA_GRID", {"persistent", "waves"}, "v5's persistent grid or v4's waves"},
        {"FUSIONLAB_FLASH_WGMMA_SOFTMAX", {"v5", "v6"}, "v5's softmax or v6's"},
        {"FUSIONLAB_FLASH_WGMMA_RELEASE", {"warp", "thread"}, "a ring slot released by one arrival per warp (v7) or per thread (v6)"},
        {"FUSIONLAB_FLASH_WGMMA_CLAIM", {"late", "ahead"}, "the next item claimed as the last tile is issued (v8) or an item ahead (v5)"},
        {"FUSIONLAB_FLASH_WGMMA_SECTIONS", {"ragged_first", "ragged_last"}, "causal: the ragged L2 section first (v9) or last (v5)"},
        {"FUSIONLAB_FLASH_WGMMA_RESCALE", {"auto", "in_turn", "after_wait"},
         "Oi's rescale: the measured default per tile, v14's order (in the turn) or v13's (after the wait)"},
        {"FUSIONLAB_FLASH_WGMMA_REGS", {"v13", "v12"}, "the producer's registers after setmaxnreg: v13's 40 / 32 or v12's 24"},
        {"FUSIONLAB_FLASH_WGMMA_STALE_MAX", {"8", "0"}, "v6's softmax: m moves when the max grows by 2^8, or at every growth"},
    };
    return switches;
}
}  // namespace

std::string flash_wgmma_switch_problem() {
    for (const WgmmaSwitch& sw : wgmma_switches()) {
        const char* v = std::getenv(sw.name);
        if (v == nullptr) continue;
        const auto takes = std::find_if(sw.values.begin(), sw.values.end(), [&](const char* x) { return std::string(x) == v; });
        if (takes != sw.values.end()) continue;
        std::string list;
        for (size_t i = 0; i < sw.values.size(); ++i)
            list += std::string(i == 0 ? "" : (i + 1 == sw.values.size() ? " or " : ", ")) + sw.values[i] + (i == 0 ? " (the default)" : "");
        return std::string(sw.name) + "='" + v + "' is not a value it takes: " + list + " (" + sw.what + "); unset it for the default";
    }
    return "";
}

int64_t flash_wgmma_section_heads(const AttentionParams& p, int64_t l2_bytes) {
    const int64_t per_head = std::max<int64_t>(1, 2 * p.N * p.d * static_cast<int64_t>(es_of(p)));
    return std::clamp<int64_t>(l2_bytes / 2 / per_head, 1, std::max<int64_t>(1, p.batch_heads));
}

// flash_wgmma's turn, one key tile (Kj step) of one consumer warpgroup of 64 rows (attention_wgmma.cu): its products
// Sij = Qi Kj^T and Oi += Pij Vj, 2 x 2 x 64 x Bc x d FLOP on the tensor cores (time T), and between them its
// softmax, 64 x Bc exp2 (time X) plus per row a fixed part that does not grow with Bc: the row max and sum across
// the quad's shuffles, m, l and the rescale factor, the wait for Sij and the barrier hand-offs to the partners.
// That part is kTurnFixedExp2PerRow exp2s' worth a row, so the softmax takes X (1 + fixed / Bc). While one
// warpgroup runs its softmax its Br / 64 - 1 partners' products run, and kTurnHiddenUnderPartner of each
// partner's turn T hides it. Then the rescale of Oi by e^(m - m_new): d multiplies a row every key tile, which grows
// with d, not Bc, and which no partner hides: v14 runs it between issuing Sij and issuing Pij-1 Vj-1, behind a
// second wgmma.fence (v13's order, kept at three warpgroups and d = 64, after the wait for Pij-1 Vj-1: on the
// warpgroup's path to its next product either way); kTurnRescaleExp2PerElement exp2s' worth an element. The
// schedule adds the exposed part to the tensor time (ScheduleKernel::sfu_hidden_share):
//   exposed / X = max(0, 1 + fixed / Bc - partner (Br / 64 - 1) T / X) + rescale d / Bc,   T / X = 4 d / kWgmmaFlopsPerExp2,
// and the hidden share is 1 - exposed / X (below 0 where the fixed parts outweigh what hides: one warpgroup,
// or small Bc). So the share follows the tile: more partners and a longer turn (larger d) hide more of the softmax, a
// shorter Bc pays its fixed steps and its rescale more often. It replaces the per-tile shares (0 at one or two
// warpgroups and d = 64, 0.6 at two and d = 128, 0.5 / 0.25 / 0.7 at three; 128 x 176 priced at its measured ratio
// to 128 x 128) of the fifth and sixth passes (kernels/PERF.md, "Held out, seventh pass" and "eighth pass").
// Fitted (the eighth pass) by scripts/wgmma_turn_fit.py on the held-out study's fitted points the turn prices: the two
// thirds of the v14 tile table (H200, 2026-11-28 17:51 UTC, assets/measurements/h200-bench-2026-11-28-v14: every tile
// at N = 1k-16k, d = 64 and 128, 16, 64 and 128 heads, causal and not) the FNV-1a split leaves in, and the
// recording's flash_wgmma and skip's wgmma points, each priced with its machine's measured ceilings and the
// calibration as built, the exp2 rate held to the SFUs' 16 a clock an SM (the least sum of |log(simulated /
// measured)|, fit_calibration's objective). Without the rescale term (the seventh pass's two constants, 36 and
// 0.18 on v13's tables) the turn hid 81 % of the exp2 time at 192 x 80, d = 128, and priced that tile 13 % faster
// than 128 x 128 where v14 measured them level: `auto` picked it at N = 1024-2048 with 64-128 heads, 7-10 % behind.
inline constexpr double kTurnFixedExp2PerRow = 33;
inline constexpr double kTurnHiddenUnderPartner = 0.35;
inline constexpr double kTurnRescaleExp2PerElement = 0.20;
// The tensor FLOPs one exp2 costs in time: the H200's measured GEMM rate against the SFUs' 16 exp2 a clock an SM at
// 1.98 GHz on 132 SMs (774 TFLOP/s against 4.18 G exp2/s, the bound the fit holds the exp2 rate to; the fitted rate,
// kernels/sim/sim_backend.cpp, is 0.98 of it; 174 while the fitted rate was 4.46 G/s). Only its product with
// kTurnHiddenUnderPartner matters: a different ratio is the same fit with another share.
inline constexpr double kWgmmaFlopsPerExp2 = 185;

namespace {

struct TurnConstants {
    double fixed = kTurnFixedExp2PerRow, partner = kTurnHiddenUnderPartner, rescale = kTurnRescaleExp2PerElement;
};

// FUSIONLAB_SIM_WGMMA_TURN="FIXED PARTNER RESCALE" replaces the three constants: scripts/wgmma_turn_fit.py's
// candidates, which nothing else sets. False where it is set but is not three numbers >= 0 (add_flash_kernel refuses
// the job, naming it).
bool turn_constants(TurnConstants& c) {
    c = TurnConstants{};
    const char* v = std::getenv("FUSIONLAB_SIM_WGMMA_TURN");
    if (v == nullptr) return true;
    double f = -1, k = -1, r = -1;
    char extra = 0;
    if (std::sscanf(v, "%lf %lf %lf %c", &f, &k, &r, &extra) != 3 || !(f >= 0) || !(k >= 0) || !(r >= 0)) return false;
    c = TurnConstants{f, k, r};
    return true;
}

}  // namespace

double flash_wgmma_sfu_hidden_share(int Br, int Bc, int64_t d) {
    TurnConstants c;
    turn_constants(c);  // malformed: the fitted constants (the job that prices it is refused)
    const double partners = std::max(0, Br / 64 - 1), keys = std::max(1, Bc);
    const double turn_over_exp2 = 4.0 * static_cast<double>(d) / kWgmmaFlopsPerExp2;
    const double softmax = std::max(0.0, 1.0 + c.fixed / keys - c.partner * partners * turn_over_exp2);
    return 1.0 - (softmax + c.rescale * static_cast<double>(d) / keys);
}

std::vector<Params> auto_tile_candidates(const std::string& kernel_variant, const Params& p) {
    const bool br_auto = p.get("br") == kAutoTile, bc_auto = p.get("bc") == kAutoTile;
    if (!br_auto && !bc_auto) return {};
    const std::optional<Variant> v = find_variant(kernel_variant);
    if (!v || !is_flash(*v)) {
        // No tile (naive): the one value an unresolved auto reads as, so a recording finds the point.
        Params c = p;
        if (br_auto) c.set("br", kUnresolvedAutoTile);
        if (bc_auto) c.set("bc", kUnresolvedAutoTile);
        return {c};
    }
    std::vector<int> rows, cols;
    if (*v == Variant::flash || *v == Variant::flash_tc) rows.assign(std::begin(kTileSizes), std::end(kTileSizes));
    if (*v == Variant::flash) cols.assign(std::begin(kTileSizes), std::end(kTileSizes));
    if (*v == Variant::flash_tc) cols.assign(std::begin(kTcTileSizes), std::end(kTcTileSizes));
    if (*v == Variant::flash_wgmma) {
        rows.assign(std::begin(kWgmmaRowTiles), std::end(kWgmmaRowTiles));
        cols.assign(std::begin(kWgmmaColTiles), std::end(kWgmmaColTiles));
    }
    if (!br_auto) rows = {static_cast<int>(p.get_int("br"))};
    if (!bc_auto) cols = {static_cast<int>(p.get_int("bc"))};
    std::vector<Params> out;
    for (const int br : rows)
        for (const int bc : cols) {
            Params c = p;
            c.set("br", br).set("bc", bc);
            out.push_back(std::move(c));
        }
    return out;
}

Tile flash_tile(Variant variant, const AttentionParams& p) {
    if (is_flash(variant)) return {p.Br, p.Bc};
    throw std::invalid_argument(std::string("variant '") + name_of(variant) + "' has no flash tile");
}
Tile flash_tile(const std::string& variant, const AttentionParams& p) {
    const std::optional<Variant> v = find_variant(variant);
    if (!v) throw std::invalid_argument("variant '" + variant + "' has no flash tile");
    return flash_tile(*v, p);
}

// Row stride (elements) of the teaching kernel's Qi, Kj, Vj tiles: padded so that one row is an
// odd number of 4-byte words, so 32 threads reading one column of 32 rows hit 32 different banks.
int64_t flash_tile_row_stride(int64_t d, DType t) {
    if (dtype_bytes(t) == 4) return d % 2 == 1 ? d : d + 1;
    int64_t ld = d + (d % 2);             // whole words
    if ((ld / 2) % 2 == 0) ld += 2;       // odd number of words
    return ld;
}

uint64_t flash_smem_bytes(const std::string& variant, const AttentionParams& p) {
    return flash_smem_bytes(variant_of(variant), p);
}

uint64_t flash_smem_bytes(Variant variant, const AttentionParams& p) {
    const Tile t = flash_tile(variant, p);
    const uint64_t es = es_of(p), Br = u(t.Br), Bc = u(t.Bc), d = u(p.d);
    // Qi + 2 stages of (Kj, Vj); rows padded by 16 bytes so ldmatrix's 8 rows hit different banks.
    if (variant == Variant::flash_tc) return (Br + 4 * Bc) * (d + 8) * es;
    // Qi + the TMA ring's stages of (Kj, Vj), unpadded (128-byte swizzle), alignment and mbarriers.
    if (variant == Variant::flash_wgmma)
        return (Br + 2 * u(flash_wgmma_stages(t.Br, t.Bc, p.d, p.dtype == DType::f32 ? 4 : 2)) * Bc) * d * es +
               u(kWgmmaSmemExtra);
    const uint64_t ld = u(flash_tile_row_stride(p.d, p.dtype));
    return (Br + 2 * Bc) * ld * es                // Qi, Kj, Vj in the input dtype
           + (Br * (Bc + 1) + Br * d + 3 * Br) * 4;  // Sij (padded rows), Oi, m, l, rescale in fp32
}

std::string flash_smem_refusal(Variant variant, const AttentionParams& p, int smem_per_block, int smem_per_block_optin) {
    const uint64_t need = flash_smem_bytes(variant, p);
    const uint64_t allowed = u(std::max(smem_per_block, smem_per_block_optin));
    if (need <= allowed) return "";
    const Tile t = flash_tile(variant, p);
    return std::string(name_of(variant)) + " with Br=" + std::to_string(t.Br) + ", Bc=" + std::to_string(t.Bc) + ", d=" +
           std::to_string(p.d) + ", " + to_string(p.dtype) + " needs " + std::to_string(need) +
           " bytes of shared memory per block; this device allows " + std::to_string(smem_per_block) +
           " per block by default, " + std::to_string(smem_per_block_optin) +
           " with opt-in: choose smaller Br or Bc, or a 2-byte dtype";
}

std::string format_gib(uint64_t bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
    return std::to_string(bytes) + " bytes (" + buf + ")";
}

std::string device_refusal(const std::string& variant, const AttentionParams& p, const DeviceBudget& budget) {
    const std::optional<Variant> v = find_variant(variant);
    if (!v) return validate(variant, p);
    return device_refusal(*v, p, budget);
}

std::string device_refusal(Variant variant, const AttentionParams& p, const DeviceBudget& budget) {
    const DeviceInfo& dev = budget.device;
    if (std::string bad = validate(variant, p); !bad.empty()) return bad;
    if (variant == Variant::flash_tc && dev.cc_major < 8)
        return "flash_tc needs compute capability 8.0 or newer (mma.sync m16n8k16 with bf16, cp.async); " + dev.name +
               " is " + std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor);
    if (variant == Variant::flash_wgmma && !(dev.cc_major == 9 && dev.cc_minor == 0))
        return "flash_wgmma needs compute capability 9.0 (H100, H200): wgmma, TMA and setmaxnreg exist only in "
               "sm_90a code, which runs on 9.0 alone; " + dev.name + " is " + std::to_string(dev.cc_major) + "." +
               std::to_string(dev.cc_minor) + ". flash_tc runs on 8.0 and newer";
    if (variant != Variant::naive)
        if (std::string refusal = flash_smem_refusal(variant, p, dev.smem_per_block, dev.smem_per_block_optin);
            !refusal.empty())
            return refusal;
    const uint64_t io = io_bytes(p), scratch = variant == Variant::naive ? naive_scratch_bytes(p) : 0;
    const uint64_t memory = budget.memory_bytes;
    const std::string of_memory = " of GPU memory " + budget.memory_what;
    if (io + scratch > memory) {
        if (variant == Variant::naive)
            return "naive needs " + format_gib(scratch) + " for S and P (2 x batch_heads x N^2 x " +
                   std::to_string(dtype_bytes(p.dtype)) + " bytes) plus " + format_gib(io) + " for Q, K, V, O; " +
                   format_gib(memory) + of_memory +
                   (io <= memory ? ". flash needs only the " + format_gib(io) + " for Q, K, V, O: S and P never exist"
                                 : "");
        return std::string(name_of(variant)) + " needs " + format_gib(io) + " for Q, K, V, O; " + format_gib(memory) + of_memory;
    }
    return "";
}

// =============================================================================================
// [SECTION] Params of the app <-> AttentionParams (the one mapping)
// =============================================================================================
AttentionParams to_attention(const Params& p) {
    AttentionParams a;
    a.batch_heads = p.get_int("heads");
    a.N = p.get_int("N");
    a.d = p.get_int("d");
    a.dtype = p.dtype;
    a.causal = p.get_bool("causal");
    // Out-of-int tile values must still fail validate(): clamp to a value that is not a tile size.
    auto tile = [](int64_t v) {
        if (v == kAutoTile) return kUnresolvedAutoTile;  // auto that no device resolved (attention.h)
        return v < 0 || v > 1 << 20 ? -1 : static_cast<int>(v);
    };
    a.Br = tile(p.get_int("br"));
    a.Bc = tile(p.get_int("bc"));
    a.seed = seed_of(p);
    return a;
}

Params to_params(const AttentionParams& a) {
    Params p;
    p.workload = "attention";
    p.dtype = a.dtype;
    p.set("heads", static_cast<double>(a.batch_heads)).set("N", static_cast<double>(a.N));
    p.set("d", static_cast<double>(a.d)).set("causal", a.causal ? 1 : 0);
    p.set("br", a.Br).set("bc", a.Bc).set("seed", static_cast<double>(a.seed));
    return p;
}

// =============================================================================================
// [SECTION] Schedule
// =============================================================================================
namespace {

// One class of identical thread blocks of a flash kernel: `rows` rows of Q, key tiles 0..tiles-1
// (the last of `last_cols` rows, the others of Bc), run by `count` blocks per head.
struct BlockClass {
    uint64_t first_block, count, rows, tiles, last_cols;
};

std::vector<BlockClass> flash_block_classes(const Tile& t, const AttentionParams& p) {
    const uint64_t N = u(p.N), Br = u(t.Br), Bc = u(t.Bc), Tr = ceil_div(N, Br);
    std::vector<BlockClass> classes;
    for (uint64_t i = 0; i < Tr; ++i) {
        const uint64_t rows = std::min(Br, N - i * Br);
        const uint64_t kv_end = p.causal ? i * Br + rows : N;  // keys this block may attend to
        const uint64_t tiles = ceil_div(kv_end, Bc);
        const uint64_t last_cols = std::min(Bc, N - (tiles - 1) * Bc);  // the kernel loads whole tiles
        if (!classes.empty()) {
            BlockClass& prev = classes.back();
            if (prev.rows == rows && prev.tiles == tiles && prev.last_cols == last_cols) {
                ++prev.count;
                continue;
            }
        }
        classes.push_back({i, 1, rows, tiles, last_cols});
    }
    return classes;
}

std::string block_suffix(const BlockClass& c, const Tile& t, uint64_t Tr) {
    std::string s = c.count == 1 ? " (row block i = " + std::to_string(c.first_block) + ")"
                                 : " (row blocks i = " + std::to_string(c.first_block) + ".." +
                                       std::to_string(c.first_block + c.count - 1) + ")";
    if (c.first_block + c.count == Tr && c.rows < u(t.Br))
        s += " [ragged: " + std::to_string(c.rows) + " of " + std::to_string(t.Br) + " rows]";
    return s;
}

// Events of the j-loop for tiles [j_begin, j_end) of one block class, folded into one group when
// more than one tile: bytes and FLOPs are those tiles' sums, so totals stay exact.
void add_kv_iterations(Schedule& s, int k, const AttentionParams& p, const Tile& t, const BlockClass& c,
                       uint64_t j_begin, uint64_t j_end, uint64_t repeat, const std::string& suffix) {
    if (j_begin >= j_end) return;
    const uint64_t es = es_of(p), d = u(p.d), Bc = u(t.Bc);
    uint64_t cols = 0;
    for (uint64_t j = j_begin; j < j_end; ++j) cols += (j + 1 == c.tiles) ? c.last_cols : Bc;
    const uint64_t n = j_end - j_begin;
    const std::string jj = n == 1 ? "j = " + std::to_string(j_begin)
                                  : "j = " + std::to_string(j_begin) + ".." + std::to_string(j_end - 1) + ": " +
                                        std::to_string(n) + " tiles, one after another";
    const bool tc = s.kernels[static_cast<size_t>(k)].mma_sync;
    const bool wgmma = s.kernels[static_cast<size_t>(k)].name == "flash_wgmma";
    // flash_wgmma computes whole tiles (attention_wgmma.cu: the copy engine zero-fills rows and keys past N, and every
    // consumer warpgroup runs its m64 products and softmax on them, masked only at the store and by -inf): a ragged
    // row block (N not a multiple of Br: 192-row tiles at every power-of-two N) costs Br rows, a ragged key tile Bc
    // keys. The others' loops stop at N.
    const uint64_t computed_rows = wgmma ? u(t.Br) : c.rows, computed_cols = wgmma ? n * Bc : cols;
    const double mults = static_cast<double>(computed_rows) * static_cast<double>(computed_cols) * static_cast<double>(d);
    const std::string diag = (p.causal && j_end == c.tiles) ? "; causal mask on the diagonal tile" : "";
    // Shared memory, in 128-byte wavefronts (one per conflict-free or broadcast warp access):
    const uint64_t rows = c.rows, W = 128;
    uint64_t kv_smem = 0, s_smem = 0, softmax_smem = 0, pv_smem = 0;
    if (wgmma) {
        // flash_wgmma: TMA stores Kj, Vj once (whole boxes of Bc rows, zero-filled past N); each
        // consumer warpgroup's wgmma reads its 64 rows of Qi and all of Kj for Sij, and all of Vj
        // for Pij Vj (128-byte swizzle: conflict-free); Sij and Pij stay in registers.
        const uint64_t wgs = u(t.Br) / 64;
        kv_smem = 2 * n * Bc * d * es;
        s_smem = wgs * n * (64 + Bc) * d * es;
        pv_smem = wgs * n * Bc * d * es;
    } else if (tc) {
        // flash_tc: cp.async stores Kj, Vj once; every warp (16 or 32 rows of Qi each) reads all of
        // Kj and Vj through ldmatrix; Sij and Pij stay in registers. With 32 rows per warp Qi's
        // fragments do not stay in registers either: each tile reads them again.
        const uint64_t warp_rows = u(flash_tc_warp_rows(t.Br, t.Bc, p.d)), warps = ceil_div(rows, warp_rows);
        kv_smem = 2 * cols * d * es;
        s_smem = warps * cols * d * es + (warp_rows == 32 ? n * rows * d * es : 0);
        pv_smem = warps * cols * d * es;
    } else {
        // The teaching kernel, per warp of 32 consecutive outputs: Sij reads Qi (broadcast) and Kj
        // (padded rows: conflict-free) for each of d terms, then stores Sij; the row update reads
        // Sij twice and writes Pij; Oi reads Pij (broadcast) and Vj per key, rescale, Oi in and out.
        kv_smem = ceil_div(2 * cols * d, 32) * W;
        s_smem = ceil_div(rows * cols, 32) * (2 * d + 1) * W;
        softmax_smem = ceil_div(rows * cols, 32) * 3 * W;
        pv_smem = ceil_div(rows * d, 32) * (2 * cols + 3 * n) * W;
    }
    const double exps = static_cast<double>(computed_rows) * static_cast<double>(computed_cols) + static_cast<double>(computed_rows * n);
    if (wgmma) {
        // The producer warp's TMA copies into the ring: the first `stages` tiles fill it without
        // waiting; every later one waits until the consumers free its slot (the ring drains at the end).
        const uint64_t stages = u(flash_wgmma_stages(t.Br, t.Bc, p.d, static_cast<int64_t>(es)));
        const std::string ring = j_end <= stages      ? "filling the ring of " + std::to_string(stages) + " slots"
                                 : j_begin >= stages ? "each waits for the consumers to free slot j mod " + std::to_string(stages)
                                                     : "the ring of " + std::to_string(stages) + " slots fills, then each waits for a free slot";
        const std::string copy = "load Kj, Vj into SRAM: the producer warp's TMA copies (" + jj + "; " + ring + ")" + suffix;
        TileEvent ke{EventKind::load, k, "K", cols * d * es, 0, repeat, copy};
        ke.shared_bytes = kv_smem;
        s.events.push_back(ke);
        s.events.push_back({EventKind::load, k, "V", cols * d * es, 0, repeat, copy});
        const std::string wgs = std::to_string(t.Br / 64) + (t.Br == 64 ? " consumer warpgroup" : " consumer warpgroups");
        TileEvent se{EventKind::compute, k, "", 0, 2 * mults, repeat,
                     "compute Sij = Qi Kjᵀ / sqrt(d) on wgmma: " + wgs + ", " + std::to_string(d / 16) + " steps of m64n" +
                         std::to_string(Bc) + "k16 each (" + jj + diag + ")" + suffix};
        se.shared_bytes = s_smem;
        s.events.push_back(se);
        TileEvent me{EventKind::compute, k, "", 0, 0, repeat,
                     "update m, l in the " + wgs + "' registers: m_new = max(m, rowmax Sij), Pij = exp2((Sij - m_new) "
                     "log2(e) / sqrt(d)), l = l e^(m - m_new) + rowsum Pij (" + jj + ")" + suffix};
        me.sfu_ops = exps;
        s.events.push_back(me);
        TileEvent oe{EventKind::compute, k, "", 0, 2 * mults, repeat,
                     "accumulate Oi = Oi e^(m - m_new) + Pij Vj on wgmma, Pij from registers: " + std::to_string(Bc / 16) +
                         " steps of m64n" + std::to_string(d) + "k16 (" + jj + ")" + suffix};
        oe.shared_bytes = pv_smem;
        s.events.push_back(oe);
        return;
    }
    TileEvent ke{EventKind::load, k, "K", cols * d * es, 0, repeat, "load Kj, Vj into SRAM (" + jj + ")" + suffix};
    ke.shared_bytes = kv_smem;
    s.events.push_back(ke);
    s.events.push_back({EventKind::load, k, "V", cols * d * es, 0, repeat, "load Kj, Vj into SRAM (" + jj + ")" + suffix});
    const std::string on = tc ? " on mma.sync, " + std::to_string(flash_tc_warp_rows(t.Br, t.Bc, p.d)) + " rows per warp" : "";
    TileEvent se{EventKind::compute, k, "", 0, 2 * mults, repeat,
                 "compute Sij = Qi Kjᵀ / sqrt(d)" + on + " (" + jj + diag + ")" + suffix};
    se.shared_bytes = s_smem;
    s.events.push_back(se);
    TileEvent me{EventKind::compute, k, "", 0, 0, repeat,
                 "update m, l: m_new = max(m, rowmax Sij), Pij = exp(Sij - m_new), l = l e^(m - m_new) + "
                 "rowsum Pij (" + jj + ")" + suffix};
    me.shared_bytes = softmax_smem;
    me.sfu_ops = exps;
    s.events.push_back(me);
    TileEvent oe{EventKind::compute, k, "", 0, 2 * mults, repeat, "accumulate Oi = Oi e^(m - m_new) + Pij Vj (" + jj + ")" + suffix};
    oe.shared_bytes = pv_smem;
    s.events.push_back(oe);
}

// How a flash block runs, for the simulator's occupancy and latency model (schedule.h, BlockShape).
// saturating_warps, from the H100 recording (assets/recordings/h100-2026-11-25) where every SM holds
// at most one block (1 to 16 heads at N = 1024): a lone block runs (saturating_warps / its warps)^1.5
// times slower than at the SM's full rate. The teaching kernel's 4-warp block: 864-904 us against
// 415 us of shared-memory wavefronts, its serial steps below taken out (1.75x): 6. flash_tc's blocks
// of 1, 2 and 4 warps of 16 rows: 17x, 8x and 2.5x their full-rate time (Br = 16, 32, 64; 25.1 us
// alone at 64 x 64, 1.5 us a key tile and 1.4 us of start): 6.6-8, so 7; with 32 rows per warp
// (Br = 128, 4 warps) 1.7x: 5.5 (two m16 tiles share each fragment: more independent MMAs a warp). flash_wgmma's block is built to fill
// its SM alone (one block per SM by its shared memory and registers): 0. memory_trips: Qi, then the
// first Kj and Vj, arrive before the loop can start, and Oi leaves after it.
constexpr double kFlashTc16RowWarps = 7.0, kFlashTc32RowWarps = 4.5;  // at d = 64, Bc = 64

BlockShape flash_block_shape(Variant variant, const AttentionParams& p, const std::vector<BlockClass>& classes) {
    BlockShape b;
    b.shared_bytes = flash_smem_bytes(variant, p);
    // flash_tc's warps of 32 rows issue two independent MMA chains per fragment: half the warps do.
    if (variant == Variant::flash) b.saturating_warps = 6;
    if (variant == Variant::flash_tc) {
        // A warp's independent MMAs grow with d (its Oi fragments) and Bc (its Sij fragments): the
        // warps an SM needs fall about as their fourth root (v5, H100 and H200: 32 x 64 at d = 128
        // needs 5.8, 64 x 64 at d = 32 about 8.5, the Bc = 128 tiles 0.84 of the Bc = 64 ones).
        const double ilp = std::pow(64.0 / static_cast<double>(p.d), 0.25) * std::pow(64.0 / static_cast<double>(p.Bc), 0.25);
        b.saturating_warps = (flash_tc_warp_rows(p.Br, p.Bc, p.d) == 32 ? kFlashTc32RowWarps : kFlashTc16RowWarps) * ilp;
    }
    // flash_tc issues Qi, K0 and V0 as one group of cp.async: one trip before its loop, not two.
    b.memory_trips = variant == Variant::flash_tc ? 2 : 3;
    // Causal: the row blocks visit 1..Tc key tiles; the last one works longest.
    double total = 0, longest = 0, blocks = 0, tiles = 0;
    for (const BlockClass& c : classes) {
        const double work = static_cast<double>(c.rows) * static_cast<double>((c.tiles - 1) * u(flash_tile(variant, p).Bc) + c.last_cols);
        total += work * static_cast<double>(c.count);
        blocks += static_cast<double>(c.count);
        tiles += static_cast<double>(c.tiles * c.count);
        longest = std::max(longest, work);
    }
    if (total > 0) b.longest_block = longest * blocks / total;
    if (variant == Variant::flash) {
        // The teaching loop's steps wait on each other: Kj, Vj are loaded without a prefetch, four
        // __syncthreads a step, and one thread per row runs the softmax's serial max and sum. The
        // recording's lone blocks (1-16 heads at N = 1024, Bc 16-128, d 16-128) spend about 4.4 us
        // a step beyond their work: 8700 cycles at 1980 MHz.
        b.serial_steps = blocks > 0 ? static_cast<uint64_t>(tiles / blocks + 0.5) : 0;
        b.step_cycles = 8700;
    }
    b.source = "H100 recording 2026-11-25, 1-8 heads at N = 1024 (one block per SM)";
    return b;
}

void add_flash_kernel(Schedule& s, Variant variant, const AttentionParams& p) {
    const Tile t = flash_tile(variant, p);
    const uint64_t es = es_of(p), d = u(p.d), bh = u(p.batch_heads), Tr = ceil_div(u(p.N), u(t.Br));
    const int k = static_cast<int>(s.kernels.size());
    const bool tc = variant == Variant::flash_tc;  // mma.sync; the teaching kernel's products are FP32 FMAs
    const bool wgmma = variant == Variant::flash_wgmma;
    ScheduleKernel kernel{name_of(variant), Tr * bh,
                          tc ? flash_tc_threads(t.Br, t.Bc, p.d) : wgmma ? flash_wgmma_threads(t.Br) : flash_threads(), tc || wgmma};
    kernel.mma_sync = tc;  // hand-written mma.sync, not a library GEMM; wgmma runs at the GEMM's rate
    if (tc) kernel.registers = flash_tc_registers(p);
    // flash_wgmma is launched with __launch_bounds__(threads, 1) and hands registers between its roles
    // with setmaxnreg (a consumer thread 240 with two consumer warpgroups, 160 with three; a producer
    // thread 24): it takes the register file, one block per SM by design (kernels/PERF.md, "What
    // bounds v2": 12 warps per SM; 16 at Br = 192).
    // With one consumer warpgroup ptxas uses what the instance needs (flash_wgmma_launch_registers): 64 x 64 at d = 64
    // holds 119 a thread, and two blocks share an SM (kernels/PERF.md, "Held out, eighth pass": priced as one, that tile
    // read 12-20 % slow on v14's table).
    if (wgmma) kernel.registers = flash_wgmma_launch_registers(p, false);
    // flash_wgmma's exp2s mostly do not hide under its products (H100: 0.631 ms at d = 64 against
    // 0.357 + 0.257 ms of tensor and exp2 floors, kernels/PERF.md); flash_tc's calibrated mma.sync
    // rate already includes its softmax.
    kernel.sfu_between_mma = wgmma;
    // Other warpgroups' turns fill part of the gap where one softmax outlasts a partner's products
    // (attention_wgmma.cu v2 and v4).
    if (wgmma) {
        TurnConstants turn;
        if (!turn_constants(turn))
            throw std::invalid_argument(std::string("FUSIONLAB_SIM_WGMMA_TURN='") + std::getenv("FUSIONLAB_SIM_WGMMA_TURN") +
                                        "': expected three numbers >= 0, \"FIXED PARTNER RESCALE\" (scripts/wgmma_turn_fit.py's "
                                        "candidates for flash_wgmma's turn); unset it for the fitted constants");
        kernel.sfu_hidden_share = flash_wgmma_sfu_hidden_share(t.Br, t.Bc, p.d);
    }
    const std::vector<BlockClass> classes = flash_block_classes(t, p);
    kernel.block = flash_block_shape(variant, p, classes);
    // flash_wgmma's 128 x 176 (d = 128) runs at 0.96-1.085x 128 x 128's time since v12 (median 0.994 non-causal, 1.02
    // causal; kernels/PERF.md's d = 128 table): its longer turns pay the per-tile softmax steps less often, which
    // the turn prices (flash_wgmma_sfu_hidden_share); no special case.
    // The teaching kernel and flash_tc launch one block per row block, blockIdx.x the row block within a head
    // (attention.cu, attention_tc.cu): causal, one head's row blocks in that order are one period of the launch order
    // (BlockShape::item_runs without `persistent`: their work over the mean block's), whose tail the simulated backend
    // prices (sim_backend.cpp, launch_order_tail: the longest row blocks of the last heads start last).
    // A row block's work (rows x the key columns it visits), and the classes in an order as runs of (that work over the
    // mean row block's, count x `repeat`).
    // flash_wgmma's whole tiles (add_kv_iterations): Br rows and whole key tiles, ragged or not.
    const auto work = [&](const BlockClass& c) {
        return wgmma ? static_cast<double>(u(t.Br) * c.tiles * u(t.Bc))
                     : static_cast<double>(c.rows * ((c.tiles - 1) * u(t.Bc) + c.last_cols));
    };
    const auto work_runs = [&](const std::vector<BlockClass>& order, uint64_t repeat) {
        double total = 0, items = 0;
        for (const BlockClass& c : order) total += work(c) * static_cast<double>(c.count), items += static_cast<double>(c.count);
        std::vector<std::pair<double, uint64_t>> runs;
        if (total > 0)
            for (const BlockClass& c : order) runs.push_back({work(c) * items / total, c.count * repeat});
        return runs;
    };
    if (!wgmma && p.causal) kernel.block.item_runs = work_runs(classes, 1);
    // flash_wgmma v5: one block per SM slot walks the Tr x batch_heads row blocks (attention_wgmma.cu's
    // tile scheduler), so `blocks` counts work items; v4 (FUSIONLAB_FLASH_WGMMA_GRID=waves) one block each.
    if (wgmma && flash_wgmma_persistent()) {
        kernel.block.persistent = true;
        kernel.blocks_are = "row blocks, walked by a persistent grid of one block per SM";
        // The order the blocks claim them in (attention_wgmma.cu, tile scheduler): non-causal head by head,
        // every row block alike; causal longest row blocks first. The kernel orders the causal items by level
        // within each L2 section of heads; taken here as one section (the tail, which the order is for, is
        // the last section's shortest row blocks either way).
        std::vector<BlockClass> order = classes;
        if (p.causal)
            std::stable_sort(order.begin(), order.end(), [&](const BlockClass& a, const BlockClass& b) { return work(a) > work(b); });
        kernel.block.item_runs = work_runs(order, bh);
    }
    s.kernels.push_back(kernel);
    // Every iteration of the j-loop is its own group of events when the schedule stays small: a
    // non-causal run has one or two block classes, so up to kUnfoldedTiles tiles each (N = 16384 with
    // Bc = 64 is 256 tiles, 1282 events). Causal runs have a class per row block (Tr classes with
    // 1..Tc tiles): their middle iterations are folded, or N = 16384 would be ~80000 events.
    constexpr uint64_t kUnfoldedTiles = 256;
    const bool unfold = classes.size() <= 2 &&
                        std::all_of(classes.begin(), classes.end(), [](const BlockClass& c) { return c.tiles <= kUnfoldedTiles; });
    for (const BlockClass& c : classes) {
        const uint64_t repeat = c.count * bh;
        const std::string suffix = block_suffix(c, t, Tr);
        s.events.push_back({EventKind::load, k, "Q", c.rows * d * es, 0, repeat,
                            (wgmma ? "load Qi into SRAM: the producer warp's TMA copy" : "load Qi into SRAM") + suffix});
        // Few tiles (or a small schedule): every iteration shown. Many: the first two, the middle
        // folded, the last two.
        if (unfold || c.tiles <= 5) {
            for (uint64_t j = 0; j < c.tiles; ++j) add_kv_iterations(s, k, p, t, c, j, j + 1, repeat, suffix);
        } else {
            add_kv_iterations(s, k, p, t, c, 0, 1, repeat, suffix);
            add_kv_iterations(s, k, p, t, c, 1, 2, repeat, suffix);
            add_kv_iterations(s, k, p, t, c, 2, c.tiles - 2, repeat, suffix);
            add_kv_iterations(s, k, p, t, c, c.tiles - 2, c.tiles - 1, repeat, suffix);
            add_kv_iterations(s, k, p, t, c, c.tiles - 1, c.tiles, repeat, suffix);
        }
        s.events.push_back({EventKind::store, k, "O", c.rows * d * es, 0, repeat,
                            (wgmma ? "store Oi (Oi / l) from the consumer warpgroups' registers" : "store Oi (Oi / l)") + suffix});
    }
}

// cuBLAS picks its own tiling: each head's GEMM is shown as one step moving each operand once;
// ScheduleKernel::blocks counts heads and threads_per_block is 0 ("cuBLAS's choice").
void add_naive_kernels(Schedule& s, const AttentionParams& p) {
    const uint64_t es = es_of(p), N = u(p.N), d = u(p.d), bh = u(p.batch_heads);
    const double gemm_flops = 2.0 * static_cast<double>(N) * static_cast<double>(N) * static_cast<double>(d);
    // cuBLAS runs fp16/bf16 GEMMs on tensor cores; fp32 stays on the FP32 pipes (default math mode).
    const bool tc = p.dtype != DType::f32;
    // A cuBLAS GEMM's tiles load A and B, run their k-loop and store C: three dependent trips to
    // memory, the shortest such kernel (the H100 recording: 2.8-3.7 us for one head at N = 1024).
    BlockShape gemm_block;
    gemm_block.memory_trips = 3;
    gemm_block.source = "cuBLAS: load A and B tiles, k-loop, store C";
    s.kernels.push_back({"gemm_qk", bh, 0, tc});
    s.kernels.back().bf16_operands = p.dtype == DType::bf16;
    s.kernels.back().blocks_are = "heads (cuBLAS picks the blocks)";
    s.kernels.back().block = gemm_block;
    s.events.push_back({EventKind::load, 0, "Q", N * d * es, 0, bh, "load Q of one head (cuBLAS tiles)"});
    s.events.push_back({EventKind::load, 0, "K", N * d * es, 0, bh, "load K of one head (cuBLAS tiles)"});
    s.events.push_back({EventKind::compute, 0, "", 0, gemm_flops, bh, "compute S = Q Kᵀ / sqrt(d) (cuBLAS GEMM)"});
    s.events.push_back({EventKind::store, 0, "S", N * N * es, 0, bh, "store S (N x N)"});

    const int threads = softmax_threads(p);
    s.kernels.push_back({"softmax", bh * N, threads, false});
    s.kernels.back().block.memory_trips = 2;  // the row, then (after the max and the sum) P's store
    s.events.push_back({EventKind::load, 1, "S", N * es, 0, bh * N, "load S row into registers"});
    TileEvent softmax{EventKind::compute, 1, "", 0, 0, bh * N,
                      p.causal ? "compute P = softmax(S row), keys after the query masked"
                               : "compute P = softmax(S row): max, exp, sum, divide"};
    // Per element: load and convert, max, subtract, exp2, sum, multiply, convert and store, with
    // the warp and block reductions: about 36 instructions (calibrated: the H200's softmax at
    // N = 4096 and 8192, 1.45 and 1.84 ms, is issue-bound), and one exp2.
    softmax.instructions = 36.0 * static_cast<double>(N);
    softmax.sfu_ops = static_cast<double>(N);
    s.events.push_back(softmax);
    s.events.push_back({EventKind::store, 1, "P", N * es, 0, bh * N, "store P row"});

    s.kernels.push_back({"gemm_pv", bh, 0, tc});
    s.kernels.back().bf16_operands = p.dtype == DType::bf16;
    s.kernels.back().blocks_are = "heads (cuBLAS picks the blocks)";
    s.kernels.back().block = gemm_block;
    s.events.push_back({EventKind::load, 2, "P", N * N * es, 0, bh, "load P (N x N) of one head (cuBLAS tiles)"});
    s.events.push_back({EventKind::load, 2, "V", N * d * es, 0, bh, "load V of one head (cuBLAS tiles)"});
    s.events.push_back({EventKind::compute, 2, "", 0, gemm_flops, bh, "compute O = P V (cuBLAS GEMM)"});
    s.events.push_back({EventKind::store, 2, "O", N * d * es, 0, bh, "store O of one head"});
}

}  // namespace

int softmax_vector_width(const AttentionParams& p) { return p.N % 8 == 0 ? 8 : 1; }

int softmax_chunks(const AttentionParams& p) {
    const int width = softmax_vector_width(p);
    const int64_t vectors = (p.N + width - 1) / width;
    for (int chunks : width == 8 ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{4, 16, 64})
        if ((vectors + chunks - 1) / chunks <= 1024) return chunks;
    return width == 8 ? 8 : 64;  // N <= kMaxN = 65536 = 1024 x 64 always fits
}

int softmax_threads(const AttentionParams& p) {
    const int64_t vectors = (p.N + softmax_vector_width(p) - 1) / softmax_vector_width(p);
    const int64_t per_chunk = (vectors + softmax_chunks(p) - 1) / softmax_chunks(p);
    return static_cast<int>(std::max<int64_t>(32, (per_chunk + 31) / 32 * 32));
}

Schedule schedule(const std::string& variant, const AttentionParams& p) {
    if (const std::string bad = validate(variant, p); !bad.empty()) throw std::invalid_argument(bad);
    return schedule(variant_of(variant), p);
}

Schedule schedule(Variant variant, const AttentionParams& p) {
    if (const std::string bad = validate(variant, p); !bad.empty()) throw std::invalid_argument(bad);
    Schedule s;
    if (variant == Variant::naive) add_naive_kernels(s, p);
    else add_flash_kernel(s, variant, p);
    return s;
}

Model model(const std::string& variant, const AttentionParams& p) { return model_from_schedule(schedule(variant, p)); }
Model model(Variant variant, const AttentionParams& p) { return model_from_schedule(schedule(variant, p)); }

// =============================================================================================
// [SECTION] Totals
// =============================================================================================
double nominal_flops(const AttentionParams& p) {
    const double N = static_cast<double>(p.N), d = static_cast<double>(p.d), bh = static_cast<double>(p.batch_heads);
    return bh * (p.causal ? 2.0 * N * (N + 1) * d : 4.0 * N * N * d);
}

uint64_t io_bytes(const AttentionParams& p) { return 4 * u(p.batch_heads) * u(p.N) * u(p.d) * es_of(p); }
uint64_t min_bytes(const AttentionParams& p) { return io_bytes(p); }
uint64_t naive_scratch_bytes(const AttentionParams& p) { return 2 * u(p.batch_heads) * u(p.N) * u(p.N) * es_of(p); }

}  // namespace kernels::attention
