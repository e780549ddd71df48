// The driver of the CPU emulations (kernels/sim/emulate.h): estimate, run row by row with the
// float64 reference (shared by the variants of one parameter set), sum the errors as the GPU check
// does, and the simulated backend's use of it. Names no workload: each brings its RowCheck through
// WorkloadDef::emulate.
#include "kernels/sim/emulate.h"

#include "kernels/core/registry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>
#include <utility>

namespace kernels {

namespace {

std::string seconds_text(double s) {
    char text[32];
    std::snprintf(text, sizeof text, s < 0.095 ? "%.2f s" : "%.1f s", s);
    return text;
}

// The reference rows of the latest parameter sets, by key (a few: the live loop asks for one
// parameter set at a time, a lesson step for two variants of it).
struct SharedReferences {
    std::mutex mutex;
    std::deque<std::pair<std::string, std::shared_ptr<const std::vector<double>>>> entries;
    static constexpr size_t kKeep = 3;

    std::shared_ptr<const std::vector<double>> find(const std::string& key) {
        std::lock_guard<std::mutex> lock(mutex);
        for (const auto& [k, rows] : entries)
            if (k == key) return rows;
        return nullptr;
    }
    void keep(const std::string& key, std::shared_ptr<const std::vector<double>> rows) {
        std::lock_guard<std::mutex> lock(mutex);
        std::erase_if(entries, [&](const auto& e) { return e.first == key; });
        entries.emplace_front(key, std::move(rows));
        while (entries.size() > kKeep) entries.pop_back();
    }
};

SharedReferences& shared_references() {
    static SharedReferences refs;
    return refs;
}

}  // namespace

bool shared_reference_ready(const std::string& key) {
    return !key.empty() && shared_references().find(key) != nullptr;
}

std::string sampled_text(int64_t rows, int64_t all_rows, const std::string& unit) {
    if (rows == all_rows) return "all " + std::to_string(rows) + " " + unit;
    return std::to_string(rows) + " sampled " + unit;
}

EmulatedCheck run_row_check(const RowCheck& c, const EmulationBudget& b) {
    using clock = std::chrono::steady_clock;
    EmulatedCheck r;
    r.rows = c.rows;
    r.all_rows = c.all_rows;
    r.unit = c.what.substr(0, c.what.find(' '));
    std::shared_ptr<const std::vector<double>> shared =
        c.reference_key.empty() ? nullptr : shared_references().find(c.reference_key);
    const size_t width = static_cast<size_t>(c.width);
    const size_t values = static_cast<size_t>(c.rows) * width;
    if (shared && shared->size() != values) shared = nullptr;  // another sample under the same key: recompute
    r.estimated_s = c.setup_s + (shared ? 0.0 : c.reference_s) + c.emulation_s;
    if (r.estimated_s > b.max_seconds) {
        r.why_not = "not emulated: ~" + seconds_text(r.estimated_s) + " on the CPU at this size (" +
                    sampled_text(c.rows, c.all_rows, r.unit) +
                    "; the limit is " + seconds_text(b.max_seconds) + ")";
        return r;
    }
    const clock::time_point start = clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
    auto stopped = [&](int64_t done) -> bool {
        if (b.cancelled && b.cancelled()) {
            r.why_not = "not emulated: cancelled (the parameters changed)";
            return true;
        }
        if (elapsed() > kEmulationOverrun * b.max_seconds) {
            const double per_row = elapsed() / static_cast<double>(std::max<int64_t>(done, 1));
            r.why_not = "not emulated: stopped after " + seconds_text(elapsed()) + ", ~" +
                        seconds_text(per_row * static_cast<double>(c.rows)) + " needed on this CPU (estimated " +
                        seconds_text(r.estimated_s) + ")";
            return true;
        }
        return false;
    };
    if (c.setup) c.setup();
    auto computed = shared ? nullptr : std::make_shared<std::vector<double>>(values);
    std::vector<float> got(width);
    ErrorSum errors;
    for (int64_t i = 0; i < c.rows; ++i) {
        if (stopped(i)) return r;
        double* want = shared ? nullptr : computed->data() + static_cast<size_t>(i) * width;
        if (want) c.reference(i, want);
        c.emulate(i, got.data());
        errors.add(got.data(), shared ? shared->data() + static_cast<size_t>(i) * width : want, width);
    }
    if (computed && !c.reference_key.empty()) shared_references().keep(c.reference_key, computed);
    r.computed = true;
    r.seconds = elapsed();
    r.max_abs = errors.max_abs;
    r.rel_l2 = errors.rel_l2();
    r.elements = static_cast<int64_t>(values);
    r.note = (c.rows == c.all_rows ? "all " + std::to_string(c.rows) + " " + c.what
                                   : std::to_string(c.rows) + " of " + std::to_string(c.all_rows) + " " + c.what +
                                         (c.how.empty() ? "" : " (" + c.how + ")")) +
             " vs " + c.versus + "; " + seconds_text(r.seconds) + " on the CPU";
    return r;
}

EmulatedCheck emulate_check(const Job& job, const std::function<bool()>& cancelled, double max_seconds) {
    EmulatedCheck r;
    if (!job.emulate) {
        r.why_not = "not emulated: the job did not ask for the CPU arithmetic (a sweep shows no errors)";
        return r;
    }
    try {
        const WorkloadDef& def = workload_def(job.params);
        if (!def.emulate) {
            r.why_not = "not emulated: " + def.name + " has no CPU emulation";
            return r;
        }
        // The GPU check's rows for this job; when they would take too long, its quick pass's rows.
        // Every variant of the workload decides (the costliest one's estimate), so the variants
        // shown side by side are compared on the same rows, as the GPU check compares them.
        std::vector<CheckBudget> budgets{check_budget(job.quick)};
        if (!job.quick) budgets.push_back(kQuickCheck);
        for (size_t i = 0; i < budgets.size(); ++i) {
            double costliest = 0;
            for (const VariantInfo& v : def.variants)  // estimates only: a limit of 0 runs nothing
                costliest = std::max(costliest, def.emulate(v.name, job.params, EmulationBudget{budgets[i], 0.0, {}}).estimated_s);
            if (costliest > max_seconds && i + 1 < budgets.size()) continue;
            return def.emulate(job.variant, job.params, EmulationBudget{budgets[i], max_seconds, cancelled});
        }
    } catch (const std::exception& e) {
        r = EmulatedCheck{};
        r.why_not = std::string("not emulated: ") + e.what();
    }
    return r;
}

void record_emulated_check(const EmulatedCheck& e, DType dtype, Measurement& m) {
    if (!e.computed) {
        m.checked = false;
        m.check_note = e.why_not.empty() ? "not emulated" : e.why_not;
        return;
    }
    m.checked = true;
    m.max_abs_error = e.max_abs;
    m.rel_l2_error = e.rel_l2;
    m.checked_elements = e.elements;
    m.check_note = std::string("computed on the CPU (emulated ") + to_string(dtype) + " arithmetic, " +
                   sampled_text(e.rows, e.all_rows, e.unit) + "): " + e.note;
}

namespace emu {

float gemm_dot(DType t, const float* a, const float* b, int64_t K, int64_t stride) {
    float acc = 0.0f;
    if (t == DType::f32) {
        for (int64_t k = 0; k < K; ++k) acc = fma32(a[k], b[k * stride], acc);
        return acc;
    }
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
        double step = 0;
        for (int64_t k = k0; k < std::min<int64_t>(K, k0 + 16); ++k)
            step += static_cast<double>(a[k]) * static_cast<double>(b[k * stride]);
        acc = mma_step(acc, step);
    }
    return acc;
}

void gemm_row(DType t, const float* a, const float* B, int64_t K, int64_t N, float* out) {
    std::fill(out, out + N, 0.0f);
    if (t == DType::f32) {
        for (int64_t k = 0; k < K; ++k)
            for (int64_t n = 0; n < N; ++n) out[n] = fma32(a[k], B[k * N + n], out[n]);
        return;
    }
    std::vector<double> step(static_cast<size_t>(N));
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
        std::fill(step.begin(), step.end(), 0.0);
        for (int64_t k = k0; k < std::min<int64_t>(K, k0 + 16); ++k) {
            const double ak = a[k];
            const float* b = B + k * N;
            for (int64_t n = 0; n < N; ++n) step[static_cast<size_t>(n)] += ak * static_cast<double>(b[n]);
        }
        for (int64_t n = 0; n < N; ++n) out[n] = mma_step(out[n], step[static_cast<size_t>(n)]);
    }
}

float butterfly_sum(const float* lanes32) {
    float v[32];
    std::copy(lanes32, lanes32 + 32, v);
    for (int offset = 16; offset > 0; offset >>= 1) {
        float next[32];
        for (int lane = 0; lane < 32; ++lane) next[lane] = v[lane] + v[lane ^ offset];
        std::copy(next, next + 32, v);
    }
    return v[0];
}

}  // namespace emu

}  // namespace kernels
