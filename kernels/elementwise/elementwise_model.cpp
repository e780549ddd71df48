// Model of the elementwise workloads: the tile schedule of each kernel, generated from the same
// loop structure as kernels/elementwise/elementwise.cu, and the FLOP counts. model() sums it.
//
// HBM bytes (es = bytes per element, n = rows*hidden, H = hidden):
//   chain unfused   layernorm  read x n*es + gamma, beta 2*H*es   write h1 n*es
//                   gelu       read h1 n*es                         write h2 n*es
//                   dropout    read h2 n*es                         write h3 n*es
//                   add        read h3, residual 2*n*es             write out n*es   => (9n + 2H) es
//   chain fused     read x, residual 2n*es + gamma, beta 2H*es      write out n*es   => (3n + 2H) es
//   chain fused_spill  the same, plus spill traffic to local memory (TileEvent::local, counted apart):
//                   rows x threads x (spill store + spill load bytes of the instance, from ptxas)
//   bias_gelu unf.  bias_add   read x n*es + bias H*es              write h n*es
//                   gelu       read h n*es                          write out n*es   => (4n + H) es
//   bias_gelu fused read x n*es + bias H*es                         write out n*es   => (2n + H) es
// gamma, beta and bias are read from HBM once; every later block finds them in L2, so the
// schedule gives them one event of their own rather than one per block.
//
// FLOPs per element (an erf counts as one operation, as rooflines usually count special functions):
//   layernorm 7 (sum 1, squared deviation 2, normalise and affine 4), gelu 5 (scale, erf, add,
//   two multiplies), dropout 1 (scale), add 1, bias add 1.
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/row_reduction.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <stdexcept>

namespace kernels::elementwise {

// fused_bias_gelu v7 with 16-bit outputs (logistic GELU): 22.9 instructions per element (ncu, H200, bf16 8192^2,
// shapes round 2, 2026-11-28 13:22 UTC, kernels/PERF.md "v7 round 2 measured"; v7b's flat kernel is v7a's).
// fp32 keeps A&S's GELU, not measured: no count.
double fused_bias_gelu_instructions_per_element(DType t) { return t == DType::f32 ? 0.0 : 22.9; }

namespace {

constexpr double kLayerNormFlops = 7, kGeluFlops = 5, kDropoutFlops = 1, kAddFlops = 1, kBiasAddFlops = 1;

struct Sizes {
    uint64_t es, n, hidden, rows;
};

Sizes sizes(const ElementwiseParams& p) {
    return {static_cast<uint64_t>(dtype_bytes(p.dtype)), static_cast<uint64_t>(p.rows) * static_cast<uint64_t>(p.hidden),
            static_cast<uint64_t>(p.hidden), static_cast<uint64_t>(p.rows)};
}

// A row kernel (LayerNorm must see the whole row to normalise it), laid out as row_config() says:
// a block owns rows_per_block whole rows, or a cluster of ctas_per_row blocks shares one row, each
// block its slice of chunks (elementwise.cu row_kernel). `per_row_inputs` are rows x hidden
// tensors, `vectors` are hidden-long tensors read once.
void add_row_kernel(Schedule& s, const ElementwiseParams& p, const std::string& name, const std::vector<std::string>& per_row_inputs,
                    const std::vector<std::string>& vectors, double flops_per_element, const std::string& compute_what,
                    const std::string& output) {
    const Sizes z = sizes(p);
    const RowKernel kind = row_kernel_of(name);
    const RowConfig config = row_config(p, kind);
    const LaunchShape shape = row_kernel_shape(p, kind);
    const int k = static_cast<int>(s.kernels.size());
    const RegisterUse regs = row_kernel_registers(name, p);
    s.kernels.push_back({name, shape.blocks, shape.threads, false, regs});
    // a staged row's slice is the block's shared memory (the simulator's occupancy)
    if (config.staged)
        s.kernels.back().block.shared_bytes = static_cast<uint64_t>(config.staged_bytes(p.dtype)) /
                                              (per_row_inputs.size() < 2 && config.stage_residual ? 2 : 1);
    // v8, rows in sequence: the next row's x waits in shared memory (the same occupancy rule)
    else if (kind == RowKernel::picked)
        s.kernels.back().block.shared_bytes = static_cast<uint64_t>(config.prefetch_bytes(p.dtype, per_row_inputs.size() > 1));
    for (const std::string& v : vectors)
        s.events.push_back({EventKind::load, k, v, z.hidden * z.es, 0, 1,
                            "load " + v + " into registers (HBM once; later blocks hit L2)"});
    // The groups of identical blocks: (elements of rows each block holds, threads, how many blocks)
    struct Group {
        uint64_t elements, threads, blocks;
        std::string suffix;
    };
    std::vector<Group> groups;
    const uint64_t rpb = static_cast<uint64_t>(config.rows_per_block), tpr = static_cast<uint64_t>(config.threads_per_row);
    // v8: a block (cluster) runs `seq` rows (groups of rpb rows) one after another, the next one's x prefetched
    const uint64_t seq = static_cast<uint64_t>(std::max(1, config.rows_in_sequence));
    const std::string in_sequence =
        seq > 1 ? ", " + std::to_string(seq) + " in sequence, each next row's x copied into shared memory while the one before reduces"
                : "";
    if (config.ctas_per_row > 1) {
        // block rank r of a cluster holds chunks [r tpr cpt, (r + 1) tpr cpt) of its row(s); the last cluster
        // of a sequence may run fewer rows
        const uint64_t slice = tpr * static_cast<uint64_t>(config.chunks_per_thread) * 8;
        const std::string shares = " (its slice of the row: a cluster of " + std::to_string(config.ctas_per_row) + " blocks shares it";
        for (const auto& [rows_of_cluster, clusters] : {std::pair{seq, z.rows / seq}, std::pair{z.rows % seq, uint64_t{1}}}) {
            if (rows_of_cluster == 0 || clusters == 0) continue;
            const std::string suffix = shares + (rows_of_cluster == seq ? in_sequence : "; the last cluster's " + std::to_string(rows_of_cluster) + " rows in sequence") + ")";
            const size_t first = groups.size();
            for (uint64_t r = 0; r < static_cast<uint64_t>(config.ctas_per_row); ++r) {
                const uint64_t begin = std::min(z.hidden, r * slice), end = std::min(z.hidden, (r + 1) * slice);
                if (groups.size() > first && groups.back().elements == rows_of_cluster * (end - begin)) groups.back().blocks += clusters;
                else groups.push_back({rows_of_cluster * (end - begin), tpr, clusters, suffix});
            }
        }
    } else {
        const uint64_t per_block = rpb * seq;
        const std::string what_rows = per_block > 1 ? " (" + std::to_string(per_block) + " rows" + in_sequence + ")" : "";
        groups.push_back({per_block * z.hidden, rpb * tpr, z.rows / per_block, what_rows});
        if (z.rows % per_block != 0)
            groups.push_back({(z.rows % per_block) * z.hidden, rpb * tpr, 1,
                              " (" + std::to_string(z.rows % per_block) + " rows: the last block)"});
    }
    for (const Group& g : groups) {
        if (g.blocks == 0) continue;
        const char* what = rpb * seq > 1 ? " rows" : " row";
        for (size_t i = 0; i < per_row_inputs.size(); ++i) {
            const std::string& in = per_row_inputs[i];
            // staged_row_kernel copies x (and the residual when it fits) into shared memory instead, and so
            // does row_sequence_kernel (v8) with both
            const bool staged = config.staged && (i == 0 || config.stage_residual);
            TileEvent load{EventKind::load, k, in, g.elements * z.es, 0, g.blocks,
                           "load " + in + what + (staged || seq > 1 ? " into shared memory (cp.async)" : " into registers") + g.suffix};
            // rows in sequence: each row's chunks are written to shared memory once and read back once a pass
            // (x: 2 passes in 16-bit, the statistics and the last; 3 in fp32; the residual: the last pass)
            if (seq > 1 && !config.staged) {
                const uint64_t passes = i > 0 ? 1 : z.es == 2 ? 2 : 3;
                load.shared_bytes = (1 + passes) * g.elements * z.es;
            }
            s.events.push_back(load);
        }
        if (regs.spills()) {
            // The row no longer fits the registers ptxas was allowed: part of it goes to the threads'
            // local memory after the loads and comes back in the passes that need it. Each spill
            // instruction runs once per thread (the kernel has no loops), so ptxas's byte counts x
            // threads are the traffic.
            s.events.push_back({EventKind::store, k, kLocalBuffer, g.threads * static_cast<uint64_t>(regs.spill_store_bytes),
                                0, g.blocks,
                                "spill registers to local memory (" + std::to_string(regs.spill_store_bytes) +
                                    " B per thread)",
                                true});
            s.events.push_back({EventKind::load, k, kLocalBuffer, g.threads * static_cast<uint64_t>(regs.spill_load_bytes),
                                0, g.blocks,
                                "reload spilled registers (" + std::to_string(regs.spill_load_bytes) + " B per thread)",
                                true});
        }
        TileEvent compute{EventKind::compute, k, "", 0, flops_per_element * static_cast<double>(g.elements), g.blocks,
                          compute_what + g.suffix};
        // Instructions per element (ncu: smsp__inst_executed x 32 / elements, H200): at 6 bytes per element they,
        // not DRAM, set the 16-bit chain's time on an H200. fused_chain_spill keeps its recorded code (A&S's GELU):
        // 54 (PERF.md "Measured (step 5, ncu)"). fused_chain v7 (logistic GELU for 16-bit outputs; ncu, H200, shapes
        // rounds 2 and 3, 2026-11-28 13:22 and 13:51 UTC, PERF.md "v7 round 2 measured" and its "For the model"):
        // 16-bit rows 38.5 with one block a row of up to 256 threads (8192^2 bf16 and fp16: 38.53), 40.0 at 512
        // threads a row (8192 x 16384 bf16: 39.97), 41.0 in a cluster (4096 x 65536, 8 blocks: 40.95; v6 44.9 and
        // 47.3). fp32 rows keep A&S's GELU and the two passes: v5's 52.9 less the 5.0 v6 cut from the fp32
        // instance's static SASS, 48 (no ncu run; fp32 moves twice the bytes an element and is DRAM-bound, so
        // this count rarely sets its time). v8b (bf16 unpacked on the FMA pipe) issues 38.72 per element at bf16
        // 8192^2 and 36.03 at 65536 x 1024 (fp16 35.88; ncu, H200, shapes round 2, 2026-11-28 17:07 UTC): within
        // 0.5 % of 38.5, which stays.
        if (name == "fused_chain_spill") compute.instructions = 54.0 * static_cast<double>(g.elements);
        // v8's rows in sequence (forced only: FUSIONLAB_ROW_CONFIG=seq=N): 16-bit 41.25 (ncu, H200, bf16 8192 x 16384,
        // 4 rows in sequence, shapes round 1, 2026-11-28 16:48 UTC); fp32 (a cluster of 8, 4096 x 65536) 47.0.
        // v9 (the row's leader warp alone adds the partials; ncu, H200, bf16, shapes round 1, 2026-11-28 19:47 UTC,
        // PERF.md "v9 round 1 measured"): 36.85 at 8192^2, 36.79 at 8192 x 16384, 36.93 at 8192 x 7168, 37.16 at
        // 16384 x 3072 (rows of several warps: 36.9), 37.62 in a cluster (4096 x 65536), 36.16 at one warp a row of
        // 4 chunks (65536 x 1024) and 37.29 of 3 (65536 x 768). FUSIONLAB_ROW_REDUCTION=every_warp (v8's form)
        // keeps v7's counts above (39.84 and 40.65 measured in the same call at 16384 and 65536).
        if (name == "fused_chain") {
            const bool leader = row_reduction_leader();
            const double per_element = seq > 1                  ? (p.dtype == DType::f32 ? 47.0 : 41.25)
                                       : p.dtype == DType::f32    ? 48.0
                                       : !leader                 ? (config.ctas_per_row > 1 ? 41.0 : tpr >= 512 ? 40.0 : 38.5)
                                       : config.ctas_per_row > 1 ? 37.6
                                       : tpr > 32               ? 36.9
                                       : config.chunks_per_thread == 3 ? 37.3
                                                                       : 36.2;
            compute.instructions = per_element * static_cast<double>(g.elements);
        }
        s.events.push_back(compute);
        s.events.push_back({EventKind::store, k, output, g.elements * z.es, 0, g.blocks,
                            "store " + output + what + g.suffix});
    }
}

// A flat kernel: block b owns elements [b*E, (b+1)*E) of the flattened rows x hidden tensor; the
// last block takes the ragged tail. `vector_input` (bias) is indexed by element % hidden.
void add_flat_kernel(Schedule& s, const ElementwiseParams& p, const std::string& name, const std::vector<std::string>& inputs,
                     const std::string& vector_input, double flops_per_element, const std::string& compute_what,
                     const std::string& output) {
    const Sizes z = sizes(p);
    const LaunchShape shape = flat_kernel_shape(p);
    const uint64_t per_block = static_cast<uint64_t>(shape.elements_per_block);
    const uint64_t full = z.n / per_block, tail = z.n % per_block;
    const int k = static_cast<int>(s.kernels.size());
    s.kernels.push_back({name, shape.blocks, shape.threads});
    if (!vector_input.empty())
        s.events.push_back({EventKind::load, k, vector_input, z.hidden * z.es, 0, 1,
                            "load " + vector_input + " into registers (HBM once; later blocks hit L2)"});
    // The other flat kernels: no count, priced by their bytes.
    const double instructions_per_element = name == "fused_bias_gelu" ? fused_bias_gelu_instructions_per_element(p.dtype) : 0.0;
    auto block = [&](uint64_t elements, uint64_t repeat, const char* suffix) {
        if (repeat == 0 || elements == 0) return;
        for (const std::string& in : inputs)
            s.events.push_back({EventKind::load, k, in, elements * z.es, 0, repeat,
                                "load " + in + " tile into registers" + suffix});
        TileEvent compute{EventKind::compute, k, "", 0, flops_per_element * static_cast<double>(elements), repeat,
                          compute_what + suffix};
        compute.instructions = instructions_per_element * static_cast<double>(elements);
        s.events.push_back(compute);
        s.events.push_back({EventKind::store, k, output, elements * z.es, 0, repeat,
                            "store " + output + " tile" + suffix});
    };
    block(per_block, full, "");
    block(tail, 1, " (ragged tail block)");
}

}  // namespace

Variant variant_of(const ElementwiseParams& p, const std::string& name) {
    const char* workload = p.chain ? "chain" : "bias_gelu";
    if (has_variant(workload, name))
        if (const std::optional<Variant> v = find_named<Variant>(kVariantNames, name)) return *v;
    throw std::invalid_argument(unknown_variant_message(workload, name));
}

Schedule chain_schedule(const std::string& variant, const ElementwiseParams& p) {
    const Variant v = variant_of(p, variant);
    Schedule s;
    if (v == Variant::unfused) {
        add_row_kernel(s, p, "layernorm", {"x"}, {"gamma", "beta"}, kLayerNormFlops,
                       "compute mean, rstd; normalise, scale by gamma, shift by beta", "h1");
        add_flat_kernel(s, p, "gelu", {"h1"}, "", kGeluFlops, "compute GELU", "h2");
        add_flat_kernel(s, p, "dropout", {"h2"}, "", kDropoutFlops, "compute Philox mask, drop and rescale", "h3");
        add_flat_kernel(s, p, "add", {"h3", "residual"}, "", kAddFlops, "compute h3 + residual", "out");
    } else {
        const bool spill = v == Variant::fused_spill;
        add_row_kernel(s, p, spill ? "fused_chain_spill" : "fused_chain", {"x", "residual"}, {"gamma", "beta"},
                       kLayerNormFlops + kGeluFlops + kDropoutFlops + kAddFlops,
                       spill ? "compute LayerNorm, GELU, dropout, + residual (registers and local memory)"
                             : "compute LayerNorm, GELU, dropout, + residual in registers",
                       "out");
    }
    return s;
}

Schedule bias_gelu_schedule(const std::string& variant, const ElementwiseParams& p) {
    const Variant v = variant_of(p, variant);
    Schedule s;
    if (v == Variant::unfused) {
        add_flat_kernel(s, p, "bias_add", {"x"}, "bias", kBiasAddFlops, "compute x + bias", "h");
        add_flat_kernel(s, p, "gelu", {"h"}, "", kGeluFlops, "compute GELU", "out");
    } else {
        add_flat_kernel(s, p, "fused_bias_gelu", {"x"}, "bias", kBiasAddFlops + kGeluFlops, "compute GELU(x + bias)",
                        "out");
    }
    return s;
}

double chain_flops(const std::string& kernel, const ElementwiseParams& p) {
    const double n = static_cast<double>(p.rows) * static_cast<double>(p.hidden);
    if (kernel == "layernorm") return kLayerNormFlops * n;
    if (kernel == "gelu") return kGeluFlops * n;
    if (kernel == "dropout") return kDropoutFlops * n;
    if (kernel == "add") return kAddFlops * n;
    if (kernel == "fused_chain" || kernel == "fused_chain_spill")
        return (kLayerNormFlops + kGeluFlops + kDropoutFlops + kAddFlops) * n;
    throw std::invalid_argument("chain has no kernel named '" + kernel + "'");
}

}  // namespace kernels::elementwise
