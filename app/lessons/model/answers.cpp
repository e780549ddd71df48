// A student's answers to the predictions: the book, its JSON file and the teacher's CSV
// (app/lessons/model/answers.h).
//
// [SECTION] The book
// [SECTION] JSON (tolerant of hand edits: a bad entry costs only itself)
// [SECTION] CSV
// [SECTION] The file
#include "app/lessons/model/answers.h"

#include "app/files/config_file.h"
#include "app/files/export.h"
#include "app/platform/platform.h"
#include "app/platform/platform_file.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <map>
#include <system_error>

namespace app {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

// =============================================================================================
// [SECTION] The book
// =============================================================================================

const PredictionAnswer* AnswerBook::find(const std::string& lesson, int step, int prediction) const {
    for (const PredictionAnswer& a : answers)
        if (a.lesson == lesson && a.step == step && a.prediction == prediction) return &a;
    return nullptr;
}

void AnswerBook::record(const PredictionAnswer& a) {
    for (PredictionAnswer& old : answers)
        if (old.lesson == a.lesson && old.step == a.step && old.prediction == a.prediction) {
            old = a;
            return;
        }
    answers.push_back(a);
}

int AnswerBook::count(const std::string& lesson) const {
    int n = 0;
    for (const PredictionAnswer& a : answers) n += a.lesson == lesson ? 1 : 0;
    return n;
}

int AnswerBook::right(const std::string& lesson) const {
    int n = 0;
    for (const PredictionAnswer& a : answers) n += a.lesson == lesson && a.right ? 1 : 0;
    return n;
}

// =============================================================================================
// [SECTION] JSON
// =============================================================================================

std::string answers_to_json(const AnswerBook& book) {
    ordered_json lessons = ordered_json::object();
    for (const PredictionAnswer& a : book.answers) {
        ordered_json e = ordered_json::object();
        e["step"] = a.step;
        e["prediction"] = a.prediction;
        e["kind"] = a.kind;
        e["question"] = a.question;
        e["answer"] = a.answer;
        e["correct"] = a.correct;
        if (a.off_percent) e["off_percent"] = *a.off_percent;
        e["right"] = a.right;
        e["tolerance"] = a.tolerance;
        e["device"] = a.device;
        e["answered_at"] = a.answered_at;
        if (!lessons.contains(a.lesson)) lessons[a.lesson] = ordered_json::array();
        lessons[a.lesson].push_back(e);
    }
    ordered_json doc = ordered_json::object();
    doc["version"] = 1;
    doc["lessons"] = lessons;
    return doc.dump(2) + "\n";
}

std::string answers_from_json(const std::string& text, AnswerBook& out) {
    out = AnswerBook{};
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return "answers file is not valid JSON: starting with no answers";
    if (!doc.is_object() || !doc.contains("lessons") || !doc["lessons"].is_object())
        return "answers file has no \"lessons\" object: starting with no answers";
    int ignored = 0;
    for (const auto& [lesson, list] : doc["lessons"].items()) {
        if (!list.is_array()) {
            ++ignored;
            continue;
        }
        for (const nlohmann::json& e : list) {
            auto text_of = [&](const char* key, std::string& into) {
                if (!e.contains(key) || !e[key].is_string()) return false;
                into = e[key].get<std::string>();
                return true;
            };
            PredictionAnswer a;
            a.lesson = lesson;
            const bool ok = e.is_object() && e.contains("step") && e["step"].is_number_integer() &&
                            e.contains("prediction") && e["prediction"].is_number_integer() &&
                            e.contains("right") && e["right"].is_boolean() && text_of("kind", a.kind) &&
                            text_of("question", a.question) && text_of("answer", a.answer) &&
                            text_of("correct", a.correct) && text_of("tolerance", a.tolerance) &&
                            text_of("device", a.device) && text_of("answered_at", a.answered_at) &&
                            (!e.contains("off_percent") || e["off_percent"].is_number());
            if (!ok || e["step"].get<int64_t>() < 1 || e["prediction"].get<int64_t>() < 1 ||
                e["step"].get<int64_t>() > 10000 || e["prediction"].get<int64_t>() > 10000) {
                ++ignored;
                continue;
            }
            a.step = e["step"].get<int>();
            a.prediction = e["prediction"].get<int>();
            a.right = e["right"].get<bool>();
            if (e.contains("off_percent")) a.off_percent = e["off_percent"].get<double>();
            out.record(a);
        }
    }
    if (ignored == 0) return "";
    return "answers file: ignored " + std::to_string(ignored) + (ignored == 1 ? " malformed entry" : " malformed entries");
}

// =============================================================================================
// [SECTION] CSV
// =============================================================================================

std::string answers_csv(const AnswerBook& book) {
    std::string out = "lesson,step,prediction,kind,question,answer,correct,off_percent,right,tolerance,device,answered_at\n";
    for (const PredictionAnswer& a : book.answers) {
        char off[32] = "";
        if (a.off_percent) std::snprintf(off, sizeof off, "%.1f", *a.off_percent);
        const std::string fields[] = {a.lesson, std::to_string(a.step), std::to_string(a.prediction), a.kind, a.question, a.answer,
                                      a.correct, off, a.right ? "yes" : "no", a.tolerance, a.device, a.answered_at};
        std::string row;
        for (const std::string& f : fields) {
            if (!row.empty()) row += ',';
            row += csv_field(f);
        }
        out += row + "\n";
    }
    return out;
}

// =============================================================================================
// [SECTION] The file
// =============================================================================================

std::string default_answers_path() {
    const fs::path dir = platform::config_dir();
    return dir.empty() ? std::string() : (dir / "answers.json").string();
}

std::string load_answers(const std::string& path, AnswerBook& out) {
    out = AnswerBook{};
    if (path.empty()) return "no configuration folder (HOME not set): answers will not be saved";
    std::string text;  // bounded: the path may name a FIFO, a device or a huge file (platform_file.h)
    const platform::ReadResult read = platform::read_user_file(path, platform::UserFile::answers, text);
    if (read.failure == platform::ReadFailure::not_found) return "";  // no answers yet
    if (!read.ok()) return read.message + ": starting with no answers";
    const std::string problem = answers_from_json(text, out);
    return problem.empty() ? problem : problem + " [" + path + "]";
}

std::string save_answers(const std::string& path, const AnswerBook& book) {
    return write_config_file(path, "answers", answers_to_json(book));
}

}  // namespace app
