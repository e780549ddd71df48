// The three levels of the memory hierarchy that fusionlab counts bytes at, and the one word each
// goes by everywhere: panels, tables, charts, exports (CSV / JSON headers), lessons.
//   DRAM     DRAM <-> L2 traffic: what the GPU's hardware counters measure. On the GPUs fusionlab
//            targets the DRAM is HBM; the word stays "DRAM" so a table, a chart and a lesson that
//            count the same bytes name them the same way.
//   L2→SM    what the kernels' loads and stores request from L2 (ASCII "L2->SM" where a file
//            format or a terminal needs plain bytes).
//   on chip  shared memory, registers and register spills: the traffic inside an SM.
// Only words live here: which bytes belong to which level is the model's business
// (kernels/core/schedule.h). No dependencies, so any layer may include it.
#pragma once

namespace kernels {

// TrafficLevel, not Level: kernels/core/schedule.h's Level says where a tile event's bytes move
// (l2, shared, local), a finer split of the same hierarchy.
enum class TrafficLevel { dram, l2_sm, on_chip };

inline constexpr TrafficLevel kTrafficLevels[] = {TrafficLevel::dram, TrafficLevel::l2_sm, TrafficLevel::on_chip};

// The level's word as the GUI and SVG exports print it (UTF-8): "DRAM", "L2→SM", "on chip".
constexpr const char* level_name(TrafficLevel level) {
    switch (level) {
        case TrafficLevel::dram: return "DRAM";
        case TrafficLevel::l2_sm: return "L2\xE2\x86\x92SM";
        case TrafficLevel::on_chip: return "on chip";
    }
    return "?";
}

// The same word in ASCII, for CSV headers, the terminal tables and other plain-text formats:
// "DRAM", "L2->SM", "on chip".
constexpr const char* level_ascii_name(TrafficLevel level) {
    switch (level) {
        case TrafficLevel::dram: return "DRAM";
        case TrafficLevel::l2_sm: return "L2->SM";
        case TrafficLevel::on_chip: return "on chip";
    }
    return "?";
}

// One line on what the level counts, for tooltips and glossaries.
constexpr const char* level_meaning(TrafficLevel level) {
    switch (level) {
        case TrafficLevel::dram:
            return "DRAM <-> L2 traffic: what the GPU's hardware counters measure (on these GPUs the DRAM is HBM)";
        case TrafficLevel::l2_sm: return "what the kernels' loads and stores request from L2";
        case TrafficLevel::on_chip: return "shared memory, registers and register spills: the traffic inside an SM";
    }
    return "";
}

}  // namespace kernels
