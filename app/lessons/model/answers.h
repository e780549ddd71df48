// A student's answers to the lessons' predictions, kept per lesson in answers.json beside
// settings.json (read through the bounded reader, app/core/platform_file.h), and exported as CSV
// for the teacher (the lesson pane's "Export answers (CSV)", `fusionlab lessons answers --csv`).
// Each prediction keeps its latest answer: answering again replaces it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace app {

struct PredictionAnswer {
    std::string lesson;                  // the lesson's name: "02-elementwise-chain"
    int step = 0;                        // 1-based, as the pane shows it
    int prediction = 0;                  // 1-based within the step
    std::string kind;                    // "number" or "choice"
    std::string question;                // the question as plain text (live numbers filled in)
    std::string answer;                  // as typed ("3.5", "3.5 MiB") or the option chosen
    std::string correct;                 // the live value ("4.02\u00d7 (simulated)") or the right option
    std::optional<double> off_percent;   // number: (answer - live) / live, in %; signed
    bool right = false;                  // within the tolerance, or the right option
    std::string tolerance;               // "\u00b120 %", "\u00b10.5 MiB"; "" for a choice
    std::string device;                  // the device the live value came from
    std::string answered_at;             // UTC, ISO 8601
};

struct AnswerBook {
    std::vector<PredictionAnswer> answers;  // in the order first answered
    const PredictionAnswer* find(const std::string& lesson, int step, int prediction) const;
    // Keeps `a`, replacing an earlier answer to the same prediction of the same lesson.
    void record(const PredictionAnswer& a);
    // How many answers a lesson has, and how many of them are right.
    int count(const std::string& lesson) const;
    int right(const std::string& lesson) const;
};

// {"version": 1, "lessons": {"NAME": [answer, ...]}}: grouped per lesson.
std::string answers_to_json(const AnswerBook& book);
// Parses text into `out` (cleared first). Returns "" or a message naming what was ignored; an
// entry with a missing or mistyped field is left out, never the rest of the file.
std::string answers_from_json(const std::string& text, AnswerBook& out);
// One row per answer: lesson, step, prediction, kind, question, answer, correct, off %, right,
// tolerance, device, answered at.
std::string answers_csv(const AnswerBook& book);

// answers.json in the settings folder ("" when there is none).
std::string default_answers_path();
// Loads `path` (bounded). A missing file is no error (no answers yet): "". Else "" or the message.
std::string load_answers(const std::string& path, AnswerBook& out);
// Creates the folder if needed and writes atomically. "" or the error.
std::string save_answers(const std::string& path, const AnswerBook& book);

}  // namespace app
