// The decode variants' arithmetic on the CPU (kernels/sim/emulate.h), in decode.cu's order:
//   flash, split_kv, split_kv_fused  per block (one split of the keys): 4 warps x 256 / d streams; a
//             stream's dot product is each lane's fp32 FMA chain over its 8 elements, then the xor
//             shuffle tree over the token's d / 8 lanes; s scaled to log2 units (one rounded multiply);
//             per step of kUnroll keys: m_new = max, corr = exp2(m - m_new), l and O multiplied by corr,
//             p = exp2(s - m_new), l += p in key order, O = fma(p, v, O); then the streams merge by the
//             xor tree (each side: M = max, l = fma(l, w, l' w')), the warps in order 0..3, and out =
//             O / l rounded to the dtype (flash) or the partials merged over the splits in split order.
//             split_kv's combine kernel and split_kv_fused's last block run the same merge.
//   naive     S = round(q . K / sqrt(d)) with the same dot product; the softmax kernel's 256 threads
//             each run (m, l) over their strided elements, merge by the xor tree and warp by warp;
//             P = round(exp2(s log2 e - M) / l); P V by the same streams, plain sums, then round.
//   flash, split_kv, split_kv_fused when kv_heads < heads: the tensor-core loop (v5). Per block 4 warps,
//             each with its own (m, l, O); a block step is 64 keys, warp w takes keys 16 w .. 16 w + 15.
//             s = q . K in fp32 (the tensor core's order of its products is not specified: one FMA chain
//             in column order here), scaled to log2 units; m_new = max over the warp's 16 keys; corr,
//             l and O as above; p = exp2(s - m_new) in fp32 goes into l (each lane's 4 keys, the 4 lanes
//             summed by the xor tree at the end), and rounded to the dtype into O = O + p v (fp32, key
//             order). Then the warps merge in order 0..3 and the splits as above.
// exp2 is the correctly rounded float value (the GPU's exp2f is within 2 ulp): "near" in emulate.h.
#include "kernels/sim/emulate.h"
#include "kernels/decode/decode.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kernels::decode {

namespace {

constexpr float kLog2e = 1.4426950408889634f;

float fma32(float a, float b, float c) { return emu::fma32(a, b, c); }
float weight_of(float m, float M) { return m == -INFINITY ? 0.0f : std::exp2(m - M); }

// The dot product of q (d floats) and one key as a token's d / 8 lanes compute it.
float lane_dot(const float* q, const float* k, int64_t d) {
    const int lpt = lanes_per_token(d);
    float acc[16];
    for (int i = 0; i < lpt; ++i) {
        float a = 0.0f;
        for (int e = 0; e < kElementsPerLane; ++e) a = fma32(q[i * 8 + e], k[i * 8 + e], a);
        acc[i] = a;
    }
    for (int off = lpt / 2; off >= 1; off >>= 1) {
        float next[16];
        for (int i = 0; i < lpt; ++i) next[i] = acc[i] + acc[i ^ off];
        std::copy(next, next + lpt, acc);
    }
    return acc[0];
}

struct Partial {
    float m = -INFINITY, l = 0.0f;
    std::vector<float> o;
};

// One block of the key loop over keys [t0, t1) for one query head: its (m, l, O) after the merges.
Partial block_partial(const DecodeParams& p, const float* q, const GroupInputs& in, int64_t t0, int64_t t1, float scale_log2) {
    const int64_t d = p.d;
    const int spw = streams_per_warp(d), streams = kWarps * spw;
    const int64_t step = streams, tile = step * kUnroll;
    std::vector<Partial> st(static_cast<size_t>(streams));
    for (Partial& s : st) s.o.assign(static_cast<size_t>(d), 0.0f);
    for (int64_t base = t0; base < t1; base += tile) {
        for (int i = 0; i < streams; ++i) {
            Partial& S = st[static_cast<size_t>(i)];
            float sc[kUnroll];
            for (int u = 0; u < kUnroll; ++u) {
                const int64_t t = base + u * step + i;
                sc[u] = t < t1 ? lane_dot(q, &in.K[static_cast<size_t>(t * d)], d) * scale_log2 : -INFINITY;
            }
            float mx = sc[0];
            for (int u = 1; u < kUnroll; ++u) mx = std::max(mx, sc[u]);
            const float m_new = std::max(S.m, mx), m_use = m_new == -INFINITY ? 0.0f : m_new;
            const float corr = std::exp2(S.m - m_use);
            S.l *= corr;
            for (float& v : S.o) v *= corr;
            for (int u = 0; u < kUnroll; ++u) {
                sc[u] = std::exp2(sc[u] - m_use);
                S.l += sc[u];
            }
            S.m = m_new;
            for (int u = 0; u < kUnroll; ++u) {
                const int64_t t = base + u * step + i;
                if (t >= t1) continue;  // p = 0 and v = 0 there: fma(0, 0, o) = o
                const float* v = &in.V[static_cast<size_t>(t * d)];
                for (int64_t c = 0; c < d; ++c) S.o[static_cast<size_t>(c)] = fma32(sc[u], v[c], S.o[static_cast<size_t>(c)]);
            }
        }
    }
    // The streams of each warp merge by the xor tree: every stream takes its partner's state at once.
    for (int k = 1; k < spw; k <<= 1) {
        std::vector<Partial> next = st;
        for (int i = 0; i < streams; ++i) {
            const Partial &a = st[static_cast<size_t>(i)], &b = st[static_cast<size_t>(i ^ k)];
            Partial& r = next[static_cast<size_t>(i)];
            const float M = std::max(a.m, b.m), wa = weight_of(a.m, M), wb = weight_of(b.m, M);
            r.l = fma32(a.l, wa, b.l * wb);
            for (int64_t c = 0; c < d; ++c)
                r.o[static_cast<size_t>(c)] = fma32(a.o[static_cast<size_t>(c)], wa, b.o[static_cast<size_t>(c)] * wb);
            r.m = M;
        }
        st = std::move(next);
    }
    // The warps' stream 0, in warp order.
    Partial out;
    out.o.assign(static_cast<size_t>(d), 0.0f);
    float M = st[0].m;
    for (int w = 1; w < kWarps; ++w) M = std::max(M, st[static_cast<size_t>(w * spw)].m);
    for (int w = 0; w < kWarps; ++w) {
        const Partial& s = st[static_cast<size_t>(w * spw)];
        const float wt = weight_of(s.m, M);
        out.l = fma32(s.l, wt, out.l);
        for (int64_t c = 0; c < d; ++c) out.o[static_cast<size_t>(c)] = fma32(s.o[static_cast<size_t>(c)], wt, out.o[static_cast<size_t>(c)]);
    }
    out.m = M;
    return out;
}

// The tensor-core loop's block (decode.cu, "The GQA key loop on tensor cores") for one query head.
Partial block_partial_mma(const DecodeParams& p, const float* q, const GroupInputs& in, int64_t t0, int64_t t1, float scale_log2) {
    const int64_t d = p.d, step = int64_t{kWarps} * kMmaWarpKeys;
    struct Warp {
        float m = -INFINITY;
        float l[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // the quad's lanes: keys 2 t4, 2 t4 + 1, 8 + 2 t4, 9 + 2 t4
        std::vector<float> o;
    };
    std::vector<Warp> warps(kWarps);
    for (Warp& w : warps) w.o.assign(static_cast<size_t>(d), 0.0f);
    for (int64_t base = t0; base < t1; base += step)
        for (int w = 0; w < kWarps; ++w) {
            const int64_t key0 = base + w * kMmaWarpKeys;
            if (key0 >= t1) continue;
            Warp& W = warps[static_cast<size_t>(w)];
            float x[kMmaWarpKeys];
            float mx = -INFINITY;
            for (int k = 0; k < kMmaWarpKeys; ++k) {
                const int64_t t = key0 + k;
                float acc = 0.0f;
                if (t < t1)
                    for (int64_t c = 0; c < d; ++c) acc = fma32(q[c], in.K[static_cast<size_t>(t * d + c)], acc);
                x[k] = t < t1 ? acc * scale_log2 : -INFINITY;
                mx = std::max(mx, x[k]);
            }
            const float m_new = std::max(W.m, mx), m_use = m_new == -INFINITY ? 0.0f : m_new;
            const float corr = std::exp2(W.m - m_use);
            for (float& l : W.l) l *= corr;
            for (float& v : W.o) v *= corr;
            for (int k = 0; k < kMmaWarpKeys; ++k) {
                x[k] = std::exp2(x[k] - m_use);
                W.l[(k % 8) / 2] += x[k];
            }
            W.m = m_new;
            for (int k = 0; k < kMmaWarpKeys; ++k) {
                const int64_t t = key0 + k;
                if (t >= t1) continue;  // p = 0 and v = 0 there
                const float pk = round_to_dtype(x[k], p.dtype);
                const float* v = &in.V[static_cast<size_t>(t * d)];
                for (int64_t c = 0; c < d; ++c) W.o[static_cast<size_t>(c)] = fma32(pk, v[c], W.o[static_cast<size_t>(c)]);
            }
        }
    Partial out;
    out.o.assign(static_cast<size_t>(d), 0.0f);
    float M = warps[0].m;
    for (int w = 1; w < kWarps; ++w) M = std::max(M, warps[static_cast<size_t>(w)].m);
    for (const Warp& W : warps) {
        const float l = (W.l[0] + W.l[1]) + (W.l[2] + W.l[3]);  // the xor tree over the quad
        const float wt = weight_of(W.m, M);
        out.l = fma32(l, wt, out.l);
        for (int64_t c = 0; c < d; ++c) out.o[static_cast<size_t>(c)] = fma32(W.o[static_cast<size_t>(c)], wt, out.o[static_cast<size_t>(c)]);
    }
    out.m = M;
    return out;
}

void emulate_loop(const std::string& variant, const DecodeParams& p, int64_t b, int64_t h, float* out) {
    const GroupInputs& in = group_inputs(p, b, h / group_size(p));
    const int64_t d = p.d;
    std::vector<float> q(static_cast<size_t>(d));
    for (int64_t c = 0; c < d; ++c) q[static_cast<size_t>(c)] = q_value(p, b, h, c);
    const float scale_log2 = kLog2e / std::sqrt(static_cast<float>(d));
    const Split sp = split_of(variant, p);
    std::vector<Partial> parts;
    for (int64_t s = 0; s < sp.splits; ++s)
        parts.push_back((uses_mma(p) ? block_partial_mma : block_partial)(p, q.data(), in, s * sp.chunk,
                                                                         std::min(p.kv_len, (s + 1) * sp.chunk), scale_log2));
    if (!is_split(variant)) {
        for (int64_t c = 0; c < d; ++c) out[c] = round_to_dtype(parts[0].o[static_cast<size_t>(c)] / parts[0].l, p.dtype);
        return;
    }
    float M = -INFINITY;
    for (const Partial& s : parts) M = std::max(M, s.m);
    for (int64_t c = 0; c < d; ++c) {
        float L = 0.0f, O = 0.0f;
        for (const Partial& s : parts) {
            const float w = weight_of(s.m, M);
            L = fma32(s.l, w, L);
            O = fma32(s.o[static_cast<size_t>(c)], w, O);
        }
        out[c] = round_to_dtype(O / L, p.dtype);
    }
}

void emulate_naive(const DecodeParams& p, int64_t b, int64_t h, float* out) {
    const GroupInputs& in = group_inputs(p, b, h / group_size(p));
    const int64_t d = p.d, N = p.kv_len;
    std::vector<float> q(static_cast<size_t>(d)), S(static_cast<size_t>(N));
    for (int64_t c = 0; c < d; ++c) q[static_cast<size_t>(c)] = q_value(p, b, h, c);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    for (int64_t t = 0; t < N; ++t)
        S[static_cast<size_t>(t)] = round_to_dtype(lane_dot(q.data(), &in.K[static_cast<size_t>(t * d)], d) * scale, p.dtype);
    // naive_softmax: kSoftmaxThreads threads, strided.
    std::vector<float> m(kSoftmaxThreads, -INFINITY), l(kSoftmaxThreads, 0.0f);
    for (int i = 0; i < kSoftmaxThreads; ++i)
        for (int64_t t = i; t < N; t += kSoftmaxThreads) {
            const float x = S[static_cast<size_t>(t)] * kLog2e;
            const float M = std::max(m[static_cast<size_t>(i)], x);
            l[static_cast<size_t>(i)] = fma32(l[static_cast<size_t>(i)], weight_of(m[static_cast<size_t>(i)], M), std::exp2(x - M));
            m[static_cast<size_t>(i)] = M;
        }
    auto merge = [](float& mm, float& ll, float mo, float lo) {
        const float M = std::max(mm, mo);
        ll = fma32(ll, weight_of(mm, M), lo * weight_of(mo, M));
        mm = M;
    };
    for (int off = 16; off >= 1; off >>= 1) {
        std::vector<float> m2 = m, l2 = l;
        for (int i = 0; i < kSoftmaxThreads; ++i) {
            const int j = i ^ off;  // within the warp: off < 32
            merge(m2[static_cast<size_t>(i)], l2[static_cast<size_t>(i)], m[static_cast<size_t>(j)], l[static_cast<size_t>(j)]);
        }
        m = std::move(m2);
        l = std::move(l2);
    }
    float M = m[0], L = l[0];
    for (int w = 1; w < kSoftmaxThreads / 32; ++w) merge(M, L, m[static_cast<size_t>(w * 32)], l[static_cast<size_t>(w * 32)]);
    std::vector<float> P(static_cast<size_t>(N));
    for (int64_t t = 0; t < N; ++t) P[static_cast<size_t>(t)] = round_to_dtype(std::exp2(S[static_cast<size_t>(t)] * kLog2e - M) / L, p.dtype);
    // naive_pv: streams as the key loop, plain sums.
    const int spw = streams_per_warp(d), streams = kWarps * spw;
    const int64_t step = streams, tile = step * kUnroll;
    std::vector<std::vector<float>> o(static_cast<size_t>(streams), std::vector<float>(static_cast<size_t>(d), 0.0f));
    for (int64_t base = 0; base < N; base += tile)
        for (int i = 0; i < streams; ++i)
            for (int u = 0; u < kUnroll; ++u) {
                const int64_t t = base + u * step + i;
                if (t >= N) continue;
                const float* v = &in.V[static_cast<size_t>(t * d)];
                for (int64_t c = 0; c < d; ++c)
                    o[static_cast<size_t>(i)][static_cast<size_t>(c)] = fma32(P[static_cast<size_t>(t)], v[c], o[static_cast<size_t>(i)][static_cast<size_t>(c)]);
            }
    for (int k = 1; k < spw; k <<= 1) {
        auto next = o;
        for (int i = 0; i < streams; ++i)
            for (int64_t c = 0; c < d; ++c)
                next[static_cast<size_t>(i)][static_cast<size_t>(c)] = o[static_cast<size_t>(i)][static_cast<size_t>(c)] + o[static_cast<size_t>(i ^ k)][static_cast<size_t>(c)];
        o = std::move(next);
    }
    for (int64_t c = 0; c < d; ++c) {
        float O = 0.0f;
        for (int w = 0; w < kWarps; ++w) O += o[static_cast<size_t>(w * spw)][static_cast<size_t>(c)];
        out[c] = round_to_dtype(O, p.dtype);
    }
}

}  // namespace

void emulate_row(const std::string& variant, const DecodeParams& p, int64_t b, int64_t h, float* out) {
    if (variant_of(variant) == Variant::naive) emulate_naive(p, b, h, out);
    else emulate_loop(variant, p, b, h, out);
}

EmulatedCheck emulate(const std::string& variant, const DecodeParams& p, const EmulationBudget& budget) {
    if (std::string bad = validate(variant, p); !bad.empty()) {
        EmulatedCheck r;
        r.why_not = "not emulated: " + bad;
        return r;
    }
    const std::vector<RowRef> rows = rows_to_check(p, budget.check.max_mults);
    int64_t groups = 0;
    for (size_t i = 0; i < rows.size(); ++i)
        if (i == 0 || rows[i].h / group_size(p) != rows[i - 1].h / group_size(p) || rows[i].b != rows[i - 1].b) ++groups;
    const double per_row = static_cast<double>(p.kv_len) * static_cast<double>(p.d);
    RowCheck c;
    c.rows = static_cast<int64_t>(rows.size());
    c.width = p.d;
    c.all_rows = p.batch * p.heads;
    c.dtype = p.dtype;
    c.what = "rows of out";
    c.how = sampled_rows_how();
    c.setup_s = kInputSeconds * 2.0 * per_row * static_cast<double>(groups);
    c.reference_s = kMacSeconds * 2.0 * per_row * static_cast<double>(rows.size());
    // Per key and column: the dot product's FMA, the O update's multiply and FMA (naive: its P V).
    c.emulation_s = kChainSeconds * 3.0 * per_row * static_cast<double>(rows.size());
    // The reference depends on neither the split nor the page size: one per sample for every variant.
    c.reference_key = "decode " + std::to_string(p.batch) + "x" + std::to_string(p.heads) + "/" + std::to_string(p.kv_heads) +
                      " kv " + std::to_string(p.kv_len) + " d " + std::to_string(p.d) + " " + to_string(p.dtype) + " seed " +
                      std::to_string(p.seed) + " rows " + std::to_string(rows.size());
    c.reference = [&](int64_t i, double* want) { reference_row(p, rows[static_cast<size_t>(i)].b, rows[static_cast<size_t>(i)].h, want); };
    c.emulate = [&](int64_t i, float* got) { emulate_row(variant, p, rows[static_cast<size_t>(i)].b, rows[static_cast<size_t>(i)].h, got); };
    return run_row_check(c, budget);
}

}  // namespace kernels::decode
