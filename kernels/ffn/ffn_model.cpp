// Model of the feed-forward block: variants, checks, buffers and the tile schedule of every kernel,
// generated from the same loop structure as the kernels (kernels/ffn/ffn.cu). model() sums it.
//
// HBM bytes (es = bytes per element; M tokens, d = d_model, f = d_ff):
//   every variant reads x (M d), W1 (d f), b1 (f), W2 (f d), b2 (d) once and writes out (M d).
//   unfused            gemm1  read x, W1                write h1 (M f)
//                      bias1  read h1 (M f), b1 (f)     write h2 (M f)
//                      gelu   read h2 (M f)             write act (M f)
//                      gemm2  read act (M f), W2        write y (M d)
//                      bias2  read y (M d), b2 (d)      write out (M d)
//   Totals, in elements x es: weights 2 d f + f + d and x, out 2 M d in every variant, plus the
//   intermediates, each written once and read once:
//     unfused            h1, h2, act, y:  6 M f + 2 M d
//     fused_elementwise  h1, act, y:      4 M f + 2 M d   (h2 never exists)
//     epilogue(_graph)   act:             2 M f
// So at decode (M = 1..64) the weights 2 d f es are nearly all the bytes and every variant moves
// about the same; at prefill (M >= 4096, f = 4 d) the intermediates are 6 M f : 2 M f between
// unfused and epilogue, while the GEMMs' 4 M d f FLOPs set the time.
//
// A GEMM's schedule is its CTA tile loop with the tile the model assumes cuBLAS(Lt) runs (gemm_tile:
// what the recordings' timelines name, ffn.h says which): each CTA steps through K loading its A
// panel (BM x K) and its B panel (K x BN) into shared memory a k-step at a time and accumulating on
// tensor cores in registers; its epilogue then works on the accumulator tile in registers (bias,
// GELU) before the one store. L2->SM bytes are counted per CTA tile: every CTA reads its panels from
// L2, except that the CTAs of a thread-block cluster share one panel by TMA multicast (the L2 serves
// it once per cluster). So A crosses L2->SM once per cluster of tile columns and B once per cluster
// of tile rows: at M = 2048, d_model = 4096 (bf16, tiles 128 x 256, pairs along the tokens) gemm1
// reads x (16 MiB) 64 times and W1 (128 MiB) 8 times from L2. DRAM bytes follow from the L2 reuse
// model: each operand once (rule 1), then cuBLASLt's re-reads of operands larger than half the L2
// (gemm_l2_reuse below), never more than the L2->SM reads.
// At small M cuBLAS(Lt) may split K and add a reduction kernel (and its partial sums through the
// workspace): the GPU then runs more kernels than the schedule shows (ffn.cu says when).
// FLOPs: 2 M N K per GEMM; bias 1 and GELU 5 per element (as the elementwise workloads count).
//
// [SECTION] Variants and checks
// [SECTION] Buffers
// [SECTION] Schedule
#include "kernels/elementwise/elementwise.h"
#include "kernels/ffn/ffn.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace kernels::ffn {

namespace {
uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
uint64_t es_of(const FfnParams& p) { return static_cast<uint64_t>(dtype_bytes(p.dtype)); }
std::string num(uint64_t v) { return std::to_string(v); }
}  // namespace

// =============================================================================================
// [SECTION] Variants and checks
// =============================================================================================
const std::vector<VariantInfo>& variants() {
    static const std::vector<VariantInfo> v{
        {"unfused",
         "5 kernels, as eager mode runs them: cuBLAS GEMM, bias kernel, GELU kernel, cuBLAS GEMM, bias kernel. h1, "
         "h2, act (M x d_ff) and y (M x d_model) each go to HBM and back.",
         5},
        {"fused_elementwise",
         "4 kernels: cuBLAS GEMM, one fused bias+GELU kernel, cuBLAS GEMM, bias kernel. h2 never exists; the GEMMs "
         "are the same.",
         4},
        {"epilogue",
         "2 kernels: cuBLASLt GEMMs whose epilogue adds the bias (and GELU after GEMM 1) to the accumulator tile in "
         "registers before its one store. Only act goes through HBM between them.",
         2},
        {"epilogue_graph",
         "the epilogue variant's 2 kernels captured once as a CUDA graph and replayed with one cudaGraphLaunch, as "
         "decode engines do: no per-kernel launch work on the host.",
         2, true},
    };
    return v;
}

bool has_variant(const std::string& variant) { return find_variant(variant).has_value(); }

std::string validate(const FfnParams& p) {
    if (p.d_model % kAlign != 0)
        return "d_model = " + std::to_string(p.d_model) + " is not a multiple of " + std::to_string(kAlign) +
               ": the ffn workload keeps every row 16-byte aligned (cuBLASLt's tensor-core kernels and its bias "
               "epilogue want it); try " + std::to_string(p.d_model / kAlign * kAlign + kAlign);
    if (p.d_ff < kMinModel || p.d_ff > kMaxFf)
        return "d_ff = " + std::to_string(p.d_ff) + " is out of range: " + std::to_string(kMinModel) + " .. " +
               std::to_string(kMaxFf) + " (0 means 4 x d_model)";
    if (p.d_ff % kAlign != 0)
        return "d_ff = " + std::to_string(p.d_ff) + " is not a multiple of " + std::to_string(kAlign) +
               ": the ffn workload keeps every row 16-byte aligned (cuBLASLt's tensor-core kernels and its bias "
               "epilogue want it); try " + std::to_string(p.d_ff / kAlign * kAlign + kAlign);
    return "";
}

// =============================================================================================
// [SECTION] Buffers
// =============================================================================================
std::vector<std::string> buffers(const std::string& variant) {
    const Variant v = variant_of(variant);
    if (v == Variant::unfused) return {"x", "W1", "b1", "W2", "b2", "h1", "h2", "act", "y", "out"};
    if (v == Variant::fused_elementwise) return {"x", "W1", "b1", "W2", "b2", "h1", "act", "y", "out"};
    if (is_epilogue(v)) return {"x", "W1", "b1", "W2", "b2", "act", "out"};
    throw std::invalid_argument(std::string("ffn has no buffers for ") + name_of(v));
}

uint64_t buffer_elements(const FfnParams& p, const std::string& b) {
    const uint64_t M = u(p.M), d = u(p.d_model), f = u(p.d_ff);
    if (b == "x" || b == "y" || b == "out") return M * d;
    if (b == "W1" || b == "W2") return d * f;
    if (b == "b1") return f;
    if (b == "b2") return d;
    if (b == "h1" || b == "h2" || b == "act") return M * f;
    throw std::invalid_argument("the ffn workload has no buffer '" + b + "'");
}

uint64_t buffer_set_bytes(const std::string& variant, const FfnParams& p) {
    uint64_t total = 0;
    for (const std::string& b : buffers(variant)) total += buffer_elements(p, b) * es_of(p);
    return total;
}

uint64_t min_bytes(const FfnParams& p) {
    uint64_t total = 0;
    for (const char* b : {"x", "W1", "b1", "W2", "b2", "out"}) total += buffer_elements(p, b);
    return total * es_of(p);
}

double gemm_flops(const FfnParams& p) {
    return 2.0 * static_cast<double>(p.M) * static_cast<double>(p.d_model) * static_cast<double>(p.d_ff);
}

GemmTile gemm_tile(const FfnParams& p) {
    GemmTile t;
    if (p.dtype == DType::f32) {
        t.k = 32;
        t.source = "assumed for cuBLAS SGEMM";
    } else if (p.M <= 128) {
        t.rows = 8;
        while (t.rows < p.M) t.rows *= 2;
        t.cluster_cols = 2;
        t.source = "cuBLASLt's, as recorded";
    } else {
        t.cols = 256;
        t.cluster_rows = 2;
        t.source = "cuBLASLt's, as recorded at M = 256";
    }
    return t;
}

// =============================================================================================
// [SECTION] Schedule
// =============================================================================================
namespace {

enum class Epilogue { none, bias_gelu, bias };

// Full tiles and the ragged last one along a dimension: {size, count} pairs with count > 0.
std::vector<std::pair<uint64_t, uint64_t>> tile_classes(uint64_t n, uint64_t tile) {
    std::vector<std::pair<uint64_t, uint64_t>> c;
    if (n / tile > 0) c.push_back({tile, n / tile});
    if (n % tile > 0) c.push_back({n % tile, 1});
    return c;
}

std::string ragged(uint64_t size, uint64_t tile, const char* what) {
    return size < tile ? " [ragged: " + num(size) + " of " + num(tile) + " " + what + "]" : "";
}

// C (rows x N) = A (rows x K) · B (K x N), with an epilogue on the accumulator tile.
void add_gemm(Schedule& s, const FfnParams& p, const std::string& name, const std::string& a, const std::string& b,
              const std::string& c, uint64_t rows, uint64_t K, uint64_t N, Epilogue ep, const std::string& bias,
              const std::string& library) {
    const GemmTile tile = gemm_tile(p);
    const uint64_t es = es_of(p), TM = u(tile.rows), TN = u(tile.cols), TK = u(tile.k), ksteps = (K + TK - 1) / TK;
    const int k = static_cast<int>(s.kernels.size());
    const uint64_t tiles_m = (rows + TM - 1) / TM, tiles_n = (N + TN - 1) / TN;
    // Clusters along each dimension (a ragged last one still reads its whole panel).
    const uint64_t cl_m = u(tile.cluster_rows), cl_n = u(tile.cluster_cols);
    const uint64_t clusters_m = (tiles_m + cl_m - 1) / cl_m, clusters_n = (tiles_n + cl_n - 1) / cl_n;
    s.kernels.push_back({name, tiles_m * tiles_n, 0, p.dtype != DType::f32});
    s.kernels.back().bf16_operands = p.dtype == DType::bf16;
    s.kernels.back().blocks_are = "CTA tiles of " + num(TM) + " x " + num(TN) + " (" + tile.source + ")";
    const auto row_classes = tile_classes(rows, TM), col_classes = tile_classes(N, TN);
    const std::string a_shared = cl_n > 1 ? ", once per cluster of " + num(cl_n) + " CTAs along the columns (TMA multicast)"
                                          : ", once per CTA of its tile row";
    const std::string b_shared = cl_m > 1 ? ", once per cluster of " + num(cl_m) + " CTAs along the tokens (TMA multicast)"
                                          : ", once per CTA of its tile column";
    // Operand panels: every CTA reads its own from L2 (a cluster's CTAs share one); DRAM sees each
    // operand once, plus the re-reads of gemm_l2_reuse.
    for (const auto& [r, count] : row_classes)
        s.events.push_back({EventKind::load, k, a, r * K * es, 0, count * clusters_n,
                            "load " + a + " row panel (" + num(r) + " x " + num(K) + ") from L2 into shared memory, " +
                                num(TK) + " columns a k-step" + a_shared + ragged(r, TM, "rows")});
    for (const auto& [cols, count] : col_classes)
        s.events.push_back({EventKind::load, k, b, K * cols * es, 0, count * clusters_m,
                            "load " + b + " column panel (" + num(K) + " x " + num(cols) + ") from L2 into shared memory, " +
                                num(TK) + " rows a k-step" + b_shared + ragged(cols, TN, "columns")});
    if (ep != Epilogue::none)
        for (const auto& [cols, count] : col_classes)
            s.events.push_back({EventKind::load, k, bias, cols * es, 0, count * tiles_m,
                                "load " + bias + " slice (" + num(cols) + " values) into registers for the epilogue, "
                                "every CTA of the tile column: DRAM once, the others hit L2"});
    const std::string product = a + "·" + b;
    for (const auto& [r, rcount] : row_classes)
        for (const auto& [cols, ccount] : col_classes) {
            const uint64_t repeat = rcount * ccount;
            const double outputs = static_cast<double>(r) * static_cast<double>(cols);
            const std::string tile_text = num(r) + " x " + num(cols);
            const std::string shape = ragged(r, TM, "rows") + ragged(cols, TN, "columns");
            s.events.push_back({EventKind::compute, k, "", 0, 2.0 * outputs * static_cast<double>(K), repeat,
                                "MMA into the fp32 accumulator tile " + tile_text + " of " + product + " in registers, " +
                                    num(ksteps) + " k-steps each loading a " + a + " tile (" + num(r) + " x " + num(TK) +
                                    ") and a " + b + " tile (" + num(TK) + " x " + num(cols) +
                                    ") into shared memory (" + num((r + cols) * TK * es) + " B from L2; " + library +
                                    ")" + shape});
            if (ep == Epilogue::bias_gelu)
                s.events.push_back({EventKind::compute, k, "", 0, (kBiasFlops + kGeluFlops) * outputs, repeat,
                                    "epilogue: add " + bias + " and apply GELU to the accumulator tile in registers "
                                    "(no store, no read back)" + shape});
            else if (ep == Epilogue::bias)
                s.events.push_back({EventKind::compute, k, "", 0, kBiasFlops * outputs, repeat,
                                    "epilogue: add " + bias + " to the accumulator tile in registers" + shape});
            s.events.push_back({EventKind::store, k, c, r * cols * es, 0, repeat,
                                "store the " + c + " tile once" +
                                    (ep == Epilogue::none ? ": the next kernel reads it back" : std::string()) + " (" +
                                    tile_text + ", rounded to " + to_string(p.dtype) + ")" + shape});
        }
}

// A flat elementwise kernel of the elementwise workloads (the same launch shape: elementwise.cu's
// flat kernels run it), over a rows x hidden tensor; `vector` is indexed by column.
void add_flat(Schedule& s, const FfnParams& p, const std::string& name, const std::string& in,
              const std::string& vector, const std::string& out, uint64_t hidden, double flops_per_element,
              const std::string& compute_what) {
    elementwise::ElementwiseParams e;
    e.chain = false;
    e.dtype = p.dtype;
    e.rows = p.M;
    e.hidden = static_cast<int64_t>(hidden);
    const elementwise::LaunchShape shape = elementwise::flat_kernel_shape(e);
    const uint64_t es = es_of(p), n = u(p.M) * hidden, per_block = u(shape.elements_per_block);
    const int k = static_cast<int>(s.kernels.size());
    s.kernels.push_back({name, shape.blocks, shape.threads, false});
    if (!vector.empty())
        s.events.push_back({EventKind::load, k, vector, hidden * es, 0, 1,
                            "load " + vector + " into registers (HBM once; later blocks hit L2)"});
    // bias_gelu runs the bias_gelu workload's fused_bias_gelu (ffn.cu): its measured count, as elementwise prices it;
    // the other flat kernels have no count: priced by their bytes.
    const double instructions_per_element =
        name == "bias_gelu" ? elementwise::fused_bias_gelu_instructions_per_element(p.dtype) : 0.0;
    auto block = [&](uint64_t elements, uint64_t repeat, const char* suffix) {
        if (repeat == 0 || elements == 0) return;
        s.events.push_back({EventKind::load, k, in, elements * es, 0, repeat,
                            "load " + in + " tile into registers (the previous kernel stored it)" + suffix});
        TileEvent compute{EventKind::compute, k, "", 0, flops_per_element * static_cast<double>(elements), repeat,
                          compute_what + suffix};
        compute.instructions = instructions_per_element * static_cast<double>(elements);
        s.events.push_back(compute);
        s.events.push_back({EventKind::store, k, out, elements * es, 0, repeat, "store " + out + " tile" + suffix});
    };
    block(per_block, n / per_block, "");
    block(n % per_block, 1, " (ragged tail block)");
}

}  // namespace

Schedule schedule(const std::string& variant, const FfnParams& p) {
    const Variant v = variant_of(variant);
    if (std::string bad = validate(p); !bad.empty()) throw std::invalid_argument(bad);
    const uint64_t M = u(p.M), d = u(p.d_model), f = u(p.d_ff);
    Schedule s;
    if (v == Variant::unfused) {
        add_gemm(s, p, "gemm1", "x", "W1", "h1", M, d, f, Epilogue::none, "", "cuBLAS");
        add_flat(s, p, "bias1", "h1", "b1", "h2", f, kBiasFlops, "compute h1 + b1");
        add_flat(s, p, "gelu", "h2", "", "act", f, kGeluFlops, "compute GELU(h2)");
        add_gemm(s, p, "gemm2", "act", "W2", "y", M, f, d, Epilogue::none, "", "cuBLAS");
        add_flat(s, p, "bias2", "y", "b2", "out", d, kBiasFlops, "compute y + b2");
    } else if (v == Variant::fused_elementwise) {
        add_gemm(s, p, "gemm1", "x", "W1", "h1", M, d, f, Epilogue::none, "", "cuBLAS");
        add_flat(s, p, "bias_gelu", "h1", "b1", "act", f, kBiasFlops + kGeluFlops,
                 "compute GELU(h1 + b1) in registers (h2 never stored)");
        add_gemm(s, p, "gemm2", "act", "W2", "y", M, f, d, Epilogue::none, "", "cuBLAS");
        add_flat(s, p, "bias2", "y", "b2", "out", d, kBiasFlops, "compute y + b2");
    } else {
        add_gemm(s, p, "gemm1_bias_gelu", "x", "W1", "act", M, d, f, Epilogue::bias_gelu, "b1", "cuBLASLt");
        add_gemm(s, p, "gemm2_bias", "act", "W2", "out", M, f, d, Epilogue::bias, "b2", "cuBLASLt");
    }
    return s;
}

// =============================================================================================
// [SECTION] cuBLASLt's re-reads (the L2 reuse only this workload knows)
// =============================================================================================
// The GPU runs a wave of output tiles at a time over a region of the output about kReuseRows x
// kReuseCols; an operand larger than half the L2 does not survive from one region to the next, so
// the weights (B) come from DRAM once per region row and the activations (A) once per region column.
// Fitted on the DRAM counters of the H100 and H200 recordings of 2026-11-27 (every ffn point, M 1 to
// 16384, d_model 256 to 8192, all four variants: 168 of 168 within 15 %, where charging each operand
// once read 1.2x low at M = 1024 and 3.3x at 16384); cuBLASLt's own raster order is not public.
namespace {
constexpr double kReuseRows = 1536, kReuseCols = 2048;
}  // namespace

void gemm_l2_reuse(const std::string& variant, const FfnParams& p, uint64_t l2_bytes, Model& m) {
    (void)variant;
    const uint64_t es = es_of(p), M = u(p.M), d = u(p.d_model), f = u(p.d_ff);
    for (KernelModel& k : m.kernels) {
        if (k.threads_per_block != 0) continue;  // the elementwise kernels: the generic rules
        const bool first = k.name.rfind("gemm1", 0) == 0;
        const std::string a = first ? "x" : "act", b = first ? "W1" : "W2";
        const uint64_t K = first ? d : f, N = first ? f : d;
        const double b_passes = std::max(1.0, static_cast<double>(M) / kReuseRows + 0.5);
        const double a_passes = std::max(1.0, static_cast<double>(N) / kReuseCols);
        for (BufferTraffic& t : k.buffers) {
            const bool is_b = t.buffer == b, is_a = t.buffer == a;
            const uint64_t size = (is_b ? K * N : M * K) * es;
            const double passes = is_b ? b_passes : is_a ? a_passes : 1.0;
            if ((!is_a && !is_b) || size <= l2_bytes / 2 || passes <= 1.0 || t.dram_read == 0) continue;
            // A re-read from DRAM is a panel some CTA (or cluster) asked L2 for: never more than the
            // L2->SM reads (gemm_tile: B once per cluster of tile rows, at least M / 256 passes
            // against M / 1536 + 0.5; A once per cluster of tile columns, N / 256 against N / 2048).
            t.dram_read = std::min(t.bytes_read, static_cast<uint64_t>(static_cast<double>(t.dram_read) * passes));
            char text[160];
            std::snprintf(text, sizeof text, "%s read %.2f times from DRAM: cuBLASLt's tiles re-read it once per %s",
                          t.buffer.c_str(), passes, is_b ? "1536 rows of tokens" : "2048 output columns");
            t.dram_rule += (t.dram_rule.empty() ? "" : "; ") + std::string(text);
        }
    }
}

}  // namespace kernels::ffn
