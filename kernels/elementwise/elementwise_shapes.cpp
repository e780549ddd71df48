// Launch configurations of the elementwise kernels, picked per shape here and used by the CUDA
// launchers (elementwise.cu), the model's tile schedule (elementwise_model.cpp), the CPU emulation
// of the kernels' summation order (elementwise_emulate.cpp) and so the memory animation: the one
// place that decides how a shape runs.
//
// Both kinds of kernel move data in "chunks" of 8 consecutive elements: one 16-byte vector for
// fp16/bf16, two for fp32. 8 is also the span of one Philox call of the dropout mask, so a thread
// that owns a chunk draws its whole mask with exactly one call.
//
// Row kernels (layernorm, fused_chain; fused_chain_spill keeps its measured layout, spill_rule):
// the row is held packed in registers. The rule:
//   * 64 bytes of x per thread (4 chunks of fp16/bf16, 2 of fp32): 32 bytes (2 chunks of 16-bit)
//     reached only 60 % of copy bandwidth on an H200 (kernels/PERF.md), 64 keeps enough bytes in
//     flight per SM; 3 chunks when that covers the row with fewer idle threads (hidden 768: 32
//     threads x 3 chunks exactly, where 4 chunks would leave a quarter of a warp idle);
//   * threads per row: the fewest whole warps that cover the row that way;
//   * short rows (fewer than 128 threads each): several rows per block, so a block has at least 128
//     threads (fewer, larger blocks for the block scheduler);
//   * fp32 rows from 8192 to 16384 keep the single block of 512 threads with 4 chunks each (128
//     registers);
//   * 16-bit rows too long for one block of 512 threads (hidden > 16384): a cluster of 2 to 8
//     blocks of about 256 threads shares the row, its two reductions summed across the cluster
//     through distributed shared memory (Hopper);
//   * fp32 rows from 16384 to 32768: staged in shared memory (staged_row_kernel) by one block of
//     512 threads (its slice at most kStageMaxBytes); past 32768 (v7) a cluster of 8 blocks of at
//     most 256 threads with 4 chunks each in registers, which beat the staged cluster of 2 by 3.5-5
//     points on an H200. The staged kernel lost to the register cluster in 16-bit too (kernels/PERF.md).
//   * one row a block (or cluster) at a time. v8's rows in sequence (a block runs several rows, x and the
//     residual through shared memory by cp.async, the next row's x copied while the current one reduces)
//     measured 3-5 points slower at hidden 16384 and 65536 and 8-15 slower at 1024 and 7168 on an H200
//     (kernels/PERF.md, v8): it stays selectable (seq=N below), not picked.
// FUSIONLAB_ROW_CONFIG="cpt=4,tpr=256,rpb=1,ctas=2,seq=4" forces any of the five, "smem=1,tpr=512,ctas=2"
// a staged layout (the sweep of kernels/PERF.md compares them); what is not forced is derived.
//
// Flat kernels (gelu, dropout, add, bias_add, fused_bias_gelu): block b owns a contiguous range of
// the flattened rows x hidden tensor, 256 threads, each with two chunks of every input in flight
// (32 bytes in 16-bit, 64 in fp32: the best of the sweep in kernels/PERF.md).
// FUSIONLAB_FLAT_CONFIG="threads=512,bytes=32" forces it.
//
// [SECTION] Row kernels: the rule, the forced configuration, the shape
// [SECTION] Register table
// [SECTION] Flat kernels
#include "kernels/elementwise/elementwise.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <vector>

namespace kernels::elementwise {

namespace {

constexpr int64_t kChunkElements = 8;
constexpr int64_t kWarp = 32;
constexpr int kFlatThreads = 256;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t whole_warps(int64_t threads) { return ceil_div(threads, kWarp) * kWarp; }

// "a=1,b=2" -> {a: 1, b: 2}; throws with the variable's name on anything else.
std::map<std::string, int64_t> parse_forced(const char* variable, const std::string& text,
                                            const std::vector<std::string>& keys) {
    std::map<std::string, int64_t> out;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t end = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, end - pos);
        const size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        char* stop = nullptr;
        const long long value = eq == std::string::npos ? 0 : std::strtoll(item.c_str() + eq + 1, &stop, 10);
        if (eq == std::string::npos || std::find(keys.begin(), keys.end(), key) == keys.end() || stop == nullptr ||
            *stop != '\0' || stop == item.c_str() + eq + 1) {
            std::string names;
            for (const std::string& k : keys) names += (names.empty() ? "" : ", ") + k;
            throw std::invalid_argument(std::string(variable) + "='" + text + "': '" + item +
                                        "' is not NAME=INTEGER with NAME one of " + names);
        }
        out[key] = value;
        pos = end + 1;
    }
    return out;
}

}  // namespace

// =============================================================================================
// [SECTION] Row kernels: the rule, the forced configuration, the shape
// =============================================================================================
namespace {

// Threads per row for `cpt` chunks per thread over `ctas` blocks: the fewest whole warps.
int64_t row_threads(int64_t chunks, int64_t cpt, int64_t ctas) { return whole_warps(ceil_div(chunks, cpt * ctas)); }

// The staged layout: `ctas` blocks (at least; more while a block's slice of x is more than
// kStageMaxBytes) of up to 512 threads share the row, each thread with the fewest chunks that cover
// it; the residual staged too when both slices fit kStageMaxBytes.
RowConfig staged_layout(const ElementwiseParams& p, int64_t ctas, int64_t threads = 0) {
    const int64_t hidden = std::max<int64_t>(p.hidden, 1);
    const int64_t chunks = ceil_div(hidden, kChunkElements);
    const int64_t chunk_bytes = kChunkElements * dtype_bytes(p.dtype);
    while (ctas < kRowMaxClusterCtas && ceil_div(chunks, ctas) * chunk_bytes > kStageMaxBytes) ctas *= 2;
    RowConfig c;
    c.vector = hidden % kChunkElements == 0;
    c.staged = true;
    c.ctas_per_row = static_cast<int>(ctas);
    c.threads_per_row = static_cast<int>(threads > 0 ? threads : std::min<int64_t>(kRowMaxThreads, whole_warps(ceil_div(chunks, ctas))));
    c.chunks_per_thread = static_cast<int>(ceil_div(chunks, ctas * c.threads_per_row));
    c.stage_residual = 2 * c.threads_per_row * c.chunks_per_thread * chunk_bytes <= kStageMaxBytes;
    c.why = "row staged in shared memory (" + std::to_string(c.threads_per_row * c.chunks_per_thread * chunk_bytes / 1024) +
            " KiB of x per block" + (c.stage_residual ? ", and of residual" : "") + "), " +
            (ctas > 1 ? "a cluster of " + std::to_string(ctas) + " blocks" : std::string("one block")) + " of " +
            std::to_string(c.threads_per_row) + " threads per row";
    return c;
}

// v8 measured rows in sequence (row_sequence_kernel) slower at every shape it was tried on an H200 (kernels/
// PERF.md "v8 round 1 measured"): the rule keeps one row a block (cluster); FUSIONLAB_ROW_CONFIG=seq=N runs it.
RowConfig rule(const ElementwiseParams& p) {
    const int64_t hidden = std::max<int64_t>(p.hidden, 1);
    const int64_t chunks = ceil_div(hidden, kChunkElements);
    const int es = dtype_bytes(p.dtype);
    RowConfig c;
    c.vector = hidden % kChunkElements == 0;
    const int64_t preferred = 64 / (kChunkElements * es);  // 64 bytes of x per thread: 4 or 2
    c.chunks_per_thread = static_cast<int>(preferred);
    int64_t threads = row_threads(chunks, preferred, 1);
    if (threads <= kRowMaxThreads) {
        // Fewer chunks per thread when they leave fewer thread slots idle than the preferred count
        // (by more than a sixteenth of the row): a short row whose warp the preferred count would
        // leave partly idle (hidden 768: 32 threads x 3 chunks exactly instead of 24 x 4 in a warp).
        // 16-bit tries 3 and 2 chunks, fp32 3 (96 bytes of x).
        int64_t idle = threads * preferred - chunks;
        for (int64_t cpt : es == 4 ? std::vector<int64_t>{3} : std::vector<int64_t>{3, 2}) {
            const int64_t t = row_threads(chunks, cpt, 1);
            if (t <= kRowMaxThreads && (t * cpt - chunks) * 16 < idle * 16 - chunks) {
                c.chunks_per_thread = static_cast<int>(cpt);
                threads = t;
                idle = t * cpt - chunks;
            }
        }
        c.threads_per_row = static_cast<int>(threads);
        c.rows_per_block = static_cast<int>(std::max<int64_t>(1, 128 / threads));
        c.why = std::to_string(c.chunks_per_thread * kChunkElements * es) + " B of x per thread, " +
                std::to_string(threads) + " threads per row" +
                (c.rows_per_block > 1 ? ", " + std::to_string(c.rows_per_block) + " rows per block (at least 128 threads)"
                                      : ", one row per block");
        return c;
    }
    if (es == 4 && row_threads(chunks, 4, 1) <= kRowMaxThreads) {
        // fp32 rows up to 16384: one block of 512 threads with 4 chunks each (128 registers)
        c.chunks_per_thread = 4;
        c.threads_per_row = static_cast<int>(row_threads(chunks, 4, 1));
        c.why = "fp32 row past 8192: 128 B of x per thread in one block of " + std::to_string(c.threads_per_row) +
                " threads";
        return c;
    }
    // fp32 rows past one staged block (more than kStageMaxBytes of x, hidden > 32768): a cluster of 8
    // blocks of at most 256 threads, 4 chunks each in registers. v7 (H200, 2026-11-28 13:20, the clusters
    // pushing their sums since v6): 4096 x 65536 80.4 % of copy and 1024 x 65536 77.7 %, against 76.9 and
    // 72.6 for the staged cluster of 2 it replaces, 75.5 / 73.1 for 8 x 512 threads x 2 chunks, 77.0 / 74.1
    // for 4 x 512 x 4, and 61.8-64.4 for staged clusters of 4 and 8 (kernels/PERF.md, v7).
    if (es == 4 && chunks * kChunkElements * es > kStageMaxBytes) {
        c.chunks_per_thread = 4;
        c.ctas_per_row = kRowMaxClusterCtas;
        c.threads_per_row = static_cast<int>(row_threads(chunks, 4, kRowMaxClusterCtas));
        c.why = "fp32 row past one staged block: a cluster of " + std::to_string(kRowMaxClusterCtas) + " blocks of " +
                std::to_string(c.threads_per_row) + " threads, 128 B of x per thread";
        return c;
    }
    // fp32 rows from 16384 to 32768: staged in shared memory (staged_row_kernel), one block of 512
    // threads per row. On an H200 (PERF.md, round 3) that ran fp32 1024 x 65536 (then a staged cluster
    // of 2) at 63.8 % of copy against 62.2 % for a cluster of 8 in registers pulling its sums, while
    // 16-bit rows lost (43.9 % against 49.9 %: half the warps, more instructions, in a kernel bound by
    // its instructions there), so 16-bit rows keep the register cluster below.
    if (es == 4) return staged_layout(p, 1);
    // A cluster: the fewest blocks (a power of two, at most 8) of at most 256 threads, else of 512
    int64_t ctas = 1;
    while (ctas < kRowMaxClusterCtas && row_threads(chunks, preferred, ctas) > 256) ctas *= 2;
    c.ctas_per_row = static_cast<int>(ctas);
    c.threads_per_row = static_cast<int>(row_threads(chunks, preferred, ctas));
    c.why = "row too long for one block: a cluster of " + std::to_string(ctas) + " blocks of " +
            std::to_string(c.threads_per_row) + " threads, " + std::to_string(preferred * kChunkElements * es) +
            " B of x per thread";
    return c;
}

}  // namespace

namespace {

// fused_chain_spill's layout, as before row_config existed: one block per row of the fewest whole
// warps (32 to 512) at 64 bytes of x per thread; 2 chunks per thread whenever that block covers the
// row with 2, else 4.
RowConfig spill_rule(const ElementwiseParams& p) {
    const int64_t hidden = std::max<int64_t>(p.hidden, 1);
    if (hidden > kSpillMaxHidden)
        throw std::invalid_argument("fused_spill holds a row in one block of 512 threads (the lesson's spilling kernel, "
                                    "kept as measured): hidden " + std::to_string(hidden) + " is more than " +
                                    std::to_string(kSpillMaxHidden));
    const int64_t chunks = ceil_div(hidden, kChunkElements);
    const int64_t preferred = 64 / (kChunkElements * dtype_bytes(p.dtype));
    RowConfig c;
    c.vector = hidden % kChunkElements == 0;
    c.threads_per_row = static_cast<int>(std::clamp<int64_t>(row_threads(chunks, preferred, 1), kWarp, kRowMaxThreads));
    c.chunks_per_thread = int64_t{c.threads_per_row} * 2 * kChunkElements >= hidden ? 2 : 4;
    c.why = "fused_spill's layout as measured: one block per row";
    return c;
}

}  // namespace

RowKernel row_kernel_of(const std::string& kernel_name) {
    return kernel_name == "fused_chain_spill" ? RowKernel::spill : RowKernel::picked;
}

RowConfig row_config(const ElementwiseParams& p, RowKernel kernel) {
    if (kernel == RowKernel::spill) return spill_rule(p);
    RowConfig c = rule(p);
    const char* forced = std::getenv("FUSIONLAB_ROW_CONFIG");
    if (forced == nullptr || *forced == '\0') return c;
    const std::map<std::string, int64_t> f =
        parse_forced("FUSIONLAB_ROW_CONFIG", forced, {"cpt", "tpr", "rpb", "ctas", "smem", "cs", "seq"});
    const bool streaming = f.count("cs") ? f.at("cs") != 0 : c.streaming;
    if (f.count("cs") && f.at("cs") != 0 && f.at("cs") != 1)
        throw std::invalid_argument(std::string("FUSIONLAB_ROW_CONFIG='") + forced + "': cs (evict-first loads and stores) must be 0 or 1");
    const int64_t hidden = std::max<int64_t>(p.hidden, 1);
    const int64_t chunks = ceil_div(hidden, kChunkElements);
    const std::string what = std::string("FUSIONLAB_ROW_CONFIG='") + forced + "' at hidden " + std::to_string(hidden) + ": ";
    const auto smem = f.find("smem");
    if (smem != f.end() && smem->second != 0 && smem->second != 1)
        throw std::invalid_argument(what + "smem (the row staged in shared memory) must be 0 or 1");
    if (smem != f.end() && smem->second == 1) {
        // staged: threads and blocks per row may be forced; chunks per thread follow
        if (f.count("cpt") || f.count("rpb") || f.count("seq"))
            throw std::invalid_argument(what + "a staged row (smem=1) takes tpr and ctas only: chunks per thread follow, one row per block");
        const int64_t ctas = f.count("ctas") ? f.at("ctas") : 1;
        const int64_t tpr = f.count("tpr") ? f.at("tpr") : 0;
        if (ctas != 1 && ctas != 2 && ctas != 4 && ctas != 8)
            throw std::invalid_argument(what + "ctas (blocks per row) must be 1, 2, 4 or 8");
        if (f.count("tpr") && (tpr < kWarp || tpr % kWarp != 0 || tpr > kRowMaxThreads))
            throw std::invalid_argument(what + "tpr (threads per row) " + std::to_string(tpr) +
                                        " must be a multiple of 32 from 32 to 512");
        RowConfig s = staged_layout(p, ctas, tpr);
        s.streaming = streaming;
        if (s.ctas_per_row != ctas)
            throw std::invalid_argument(what + "a block's slice of the row would be more than " +
                                        std::to_string(kStageMaxBytes / 1024) + " KiB of shared memory");
        s.why = "forced by FUSIONLAB_ROW_CONFIG: " + s.why;
        return s;
    }
    if (f.size() == f.count("cs") + f.count("smem")) {  // only the hint (and smem=0 on a register layout) forced
        if (smem == f.end() || !c.staged) {
            c.streaming = streaming;
            c.why = "forced by FUSIONLAB_ROW_CONFIG: " + c.why;
            return c;
        }
    }
    c.staged = false;
    c.stage_residual = false;
    c.streaming = streaming;
    auto value = [&](const char* key, int64_t fallback) {
        const auto it = f.find(key);
        return it == f.end() ? fallback : it->second;
    };
    const int64_t cpt = value("cpt", c.staged ? 64 / (kChunkElements * dtype_bytes(p.dtype)) : c.chunks_per_thread);
    const int64_t ctas = value("ctas", f.count("tpr") || f.count("cpt") ? 1 : c.ctas_per_row);
    const bool threads_forced = f.count("tpr") > 0;
    const int64_t tpr = value("tpr", cpt >= 2 && cpt <= 4 && ctas >= 1 ? row_threads(chunks, cpt, ctas) : 0);
    const int64_t rpb = value("rpb", ctas == 1 && tpr > 0 ? std::max<int64_t>(1, 128 / tpr) : 1);
    const int64_t seq = value("seq", c.rows_in_sequence);
    if (seq < 1 || seq > 8) throw std::invalid_argument(what + "seq (rows a block runs in sequence) must be 1 to 8");
    if (seq > 1 && hidden % kChunkElements != 0)
        throw std::invalid_argument(what + "seq (rows in sequence) needs whole 16-byte chunks: hidden a multiple of 8");
    if (cpt < 2 || cpt > 4) throw std::invalid_argument(what + "cpt (chunks of 8 per thread) must be 2, 3 or 4");
    if (ctas != 1 && ctas != 2 && ctas != 4 && ctas != 8)
        throw std::invalid_argument(what + "ctas (blocks per row) must be 1, 2, 4 or 8");
    if (tpr < kWarp || tpr % kWarp != 0 || tpr > kRowMaxThreads)
        throw std::invalid_argument(what + "tpr (threads per row) " + std::to_string(tpr) +
                                    " must be a multiple of 32 from 32 to 512");
    if (rpb < 1 || rpb * tpr > kRowMaxThreads || (ctas > 1 && rpb != 1))
        throw std::invalid_argument(what + "rpb (rows per block) x tpr must be at most 512, and rpb 1 with a cluster");
    if (ctas * tpr * cpt < chunks)
        throw std::invalid_argument(what + std::to_string(ctas) + " x " + std::to_string(tpr) + " threads x " +
                                    std::to_string(cpt) + " chunks of 8 hold " +
                                    std::to_string(ctas * tpr * cpt * kChunkElements) + " elements, fewer than the row");
    c.chunks_per_thread = static_cast<int>(cpt);
    c.ctas_per_row = static_cast<int>(ctas);
    c.threads_per_row = static_cast<int>(tpr);
    c.rows_per_block = static_cast<int>(rpb);
    c.rows_in_sequence = static_cast<int>(seq);
    c.why = std::string("forced by FUSIONLAB_ROW_CONFIG") + (threads_forced ? "" : " (threads derived)");
    return c;
}

std::string config_text(const RowConfig& c) {
    std::string s = std::to_string(c.threads_per_row) + " threads x " + std::to_string(c.chunks_per_thread) +
                    " chunks per row";
    if (c.rows_per_block > 1) s += ", " + std::to_string(c.rows_per_block) + " rows/block";
    if (c.ctas_per_row > 1) s += ", cluster of " + std::to_string(c.ctas_per_row);
    if (c.rows_in_sequence > 1) s += ", " + std::to_string(c.rows_in_sequence) + " rows in sequence";
    if (c.staged) s += c.stage_residual ? ", x and residual staged in shared memory" : ", staged in shared memory";
    if (c.streaming) s += ", evict-first";
    if (!c.vector) s += ", scalar";
    return s;
}

LaunchShape row_kernel_shape(const ElementwiseParams& p, RowKernel kernel) {
    const RowConfig c = row_config(p, kernel);
    const int64_t rows = std::max<int64_t>(p.rows, 0);
    const int64_t seq = std::max(1, c.rows_in_sequence);  // v8: a block (cluster) runs seq rows (groups of rows) in turn
    const int64_t blocks = c.ctas_per_row > 1 ? ceil_div(rows, seq) * c.ctas_per_row : ceil_div(rows, int64_t{c.rows_per_block} * seq);
    return LaunchShape{static_cast<uint64_t>(blocks), c.threads_per_block(), std::max<int64_t>(p.hidden, 1)};
}

RowInstance row_kernel_instance(const ElementwiseParams& p, RowKernel kernel) {
    const RowConfig c = row_config(p, kernel);
    return RowInstance{c.staged ? 0 : c.chunks_per_thread, c.vector,
                       kernel == RowKernel::picked && !c.staged && c.vector && c.rows_in_sequence > 1};
}

// =============================================================================================
// [SECTION] Register table
// =============================================================================================
// ptxas's report for each row_kernel instance, generated from the compiler (the .inc says how).
namespace {
struct RowKernelRegisters {
    const char* kernel;
    DType dtype;
    int chunks_per_thread;
    bool vector;
    bool in_sequence;  // v8: row_sequence_kernel (rows in sequence)
    int registers, stack_bytes, spill_store_bytes, spill_load_bytes;
};
#include "kernels/elementwise/row_kernel_registers.inc"
}  // namespace

RegisterUse row_kernel_registers(const std::string& kernel, const ElementwiseParams& p) {
    RowInstance inst;
    try {
        inst = row_kernel_instance(p, row_kernel_of(kernel));
    } catch (const std::invalid_argument&) {
        return {};  // a layout that cannot run (refused elsewhere, with the reason): nothing compiled for it
    }
    for (const RowKernelRegisters& r : kRowKernelRegisters)
        if (kernel == r.kernel && p.dtype == r.dtype && inst.chunks_per_thread == r.chunks_per_thread &&
            inst.vector == r.vector && inst.in_sequence == r.in_sequence)
            return RegisterUse{r.registers, r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes, kRowKernelRegistersSource};
    return {};
}

// =============================================================================================
// [SECTION] Flat kernels
// =============================================================================================
FlatConfig flat_config(const ElementwiseParams& p) {
    FlatConfig c;
    c.threads = kFlatThreads;
    // Two chunks of 8 elements per thread: 32 B in fp16/bf16, 64 B in fp32. Measured on an H100
    // (kernels/PERF.md "Every shape", 2026-11-28): fused bias+GELU bf16 at 2048 x 16384 89.9 % of copy
    // against 86.9 % with 64 B (4 chunks), 94.9 against 94.0 at 8192 x 8192, 95.2 / 95.3 against
    // 93.8 / 94.1 at 65536 x 1024 and 1024 x 65536; fp32 keeps 64 B (97.3-97.5 against 96.2-96.5
    // with 32 B). 128 or 512 threads changed nothing beyond the spread.
    c.bytes_per_thread = 2 * static_cast<int>(kChunkElements) * dtype_bytes(p.dtype);
    c.why = "256 threads, two chunks of 8 elements of each input per thread";
    const char* forced = std::getenv("FUSIONLAB_FLAT_CONFIG");
    if (forced == nullptr || *forced == '\0') return c;
    const std::map<std::string, int64_t> f = parse_forced("FUSIONLAB_FLAT_CONFIG", forced, {"threads", "bytes", "cs"});
    if (f.count("cs")) c.streaming = f.at("cs") != 0;
    if (f.count("cs") && f.at("cs") != 0 && f.at("cs") != 1)
        throw std::invalid_argument(std::string("FUSIONLAB_FLAT_CONFIG='") + forced + "': cs (evict-first loads and stores) must be 0 or 1");
    if (f.count("threads")) c.threads = static_cast<int>(f.at("threads"));
    if (f.count("bytes")) c.bytes_per_thread = static_cast<int>(f.at("bytes"));
    if (c.threads != 128 && c.threads != 256 && c.threads != 512)
        throw std::invalid_argument(std::string("FUSIONLAB_FLAT_CONFIG='") + forced + "': threads must be 128, 256 or 512");
    if (c.bytes_per_thread != 32 && c.bytes_per_thread != 64)
        throw std::invalid_argument(std::string("FUSIONLAB_FLAT_CONFIG='") + forced + "': bytes must be 32 or 64");
    c.why = "forced by FUSIONLAB_FLAT_CONFIG";
    return c;
}

std::string config_text(const FlatConfig& c) {
    return std::to_string(c.threads) + " threads x " + std::to_string(c.bytes_per_thread) + " B" +
           (c.streaming ? ", evict-first" : "");
}

LaunchShape flat_kernel_shape(const ElementwiseParams& p) {
    const FlatConfig c = flat_config(p);
    const int64_t elements = std::max<int64_t>(p.rows, 0) * std::max<int64_t>(p.hidden, 0);
    const int64_t per_thread = c.bytes_per_thread / dtype_bytes(p.dtype);  // whole chunks of 8
    const int64_t per_block = per_thread * c.threads;
    return LaunchShape{static_cast<uint64_t>(ceil_div(elements, per_block)), c.threads, per_block};
}

}  // namespace kernels::elementwise
