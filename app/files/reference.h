// Reference rows: what a user would run instead of fusionlab's kernels (PyTorch eager,
// torch.compile, SDPA flash / cuDNN / memory-efficient, a CUDA graph), timed on a GPU by
// scripts/torch_reference.py at fusionlab's parameters and read back from its JSON file
// (`--reference FILE`). They are shown beside fusionlab's own measurements in their own style,
// labelled with their framework, device and date, and never enter fusionlab's ratios, "fastest"
// or takeaway.
//
// The file: {"tool": "fusionlab-reference", "format": 1, "command": ..., "rows": [ROW, ...]}, each
// ROW {label, framework, framework_version, impl, device, driver, date (UTC, ISO 8601), command,
// workload, params {name: value, with fusionlab's ParamSpec names}, dtype, time {median_ms, min_ms,
// max_ms, reps} or error (why that implementation could not run), note, warmup, ...}. A row lists
// only the parameters that define its computation (no tile sizes, no seed): it matches every
// parameter set that agrees with them.
#pragma once

#include "kernels/core/types.h"

#include <string>
#include <utility>
#include <vector>

namespace app {

struct ReferenceRow {
    std::string label;              // "PyTorch 2.11 eager"
    std::string framework;          // "PyTorch"
    std::string framework_version;  // "2.11.0+cu130"
    std::string impl;               // eager | compile | sdpa_flash | sdpa_cudnn | sdpa_mem_efficient | cuda_graph
    std::string device;             // "NVIDIA H100 80GB HBM3"
    std::string driver;
    std::string date;               // "2026-11-25T09:51:17Z"
    std::string command;
    std::string workload;
    std::vector<std::pair<std::string, double>> params;  // only those the row names
    kernels::DType dtype = kernels::DType::bf16;
    bool has_time = false;          // false: `error` says why there is no time
    kernels::TimeStats time;
    int warmup = 0;
    std::string note;               // what ran: "F.layer_norm, F.gelu, ...: 4 ops"
    std::string error;
};

struct ReferenceFile {
    std::string path;
    std::vector<ReferenceRow> rows;
    // Rows of workloads this build does not have (a newer script): counted, not shown.
    size_t skipped_rows = 0;
    std::string skipped_workloads;  // "ffn"
};

// Parses a reference file's text. Returns "" and fills `out`, or a message naming the JSON path of
// the first malformed field ("$.rows[3].time.median_ms: expected a number"); `out` is left empty
// on error (nothing half-loaded).
std::string parse_reference_json(const std::string& text, ReferenceFile& out);
// Reads and parses a file; the message starts with the path.
std::string load_reference_json(const std::string& path, ReferenceFile& out);

// True when the row is for p's workload and dtype and every parameter it names has p's value.
bool reference_matches(const ReferenceRow& row, const kernels::Params& p);

// The rows to show beside measurements of p on `device`: against a real GPU only rows measured on
// a GPU of the same name; against a simulated GPU every matching row (each labelled with its own
// device). `why_none` (optional) gets the one-line hint when nothing is shown.
std::vector<const ReferenceRow*> reference_rows_for(const ReferenceFile& file, const kernels::Params& p,
                                                    const kernels::DeviceInfo& device, std::string* why_none = nullptr);

// The hint shown when no file was given.
inline constexpr const char* kNoReferenceHint =
    "no PyTorch reference for these parameters: run scripts/torch_reference.py on a GPU machine, then --reference FILE";

// "PyTorch eager", "torch.compile", "SDPA flash", "SDPA cuDNN", "SDPA mem-eff", "CUDA graph": the
// short name charts and the roofline print beside a bar or a marker.
std::string reference_short_label(const ReferenceRow& row);
// "PyTorch 2.11 eager, measured on NVIDIA H100 80GB HBM3, 2026-11-25"
std::string reference_caption(const ReferenceRow& row);
// What several rows share: "PyTorch 2.11.0, measured on NVIDIA H100 80GB HBM3, 2026-11-25" when they
// share framework version, device and day; else "PyTorch, several devices or dates (hover)".
std::string reference_source(const std::vector<const ReferenceRow*>& rows);
// "2026-11-25" (the date part of row.date)
std::string reference_day(const ReferenceRow& row);

// FLOPs of p as fusionlab counts them (the model of the workload's last variant that takes p: its
// fused form), for a reference row's place on the roofline; 0 when no variant models p.
double reference_flops(const kernels::Params& p);

}  // namespace app
