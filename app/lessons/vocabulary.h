// The lesson vocabulary: traffic levels, the highlight ids a step may point at, and the names of
// the live expressions with their arguments (for checking, messages and the README).
#pragma once

#include <string>
#include <vector>

namespace app {

// Traffic levels (TEAM.md's level words): DRAM (DRAM <-> L2, what the counters measure; HBM on
// these GPUs), L2->SM (what the kernels' loads and stores ask for), on chip (shared memory,
// registers, spills). Each byte expression names one; each highlight id shows a set of them.
enum class Level { none = 0, dram = 1, l2sm = 2, onchip = 4 };
const char* level_word(Level l);  // "DRAM", "L2\u2192SM", "on chip", ""
// The levels as bits, for sets of them.
inline constexpr int kDram = static_cast<int>(Level::dram);
inline constexpr int kL2sm = static_cast<int>(Level::l2sm);
inline constexpr int kOnchip = static_cast<int>(Level::onchip);
// A set of levels in words: "DRAM and L2→SM", "no bytes".
std::string levels_text(int levels);

// Known highlight ids ("results.time_chart", "memory.sram", ...), the view each lives in and the
// levels its numbers are at (a bit set of Level; 0: no bytes shown, e.g. the time chart).
struct HighlightInfo {
    const char* id;
    const char* view;
    const char* what;
    int levels;
};
const std::vector<HighlightInfo>& highlight_ids();
const HighlightInfo* find_highlight(const std::string& id);

// The expression vocabulary: name, argument words, meaning (for messages and the README).
struct ExprInfo {
    const char* func;
    const char* args;   // "VARIANT", "A B", "" ...
    const char* what;
};
const std::vector<ExprInfo>& expr_vocabulary();
const ExprInfo* find_expr(const std::string& func);
// Expression names of earlier builds that did not say which level they count: the one to use, or nullptr.
const char* renamed_expr(const std::string& func);
// How many argument words `e` takes (ratio: 3; if: 0, checked on its own).
size_t expected_args(const ExprInfo& e);
// Every expression name, comma-separated (for messages).
std::string func_names();

}  // namespace app
