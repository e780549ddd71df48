// The decode workload as the rest of the program sees it (kernels/core/workload_def.h): one new
// token per sequence against its KV cache, in four variants (decode.h says what each does).
//
// [SECTION] Parameters
// [SECTION] Description, memory view, traffic
// [SECTION] The definition
#include "kernels/sim/emulate.h"
#include "kernels/core/format.h"
#include "kernels/core/workload_def.h"
#include "kernels/decode/decode.h"

#include <iterator>
#include <memory>

namespace kernels {

#if FUSIONLAB_HAVE_CUDA
namespace decode::gpu {
std::unique_ptr<GpuWorkload> make_gpu_workload();  // decode.cu
}  // namespace decode::gpu
#endif

namespace decode {
namespace {

// =============================================================================================
// [SECTION] Parameters
// =============================================================================================
std::vector<double> choices_of(const int64_t* begin, const int64_t* end) {
    std::vector<double> v;
    for (const int64_t* i = begin; i != end; ++i) v.push_back(static_cast<double>(*i));
    return v;
}

std::vector<ParamSpec> param_specs() {
    return {
        {"batch", "batch (sequences)", 1, static_cast<double>(kMaxBatch), true, true,
         "Sequences decoding together, one new token each. flash runs batch x kv_heads blocks: at batch 1\n"
         "that is far fewer than the SMs, which is what split_kv fixes.",
         8, ParamKind::number, {}, 1, 256},
        {"kv_len", "kv_len (cached tokens)", 1, static_cast<double>(kMaxKvLen), true, true,
         "Tokens in each sequence's KV cache. The cache, 2 x batch x kv_heads x kv_len x d x es bytes, is read\n"
         "once a step: decode is bound by moving it.",
         8192, ParamKind::number, {}, 1024, 131072},
        {"heads", "heads (query heads)", 1, static_cast<double>(kMaxHeads), true, true,
         "Query heads per sequence: one query row each.", 32, ParamKind::number, {}, 1, 128},
        {"kv_heads", "kv_heads (KV heads)", 1, static_cast<double>(kMaxHeads), true, true,
         "KV heads per sequence; must divide heads. heads / kv_heads query heads share each one (GQA):\n"
         "kv_heads = heads is multi-head, 1 multi-query. Below heads, flash and split_kv run the group's heads as the rows of\n"
         "tensor-core products: each K, V tile is copied to shared memory once for up to 16 heads of the group\n"
         "(a larger group in passes whose blocks meet in L2).",
         8, ParamKind::number, {}, 1, 128},
        {"d", "d (head dimension)", 64, 128, true, false,
         "Columns of q, K, V per head: the kernels are built for 64 and 128.", 128, ParamKind::choice,
         choices_of(std::begin(kDChoices), std::end(kDChoices))},
        {"page", "page (tokens a page)", 0, 256, true, false,
         "0: each sequence's cache is contiguous. Else the cache lives in pages of this many tokens, found\n"
         "through a page table whose pages are in random order (vLLM's paged cache); every variant gathers\n"
         "its keys through it.",
         0, ParamKind::choice, choices_of(std::begin(kPageChoices), std::end(kPageChoices))},
        {"splits", "splits (0 = chosen)", 0, static_cast<double>(kMaxSplits), true, false,
         "split_kv's key chunks per (sequence, KV head). 0 chooses as many as fit one wave (4 blocks per SM;\n"
         "GQA on tensor cores: 2 at d = 128, 4 at d = 64) of 132 SMs (H100, H200), each chunk at least 256 keys;\n"
         "GQA on FUSIONLAB_DECODE_GRID=persistent: about 2 units an SM slot, at most 64 splits. Chunks are whole key tiles,\n"
         "so fewer may run.",
         0, ParamKind::number, {}, 1, 256},
        seed_param(),
    };
}

// The pricing and model hooks read the job's DecodeParams, decoded once (WorkloadDef::decode).
const DecodeParams& job_params(const DecodedParams& d) { return decoded_as<DecodeParams>(d); }

std::string validate_params(const DecodedParams& p) { return validate(job_params(p)); }
Schedule schedule_of(const std::string& variant, const DecodedParams& p) { return schedule(variant, job_params(p)); }
uint64_t min_bytes_of(const DecodedParams& p) { return min_bytes(job_params(p)); }
std::string refusal_of(const std::string& variant, const DecodedParams& p, const DeviceBudget& device) {
    return device_refusal(variant, job_params(p), device);
}
EmulatedCheck emulate_of(const std::string& variant, const Params& p, const EmulationBudget& budget) {
    return emulate(variant, to_decode(p), budget);
}

// =============================================================================================
// [SECTION] Description, memory view, traffic
// =============================================================================================
// "batch 8, 32 heads / 8 KV heads, kv_len 8192, d=128, pages of 16; 66 splits of 128 keys, 528 blocks"
std::string describe_of(const Params& params, const std::string& variant) {
    const DecodeParams p = to_decode(params);
    std::string text = "batch " + std::to_string(p.batch) + ", " + std::to_string(p.heads) + " heads / " +
                       std::to_string(p.kv_heads) + " KV heads, kv_len " + std::to_string(p.kv_len) + ", d=" +
                       std::to_string(p.d) + (p.page > 0 ? ", pages of " + std::to_string(p.page) : ", contiguous");
    if (!has_variant(variant) || !validate(p).empty()) return text;
    if (variant_of(variant) == Variant::naive) return text + "; " + std::to_string(p.batch * p.heads) + " blocks in naive_pv";
    const Split s = split_of(variant, p);
    const int64_t blocks = work_items(p) * s.splits;
    if (is_split(variant))
        text += "; " + std::to_string(s.splits) + (s.splits == 1 ? " split of " : " splits of ") + std::to_string(s.chunk) + " keys";
    const std::string heads = std::to_string(pass_heads(p)) + " query head" + (pass_heads(p) == 1 ? "" : "s");
    if (uses_persistent(variant, p))
        return text + "; " + std::to_string(blocks) + " units of " + heads + " on a persistent grid of " +
               std::to_string(loop_blocks(variant, p)) + " blocks";
    return text + "; " + std::to_string(blocks) + " blocks of " + heads;
}

TensorFootprint footprint(const DecodedParams& params, const std::string& name) {
    const DecodeParams& p = job_params(params);
    const std::string es = std::to_string(dtype_bytes(p.dtype)) + " B";
    const std::string b = std::to_string(p.batch), h = std::to_string(p.heads), d = std::to_string(p.d);
    if (name == "q" || name == "out") return {q_bytes(p), "batch x heads x d x " + es + " = " + b + " x " + h + " x " + d + " x " + es};
    if (name == "K" || name == "V") {
        if (p.page == 0)
            return {cache_bytes(p) / 2, "batch x kv_heads x kv_len x d x " + es + " = " + b + " x " + std::to_string(p.kv_heads) +
                                            " x " + std::to_string(p.kv_len) + " x " + d + " x " + es};
        return {pool_bytes(p) / 2, "pool pages x kv_heads x page x d x " + es + " = " + std::to_string(p.batch * pages_per_seq(p)) +
                                       " x " + std::to_string(p.kv_heads) + " x " + std::to_string(p.page) + " x " + d + " x " + es};
    }
    if (name == "pages") return {table_bytes(p), "batch x pages_per_seq x 4 B = " + b + " x " + std::to_string(pages_per_seq(p)) + " x 4 B"};
    if (name == "S" || name == "P")
        return {scores_bytes(p), "batch x heads x kv_len x " + es + " = " + b + " x " + h + " x " + std::to_string(p.kv_len) + " x " + es};
    const int64_t S = split_of("split_kv", p).splits;
    if (name == "O_split")
        return {static_cast<uint64_t>(p.batch * p.heads * S * p.d) * 4,
                "batch x heads x splits x d x 4 B = " + b + " x " + h + " x " + std::to_string(S) + " x " + d + " x 4 B"};
    if (name == "m_l")
        return {static_cast<uint64_t>(p.batch * p.heads * S) * 8, "batch x heads x splits x 2 x 4 B = " + b + " x " + h + " x " + std::to_string(S) + " x 8 B"};
    if (name == "counters")
        return {static_cast<uint64_t>(work_items(p)) * 4, "batch x kv_heads x passes x 4 B = " + std::to_string(work_items(p)) + " x 4 B"};
    return {};
}

// The CUDA-core kernels keep their working set in registers (q, m, l, O a stream) and merge their
// warps through a little shared memory at the end; the tensor-core key loop (kv_heads < heads)
// stages K and V in shared memory, a ring per warp (decode.cu).
OnChip on_chip(const std::string& variant, const Params& params, const ScheduleKernel& kernel) {
    const DecodeParams p = to_decode(params);
    const bool loop = kernel.name == "flash_decode" || kernel.name == "split_kv_partial" || kernel.name == "split_kv_fused";
    return loop && find_variant(variant) != Variant::naive && validate(p).empty() && uses_mma(p) ? OnChip::shared_memory
                                                                                                 : OnChip::registers;
}

// One block's shared memory in the tensor-core loop: each warp's ring of K and V slots.
std::vector<SramPart> sram_parts(const std::string&, const Params& params, int) {
    const DecodeParams p = to_decode(params);
    if (!validate(p).empty() || !uses_mma(p)) return {};
    const uint64_t half = mma_ring_bytes(p.d) / 2;
    const std::string f = std::to_string(kWarps) + " warps x " + std::to_string(kMmaStages) + " slots x " + std::to_string(kMmaWarpKeys) +
                          " keys x d " + std::to_string(p.d) + " x 2 B";
    return {{"Kj (rings)", half, f}, {"Vj (rings)", half, f}};
}

// split_kv_fused's last block reads its group's partials back moments after the other splits wrote
// them, in the same kernel: from L2 when they fit half of it (the generic rules would charge DRAM).
void l2_reuse(const std::string& variant, const DecodedParams& params, uint64_t l2_bytes, Model& m) {
    if (find_variant(variant) != Variant::split_kv_fused) return;
    const DecodeParams& p = job_params(params);
    if (2 * partial_bytes(variant, p) > l2_bytes) return;
    for (KernelModel& k : m.kernels)
        for (BufferTraffic& b : k.buffers)
            if (b.buffer == "O_split" || b.buffer == "m_l") {
                b.dram_read = 0;
                b.dram_rule = "read back from L2 by the last split of each group, moments after the others wrote it (the "
                              "partials, " + format_bytes(static_cast<double>(partial_bytes(variant, p))) + ", fit half the L2)";
            }
}

std::string bench_note(const Measurement& m) {
    if (m.job.params.workload != "decode") return "";
    const DecodeParams p = to_decode(m.job.params);
    if (!has_variant(m.job.variant) || !validate(p).empty()) return "";
    const Split s = split_of(m.job.variant, p);
    if (uses_persistent(m.job.variant, p))
        return std::to_string(work_items(p) * s.splits) + " units on a persistent grid of " + std::to_string(loop_blocks(m.job.variant, p)) +
               " blocks (" + std::to_string(s.splits) + " splits of " + std::to_string(s.chunk) + " keys); cache " +
               format_bytes(static_cast<double>(cache_bytes(p)));
    return std::to_string(work_items(p) * s.splits) + " blocks" +
           (is_split(m.job.variant) ? " (" + std::to_string(s.splits) + " splits of " + std::to_string(s.chunk) + " keys)" : "") +
           "; cache " + format_bytes(static_cast<double>(cache_bytes(p)));
}

}  // namespace
}  // namespace decode

// =============================================================================================
// [SECTION] The definition
// =============================================================================================
const WorkloadDef& decode_workload() {
    static const WorkloadDef def = [] {
        WorkloadDef w;
        w.name = "decode";
        w.title = "decode: one new token against a KV cache";
        w.description =
            "out = softmax(q Kᵀ / sqrt(d)) V for one query row per (sequence, head) against a cache of kv_len keys, "
            "grouped-query (heads / kv_heads query heads share a KV head), contiguous or paged. naive: eager mode's "
            "three kernels, S and P through HBM. flash: one block per (sequence, KV head) walks the whole cache, so "
            "at small batch most SMs idle. split_kv: the keys split across blocks to fill the GPU, partial softmaxes "
            "merged exactly by a combine kernel. split_kv_fused: the last block of each group merges, one launch. "
            "With fewer KV heads than query heads, a group's heads share each K, V tile on the tensor cores.";
        w.params = decode::param_specs();
        w.variants = improving_on(decode::variants(), "naive");
        for (VariantInfo& v : w.variants)
            if (v.name == "split_kv") v.improves_on = "flash";
        w.decode = decode_with<decode::DecodeParams, decode::to_decode>;
        w.validate = decode::validate_params;
        w.schedule = decode::schedule_of;
        w.min_bytes = decode::min_bytes_of;
        w.device_refusal = decode::refusal_of;
        w.describe = decode::describe_of;
        w.footprint = decode::footprint;
        w.on_chip = decode::on_chip;
        w.sram_parts = decode::sram_parts;
        w.l2_reuse = decode::l2_reuse;
        w.bench_note = decode::bench_note;
        w.emulate = decode::emulate_of;
#if FUSIONLAB_HAVE_CUDA
        w.make_gpu = decode::gpu::make_gpu_workload;
#endif
        return w;
    }();
    return def;
}

}  // namespace kernels
