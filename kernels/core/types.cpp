#include "kernels/core/types.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

namespace kernels {

int dtype_bytes(DType t) {
    switch (t) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    }
    return 4;
}

const char* to_string(DType t) {
    switch (t) {
    case DType::f32: return "fp32";
    case DType::f16: return "fp16";
    case DType::bf16: return "bf16";
    }
    return "?";
}

static float round_to_bf16(float v) {
    if (!std::isfinite(v)) return v;
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest, ties to even, on the 16 dropped bits
    bits &= 0xFFFF0000u;
    float r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
}

// Scaling by powers of two is exact, so rounding a / quantum to an integer (ties to even under
// the default rounding mode) rounds to the fp16 grid: 11 significant bits, subnormal step 2^-24.
static float round_to_fp16(float v) {
    if (!std::isfinite(v)) return v;
    const float a = std::fabs(v);
    if (a >= 65520.0f) return std::copysign(INFINITY, v);
    float quantum = 0x1p-24f;
    if (a >= 0x1p-14f) {
        int e = 0;
        std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
        quantum = std::ldexp(1.0f, e - 11);
    }
    return std::copysign(std::nearbyint(a / quantum) * quantum, v);
}

float round_to_dtype(float v, DType t) {
    switch (t) {
    case DType::f32: return v;
    case DType::f16: return round_to_fp16(v);
    case DType::bf16: return round_to_bf16(v);
    }
    return v;
}

static std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool parse_dtype(const std::string& s, DType& out) {
    const std::string k = lower(s);
    if (k == "fp32" || k == "f32" || k == "float" || k == "float32") { out = DType::f32; return true; }
    if (k == "fp16" || k == "f16" || k == "half" || k == "float16") { out = DType::f16; return true; }
    if (k == "bf16" || k == "bfloat16") { out = DType::bf16; return true; }
    return false;
}

const char* to_string(BackendKind b) {
    switch (b) {
    case BackendKind::gpu: return "gpu";
    case BackendKind::simulated: return "simulated";
    case BackendKind::recorded: return "recorded";
    }
    return "?";
}

bool parse_backend_kind(const std::string& s, BackendKind& out) {
    for (BackendKind b : {BackendKind::gpu, BackendKind::simulated, BackendKind::recorded})
        if (s == to_string(b)) {
            out = b;
            return true;
        }
    return false;
}

TimeStats summarize(std::vector<double> samples_ms) {
    TimeStats s;
    if (samples_ms.empty()) return s;
    std::sort(samples_ms.begin(), samples_ms.end());
    const size_t n = samples_ms.size();
    s.reps = static_cast<int>(n);
    s.min_ms = samples_ms.front();
    s.max_ms = samples_ms.back();
    s.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
    return s;
}

std::string plain_device_name(const DeviceInfo& d) {
    const std::string suffix = " (simulated)";
    const std::string& n = d.name;
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        return n.substr(0, n.size() - suffix.size());
    return n;
}

std::string Measurement::source_label() const {
    if (recorded()) return "recorded on " + device.name + ", " + recorded_date;
    if (device.simulated) return "simulated on " + plain_device_name(device);
    return "measured on " + device.name;
}

std::string Measurement::source_tag() const {
    if (recorded()) return "recorded " + recorded_date;
    return device.simulated ? "simulated" : "";
}

double Measurement::achieved_gbps() const {
    return time.median_ms > 0 ? static_cast<double>(bytes()) / (time.median_ms * 1e-3) / 1e9 : 0.0;
}

double Measurement::achieved_gflops() const {
    return time.median_ms > 0 ? flops / (time.median_ms * 1e-3) / 1e9 : 0.0;
}

}  // namespace kernels
