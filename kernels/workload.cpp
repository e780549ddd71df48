// Workload registry: parameters, variants, and dispatch of schedule() to each workload's model.
#include "kernels/workload.h"

#include "kernels/elementwise/elementwise.h"

#include <cmath>
#include <cstdio>
#include <algorithm>

namespace kernels {

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------
// rows*hidden is capped so the unfused chain's six tensors fit a classroom GPU at fp32 and the
// CPU reference stays interactive when it checks sampled rows.
static constexpr double kMaxElements = 1073741824.0;  // 2^30

static const ParamSpec kRows{ParamId::rows, "rows", "rows (tokens)", 1, 1048576, true, true,
    "Rows of the activation matrix: tokens = batch x sequence length.\n"
    "Every kernel's bytes grow linearly with rows x hidden."};
static const ParamSpec kHidden{ParamId::hidden, "hidden", "hidden size", 1, 16384, true, true,
    "Features per row (model width). LayerNorm normalises across one row, so a fused kernel\n"
    "keeps a whole row on chip: hidden x 4 bytes of registers per row."};
static const ParamSpec kDropout{ParamId::dropout_p, "dropout", "dropout p", 0, 0.99, false, false,
    "Probability of zeroing an element; kept elements are scaled by 1/(1-p).\n"
    "The mask is Philox(seed, index), regenerated in each kernel, never stored."};
static const ParamSpec kSeed{ParamId::seed, "seed", "seed", 0, 9007199254740991.0, true, false,
    "Seeds the random inputs and the dropout mask. Same seed, same numbers, on GPU and CPU."};

const std::vector<ParamSpec>& param_specs(Workload w) {
    static const std::vector<ParamSpec> chain{kRows, kHidden, kDropout, kSeed};
    static const std::vector<ParamSpec> bias_gelu{kRows, kHidden, kSeed};
    return w == Workload::chain ? chain : bias_gelu;
}

double get_param(const Params& p, ParamId id) {
    switch (id) {
    case ParamId::rows: return static_cast<double>(p.rows);
    case ParamId::hidden: return static_cast<double>(p.hidden);
    case ParamId::dropout_p: return p.dropout_p;
    case ParamId::seed: return static_cast<double>(p.seed);
    }
    return 0;
}

void set_param(Params& p, ParamId id, double value) {
    switch (id) {
    case ParamId::rows: p.rows = static_cast<int64_t>(std::llround(value)); break;
    case ParamId::hidden: p.hidden = static_cast<int64_t>(std::llround(value)); break;
    case ParamId::dropout_p: p.dropout_p = value; break;
    case ParamId::seed: p.seed = static_cast<uint64_t>(std::llround(value < 0 ? 0 : value)); break;
    }
}

static std::string number(double v) {
    char buf[48];
    if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string validate(const Params& p) {
    for (const ParamSpec& s : param_specs(p.workload)) {
        const double v = get_param(p, s.id);
        if (!std::isfinite(v) || v < s.min || v > s.max)
            return std::string(s.name) + " = " + number(v) + " is out of range: it must be between " +
                   number(s.min) + " and " + number(s.max);
    }
    const double elements = static_cast<double>(p.rows) * static_cast<double>(p.hidden);
    if (elements > kMaxElements)
        return "rows x hidden = " + number(elements) + " elements is too large: at most " + number(kMaxElements) +
               " (2^30)";
    return "";
}

// ---------------------------------------------------------------------------------------------
// Variants
// ---------------------------------------------------------------------------------------------
const std::vector<VariantInfo>& variants(Workload w) {
    static const std::vector<VariantInfo> chain{
        {"unfused", "4 kernels: LayerNorm, GELU, Dropout, Add. Each reads its input from HBM and writes its output "
                    "back: three intermediate tensors make the round trip.",
         4},
        {"fused", "1 kernel: each row is loaded once, normalised, activated, dropped out and added to the residual "
                  "in registers, then stored once.",
         1}};
    static const std::vector<VariantInfo> bias_gelu{
        {"unfused", "2 kernels: bias add writes h = x + bias to HBM, GELU reads it back.", 2},
        {"fused", "1 kernel: x + bias and GELU in registers; h never reaches HBM.", 1}};
    return w == Workload::chain ? chain : bias_gelu;
}

bool has_variant(Workload w, const std::string& variant) {
    for (const VariantInfo& v : variants(w))
        if (v.name == variant) return true;
    return false;
}

// ---------------------------------------------------------------------------------------------
// Schedule and model
// ---------------------------------------------------------------------------------------------
Schedule schedule(const std::string& variant, const Params& p) {
    switch (p.workload) {
    case Workload::chain: return elementwise::chain_schedule(variant, p);
    case Workload::bias_gelu: return elementwise::bias_gelu_schedule(variant, p);
    }
    return {};
}

uint64_t KernelModel::bytes_read() const {
    uint64_t b = 0;
    for (const BufferTraffic& t : buffers) b += t.bytes_read;
    return b;
}

uint64_t KernelModel::bytes_written() const {
    uint64_t b = 0;
    for (const BufferTraffic& t : buffers) b += t.bytes_written;
    return b;
}

double Model::flops() const {
    double f = 0;
    for (const KernelModel& k : kernels) f += k.flops;
    return f;
}

uint64_t Model::bytes_read() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.bytes_read();
    return b;
}

uint64_t Model::bytes_written() const {
    uint64_t b = 0;
    for (const KernelModel& k : kernels) b += k.bytes_written();
    return b;
}

Model model_from_schedule(const Schedule& s) {
    Model m;
    for (const ScheduleKernel& k : s.kernels) m.kernels.push_back({k.name, 0, {}});
    for (const TileEvent& e : s.events) {
        KernelModel& k = m.kernels.at(static_cast<size_t>(e.kernel));
        k.flops += e.flops * static_cast<double>(e.repeat);
        if (e.kind == EventKind::compute) continue;
        auto it = std::find_if(k.buffers.begin(), k.buffers.end(),
                               [&](const BufferTraffic& b) { return b.buffer == e.buffer; });
        if (it == k.buffers.end()) it = k.buffers.insert(k.buffers.end(), BufferTraffic{e.buffer, 0, 0});
        (e.kind == EventKind::load ? it->bytes_read : it->bytes_written) += e.bytes * e.repeat;
    }
    return m;
}

Model model(const std::string& variant, const Params& p) { return model_from_schedule(schedule(variant, p)); }

uint64_t min_bytes(const Params& p) {
    const uint64_t es = static_cast<uint64_t>(dtype_bytes(p.dtype));
    const uint64_t n = static_cast<uint64_t>(p.rows) * static_cast<uint64_t>(p.hidden);
    const uint64_t h = static_cast<uint64_t>(p.hidden);
    switch (p.workload) {
    case Workload::chain: return (2 * n + 2 * h + n) * es;   // read x, residual, gamma, beta; write out
    case Workload::bias_gelu: return (n + h + n) * es;       // read x, bias; write out
    }
    return 0;
}

}  // namespace kernels
