// Prose and maths: a line's inline markup split into styled spans and live expressions, maths as
// readable Unicode, and the word checks run on prose (typed numbers, doubled words, bound words).
#pragma once

#include "app/lessons/model/lesson.h"

#include <string>
#include <vector>

namespace app {

// Numbers typed into a piece of prose text: each maximal run of letters, digits, '.', '_' that
// starts with a digit ("412", "3.5", "4k", "16x"). Names with digits (fp32, H100, L2, sm_90) start
// with a letter and are not numbers.
std::vector<std::string> typed_numbers(const std::string& text);

// Maths as readable Unicode: x^2 -> x², d_k -> dₖ, \sqrt{d} -> √d, K^T -> Kᵀ, a*b -> a·b.
// Characters without a super/subscript form keep the ^ / _ notation.
std::string render_math(const std::string& src);

// Words said twice in a row ("the the", "`flash_wgmma` flash_wgmma"), case-insensitive, in text
// that has been through the renderer: each doubled word, for the checker and the device test.
std::vector<std::string> doubled_words(const std::string& text);
// Limiter and bound words typed into prose ("memory-bound", "bound by", "issue-bound"): a claim
// that must come from the live limiter ({model.limiter V}, {model.bound V}, {if model.limiter V is
// CLASS | ...}). The phrases found.
std::vector<std::string> typed_bound_words(const std::string& text);

// Splits one source line into styled spans (bold, code, maths, live expressions). Returns "" or a
// message (an unclosed marker). Numbers typed into its plain or bold text (not code, maths, live
// expressions or {=definitions}) are added to *numbers.
std::string parse_inline(const std::string& line, int line_no, std::vector<ProseSpan>& out,
                         std::vector<std::string>* numbers);
// A live expression from the text between its braces; a verdict's texts parsed as prose. Errors
// inside a verdict's texts go to *error.
LessonExpr parse_expr_text(const std::string& inner, int line_no, std::string* error, std::vector<std::string>* numbers);

}  // namespace app
