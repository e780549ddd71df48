// Attention workload: O = softmax(Q Kᵀ / sqrt(d) [+ causal mask]) V, per head.
//
// Shapes: Q, K, V and O are batch_heads x N x d, row-major and contiguous (head h, row n, column c
// at (h*N + n)*d + c). Causal: query row r attends to keys 0..r only.
// Inputs are input_value(seed, tensor id, index) rounded to the dtype (kernels/core/philox.h), so any row
// can be regenerated on the host to check it, as in the elementwise workload.
//
// Variants (names from Dao et al., FlashAttention, 2022):
//   naive     3 kernels: gemm_qk (cuBLAS: S = Q Kᵀ / sqrt(d), S written to HBM), softmax (reads S,
//             writes P, N x N each), gemm_pv (cuBLAS: O = P V). S and P are stored in the input dtype,
//             as framework eager mode does.
//   flash     1 kernel, the teaching kernel: one thread block per Br rows of Q (Qi); a loop over
//             tiles Kj, Vj of Bc rows staged in shared memory; running row max m and sum l; Oi is
//             rescaled and accumulated on chip and stored once. Any d <= 128, Br, Bc in {16,32,64,128}
//             when the tiles fit in shared memory.
//   flash_tc  1 kernel, the same loop on tensor cores (mma.sync m16n8k16 + ldmatrix + cp.async,
//             sm_80+), fp16/bf16 with fp32 accumulation, d in {32, 64, 128}; Br in {16, 32, 64, 128}
//             (one warp per 16 or 32 rows), Bc in {64, 128}, when the tiles fit in shared memory.
//   flash_wgmma  1 kernel for sm_90a (H100, H200): K and V tiles brought in by TMA into a ring of
//             shared-memory stages by a producer warp; one or two consumer warpgroups of 64 rows of
//             Qi each run S = Qi Kjᵀ and Oi += Pij Vj on wgmma (fp16/bf16, fp32 accumulate); online
//             softmax on exp2. d in {64, 128}; Br in {64, 128} (consumer warpgroups), Bc in {64, 128}.
//
// FLOPs are the two matrix products' multiply-adds (2 per multiply-add), as the paper and the
// anchors count them; the softmax's elementwise operations are not counted. Each kernel is charged
// what it really computes: naive computes the full N x N even when causal; flash skips key tiles
// that lie wholly above the diagonal but computes (then masks) the diagonal tiles.
#pragma once

#include "kernels/core/types.h"
#include "kernels/core/variant_names.h"
#include "kernels/core/schedule.h"
#include "kernels/core/workload_def.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernels::attention {

// Tensor ids for input_value(); part of the data definition, keep stable.
enum TensorId : uint32_t { kQ = 11, kK = 12, kV = 13 };

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------
struct AttentionParams {
    int64_t batch_heads = 64;  // batch x heads: independent attention problems
    int64_t N = 4096;          // sequence length (rows of Q, K, V)
    int64_t d = 64;            // head dimension
    DType dtype = DType::f16;
    bool causal = false;
    int Br = 64;               // rows of Q per thread block (flash)
    int Bc = 64;               // rows of K, V per tile (flash)
    uint64_t seed = 1234;

    bool operator==(const AttentionParams&) const = default;
};

inline constexpr int64_t kMaxBatchHeads = 4096;
inline constexpr int64_t kMaxN = 65536;
inline constexpr int64_t kMaxD = 128;
inline constexpr int kTileSizes[] = {16, 32, 64, 128};       // Br and Bc of flash, Br of flash_tc (Bc: kColTileSizes)
// "auto" for Br and Bc (kernels/sim/auto_choice.h: kAutoValue): the app resolves it per variant and
// device before a kernel, a model or a view sees it (auto_tile_candidates). Where nothing resolved it,
// to_attention reads it as kUnresolvedAutoTile, a tile every flash kernel takes.
inline constexpr int kAutoTile = 0;
inline constexpr int kUnresolvedAutoTile = 64;
inline constexpr int kRowTileSizes[] = {16, 32, 64, 128, 192};  // Br: 192 for flash_wgmma only
inline constexpr int kColTileSizes[] = {16, 32, 64, 80, 128, 176};  // Bc: 80 and 176 for flash_wgmma only (d = 128)

// ---------------------------------------------------------------------------------------------
// Variants: values inside the workload, names at its edge
// ---------------------------------------------------------------------------------------------
// In the order of variants() (attention_model.cpp), whose names are kVariantNames. The workload's
// code switches on these; a name is read once where it comes in (the WorkloadDef's functions in
// attention_def.cpp, the functions below that take a name). Values past flash_wgmma are kept for
// variants added while the program runs (an index into a table of them beyond the named ones):
// find_variant() never returns one, and the code here refuses what it does not know.
enum class Variant : int { naive, flash, flash_tc, flash_wgmma };
inline constexpr const char* kVariantNames[] = {"naive", "flash", "flash_tc", "flash_wgmma"};
inline const char* name_of(Variant v) { return name_in(kVariantNames, v); }
// The variant called `name` (nullopt, or variant_of's exception, for a name attention does not have).
inline std::optional<Variant> find_variant(const std::string& name) { return find_named<Variant>(kVariantNames, name); }
inline Variant variant_of(const std::string& name) { return named_or_throw<Variant>(kVariantNames, name, "attention"); }
// One fused kernel with a Br x Bc tile: flash, flash_tc, flash_wgmma.
inline bool is_flash(Variant v) { return v == Variant::flash || v == Variant::flash_tc || v == Variant::flash_wgmma; }

const std::vector<VariantInfo>& variants();
bool has_variant(const std::string& variant);

// "" when valid, else a message naming the parameter, the value and the legal range. Variant
// checks add what that variant cannot run (flash_tc: fp32, d not in {32, 64, 128}). Shared-memory
// limits are device facts: see flash_smem_refusal().
std::string validate(const AttentionParams& p);
std::string validate(const std::string& variant, const AttentionParams& p);
std::string validate(Variant variant, const AttentionParams& p);

// ---------------------------------------------------------------------------------------------
// Tiles and shared memory
// ---------------------------------------------------------------------------------------------
struct Tile {
    int Br, Bc;
};
// The tiles `variant` may run for the Br, Bc of p left at auto (the others as p has them): flash any
// Br, Bc of kTileSizes, flash_tc Br of kTileSizes and Bc of kTcTileSizes, flash_wgmma kWgmmaRowTiles x
// kWgmmaColTiles; none for naive (no tile) or when neither is auto. p's workload is attention or skip
// (whose variants run these kernels: base_of maps a skip variant to its attention kernel, "" for none).
std::vector<Params> auto_tile_candidates(const std::string& kernel_variant, const Params& p);
// The tile a flash kernel uses: p.Br x p.Bc for every one of them (each says which it takes).
Tile flash_tile(const std::string& variant, const AttentionParams& p);
Tile flash_tile(Variant variant, const AttentionParams& p);
int flash_threads();  // the teaching kernel's block size

// flash_tc takes Br from the tile sizes (kTileSizes) and Bc from kTcTileSizes: Bc is unrolled at
// compile time (its Sij accumulator, Bc / 2 floats per thread and m16 tile), Br is not (a block is
// Br / rows-per-warp warps running the same code).
inline constexpr int kTcTileSizes[] = {64, 128};
// The (d, Bc) pairs with an instance whose warps own 32 rows (two m16 tiles sharing every Kj and Vj
// fragment): Sij and Oi of both tiles, Bc + d floats per thread, must stay in registers.
constexpr bool tc_has_warp_rows_32(int64_t d, int64_t Bc) { return d >= 64 && d + Bc <= 192; }
// Rows of Qi each warp of flash_tc owns, 16 or 32, and the block size (32 threads per warp).
int flash_tc_warp_rows(int Br, int Bc, int64_t d);
int flash_tc_threads(int Br, int Bc, int64_t d);
// What ptxas made of the flash_tc instance that runs p (with or without the skip epilogue):
// registers, stack frame and spill bytes per thread, from kernels/attention/flash_tc_registers.inc
// (scripts/kernel_registers.py, sm_90). Empty (registers 0) for parameters flash_tc does not take.
RegisterUse flash_tc_registers(const AttentionParams& p, bool skip_epilogue = false);

// flash_wgmma's tile comes from p.Br, p.Bc (Br: 64 rows per consumer warpgroup, one to three). The
// shared-memory ring holds as many (Kj, Vj) stages as fit in the 227 KiB a Hopper block may opt in
// to, at most 4.
inline constexpr int kWgmmaRowTiles[] = {64, 128, 192};
inline constexpr int kWgmmaColTiles[] = {64, 80, 128, 176};
// Every Br x Bc of those is built except 192 x 128 at d = 128: with three consumer warpgroups a block
// has 512 threads, a consumer thread 160 registers (setmaxnreg), and Sij, Oi and Pij need ~200 there
// (ptxas spills 272 bytes a thread). validate() refuses it with that reason. Two tiles exist at d = 128
// only (v11): 128 x 176 (FlashAttention-3's: two consumer warpgroups of 240 registers hold Sij 88, Oi 64
// and Pij 44 a thread) and 192 x 80 (three warpgroups of 160: Sij 40, Oi 64, Pij 20); validate() says why
// not elsewhere.
constexpr bool wgmma_tile_built(int Br, int Bc, int64_t d) {
    if (Bc == 176) return Br == 128 && d == 128;
    if (Bc == 80) return Br == 192 && d == 128;
    return !(Br == 192 && Bc == 128 && d == 128);
}
inline constexpr int64_t kWgmmaSmemLimit = 232448;  // cudaDevAttrMaxSharedMemoryPerBlockOptin, sm_90
inline constexpr int64_t kWgmmaSmemExtra = 1024 + 128;  // alignment of the 128-byte swizzle (1024) + mbarriers
constexpr int flash_wgmma_stages(int64_t Br, int64_t Bc, int64_t d, int64_t es) {
    const int64_t room = kWgmmaSmemLimit - kWgmmaSmemExtra - Br * d * es;
    const int64_t fit = room / (2 * Bc * d * es);
    return static_cast<int>(fit < 2 ? 2 : (fit > 4 ? 4 : fit));
}
int flash_wgmma_threads(int Br);  // a producer warpgroup + Br / 64 consumer warpgroups of 128 threads
// flash_wgmma's grid (attention_wgmma.cu): persistent (v5, the default: one block per SM slot, each
// walking its row blocks, the ring kept running from one to the next) or one block per row block in
// waves (v4), kept for comparison: FUSIONLAB_FLASH_WGMMA_GRID=waves. Read on every call. (v10, waves
// for the 64 x 64 tile, was measured level with the persistent grid there and dropped: kernels/PERF.md.)
bool flash_wgmma_persistent();
// flash_wgmma's softmax: v5's (the default) or v6's (the row max in four chains, Oi rescaled only
// when m moves by a factor of 2^8: measured level with v5's, so off), built for fp16 without the skip
// epilogue only: FUSIONLAB_FLASH_WGMMA_SOFTMAX=v6. Read on every call, as the switches below.
bool flash_wgmma_softmax_v6();
// The consumers release a ring slot with one arrival per warp (v7, the default) or per thread
// (v6 and before: FUSIONLAB_FLASH_WGMMA_RELEASE=thread).
bool flash_wgmma_release_per_warp();
// The persistent grid claims a block's next item as the current item's last tile is issued (v8, the
// default) or one item ahead (v5: FUSIONLAB_FLASH_WGMMA_CLAIM=ahead).
bool flash_wgmma_claim_late();
// Causal: the L2 section with fewer heads goes first (v9, the default: measured 4-24 % faster at 16
// heads of N = 8192 and 16384, kernels/PERF.md) or last (v5: FUSIONLAB_FLASH_WGMMA_SECTIONS=ragged_last).
bool flash_wgmma_ragged_section_first();
// Heads per L2 section of the persistent grid's causal order: as many as have their K and V (2 N d es
// bytes a head) within half of an L2 of `l2_bytes`, at least 1, at most batch_heads.
int64_t flash_wgmma_section_heads(const AttentionParams& p, int64_t l2_bytes);
// The share of flash_wgmma's exp2 time that hides under other consumer warpgroups' products, as
// measured (attention_model.cpp says where): the schedule's sfu_hidden_share, the block timeline's note.
double flash_wgmma_sfu_hidden_share(int Br, int Bc, int64_t d);
// Row stride (elements) of the teaching kernel's Qi, Kj, Vj tiles in shared memory: d padded to an
// odd number of 4-byte words, so a warp reading one column of 32 rows hits 32 different banks.
int64_t flash_tile_row_stride(int64_t d, DType t);

// naive's softmax kernel: one block per row of S, the row held in registers: each thread owns
// softmax_chunks(p) chunks of softmax_vector_width(p) consecutive elements (8 with 16-byte loads
// when N % 8 == 0, else 1), with the fewest chunks that keep the block at <= 1024 threads.
int softmax_vector_width(const AttentionParams& p);  // 8 or 1
int softmax_chunks(const AttentionParams& p);        // 1, 2, 4, 8 (width 8) or 4, 16, 64 (width 1)
int softmax_threads(const AttentionParams& p);       // a multiple of 32, <= 1024

// Dynamic shared memory of one thread block:
//   flash:    Qi, Kj, Vj in the input dtype ((Br + 2 Bc) d es) + Sij, Oi, m, l, rescale in fp32
//             ((Br Bc + Br d + 3 Br) 4)
//   flash_tc: Qi once, Kj and Vj double-buffered for cp.async, rows padded by 8 elements (16 bytes)
//             against ldmatrix bank conflicts: (Br + 4 Bc) (d + 8) es
//   flash_wgmma: Qi once, `stages` (Kj, Vj) pairs in the TMA ring, unpadded (128-byte swizzle
//             instead), 1024 bytes of alignment and the mbarriers: (Br + 2 stages Bc) d es + 1152
uint64_t flash_smem_bytes(const std::string& variant, const AttentionParams& p);
uint64_t flash_smem_bytes(Variant variant, const AttentionParams& p);
// "" when the block's shared memory fits this device (smem_optin: after cudaFuncSetAttribute),
// else: "flash with Br=128, Bc=128, d=128, fp32 needs 329216 bytes of shared memory per block;
// this device allows 49152 per block by default, 232448 with opt-in".
std::string flash_smem_refusal(Variant variant, const AttentionParams& p, int smem_per_block, int smem_per_block_optin);

// "" when `variant` can run p on the device (dev.memory_bytes: free memory on a real GPU, the
// datasheet's total on a simulated one); else why not, with the numbers: invalid parameters,
// flash_tc below sm_80, a flash tile that does not fit in shared memory, naive's S and P (or the
// inputs) not fitting in memory.
std::string device_refusal(const std::string& variant, const AttentionParams& p, const DeviceBudget& dev);
std::string device_refusal(Variant variant, const AttentionParams& p, const DeviceBudget& dev);
// "123 bytes (0.00 GiB)"
std::string format_gib(uint64_t bytes);

// ---------------------------------------------------------------------------------------------
// The app's flat Params <-> AttentionParams: the one place the fields are mapped.
// ---------------------------------------------------------------------------------------------
AttentionParams to_attention(const Params& p);
Params to_params(const AttentionParams& a);  // workload = attention

// ---------------------------------------------------------------------------------------------
// What the attention WorkloadDef (attention_def.cpp) shares with skip's, whose kernels are these
// ---------------------------------------------------------------------------------------------
// The parameters both take: N, d, heads, br, bc, causal (by name; throws for another name).
const ParamSpec& param(const std::string& name);
// "16 heads, N=1024, d=64, causal, tile 64x64" (the tile when `kernel_variant` is a flash kernel).
std::string describe_shape(const AttentionParams& p, const std::string& kernel_variant);
// One block's shared-memory allocation of a flash kernel, part by part, with the formulas
// (flash_smem_bytes() is their sum). `qi_name`: "Qi", or "Qi/x" when skip's epilogue reuses it.
std::vector<SramPart> flash_sram_parts(const std::string& kernel_variant, const AttentionParams& p,
                                       const std::string& qi_name, const std::string& qi_note);
// Why flash's measured DRAM bytes fall short of the model: K and V re-read from L2, not DRAM.
std::string flash_traffic_reason(const std::string& variant, const AttentionParams& p, uint64_t bytes_read,
                                 uint64_t l2_bytes);

// ---------------------------------------------------------------------------------------------
// Inputs and CPU reference (float64 on the dtype-rounded inputs)
// ---------------------------------------------------------------------------------------------
float q_value(const AttentionParams& p, int64_t head, int64_t row, int64_t col);
float k_value(const AttentionParams& p, int64_t head, int64_t row, int64_t col);
float v_value(const AttentionParams& p, int64_t head, int64_t row, int64_t col);

// K and V of one head ([N][d] each, dtype-rounded), regenerated on the first row of a head and kept
// (per thread) for the next rows of the same head and parameters.
struct HeadInputs {
    uint64_t seed = 0;
    int64_t N = -1, d = -1, head = -1;
    DType dtype = DType::f32;
    std::vector<float> K, V;  // [N][d]
};
const HeadInputs& head_inputs(const AttentionParams& p, int64_t head);

// Row `row` of P = softmax(Q Kᵀ / sqrt(d)) for one head: N values (0 above the diagonal if causal).
void reference_probabilities(const AttentionParams& p, int64_t head, int64_t row, double* P);
// Row `row` of O for one head: d values.
void reference_row(const AttentionParams& p, int64_t head, int64_t row, double* out);

// (head, row) pairs the correctness check compares: all when batch_heads*N*N*d is small, else
// the first, last and evenly spaced rows of the first, middle and last heads.
struct RowRef {
    int64_t head, row;
};
std::vector<RowRef> rows_to_check(const AttentionParams& p, double max_mults = 4e8);

// ---------------------------------------------------------------------------------------------
// Model and schedule
// ---------------------------------------------------------------------------------------------
// The tile schedule of the variant's thread blocks (Schedule, TileEvent of workload.h). Row blocks
// that run the same loop share events (repeat = how many blocks). Non-causal flash schedules show
// every iteration of the j-loop (up to 256 tiles); in causal ones (a block class per row block)
// the middle iterations of a long loop are folded into one group of events ("j = 2..61, 60
// tiles") whose bytes and FLOPs are those iterations' sum, so totals stay exact.
Schedule schedule(const std::string& variant, const AttentionParams& p);
Schedule schedule(Variant variant, const AttentionParams& p);
Model model(const std::string& variant, const AttentionParams& p);
Model model(Variant variant, const AttentionParams& p);

// One flash_wgmma block as its warpgroups spend it, for the timeline view (BlockTimeline,
// kernels/core/workload_def.h): the producer's TMA copies into the ring of `stages` slots, and each
// consumer warpgroup's wgmma turns (Sij with Pij-1 Vj-1) and softmax, tile by tile, for the row block
// with the most key tiles. The work of each step is the schedule's (64 rows per warpgroup; an exp2
// per score), priced at one SM's share of the device's calibrated rates (calibration_for: the GEMM
// rate, the SFU, L2): the schedule v2 intends, with the softmax of one warpgroup under the other's
// products wherever the turns allow. Lanes: "producer: TMA", then per warpgroup "WG k: wgmma" and
// "WG k: softmax". Throws std::invalid_argument when flash_wgmma cannot take p (validate's message).
BlockTimeline flash_wgmma_block_timeline(const AttentionParams& p, const DeviceInfo& device);

// The FLOPs attention needs (what the anchors report TFLOP/s against): 4 N² d per head, and for
// causal 2 N (N + 1) d (only pairs c <= r), times batch_heads.
double nominal_flops(const AttentionParams& p);
// Each input read once, O written once: 4 batch_heads N d es.
uint64_t min_bytes(const AttentionParams& p);
// HBM naive needs besides Q, K, V, O: S and P, batch_heads N² es each.
uint64_t naive_scratch_bytes(const AttentionParams& p);
// Q, K, V and O.
uint64_t io_bytes(const AttentionParams& p);

}  // namespace kernels::attention
