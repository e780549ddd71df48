// The attention kernels' arithmetic on the CPU (attention_emulate.h), one row of O at a time, in
// the order attention.cu computes it. Each kernel is a row function and one line of kKernels.
//
//   naive     S = round(alpha * (q Kᵀ)) with cuBLAS's fp32 accumulation (tensor-core k-steps of 16 for
//             fp16/bf16, one FMA chain in fp32), stored in the dtype; the softmax kernel's x = S log2e,
//             row max, ex2.approx, the sum in its thread layout (softmax_threads, vector width, chunks)
//             and block reduction (two warp butterflies), P = round(x / sum via one reciprocal); O =
//             round(P V) with the same GEMM accumulation.
//   flash     the teaching kernel: tiles of Bc keys; Sij by one fp32 FMA chain over d, times log2(e)/
//             sqrt(d); m, l and the rescale with exp2f; Oi = Oi rescale + Pij Vj (FMA chain over the
//             tile's keys); O = Oi / l (one division), rounded by the store.
//   flash_tc  Br = 128, Bc = 64: Sij by mma k-steps over d; ex2.approx; l kept per thread of the quad
//             (columns 2t, 2t+1 of each 8-key tile) and summed over the quad at the end; Oi rescaled,
//             then Pij rounded to the dtype (the A operand of the second mma) times Vj in k-steps of 16
//             keys; O = Oi times 1 / l.
//   flash_wgmma the same arithmetic on its own tile (Br x Bc from br, bc): wgmma's accumulators
//             have mma.sync's layout per warp, so l is summed the same way.
#include "kernels/attention/attention_emulate.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace kernels::attention {

namespace {

constexpr float kLog2e = 1.4426950408889634f;

// Round to the dtype where the kernel stores (to_float of the stored value is exact).
float stored(float v, DType t) { return round_to_dtype(v, t); }

// ---------------------------------------------------------------------------------------------
// naive: cuBLAS GEMM, softmax kernel, cuBLAS GEMM
// ---------------------------------------------------------------------------------------------
// The softmax kernel's block sum (attention.cu block_reduce<false>): each thread's elements in its
// order, a butterfly per warp, then a butterfly over the warps' sums (lanes past the warps add 0).
float softmax_block_sum(const AttentionParams& p, const std::vector<float>& e) {
    const int threads = softmax_threads(p), width = softmax_vector_width(p), chunks = softmax_chunks(p);
    const int64_t N = p.N;
    std::vector<float> warp_sums(32, 0.0f);
    float lanes[32];
    for (int w = 0; w < threads / 32; ++w) {
        for (int lane = 0; lane < 32; ++lane) {
            const int tid = w * 32 + lane;
            float sum = 0.0f;
            for (int k = 0; k < chunks; ++k)
                for (int v = 0; v < width; ++v) {
                    const int64_t j = (static_cast<int64_t>(k) * threads + tid) * width + v;
                    if (j < N) sum += e[static_cast<size_t>(j)];  // past N: exp2(-inf) = 0
                }
            lanes[lane] = sum;
        }
        warp_sums[static_cast<size_t>(w)] = emu::butterfly_sum(lanes);
    }
    return emu::butterfly_sum(warp_sums.data());
}

void naive_row(const AttentionParams& p, const float* q, const HeadInputs& kv, int64_t row, float* o) {
    const int64_t N = p.N, d = p.d;
    const DType t = p.dtype;
    const float alpha = 1.0f / std::sqrt(static_cast<float>(d));
    // gemm_qk: S = alpha (q Kᵀ), stored in the dtype; softmax: x = S log2e, masked keys -inf
    const int64_t keys = p.causal ? row + 1 : N;
    std::vector<float> x(static_cast<size_t>(N));
    float row_max = -INFINITY;
    for (int64_t j = 0; j < N; ++j) {
        const float s = stored(alpha * emu::gemm_dot(t, q, kv.K.data() + j * d, d, 1), t);
        x[static_cast<size_t>(j)] = j < keys ? s * kLog2e : -INFINITY;
        row_max = std::max(row_max, x[static_cast<size_t>(j)]);
    }
    for (float& v : x) v = emu::exp2_ftz(v - row_max);
    const float inv = 1.0f / softmax_block_sum(p, x);
    for (float& v : x) v = stored(v * inv, t);  // P, stored in the dtype
    // gemm_pv: O = P V, stored in the dtype
    for (int64_t c = 0; c < d; ++c) o[c] = stored(emu::gemm_dot(t, x.data(), kv.V.data() + c, N, d), t);
}

// ---------------------------------------------------------------------------------------------
// flash: the teaching kernel (attention.cu flash_kv_loop, flash_kernel)
// ---------------------------------------------------------------------------------------------
void flash_row(const AttentionParams& p, const float* q, const HeadInputs& kv, int64_t row, float* o) {
    const int64_t N = p.N, d = p.d;
    const Tile tile = flash_tile("flash", p);
    const float scale_log2 = kLog2e / std::sqrt(static_cast<float>(d));
    const int64_t row0 = row / tile.Br * tile.Br, rows = std::min<int64_t>(tile.Br, N - row0);
    const int64_t kv_end = p.causal ? row0 + rows : N;  // keys the block attends to
    const int64_t tiles = (kv_end + tile.Bc - 1) / tile.Bc;
    float m = -INFINITY, l = 0.0f;
    std::vector<float> Oi(static_cast<size_t>(d), 0.0f), S(static_cast<size_t>(tile.Bc));
    for (int64_t j = 0; j < tiles; ++j) {
        const int64_t col0 = j * tile.Bc, cols = std::min<int64_t>(tile.Bc, N - col0);
        // Sij = Qi Kjᵀ / sqrt(d) in log2 units: one FMA chain over d per score
        for (int64_t c = 0; c < cols; ++c) {
            const float* k = kv.K.data() + (col0 + c) * d;
            float acc = 0.0f;
            for (int64_t i = 0; i < d; ++i) acc = emu::fma32(q[i], k[i], acc);
            S[static_cast<size_t>(c)] = p.causal && col0 + c > row ? -INFINITY : acc * scale_log2;
        }
        // m, l: Pij = exp2f(Sij - m_new), the rescale e^(m_old - m_new), l = l rescale + row sum
        float m_new = m;
        for (int64_t c = 0; c < cols; ++c) m_new = std::fmax(m_new, S[static_cast<size_t>(c)]);
        float row_sum = 0.0f;
        for (int64_t c = 0; c < cols; ++c) {
            const float pr = emu::exp2_f32(S[static_cast<size_t>(c)] - m_new);
            S[static_cast<size_t>(c)] = pr;
            row_sum += pr;
        }
        const float rescale = emu::exp2_f32(m - m_new);
        l = emu::fma32(l, rescale, row_sum);
        m = m_new;
        // Oi = Oi rescale + Pij Vj: each column's FMA chain over the tile's keys in order
        for (int64_t c = 0; c < d; ++c) Oi[static_cast<size_t>(c)] *= rescale;
        for (int64_t k = 0; k < cols; ++k) {
            const float* v = kv.V.data() + (col0 + k) * d;
            const float pk = S[static_cast<size_t>(k)];
            for (int64_t c = 0; c < d; ++c) Oi[static_cast<size_t>(c)] = emu::fma32(pk, v[c], Oi[static_cast<size_t>(c)]);
        }
    }
    for (int64_t c = 0; c < d; ++c) o[c] = Oi[static_cast<size_t>(c)] / l;
}

// ---------------------------------------------------------------------------------------------
// flash_tc: mma.sync m16n8k16 (attention.cu flash_tc_kernel)
// ---------------------------------------------------------------------------------------------
// flash_tc and flash_wgmma share this arithmetic: the same k-steps of 16, the same accumulator layout
// (a thread holds columns 2t, 2t+1 of each 8-key group, so its l is partial and the quad sums it
// once at the end), Pij rounded to the dtype as the A operand of the second product, O times 1 / l.
// Only the tile differs: `variant` picks it.
void mma_row(const char* variant, const AttentionParams& p, const float* q, const HeadInputs& kv, int64_t row, float* o) {
    const int64_t N = p.N, d = p.d;
    const Tile tile = flash_tile(variant, p);
    const int64_t Bc = tile.Bc;
    const DType t = p.dtype;
    const float scale_log2 = kLog2e / std::sqrt(static_cast<float>(d));
    const int64_t row0 = row / tile.Br * tile.Br;
    const int64_t kv_end = p.causal ? std::min<int64_t>(N, row0 + tile.Br) : N;
    const int64_t tiles = (kv_end + Bc - 1) / Bc;
    float m_run = -INFINITY, l_run[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // per thread t of the row's quad
    std::vector<float> acc_o(static_cast<size_t>(d), 0.0f), s(static_cast<size_t>(Bc));
    std::vector<double> step(static_cast<size_t>(d));
    for (int64_t j = 0; j < tiles; ++j) {
        const int64_t col0 = j * Bc;
        // Sij: k-steps of 16 along d; keys past N were zero-filled by cp.async, then masked
        for (int64_t n = 0; n < Bc; ++n) {
            const int64_t key = col0 + n;
            float acc = 0.0f;
            if (key < N)
                for (int64_t kk = 0; kk < d; kk += 16)
                    acc = emu::mma_step(acc, emu::dot16_exact(q + kk, kv.K.data() + key * d + kk));
            const float sv = acc * scale_log2;
            s[static_cast<size_t>(n)] = key >= N || (p.causal && key > row) ? -INFINITY : sv;
        }
        float mx = m_run;
        for (float v : s) mx = std::fmax(mx, v);
        const float rescale = emu::exp2_ftz(m_run - mx);
        m_run = mx;
        for (float& v : s) v = emu::exp2_ftz(v - mx);
        // thread t of the quad holds columns 2t, 2t + 1 of each 8-key tile
        for (int th = 0; th < 4; ++th) {
            float row_sum = 0.0f;
            for (int64_t n8 = 0; n8 < Bc / 8; ++n8)
                row_sum += s[static_cast<size_t>(n8 * 8 + 2 * th)] + s[static_cast<size_t>(n8 * 8 + 2 * th + 1)];
            l_run[th] = emu::fma32(l_run[th], rescale, row_sum);
        }
        for (float& v : acc_o) v *= rescale;
        // Oi += Pij Vj: Pij rounded to the dtype (the mma's A operand), k-steps of 16 keys
        for (int64_t kk = 0; kk < Bc; kk += 16) {
            std::fill(step.begin(), step.end(), 0.0);
            for (int64_t i = kk; i < kk + 16 && col0 + i < N; ++i) {
                const double pr = stored(s[static_cast<size_t>(i)], t);
                const float* v = kv.V.data() + (col0 + i) * d;
                for (int64_t c = 0; c < d; ++c) step[static_cast<size_t>(c)] += pr * static_cast<double>(v[c]);
            }
            for (int64_t c = 0; c < d; ++c)
                acc_o[static_cast<size_t>(c)] = emu::mma_step(acc_o[static_cast<size_t>(c)], step[static_cast<size_t>(c)]);
        }
    }
    const float l = (l_run[0] + l_run[1]) + (l_run[2] + l_run[3]);  // the quad's two shuffles
    const float inv = 1.0f / l;
    for (int64_t c = 0; c < d; ++c) o[c] = acc_o[static_cast<size_t>(c)] * inv;
}

// ---------------------------------------------------------------------------------------------
// The kernels, and what a row of each costs
// ---------------------------------------------------------------------------------------------
int64_t all_keys(const AttentionParams& p, int64_t) { return p.N; }
int64_t flash_keys(const AttentionParams& p, int64_t row) {
    if (!p.causal) return p.N;
    const Tile tile = flash_tile("flash", p);
    const int64_t row0 = row / tile.Br * tile.Br;
    const int64_t kv_end = row0 + std::min<int64_t>(tile.Br, p.N - row0);
    return std::min(p.N, (kv_end + tile.Bc - 1) / tile.Bc * tile.Bc);
}
void flash_tc_row(const AttentionParams& p, const float* q, const HeadInputs& kv, int64_t row, float* o) {
    mma_row("flash_tc", p, q, kv, row, o);
}
// flash_wgmma (attention_wgmma.cu): wgmma m64nNk16 in the accumulator layout above.
void flash_wgmma_row(const AttentionParams& p, const float* q, const HeadInputs& kv, int64_t row, float* o) {
    mma_row("flash_wgmma", p, q, kv, row, o);
}

int64_t mma_keys(const char* variant, const AttentionParams& p, int64_t row) {
    const Tile tile = flash_tile(variant, p);
    const int64_t row0 = row / tile.Br * tile.Br;
    const int64_t kv_end = p.causal ? std::min<int64_t>(p.N, row0 + tile.Br) : p.N;
    return (kv_end + tile.Bc - 1) / tile.Bc * tile.Bc;
}
int64_t flash_tc_keys(const AttentionParams& p, int64_t row) { return mma_keys("flash_tc", p, row); }
int64_t flash_wgmma_keys(const AttentionParams& p, int64_t row) { return mma_keys("flash_wgmma", p, row); }

struct KernelEmulation {
    const char* kernel;
    void (*row)(const AttentionParams&, const float* q, const HeadInputs& kv, int64_t row, float* o);
    int64_t (*keys)(const AttentionParams&, int64_t row);  // keys its loop visits for a row
    // CPU seconds per key and 2 d (its two products), measured (kernels/sim/emulate.h's machine):
    // naive 1.2-1.5 ns (dependent k-step sums, softmax), flash 2.0 (Sij as one FMA chain), flash_tc
    // 0.5-0.9 (Pij Vj across the d outputs).
    double seconds_per_mac;
};

const KernelEmulation kKernels[] = {
    {"naive", naive_row, all_keys, 1.5e-9},
    {"flash", flash_row, flash_keys, 2.0e-9},
    {"flash_tc", flash_tc_row, flash_tc_keys, 0.9e-9},
    {"flash_wgmma", flash_wgmma_row, flash_wgmma_keys, 0.9e-9},
};

const KernelEmulation& find_kernel(const std::string& kernel) {
    for (const KernelEmulation& k : kKernels)
        if (kernel == k.kernel) return k;
    throw std::invalid_argument("no CPU emulation of the attention kernel '" + kernel + "'");
}

int64_t distinct_heads(const std::vector<RowRef>& rows) {
    int64_t heads = 0, last = -1;
    for (const RowRef& r : rows)
        if (r.head != last) ++heads, last = r.head;
    return heads;
}

}  // namespace

bool can_emulate(const std::string& kernel) {
    return std::any_of(std::begin(kKernels), std::end(kKernels), [&](const KernelEmulation& k) { return kernel == k.kernel; });
}

void emulate_row(const std::string& kernel, const AttentionParams& p, int64_t head, int64_t row, float* o) {
    const KernelEmulation& k = find_kernel(kernel);
    std::vector<float> q(static_cast<size_t>(p.d));
    for (int64_t c = 0; c < p.d; ++c) q[static_cast<size_t>(c)] = q_value(p, head, row, c);
    k.row(p, q.data(), head_inputs(p, head), row, o);
}

double inputs_seconds(const AttentionParams& p, const std::vector<RowRef>& rows) {
    const double per_head = 2.0 * static_cast<double>(p.N) * static_cast<double>(p.d);  // K and V
    return kInputSeconds * (per_head * static_cast<double>(distinct_heads(rows)) +
                            static_cast<double>(rows.size()) * static_cast<double>(p.d));
}

double reference_seconds(const AttentionParams& p, const std::vector<RowRef>& rows) {
    double keys = 0;
    for (const RowRef& r : rows) keys += static_cast<double>(p.causal ? r.row + 1 : p.N);
    return keys * 2.0 * static_cast<double>(p.d) * kMacSeconds;
}

double emulation_seconds(const std::string& kernel, const AttentionParams& p, const std::vector<RowRef>& rows) {
    const KernelEmulation& k = find_kernel(kernel);
    double keys = 0;
    for (const RowRef& r : rows) keys += static_cast<double>(k.keys(p, r.row));
    return keys * 2.0 * static_cast<double>(p.d) * k.seconds_per_mac;
}

std::string sampled_rows_how() { return "first, last, evenly spaced rows of the first, middle and last heads"; }

EmulatedCheck emulate(const std::string& variant, const AttentionParams& p, const EmulationBudget& budget) {
    if (!can_emulate(variant)) {
        EmulatedCheck r;
        r.why_not = "not emulated: no CPU emulation of " + variant + " yet";
        return r;
    }
    const std::vector<RowRef> rows = rows_to_check(p, budget.check.max_mults);
    RowCheck c;
    c.rows = static_cast<int64_t>(rows.size());
    c.width = p.d;
    c.all_rows = p.batch_heads * p.N;
    c.dtype = p.dtype;
    c.what = "rows of O";
    c.how = sampled_rows_how();
    c.setup_s = inputs_seconds(p, rows);
    c.reference_s = reference_seconds(p, rows);
    c.emulation_s = emulation_seconds(variant, p, rows);
    // The reference does not depend on the variant nor the tile: one per parameter set and sample.
    c.reference_key = "attention " + std::to_string(p.batch_heads) + "x" + std::to_string(p.N) + "x" +
                      std::to_string(p.d) + " " + to_string(p.dtype) + (p.causal ? " causal" : "") + " seed " +
                      std::to_string(p.seed) + " rows " + std::to_string(rows.size());
    c.reference = [&](int64_t i, double* want) {
        reference_row(p, rows[static_cast<size_t>(i)].head, rows[static_cast<size_t>(i)].row, want);
    };
    c.emulate = [&](int64_t i, float* got) {
        const RowRef& r = rows[static_cast<size_t>(i)];
        emulate_row(variant, p, r.head, r.row, got);
        for (int64_t col = 0; col < p.d; ++col) got[col] = round_to_dtype(got[col], p.dtype);  // store O
    };
    return run_row_check(c, budget);
}

}  // namespace kernels::attention
