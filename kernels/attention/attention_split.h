// flash_wgmma's split of the last round's work items by keys (attention_wgmma.cu, v15), and the
// check of flash_wgmma's comparison switches (FUSIONLAB_FLASH_WGMMA_*): one plan for the kernel's
// launcher, the GPU tests and the model. A header of its own so that adding to it rebuilds only the
// files that use it (attention.h is included by most of the app).
//
// Why a split: on the persistent grid (one block per SM slot, attention_wgmma.cu v5) every
// non-causal work item (row block i of a head) costs the same, so a launch of `items` items on G
// blocks takes ceil(items / G) item times for items / G of work; the last round's `tail` items
// leave G - tail blocks idle for a whole item (16 heads, d = 64, 192 x 128 on 132 SMs: N = 4096 is
// 352 items, 2.67 rounds in 3; N = 8192 688 items, 5.21 in 6; kernels/PERF.md). Cutting each of
// the tail items into `parts` ranges of key tiles (Flash-Decoding's split, done for the last round
// only) lets those ranges run on the idle blocks; each part writes its unnormalised Oi, m and l in
// fp32, and the last part of an item to finish merges them (decode.cu's split_kv_fused does the
// same for decode).
#pragma once

#include "kernels/attention/attention.h"

#include <cstdint>
#include <string>

namespace kernels::attention {

// What FUSIONLAB_FLASH_WGMMA_SPLIT asks for: unset or "auto" (the plan below decides), "off" (never
// split), or a part count 2..kWgmmaMaxSplitParts (the last round's items are cut into that many key
// ranges wherever the kernel can run it; refused with the reason where it cannot).
inline constexpr int kWgmmaMaxSplitParts = 16;

struct WgmmaSplitPlan {
    int64_t items = 0;        // work items: ceil(N / Br) row blocks x batch_heads
    int64_t blocks = 0;       // the persistent grid's blocks (SM slots), as the launcher found them
    int64_t key_tiles = 0;    // Tc = ceil(N / Bc): what a part takes a range of
    int64_t tail = 0;         // the last round's items: items - (rounds - 1) x blocks, 1..blocks
    int64_t first_split = 0;  // items before it run whole, the rest are split (== items: none split)
    int parts = 1;            // key ranges a split item is cut into (1: nothing split)
    bool forced = false;      // FUSIONLAB_FLASH_WGMMA_SPLIT gave the part count
    // The schedule's estimate of the launch, in key-tile times of one block: whole items only, and with the plan.
    double whole_tiles = 0, split_tiles = 0;
    std::string why;  // the numbers behind the choice, one line
    std::string refused;  // non-empty: FUSIONLAB_FLASH_WGMMA_SPLIT asks for what cannot run here (the reason)

    int64_t split_items() const { return items - first_split; }
    // Positions a persistent block claims: the whole items, then every part of the split items.
    int64_t positions() const { return first_split + split_items() * parts; }
};

// The per-item and per-part costs the plan adds to the key tiles, in key-tile times: an item's fixed
// part (its first Sij alone and its last Pij Vj alone, the store of Oi), and a part's merge (its partial
// Oi, m, l written in fp32, and the last part's read of the others'). Estimates from the kernel's
// structure, not fitted: kernels/PERF.md ("v15") holds the measurement against them.
inline constexpr double kWgmmaItemFixedTiles = 1.0;
inline constexpr double kWgmmaSplitMergeTiles = 1.0;
// The least gain (share of the whole-item estimate) for which `auto` splits.
inline constexpr double kWgmmaSplitMinGain = 0.03;

// Tiles whose kernel has the split built: not three consumer warpgroups at d = 128 (192 x 64, 192 x 80), whose
// consumers hold Oi's 64 registers beside Sij and Pij in 160: with the merge's loops in the kernel ptxas spilled
// 8-40 bytes a thread there (none without them), and spills cost those tiles ~5 % everywhere (round 1 of the eighth
// session, kernels/PERF.md). Their instances are compiled without it and the plan never splits them.
constexpr bool wgmma_split_built(int Br, int64_t d) { return !(Br == 192 && d == 128); }

// The plan for attention problem p on a persistent grid of `blocks` blocks (0: not persistent, the
// waves grid), with or without skip's epilogue (which is never split: its x tile arrives for a whole item).
WgmmaSplitPlan flash_wgmma_split_plan(const AttentionParams& p, int64_t blocks, bool skip_epilogue);

// "" when every FUSIONLAB_FLASH_WGMMA_* switch that is set has a value it takes; otherwise the first
// one that does not, with the values it takes (validate() refuses flash_wgmma with it: an unknown
// value, e.g. a typo, would otherwise run the default without a word).
std::string flash_wgmma_switch_problem();

}  // namespace kernels::attention
