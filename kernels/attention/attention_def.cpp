// The attention workload as the rest of the program sees it (kernels/core/workload_def.h): its
// parameters, variants, checks, schedule, refusals and the memory view's facts. The kernels, model
// and CPU reference are the other files of this folder; attention.h says what each variant does.
//
// [SECTION] Parameters
// [SECTION] Description, memory view, traffic
// [SECTION] The definition
#include "kernels/attention/attention.h"
#include "kernels/attention/attention_emulate.h"
#include "kernels/core/format.h"
#include "kernels/core/workload_def.h"

#include <iterator>
#include <memory>
#include <stdexcept>

namespace kernels {

#if FUSIONLAB_HAVE_CUDA
namespace attention::gpu {
std::unique_ptr<GpuWorkload> make_gpu_workload();    // attention.cu
std::string kernel_not_built(const std::string& kernel);  // attention.cu (attention_epilogue.cuh)
}  // namespace attention::gpu
#endif

namespace attention {

// =============================================================================================
// [SECTION] Parameters
// =============================================================================================
// Ranges come from attention.h, which also validates the combination (one source).
const ParamSpec& param(const std::string& name) {
    // "auto" (kAutoValue, 0) first: the default, resolved per variant and device (auto_candidates).
    static const std::vector<double> tiles = [] {
        std::vector<double> t{kAutoTile};
        t.insert(t.end(), std::begin(kColTileSizes), std::end(kColTileSizes));
        return t;
    }();
    static const std::vector<double> row_tiles = [] {
        std::vector<double> t{kAutoTile};
        t.insert(t.end(), std::begin(kRowTileSizes), std::end(kRowTileSizes));
        return t;
    }();
    static const std::vector<ParamSpec> specs{
        {"N", "N (sequence length)", 1, static_cast<double>(kMaxN), true, true,
         "Rows of Q, K and V: tokens in the sequence. naive writes S and P, N x N each, to HBM and reads\n"
         "them back, so its bytes grow as N^2; flash's bytes grow as N (K and V re-read N/Br times).",
         1024, ParamKind::number, {}, 256, 8192},
        {"d", "d (head dimension)", 1, static_cast<double>(kMaxD), true, true,
         "Columns of Q, K, V per head. FLOPs are 4 N^2 d per head; flash_tc is built for d = 32, 64, 128,\n"
         "flash_wgmma for d = 64, 128, the teaching kernel flash takes any d up to 128. Larger d means larger tiles in shared memory.",
         64, ParamKind::number, {}, 16, 128},
        {"heads", "batch x heads", 1, static_cast<double>(kMaxBatchHeads), true, true,
         "Independent attention problems (batch size times heads). Each gets its own grid rows:\n"
         "few heads at small N leave SMs idle.",
         16, ParamKind::number, {}, 1, 64},
        {"br", "Br (Q tile rows)", 16, 192, true, true,
         "Rows of Q one flash thread block keeps on chip (Qi). K and V are read from HBM once per\n"
         "block, so larger Br means fewer re-reads, but Qi, Sij and Oi must fit in shared memory.\n"
         "flash_tc gives each warp 16 rows (32 at Br = 128 where registers allow); flash_wgmma takes 64,\n"
         "128 or 192 (one, two or three consumer warpgroups); 192 is flash_wgmma's alone.\n"
         "auto: each variant takes the tile the model (and the card's recording, where it has the shape)\n"
         "says is fastest on this device; the parameters panel and bench say which and why.",
         kAutoTile, ParamKind::choice, row_tiles, 0, 0, true},
        {"bc", "Bc (K/V tile rows)", 16, 176, true, true,
         "Rows of K and V staged in shared memory per loop step (Kj, Vj). A tile that does not fit\n"
         "shared memory is refused with the numbers. flash_tc and flash_wgmma take 64 or 128 (their\n"
         "scores Sij live in registers, Bc / 2 per thread and 16 rows); flash_wgmma also, at d = 128 only,\n"
         "176 with Br = 128 (FlashAttention-3's tile there) and 80 with Br = 192 (three warpgroups). auto: as for Br.",
         kAutoTile, ParamKind::choice, tiles, 0, 0, true},
        {"causal", "causal mask", 0, 1, true, false,
         "Query row r attends to keys 0..r only (decoder attention). flash skips key tiles wholly above\n"
         "the diagonal, about half the FLOPs; naive still computes and stores the whole N x N.",
         0, ParamKind::boolean},
    };
    for (const ParamSpec& s : specs)
        if (s.name == name) return s;
    throw std::logic_error("attention has no parameter '" + name + "'");
}

namespace {

// The pricing and model hooks read the job's AttentionParams, decoded once (WorkloadDef::decode).
const AttentionParams& job_params(const DecodedParams& d) { return decoded_as<AttentionParams>(d); }

std::string validate_params(const DecodedParams& p) { return validate(job_params(p)); }

Schedule schedule_of(const std::string& variant, const DecodedParams& p) {
    const AttentionParams& a = job_params(p);
    if (const std::string bad = validate(variant, a); !bad.empty()) throw std::invalid_argument(bad);
    return schedule(variant_of(variant), a);
}
uint64_t min_bytes_of(const DecodedParams& p) { return min_bytes(job_params(p)); }
std::string refusal_of(const std::string& variant, const DecodedParams& p, const DeviceBudget& device) {
    const AttentionParams& a = job_params(p);
#if FUSIONLAB_HAVE_CUDA
    // A real GPU runs this build's kernels: one the build does not have (flash_wgmma without sm_90a
    // code) is refused first, as every other reason is, before anything is allocated.
    if (!device.device.simulated && validate(variant, a).empty())
        if (std::string missing = gpu::kernel_not_built(variant); !missing.empty()) return missing;
#endif
    return device_refusal(variant, a, device);
}

}  // namespace

// =============================================================================================
// [SECTION] Description, memory view, traffic
// =============================================================================================
std::string describe_shape(const AttentionParams& a, const std::string& kernel_variant) {
    std::string text = std::to_string(a.batch_heads) + " heads, N=" + std::to_string(a.N) +
                       ", d=" + std::to_string(a.d) + (a.causal ? ", causal" : "");
    const std::optional<Variant> v = find_variant(kernel_variant);
    if (v && is_flash(*v)) {
        const Tile tile = flash_tile(*v, a);
        text += ", tile " + std::to_string(tile.Br) + "x" + std::to_string(tile.Bc);
        if (*v == Variant::flash_tc)
            text += " (" + std::to_string(flash_tc_threads(tile.Br, tile.Bc, a.d) / 32) + " warps x " +
                    std::to_string(flash_tc_warp_rows(tile.Br, tile.Bc, a.d)) + " rows)";
        if (*v == Variant::flash_wgmma)
            text += ", " + std::to_string(flash_wgmma_stages(tile.Br, tile.Bc, a.d, dtype_bytes(a.dtype))) + " stages";
    }
    return text;
}

std::vector<SramPart> flash_sram_parts(const std::string& kernel_variant, const AttentionParams& a,
                                       const std::string& qi, const std::string& qi_note) {
    const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
    const Variant kernel = variant_of(kernel_variant);
    const Tile tile = flash_tile(kernel, a);
    const uint64_t es = u(dtype_bytes(a.dtype)), Br = u(tile.Br), Bc = u(tile.Bc), d = u(a.d);
    const std::string e = " x " + std::to_string(es) + " B";
    std::vector<SramPart> parts;
    if (kernel == Variant::flash_wgmma) {
        // Qi once, the TMA ring's stages of (Kj, Vj), unpadded: the 128-byte swizzle spreads the rows.
        const uint64_t st = u(flash_wgmma_stages(tile.Br, tile.Bc, a.d, dtype_bytes(a.dtype)));
        const std::string rs = "d = " + std::to_string(d) + " (128-byte swizzle, no padding)";
        parts.push_back({qi, Br * d * es, "Br x " + rs + e + qi_note});
        parts.push_back({"Kj x" + std::to_string(st), st * Bc * d * es, std::to_string(st) + " ring stages x Bc x " + rs + e});
        parts.push_back({"Vj x" + std::to_string(st), st * Bc * d * es, std::to_string(st) + " ring stages x Bc x " + rs + e});
        parts.push_back({"align, mbarriers", u(kWgmmaSmemExtra),
                         "1024 B to reach the swizzle's 1024-byte boundary + 128 B of mbarriers (full, empty per stage; Qi)"});
        return parts;
    }
    if (kernel == Variant::flash_tc) {
        // Qi once, Kj and Vj double-buffered for cp.async, rows + 8 (attention.h).
        const uint64_t row = d + 8;
        const std::string rs = std::to_string(row) + " (d + 8: ldmatrix padding)";
        parts.push_back({qi, Br * row * es, "Br x " + rs + e + qi_note});
        parts.push_back({"Kj x2", 2 * Bc * row * es, "2 stages x Bc x " + rs + e});
        parts.push_back({"Vj x2", 2 * Bc * row * es, "2 stages x Bc x " + rs + e});
        return parts;
    }
    const uint64_t ld = u(flash_tile_row_stride(a.d, a.dtype));
    const std::string rs = std::to_string(ld) + " (d padded to an odd number of words)";
    parts.push_back({qi, Br * ld * es, "Br x " + rs + e + qi_note});
    parts.push_back({"Kj", Bc * ld * es, "Bc x " + rs + e});
    parts.push_back({"Vj", Bc * ld * es, "Bc x " + rs + e});
    parts.push_back({"Sij", Br * (Bc + 1) * 4, "Br x (Bc + 1) x 4 B (fp32, padded row)"});
    parts.push_back({"Oi", Br * d * 4, "Br x d x 4 B (fp32 accumulator)"});
    parts.push_back({"m, l", 3 * Br * 4, "3 x Br x 4 B (row max, row sum, rescale)"});
    return parts;
}

// Flash and flash_tc read K and V of a head once per row block of Q (Tr times). When one head's K
// and V fit in L2, the blocks working on a head at the same time share them there.
std::string flash_traffic_reason(const std::string& variant, const AttentionParams& a, uint64_t bytes_read,
                                 uint64_t l2) {
    const std::optional<Variant> v = find_variant(variant);
    if (!v || !is_flash(*v)) return "";
    const Tile t = flash_tile(*v, a);
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(a.dtype));
    const uint64_t kv_head = 2 * static_cast<uint64_t>(a.N * a.d) * es;
    const uint64_t Tr = (static_cast<uint64_t>(a.N) + static_cast<uint64_t>(t.Br) - 1) / static_cast<uint64_t>(t.Br);
    const uint64_t kv_once = kv_head * static_cast<uint64_t>(a.batch_heads);
    std::string text = "K and V of one head = " + format_bytes(double(kv_head)) +
                       (kv_head <= l2 ? " fit in the " : " do not fit in the ") + format_bytes(double(l2)) + " L2. ";
    text += "The model charges the Tr = " + std::to_string(Tr) + " re-reads (one per " + std::to_string(t.Br) +
            "-row block of Q) to DRAM: " + format_bytes(double(bytes_read)) + " read; reading K and V once would be " +
            format_bytes(double(kv_once)) + ". ";
    if (kv_head <= l2)
        text += "The blocks of one head run at the same time, so after the first block loads a tile of K or V the "
                "others find it in L2: DRAM sees roughly each K and V once.";
    else
        text += "K and V of a head do not fit, so only blocks running close together share tiles in L2.";
    return text;
}

namespace {

std::string describe_of(const Params& p, const std::string& variant) { return describe_shape(to_attention(p), variant); }

// Q, K, V, O are batch_heads x N x d; naive's S and P are batch_heads x N x N.
TensorFootprint footprint(const DecodedParams& p, const std::string& name) {
    const AttentionParams& a = job_params(p);
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(a.dtype));
    const std::string es_text = std::to_string(es) + " B";
    const uint64_t bh = static_cast<uint64_t>(a.batch_heads), N = static_cast<uint64_t>(a.N);
    if (name == "S" || name == "P")
        return {bh * N * N * es, "batch_heads x N x N x " + es_text + " = " + std::to_string(a.batch_heads) + " x " +
                                     std::to_string(a.N) + " x " + std::to_string(a.N) + " x " + es_text};
    return {bh * N * static_cast<uint64_t>(a.d) * es,
            "batch_heads x N x d x " + es_text + " = " + std::to_string(a.batch_heads) + " x " + std::to_string(a.N) +
                " x " + std::to_string(a.d) + " x " + es_text};
}

// Flash kernels stage tiles in shared memory; naive's GEMMs are cuBLAS's (no threads_per_block in
// the model), its softmax keeps a row in registers.
OnChip on_chip(const std::string& variant, const Params&, const ScheduleKernel& kernel) {
    if (variant_of(variant) != Variant::naive) return OnChip::shared_memory;
    return kernel.threads_per_block == 0 ? OnChip::library : OnChip::registers;
}

std::vector<Params> auto_candidates_of(const std::string& variant, const Params& p) { return auto_tile_candidates(variant, p); }

std::vector<SramPart> sram_parts(const std::string& variant, const Params& p, int) {
    return flash_sram_parts(variant, to_attention(p), "Qi", "");
}

EmulatedCheck emulate_of(const std::string& variant, const Params& p, const EmulationBudget& budget) {
    return emulate(variant, to_attention(p), budget);
}

// flash_wgmma's warps have roles (a producer of TMA copies, consumer warpgroups): one block lane by
// lane. The other variants have none; parameters flash_wgmma cannot take give none either.
BlockTimeline block_timeline(const std::string& variant, const Params& p, const DeviceInfo& device) {
    const AttentionParams a = to_attention(p);
    if (find_variant(variant) != Variant::flash_wgmma || !validate(Variant::flash_wgmma, a).empty()) return {};
    return flash_wgmma_block_timeline(a, device);
}

std::string traffic_reason(const Measurement& m, uint64_t l2) {
    return flash_traffic_reason(m.job.variant, to_attention(m.job.params), m.l2_bytes_read > 0 ? m.l2_bytes_read : m.bytes_read, l2);
}

}  // namespace
}  // namespace attention

// =============================================================================================
// [SECTION] The definition
// =============================================================================================
const WorkloadDef& attention_workload() {
    static const WorkloadDef def = [] {
        WorkloadDef w;
        w.name = "attention";
        w.title = "attention: softmax(QK^T / sqrt(d)) V";
        w.description =
            "O = softmax(Q K^T / sqrt(d)) V for each of batch x heads problems. naive: 3 kernels, the N x N "
            "scores S and probabilities P written to HBM and read back. flash: one kernel streams tiles of K "
            "and V through shared memory with an online softmax, so S and P never leave the chip. flash_tc: "
            "the same loop on tensor cores. flash_wgmma: the same loop on Hopper's wgmma, fed by TMA copies "
            "into a ring of shared-memory stages by a producer warp.";
        using attention::param;
        w.params = {param("N"), param("d"), param("heads"), param("br"), param("bc"), param("causal"), seed_param()};
        // flash vs naive: fusion alone on the teaching kernel (S and P never leave the chip; it runs
        // on CUDA cores against cuBLAS's tensor cores, so it moves fewer bytes and is slower: the
        // roofline labels that arrow "slower"). flash_tc vs naive: both on tensor cores, so the pair
        // isolates what fusion changed. flash_wgmma vs flash_tc: the same fused loop, Hopper's
        // TMA + wgmma against mma.sync.
        w.variants = with_baselines(attention::variants(),
                                    {{"flash", "naive"}, {"flash_tc", "naive"}, {"flash_wgmma", "flash_tc"}});
        w.decode = decode_with<attention::AttentionParams, attention::to_attention>;
        w.validate = attention::validate_params;
        w.auto_candidates = attention::auto_candidates_of;
        w.schedule = attention::schedule_of;
        w.min_bytes = attention::min_bytes_of;
        w.device_refusal = attention::refusal_of;
        w.describe = attention::describe_of;
        w.footprint = attention::footprint;
        w.on_chip = attention::on_chip;
        w.sram_parts = attention::sram_parts;
        w.traffic_gap_reason = attention::traffic_reason;
        w.emulate = attention::emulate_of;
        w.block_timeline = attention::block_timeline;
#if FUSIONLAB_HAVE_CUDA
        w.make_gpu = attention::gpu::make_gpu_workload;
#endif
        return w;
    }();
    return def;
}

}  // namespace kernels
