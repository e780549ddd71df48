#include "app/core/views.h"

namespace app {

const std::vector<ViewInfo>& views() {
    static const std::vector<ViewInfo> table = {
        {"results", "Measurements", "Results", "time, bytes and FLOPs of each variant: charts and the results table"},
        {"memory", "Memory animation", "Memory", "the tile schedule played over HBM, L2 and the SMs' shared memory"},
        {"timeline", "Timeline", "Timeline", "every kernel of one run on the GPU clock: the gaps between kernels are launch overhead"},
        {"roofline", "Roofline", "Roofline", "each variant at (arithmetic intensity, achieved FLOP/s) under the memory and compute roofs"},
        {"sweep", "Sweep", "Sweep", "time and bytes of every variant against a size parameter, on log axes"},
    };
    return table;
}

const ViewInfo* find_view(const std::string& id) {
    for (const ViewInfo& v : views())
        if (id == v.id) return &v;
    return nullptr;
}

std::string view_ids_text() {
    std::string text;
    for (const ViewInfo& v : views()) text += (text.empty() ? "" : ", ") + std::string(v.id);
    return text;
}

const std::vector<ChartInfo>& charts() {
    static const std::vector<ChartInfo> table = {
        {"time", "results", "time chart"},         {"bytes", "results", "bytes chart"},
        {"roofline", "roofline", "roofline"},      {"timeline", "timeline", "timeline"},
        {"sweep", "sweep", "sweep's time chart"}, {"sweep_bytes", "sweep", "sweep's bytes chart"},
    };
    return table;
}

const ChartInfo* find_chart(const std::string& id) {
    for (const ChartInfo& c : charts())
        if (id == c.id) return &c;
    return nullptr;
}

std::string chart_ids_text() {
    std::string text;
    const std::vector<ChartInfo>& all = charts();
    for (size_t i = 0; i < all.size(); ++i)
        text += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + std::string(all[i].id);
    return text;
}

}  // namespace app
