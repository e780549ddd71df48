// Predictions: "predict first, then look". A step poses a question before its numbers appear: a
// number (any numeric live expression: bytes at a level, a time ratio, an arithmetic intensity, a
// percentage of a ceiling), checked against the live value on the current device within the
// tolerance the lesson states, or a choice among options, the right one found by evaluating each
// option's condition live (never typed). The format is in lessons/README.md ("Predictions").
//
// [SECTION] Parsing (@predict, @option) and the checks of a finished prediction
// [SECTION] Quantities and units an answer may be typed in
// [SECTION] Grading and the reveal
#pragma once

#include "app/lessons/expressions.h"
#include "app/lessons/model/lesson.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace app {

// =============================================================================================
// [SECTION] Parsing
// =============================================================================================

// The @predict line's argument: "choice", or "EXPR within TOL [in UNIT]" (TOL: "20%" relative,
// "0.5" absolute in the unit). "" or the message.
std::string parse_prediction_head(const std::string& arg, Prediction& p);
// An @option line's argument: "LABEL if CONDITION". "" or the message.
std::string parse_prediction_option(const std::string& arg, PredictionOption& o);
// Problems of form once the block is closed (a question, a reveal, two options or more, labels
// distinct), each with its line.
std::vector<std::pair<int, std::string>> prediction_form_errors(const Prediction& p);
// Problems of the live parts against the step's workload: the expression (known, numeric, a unit
// of its quantity) or each option's condition.
std::vector<std::pair<int, std::string>> prediction_expr_errors(const Prediction& p, const std::string& workload);

// =============================================================================================
// [SECTION] Quantities and units
// =============================================================================================

// What a numeric expression's number measures, and the units an answer to it may be typed in.
enum class Quantity { none, bytes, time, percent, factor, intensity, count, flops, bandwidth, flop_rate, error };
Quantity expr_quantity(const LessonExpr& e);
const char* quantity_name(Quantity q);
struct AnswerUnit {
    const char* name;  // "MiB", "ms", "x", "%", "" ...
    double scale;      // one of it in the expression's own unit (bytes, ms, %, factor, GB/s, ...)
};
// The units of a quantity; the first is the default for a prediction that names none.
const std::vector<AnswerUnit>& units_of(Quantity q);
const AnswerUnit* find_unit(Quantity q, const std::string& name);
// "±20 %" (relative) or "±0.5 MiB" (absolute, in the prediction's unit).
std::string tolerance_text(const Prediction& p);
// A number as the prediction's unit shows it: "4.02×", "32 MiB", "85 %", "0.142 ms".
std::string value_in_unit(double base_value, const Prediction& p);
// A typed answer ("3.5", "3.5 MiB", "4x", "80 %") in the expression's own unit; false + why.
bool parse_answer_number(const std::string& text, const Prediction& p, double& out, std::string* why);

// =============================================================================================
// [SECTION] Grading and the reveal
// =============================================================================================

struct PredictionGrade {
    // value: the right answer is known here; pending: its measurement is running; unavailable: it
    // cannot be had on this device (why says so).
    ExprValue::State state = ExprValue::State::value;
    std::string why;
    bool answered = false;          // an answer was given and understood
    std::string answer_error;       // the answer could not be read (nothing recorded)
    bool right = false;             // within the tolerance / the right option
    std::optional<double> off_percent;  // number: (answer - live) / live, in %
    double truth = 0;               // number: the live value (the expression's own unit)
    int correct = -1;               // choice: the right option's index
    std::string truth_text;         // the live value with its source ("4.02× (simulated)"), or the right option
    std::string verdict;            // one sentence: "You said 3×. It is 4.02× (simulated): 25 % low, outside ±20 %."
    std::vector<std::string> evidence;  // what the right answer rests on: "SOURCE = VALUE: meaning"
    bool simulated = false;
    std::string recorded;           // read from a recording: its label
};

// Grades `answer` (as typed, or an option's label or letter A, B, ...; "" = none: the reveal
// alone, as classroom mode shows it) against the live values in ctx.
PredictionGrade grade_prediction(const Prediction& p, const std::string& answer, const ExprContext& ctx);
// The option an answer names (its label, case-insensitive, or its letter), or -1.
int option_named(const Prediction& p, const std::string& answer);

}  // namespace app
