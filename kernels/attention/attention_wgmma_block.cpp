// One flash_wgmma block, warpgroup by warpgroup (attention.h, flash_wgmma_block_timeline): the
// producer's TMA copies and the consumers' wgmma turns and softmax, from the schedule's work per tile
// and one SM's share of the calibrated rates. It follows attention_wgmma.cu's loop (v2; v4's turns
// pass through one, two or three consumer warpgroups):
//   producer     TMA Qi, then Kj, Vj into slot j mod stages, once the consumers freed that slot
//   consumer k   turn j: issue Sij = Qi Kjᵀ and Pij-1 Vj-1 (wgmma), then the softmax of Sij as soon
//                as Sij is done (while Pij-1 Vj-1 still runs); the tensor cores take one warpgroup's
//                products at a time, turns alternate between the warpgroups (named barriers)
//   slot j is free when every warpgroup's Pij Vj is done; Oi is stored after the last Pij Vj.
#include "kernels/attention/attention.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/format.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace kernels::attention {

namespace {

std::string us_text(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f us", ms * 1e3);
    return buf;
}

}  // namespace

BlockTimeline flash_wgmma_block_timeline(const AttentionParams& p, const DeviceInfo& device) {
    if (std::string bad = validate("flash_wgmma", p); !bad.empty()) throw std::invalid_argument(bad);
    const SimCalibration c = calibration_for(device);
    const double sms = std::max(device.sm_count, 1);
    const double es = dtype_bytes(p.dtype), d = static_cast<double>(p.d);
    const double gemm = p.dtype == DType::bf16 && c.gemm_bf16_tflops > 0 ? c.gemm_bf16_tflops : c.gemm_tflops;
    const double flop_per_ms = gemm * 1e12 / sms / 1e3, exp_per_ms = c.sfu_per_s / sms / 1e3;
    const double byte_per_ms = c.l2_gbps * 1e9 / sms / 1e3;  // every SM loading at once shares L2
    const int Br = p.Br, Bc = p.Bc, wgs = Br / 64;
    const int stages = flash_wgmma_stages(Br, Bc, p.d, dtype_bytes(p.dtype));
    // The row block with the most key tiles: the last full one (causal: it reaches the diagonal last).
    const int64_t full_blocks = std::max<int64_t>(p.N / Br, 1);
    const int64_t block = full_blocks - 1, row0 = block * Br;
    const int64_t kv_end = p.causal ? std::min<int64_t>(p.N, row0 + Br) : p.N;
    const int tiles = static_cast<int>((kv_end + Bc - 1) / Bc);
    auto cols = [&](int j) { return static_cast<double>(std::min<int64_t>(Bc, p.N - int64_t{j} * Bc)); };

    BlockTimeline t;
    BlockLane producer{"producer: TMA", "", {}, 0};
    std::vector<BlockLane> mma(static_cast<size_t>(wgs)), soft(static_cast<size_t>(wgs));
    for (int w = 0; w < wgs; ++w) {
        mma[static_cast<size_t>(w)] = {"WG " + std::to_string(w + 1) + ": wgmma", "", {}, 1};
        soft[static_cast<size_t>(w)] = {"WG " + std::to_string(w + 1) + ": softmax", "", {}, 2};
    }
    auto span = [](BlockLane& lane, const std::string& what, double a, double b) { lane.spans.push_back({what, a, b, 0}); };

    const double q_end = static_cast<double>(Br) * d * es / byte_per_ms;
    span(producer, "TMA Qi (" + std::to_string(Br) + " rows)", 0, q_end);
    std::vector<double> full(static_cast<size_t>(tiles)), released(static_cast<size_t>(tiles), 0);
    std::vector<double> wg_ready(static_cast<size_t>(wgs), q_end), pv_end(static_cast<size_t>(wgs), 0);
    double copy_free = q_end, tensor_free = 0, sfu_free = 0, tensor_busy = 0;
    for (int j = 0; j <= tiles; ++j) {
        // Producer: Kj, Vj into slot j mod stages once the consumers released tile j - stages.
        if (j < tiles) {
            const double start = std::max(copy_free, j >= stages ? released[static_cast<size_t>(j - stages)] : 0.0);
            const double end = start + 2 * cols(j) * d * es / byte_per_ms;
            span(producer, "TMA K" + std::to_string(j) + ", V" + std::to_string(j) + " into slot " + std::to_string(j % stages),
                 start, end);
            full[static_cast<size_t>(j)] = copy_free = end;
        }
        // Consumers, turn by turn: Sij with Pij-1 Vj-1, then the softmax of Sij (the last turn: Pij Vj alone).
        double release = 0;
        for (int w = 0; w < wgs; ++w) {
            const size_t wi = static_cast<size_t>(w);
            const double s_ms = j < tiles ? 2 * 64 * cols(j) * d / flop_per_ms : 0;
            const double pv_ms = j > 0 ? 2 * 64 * cols(j - 1) * d / flop_per_ms : 0;
            double start = std::max(tensor_free, wg_ready[wi]);
            if (j < tiles) start = std::max(start, full[static_cast<size_t>(j)]);
            const double end = start + s_ms + pv_ms;
            char what[64];
            if (j == tiles) std::snprintf(what, sizeof what, "P%d V%d", j - 1, j - 1);
            else if (j == 0) std::snprintf(what, sizeof what, "S0 = Qi K0^T");
            else std::snprintf(what, sizeof what, "S%d = Qi K%d^T, P%d V%d", j, j, j - 1, j - 1);
            span(mma[wi], what, start, end);
            tensor_free = end;
            tensor_busy += end - start;
            pv_end[wi] = end;
            release = std::max(release, end);
            if (j < tiles) {
                const double exps = 64 * cols(j) + 64;  // a score each, and the rescale of each row
                const double s0 = std::max(start + s_ms, sfu_free), s1 = s0 + exps / exp_per_ms;
                span(soft[wi], "softmax of S" + std::to_string(j) + " (exp2)", s0, s1);
                sfu_free = s1;
                wg_ready[wi] = std::max(s1, end);  // Pij packed once Pij-1 Vj-1 is done (Oi's rescale: after it, v13; in the next turn, v14; not timed apart)
            } else {
                wg_ready[wi] = end;
            }
        }
        if (j > 0) released[static_cast<size_t>(j - 1)] = release;
    }
    // Oi / l from the consumers' registers to HBM.
    for (int w = 0; w < wgs; ++w) {
        const size_t wi = static_cast<size_t>(w);
        const double s0 = pv_end[wi], s1 = s0 + 64 * d * es / byte_per_ms;
        span(mma[wi], "store Oi (64 rows)", s0, s1);
        t.block_ms = std::max(t.block_ms, s1);
    }
    t.block_ms = std::max(t.block_ms, copy_free);
    t.tensor_busy = t.block_ms > 0 ? tensor_busy / t.block_ms : 0;

    auto busy = [&](const BlockLane& lane) {
        double b = 0;
        for (const KernelSpan& s : lane.spans) b += s.end_ms - s.start_ms;
        return b;
    };
    producer.summary = std::to_string(tiles) + " tiles into " + std::to_string(stages) + " slots";
    t.lanes.push_back(producer);
    for (int w = 0; w < wgs; ++w) {
        const size_t wi = static_cast<size_t>(w);
        char buf[64];
        std::snprintf(buf, sizeof buf, "busy %.0f %%", 100.0 * busy(mma[wi]) / std::max(t.block_ms, 1e-12));
        mma[wi].summary = buf;
        std::snprintf(buf, sizeof buf, "busy %.0f %%", 100.0 * busy(soft[wi]) / std::max(t.block_ms, 1e-12));
        soft[wi].summary = buf;
        t.lanes.push_back(mma[wi]);
        t.lanes.push_back(soft[wi]);
    }
    t.title = "One flash_wgmma block, warpgroup by warpgroup (model)";
    t.note = "Row block " + std::to_string(block) + " (" + std::to_string(tiles) + " key tiles of " + std::to_string(Bc) +
             "), " + std::to_string(wgs) + (wgs == 1 ? " consumer warpgroup" : " consumer warpgroups") + ", " +
             std::to_string(stages) + " ring slots, on one SM's share of " + device.name + "'s calibrated rates (" +
             format_flops(gemm * 1e12 / sms) + "/s of GEMM, " + format_count(static_cast<int64_t>(c.sfu_per_s / sms / 1e9)) +
             " G exp2/s, " + format_bytes(c.l2_gbps * 1e9 / sms) + "/s from L2): " + us_text(t.block_ms) +
             " per block, tensor cores busy " + std::to_string(static_cast<int>(100.0 * t.tensor_busy + 0.5)) +
             " %. This is the overlap the turns intend; the simulator prices the kernel at its tensor time plus " +
             std::to_string(static_cast<int>(100.0 * (1.0 - flash_wgmma_sfu_hidden_share(Br, Bc, p.d)) + 0.5)) +
             " % of its exp2 time at this tile (the softmax's exp2 and its fixed steps each key tile, less what hides "
             "under the partners' products; fitted on H200 measurements, kernels/PERF.md), so the real turns leave "
             "more of the softmax exposed than drawn here.";
    return t;
}

}  // namespace kernels::attention
