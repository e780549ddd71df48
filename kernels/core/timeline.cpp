#include "kernels/core/timeline.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace kernels {

std::vector<KernelTime> aggregate_kernel_times(const std::vector<KernelTime>& kernels) {
    struct Group {
        KernelTime sum;
        int64_t count = 0;
    };
    std::vector<Group> groups;
    for (const KernelTime& k : kernels) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.sum.name == k.name; });
        if (it == groups.end()) {
            groups.push_back({k, 1});
            continue;
        }
        it->sum.time.median_ms += k.time.median_ms;
        it->sum.time.min_ms += k.time.min_ms;
        it->sum.time.max_ms += k.time.max_ms;
        it->sum.bytes += k.bytes;
        ++it->count;
    }
    std::vector<KernelTime> out;
    for (Group& g : groups) {
        if (g.count > 1) {
            const double n = static_cast<double>(g.count);
            g.sum.name += " x" + std::to_string(g.count);
            g.sum.time.median_ms /= n;
            g.sum.time.min_ms /= n;
            g.sum.time.max_ms /= n;
            g.sum.bytes /= static_cast<uint64_t>(g.count);
        }
        out.push_back(g.sum);
    }
    return out;
}

int64_t aggregated_count(const std::string& row_name) {
    // A whole run timed without events between its kernels: "whole run (5 kernels)".
    constexpr const char* kWholeRun = "whole run (";
    if (row_name.rfind(kWholeRun, 0) == 0) {
        char* end = nullptr;
        const long long n = std::strtoll(row_name.c_str() + std::strlen(kWholeRun), &end, 10);
        return end && std::strcmp(end, " kernels)") == 0 && n > 0 ? static_cast<int64_t>(n) : 1;
    }
    const size_t x = row_name.rfind(" x");
    if (x == std::string::npos || x + 2 >= row_name.size()) return 1;
    char* end = nullptr;
    const long long n = std::strtoll(row_name.c_str() + x + 2, &end, 10);
    return end && *end == '\0' && n > 0 ? static_cast<int64_t>(n) : 1;
}

int64_t launched_kernels(const std::vector<KernelTime>& rows) {
    int64_t n = 0;
    for (const KernelTime& k : rows) n += aggregated_count(k.name);
    return n;
}

TimelineStats timeline_stats(const std::vector<KernelSpan>& spans) {
    TimelineStats s;
    s.kernels = static_cast<int64_t>(spans.size());
    if (spans.empty()) return s;
    std::vector<KernelSpan> sorted = spans;
    std::sort(sorted.begin(), sorted.end(), [](const KernelSpan& a, const KernelSpan& b) { return a.start_ms < b.start_ms; });
    std::vector<double> gaps_us;
    double covered_to = sorted.front().start_ms;
    const double first = sorted.front().start_ms;
    double last = first;
    for (const KernelSpan& k : sorted) {
        if (&k != &sorted.front()) gaps_us.push_back(std::max(0.0, k.start_ms - covered_to) * 1e3);
        if (k.start_ms > covered_to) {
            s.max_gap_us = std::max(s.max_gap_us, (k.start_ms - covered_to) * 1e3);
            covered_to = k.start_ms;
        }
        if (k.end_ms > covered_to) {
            s.busy_ms += k.end_ms - covered_to;
            covered_to = k.end_ms;
        }
        last = std::max(last, k.end_ms);
    }
    s.span_ms = last - first;
    s.idle_ms = std::max(0.0, s.span_ms - s.busy_ms);
    s.mean_gap_us = s.kernels > 1 ? s.idle_ms * 1e3 / static_cast<double>(s.kernels - 1) : 0.0;
    if (!gaps_us.empty()) {
        std::nth_element(gaps_us.begin(), gaps_us.begin() + static_cast<std::ptrdiff_t>(gaps_us.size() / 2), gaps_us.end());
        s.median_gap_us = gaps_us[gaps_us.size() / 2];
    }
    return s;
}

std::vector<KernelSpan> modeled_timeline(const std::vector<std::string>& names, const std::vector<double>& kernel_ms,
                                         const std::vector<uint64_t>& bytes, double gap_us) {
    std::vector<KernelSpan> out;
    double t = 0;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) t += gap_us * 1e-3;
        KernelSpan k;
        k.name = names[i];
        k.start_ms = t;
        t += i < kernel_ms.size() ? kernel_ms[i] : 0.0;
        k.end_ms = t;
        k.bytes = i < bytes.size() ? bytes[i] : 0;
        out.push_back(k);
    }
    return out;
}

}  // namespace kernels
