// What sets a kernel's or a run's time in the simulator's pricing (kernels/sim/sim_backend.cpp,
// price_kernel and price_run): one resource, as a value, with one table of its words. The pricing,
// the results table, the held-out comparison and the lessons' verdicts read the value; the words
// appear only where text leaves or enters the program: the limiter line of a result ("bound by
// <name>: ..."), exports, recordings and the lessons' {model.limiter V}. A file written by an older
// build is read back with limiter_of_text. No dependencies, so any layer may include it.
#pragma once

#include <string>

namespace kernels {

enum class Limiter {
    unknown,         // not priced (a measurement without a model), or a word this build does not know
    dram,            // DRAM bandwidth
    l2,              // L2 <-> SM bandwidth
    shared,          // shared-memory wavefronts (and spills through L1)
    tensor_and_exp2, // tensor-core products with exp2 between them on the same warps, in turn
    tensor,          // tensor-core MMA issue
    fp32,            // FP32 FMA issue
    sfu,             // exp2 on the special-function units
    issue,           // thread instruction issue
    occupancy,       // too few warps per SM to hide the latency of the slowest resource
    memory_latency,  // dependent trips to memory, a library kernel's
    block_latency,   // each block's own trips to memory and serial steps
    launch,          // kernel launches and the gaps between them
    graph_replay,    // a replayed graph's launch and per-node cost
};

inline constexpr Limiter kLimiters[] = {
    Limiter::dram,  Limiter::l2,        Limiter::shared,         Limiter::tensor_and_exp2, Limiter::tensor,
    Limiter::fp32,  Limiter::sfu,       Limiter::issue,          Limiter::occupancy,       Limiter::memory_latency,
    Limiter::block_latency, Limiter::launch, Limiter::graph_replay,
};

// The resource as a result's limiter line names it: "bound by " + limiter_name(l) + ": ...".
// These words are in recordings and exports: change one and limiter_of_text must still read the old.
constexpr const char* limiter_name(Limiter l) {
    switch (l) {
        case Limiter::unknown: return "";
        case Limiter::dram: return "DRAM bandwidth";
        case Limiter::l2: return "L2 bandwidth";
        case Limiter::shared: return "shared-memory bandwidth";
        case Limiter::tensor_and_exp2: return "tensor-core MMA and exp2 in turn";
        case Limiter::tensor: return "tensor-core MMA issue";
        case Limiter::fp32: return "FP32 FMA issue";
        case Limiter::sfu: return "SFU (exp2) issue";
        case Limiter::issue: return "instruction issue";
        case Limiter::occupancy: return "occupancy (too few warps to hide latency)";
        case Limiter::memory_latency: return "memory latency";
        case Limiter::block_latency: return "latency (each block's serial steps)";
        case Limiter::launch: return "launch cost";
        case Limiter::graph_replay: return "graph-replay cost";
    }
    return "";
}

// The resource in a few words, for a table cell: "DRAM", "shared memory", "occupancy", "launches".
constexpr const char* limiter_word(Limiter l) {
    switch (l) {
        case Limiter::unknown: return "?";
        case Limiter::dram: return "DRAM";
        case Limiter::l2: return "L2";
        case Limiter::shared: return "shared memory";
        case Limiter::tensor_and_exp2: return "MMA + exp2";
        case Limiter::tensor: return "tensor cores";
        case Limiter::fp32: return "FP32 FMA";
        case Limiter::sfu: return "SFU (exp2)";
        case Limiter::issue: return "issue";
        case Limiter::occupancy: return "occupancy";
        case Limiter::memory_latency: return "latency";
        case Limiter::block_latency: return "block latency";
        case Limiter::launch: return "launches";
        case Limiter::graph_replay: return "graph replay";
    }
    return "?";
}

// The edge that reads text back (an export, a results file): the resource of a limiter line
// ("bound by <name>: ...") or of a bare name; Limiter::unknown when it names none.
inline Limiter limiter_of_text(const std::string& text) {
    const std::string resource = text.rfind("bound by ", 0) == 0 ? text.substr(9) : text;
    for (const Limiter l : kLimiters)
        if (resource.rfind(limiter_name(l), 0) == 0) return l;
    return Limiter::unknown;
}

}  // namespace kernels
