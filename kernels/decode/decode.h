// Decode attention workload: one new token per sequence against its KV cache.
//   out[b, h] = softmax(q[b, h] K[b, g]ᵀ / sqrt(d)) V[b, g],  g = h / (heads / kv_heads)
// Each of `batch` sequences has one query row per query head and a cache of kv_len keys and values
// per KV head. Grouped-query attention (GQA): heads / kv_heads query heads share one KV head
// (kv_heads = heads: multi-head; kv_heads = 1: multi-query).
//
// Shapes: q and out are [batch, heads, d]. The cache, contiguous (page = 0), is [batch, kv_heads,
// kv_len, d] for K and for V. Paged (page > 0, vLLM's layout): a pool of batch x pages_per_seq pages
// of [kv_heads, page, d] each, and a page table [batch, pages_per_seq] of int32 naming, for each
// sequence, the pool page that holds its tokens p page .. p page + page - 1. The table is a random
// permutation of the pool (Philox by seed, decode_reference.cpp), so a sequence's pages lie in random
// order, as a serving engine's allocator leaves them. The last page of a sequence is ragged when
// page does not divide kv_len; its empty slots are never read.
// Inputs are input_value(seed, tensor, logical index) rounded to the dtype: the cache's values are
// the same paged or not (the table only moves where they are stored).
//
// Variants (kernels/decode/decode.cu has one banner section each):
//   naive           three kernels, as eager mode runs decode: naive_scores writes S = q Kᵀ / sqrt(d)
//                   (batch x heads x kv_len, in the dtype) to HBM, naive_softmax reads it and writes P,
//                   naive_pv reads P and V and writes out. One block per (sequence, query head) in
//                   naive_pv. No GQA sharing: each query head reads its group's K and V itself.
//   flash           one block per (sequence, KV head) walks the whole cache with an online softmax
//                   (FlashAttention-2's decode): batch x kv_heads blocks, so at batch 1 most SMs idle.
//   split_kv        Flash-Decoding: the keys split into `splits` chunks, one block per (sequence, KV
//                   head, chunk); each writes its partial (m, l, O) in fp32; a combine kernel merges the
//                   partials of each (sequence, head) exactly (the online softmax's rescale).
//   split_kv_fused  the same blocks; the last block of each (sequence, KV head) to finish (an atomic
//                   counter after __threadfence) merges the partials itself: no second launch.
// GQA decision: sharing K and V across the heads of a group is not a variant of its own; it is what
// flash, split_kv and split_kv_fused do whenever kv_heads < heads. Their blocks then work per KV head
// on the tensor cores (v5, decode.cu's "GQA key loop"): the group's query rows are the M side of two
// small matrix products, S = Q Kᵀ and O = P V, with mma.sync m16n8k16 (the heads padded to 16 rows);
// K and V go DRAM -> shared memory by cp.async three tiles deep and each tile serves every head of the
// group from one load. A block serves up to kMmaRows (16) heads; a larger group goes through in passes
// of the largest divisor of the group up to 16, each pass its own blocks, which run side by side and
// meet in L2, so DRAM still reads each tile once. Multi-head (kv_heads = heads) keeps the CUDA-core
// loop of v1-v4b: one head, nothing to share, and it already reads the cache at the copy ceiling.
// Why not CUDA cores for GQA (v1-v4b): a thread then holds q and O of 4-8 heads, 167-255 registers,
// 2-3 blocks an SM, latency- and issue-bound at 40-56 % of the copy ceiling (kernels/PERF.md, decode).
// naive is the version without sharing: G = heads / kv_heads times the L2->SM bytes of K and V (DRAM
// still reads them about once: the group's heads run together and meet in L2).
// Split count: `splits` = 0 chooses it (auto_splits): as many blocks as fit one wave, blocks_per_sm a SM
// of 132 SMs (132 is the H100's and H200's count; the schedule has no device, so the kernel uses the
// same number on every GPU and model and kernel agree), chunks of at least 256 keys, and a multiple of
// the block's key tile so only the last chunk is ragged. With the persistent grid (v6, below, not the
// default) GQA's split variants plan about 2 units a block, at most 64 splits.
#pragma once

#include "kernels/core/schedule.h"
#include "kernels/core/types.h"
#include "kernels/core/variant_names.h"
#include "kernels/core/workload_def.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernels::decode {

// Tensor ids for input_value() and the page table's Philox stream; part of the data definition.
enum TensorId : uint32_t { kQ = 31, kK = 32, kV = 33, kPageShuffle = 34 };

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------
struct DecodeParams {
    int64_t batch = 8;       // sequences, one new token each
    int64_t kv_len = 8192;   // tokens in each sequence's cache
    int64_t heads = 32;      // query heads
    int64_t kv_heads = 8;    // KV heads: divides heads
    int64_t d = 128;         // head dimension: 64 or 128
    DType dtype = DType::f16;
    int64_t page = 0;        // 0: contiguous cache; else tokens a page (16, 32, 64, 128, 256)
    int64_t splits = 0;      // split_kv's key chunks per (sequence, KV head); 0: chosen (auto_splits)
    uint64_t seed = 1234;

    bool operator==(const DecodeParams&) const = default;
};

inline constexpr int64_t kMaxBatch = 256;
inline constexpr int64_t kMaxKvLen = 131072;
inline constexpr int64_t kMaxHeads = 128;
inline constexpr int64_t kMaxSplits = 1024;
inline constexpr int64_t kPageChoices[] = {0, 16, 32, 64, 128, 256};
inline constexpr int64_t kDChoices[] = {64, 128};

// The variants as values inside the workload, in the order of variants() (decode_model.cpp) and
// kVariantNames; names are read where they come in. Values past split_kv_fused are kept for
// variants added at run time, which nothing here knows.
enum class Variant : int { naive, flash, split_kv, split_kv_fused };
inline constexpr const char* kVariantNames[] = {"naive", "flash", "split_kv", "split_kv_fused"};
inline const char* name_of(Variant v) { return name_in(kVariantNames, v); }
inline std::optional<Variant> find_variant(const std::string& name) { return find_named<Variant>(kVariantNames, name); }
inline Variant variant_of(const std::string& name) { return named_or_throw<Variant>(kVariantNames, name, "decode"); }
inline bool is_split(Variant v) { return v == Variant::split_kv || v == Variant::split_kv_fused; }

const std::vector<VariantInfo>& variants();
bool has_variant(const std::string& variant);
bool is_split(const std::string& variant);  // split_kv, split_kv_fused

// "" when valid, else a message naming the parameter, the value and what is legal.
std::string validate(const DecodeParams& p);
std::string validate(const std::string& variant, const DecodeParams& p);
// "" when the variant's buffers fit dev.memory_bytes; else the numbers (the cache's share named).
std::string device_refusal(const std::string& variant, const DecodeParams& p, const DeviceBudget& dev);
std::string format_gib(uint64_t bytes);

// ---------------------------------------------------------------------------------------------
// The kernels' shape (decode.cu uses these same numbers)
// ---------------------------------------------------------------------------------------------
// A block is kWarps warps. A token's d elements are spread over d / 8 lanes (16-byte loads of 8
// elements each), so a warp holds 256 / d token "streams" side by side; each stream loads kUnroll
// tokens per step before it uses any. One step of the block covers kv_tile(d) tokens: the key tile
// Kj, Vj of the schedule.
inline constexpr int kWarps = 4;
inline constexpr int kThreads = kWarps * 32;
inline constexpr int kUnroll = 4;
inline constexpr int kElementsPerLane = 8;
inline constexpr int kPlanSms = 132;          // the SM count auto_splits plans for (H100, H200)
inline constexpr int kBlocksPerSmTarget = 4;  // blocks per SM of the multi-head loop (72-93 registers)
// The GQA key loop on tensor cores (decode.cu): each warp takes kMmaWarpKeys keys of a kMmaStages-deep
// ring of its own in shared memory, so a block step is kWarps x kMmaWarpKeys keys.
inline constexpr int kMmaRows = 16;      // the M side of mma.sync m16n8k16: query heads a block serves at most
inline constexpr int kMmaWarpKeys = 16;  // keys a warp takes a step: two n-tiles of S, one k step of P V
inline constexpr int kMmaStages = 3;     // K, V tiles a warp has in shared memory: 2 in flight while it computes 1
constexpr uint64_t mma_ring_bytes(int64_t d) {  // shared memory of a block's rings: K and V, fp16/bf16
    return uint64_t{kWarps} * kMmaStages * kMmaWarpKeys * static_cast<uint64_t>(d) * 2 * 2;
}
// Blocks an SM holds of the GQA loop: its rings (96 KiB a block at d = 128, 48 KiB at 64) in the
// 227 KiB an SM offers, registers (about 128 a thread) allowing 4.
constexpr int mma_blocks_per_sm(int64_t d) { return d > 64 ? 2 : 4; }
inline constexpr int64_t kMinChunk = 256;     // fewest keys a split is given
// FUSIONLAB_DECODE_GRID=persistent runs the tensor-core loop's split_kv and split_kv_fused on a persistent
// grid (decode.cu, v6): min(units, kPlanSms x blocks_per_sm) blocks walk the (sequence, KV head and pass,
// split) units, and auto_splits plans kPersistentUnitsPerSlot units an SM slot where that keeps the splits
// at most kMaxAutoSplits (batch 8 x 8k, GQA 8:1: 16 splits, 512 units on 264 blocks; at batch 1 the wave's
// count, 66, already has one unit a slot). Measured slower than the waves (kernels/PERF.md, v6), it is
// not the default: the default grid is v5's, one block a unit, one wave's worth of splits.
inline constexpr int64_t kPersistentUnitsPerSlot = 2;
inline constexpr int64_t kMaxAutoSplits = 64;
inline constexpr int kCombineThreads = 128;   // split_kv_combine: one block per (sequence, head)
inline constexpr int kSoftmaxThreads = 256;   // naive_softmax: one block per (sequence, head)

constexpr int lanes_per_token(int64_t d) { return static_cast<int>(d) / kElementsPerLane; }
constexpr int streams_per_warp(int64_t d) { return 32 / lanes_per_token(d); }
constexpr int64_t kv_tile(int64_t d) { return int64_t{kWarps} * streams_per_warp(d) * kUnroll; }

int64_t group_size(const DecodeParams& p);   // heads / kv_heads
bool uses_mma(const DecodeParams& p);        // kv_heads < heads: the key loop runs on tensor cores
int64_t pass_heads(const DecodeParams& p);   // query heads a block serves: 1 (multi-head), else the largest divisor of the group up to 16
int blocks_per_sm(const DecodeParams& p);    // the key loop's blocks an SM holds (its launch bounds)
int64_t key_tile(const DecodeParams& p);     // keys a block takes a step: kv_tile(d), or kWarps x kMmaWarpKeys on tensor cores
int64_t head_passes(const DecodeParams& p);  // group_size / pass_heads
int64_t work_items(const DecodeParams& p);   // batch x kv_heads x head_passes: the blocks of flash
int64_t pages_per_seq(const DecodeParams& p);  // ceil(kv_len / page); 0 when contiguous
bool persistent_grid();                        // FUSIONLAB_DECODE_GRID is "persistent"
bool uses_persistent(const std::string& variant, const DecodeParams& p);  // split_kv(_fused) on tensor cores, persistent_grid()
int64_t loop_units(const std::string& variant, const DecodeParams& p);    // work_items x splits: the key loop's blocks in waves
int64_t loop_blocks(const std::string& variant, const DecodeParams& p);   // blocks launched: loop_units, or the persistent grid's
// The chosen number of key chunks (the splits parameter or auto), and the keys in each but the last.
int64_t auto_splits(const DecodeParams& p);
struct Split {
    int64_t splits = 1, chunk = 0;  // chunk: keys of every split but the last (a multiple of kv_tile)
};
Split split_of(const std::string& variant, const DecodeParams& p);
// Bytes of shared memory the key loop's block takes: the end merge's kWarps x pass_heads x (d + 2)
// fp32, or on tensor cores the rings (the merge reuses them).
uint64_t loop_smem_bytes(const DecodeParams& p);

// ---------------------------------------------------------------------------------------------
// The app's flat Params <-> DecodeParams: the one place the fields are mapped.
// ---------------------------------------------------------------------------------------------
DecodeParams to_decode(const Params& p);
Params to_params(const DecodeParams& d);

// ---------------------------------------------------------------------------------------------
// Inputs and CPU reference (float64 on the dtype-rounded inputs)
// ---------------------------------------------------------------------------------------------
uint64_t q_index(const DecodeParams& p, int64_t b, int64_t h, int64_t c);
uint64_t kv_index(const DecodeParams& p, int64_t b, int64_t g, int64_t t, int64_t c);  // logical
float q_value(const DecodeParams& p, int64_t b, int64_t h, int64_t c);
// The page table: batch x pages_per_seq pool pages, a Philox-shuffled permutation (empty when contiguous).
std::vector<int32_t> page_table(const DecodeParams& p);
// Element offset of (b, g, t, column 0) in the K (or V) buffer as the GPU stores it.
uint64_t stored_offset(const DecodeParams& p, const std::vector<int32_t>& table, int64_t b, int64_t g, int64_t t);

// K and V of one (sequence, KV head), [kv_len][d], regenerated once per thread and kept.
struct GroupInputs {
    DecodeParams p;
    int64_t b = -1, g = -1;
    std::vector<float> K, V;
};
const GroupInputs& group_inputs(const DecodeParams& p, int64_t b, int64_t g);
// Row (b, h) of out in float64: d values.
void reference_row(const DecodeParams& p, int64_t b, int64_t h, double* out);

// (b, h) rows the check compares: every row when they fit the budget, else all heads of the first,
// last and middle (sequence, KV head) groups, as many groups as fit (at least one, and of it at
// least its first, middle and last heads).
struct RowRef {
    int64_t b, h;
};
std::vector<RowRef> rows_to_check(const DecodeParams& p, double max_mults);
std::string sampled_rows_how();

// The variant's arithmetic on the CPU (decode_emulate.cpp): one row in the kernel's order of
// operations; and WorkloadDef::emulate.
void emulate_row(const std::string& variant, const DecodeParams& p, int64_t b, int64_t h, float* out);
EmulatedCheck emulate(const std::string& variant, const DecodeParams& p, const EmulationBudget& budget);

// ---------------------------------------------------------------------------------------------
// Model and schedule
// ---------------------------------------------------------------------------------------------
Schedule schedule(const std::string& variant, const DecodeParams& p);
Model model(const std::string& variant, const DecodeParams& p);

uint64_t q_bytes(const DecodeParams& p);      // batch x heads x d x es (out has the same)
uint64_t cache_bytes(const DecodeParams& p);  // K and V as read: 2 x batch x kv_heads x kv_len x d x es
uint64_t pool_bytes(const DecodeParams& p);   // K and V as allocated (paged: whole pages)
uint64_t table_bytes(const DecodeParams& p);  // batch x pages_per_seq x 4
uint64_t scores_bytes(const DecodeParams& p); // naive's S (and P): batch x heads x kv_len x es
uint64_t partial_bytes(const std::string& variant, const DecodeParams& p);  // O_split + m_l + counters
uint64_t min_bytes(const DecodeParams& p);    // q, the cache and the table read once, out written once
uint64_t device_bytes(const std::string& variant, const DecodeParams& p);
// FLOPs of the two products: 4 x batch x heads x kv_len x d.
double nominal_flops(const DecodeParams& p);

}  // namespace kernels::decode
