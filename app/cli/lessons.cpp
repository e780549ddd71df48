// `fusionlab lessons check [FILES...]` (predictions played on every device), `fusionlab lessons list`
// and `fusionlab lessons answers --csv FILE` (app/cli/cli.h run_lessons).
#include "app/cli/cli.h"

#include "app/cli/text.h"
#include "app/files/export.h"
#include "app/lessons/model/answers.h"
#include "app/lessons/lesson_devices.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/parser.h"
#include "app/platform/platform_file.h"

#include <ostream>

namespace app::cli {

// `lessons answers --csv FILE`: the answer book as the teacher's CSV. 0 written; 1 no answers file
// or it cannot be read or written.
int run_lessons_answers(const LessonsOptions& o, std::ostream& out, std::ostream& err) {
    const std::string path = o.answers.empty() ? default_answers_path() : o.answers;
    if (path.empty()) {
        err << "fusionlab lessons answers: no settings folder (HOME not set): name the file with --answers FILE\n";
        return kExitFailure;
    }
    std::string text;  // bounded like every file a user names (app/platform/platform_file.h)
    const platform::ReadResult read = platform::read_user_file(path, platform::UserFile::answers, text);
    if (!read.ok()) {
        err << "fusionlab lessons answers: "
            << (read.failure == platform::ReadFailure::not_found ? path + ": no answers yet (answer a prediction in a lesson first)"
                                                                 : read.message)
            << "\n";
        return kExitFailure;
    }
    AnswerBook book;
    if (std::string note = answers_from_json(text, book); !note.empty()) err << "fusionlab lessons answers: " << note << "\n";
    const std::string csv = answers_csv(book);
    if (o.csv == "-") {
        out << csv;
        return kExitOk;
    }
    if (std::string error = write_file_atomic(o.csv, csv); !error.empty()) {
        err << "fusionlab lessons answers: " << error << "\n";
        return kExitFailure;
    }
    out << "wrote " << book.answers.size() << (book.answers.size() == 1 ? " answer" : " answers") << " to " << o.csv << "\n";
    return kExitOk;
}

int run_lessons(const LessonsOptions& o, std::ostream& out, std::ostream& err) {
    if (o.action == "answers") return run_lessons_answers(o, out, err);
    std::vector<std::string> files = o.files;
    if (files.empty()) {
        std::string why;
        const std::string dir = lessons_dir(&why);
        if (!dir.empty()) files = lesson_files(dir);
        if (files.empty()) {
            err << "fusionlab lessons: " << (dir.empty() ? why : "no lesson files in " + dir) << "\n";
            return kExitUsage;
        }
    }
    bool any_error = false;
    // Predictions are played on every simulated GPU and recording: their answers must exist on
    // each (made once, on the first lesson that has predictions).
    std::vector<LessonDevice> devices;
    bool devices_made = false;
    for (const std::string& file : files) {
        LessonParse p = load_lesson(file);
        if (o.action == "check" && p.ok() && !o.no_devices) {
            bool has_predictions = false;
            for (const LessonStep& s : p.lesson.steps) has_predictions = has_predictions || !s.predictions.empty();
            if (has_predictions && !devices_made) {
                std::vector<std::string> left_out;
                devices = lesson_devices(&left_out);
                for (const std::string& why : left_out) err << "fusionlab lessons check: device left out: " << why << "\n";
                devices_made = true;
            }
            if (has_predictions) p.errors = check_predictions_on_devices(p.lesson, devices);
        }
        for (const LessonError& e : p.errors) err << e.text() << "\n";
        if (o.action == "check")
            for (const LessonError& w : p.warnings) err << w.text() << "\n";
        any_error = any_error || !p.ok();
        if (o.action == "list") {
            if (p.ok())
                out << pad_right(p.lesson.name, 28) << pad_left(std::to_string(p.lesson.steps.size()), 3) << " steps  "
                    << p.lesson.title << "\n";
        } else if (p.ok()) {
            size_t predictions = 0;
            for (const LessonStep& st : p.lesson.steps) predictions += st.predictions.size();
            out << "ok  " << file << " (" << p.lesson.steps.size() << " steps"
                << (predictions == 0 ? std::string()
                                     : ", " + std::to_string(predictions) + (predictions == 1 ? " prediction" : " predictions") +
                                           (o.no_devices ? std::string() : " answered on " + std::to_string(devices.size()) + " devices"))
                << (p.warnings.empty() ? std::string() : ", " + std::to_string(p.warnings.size()) + (p.warnings.size() == 1 ? " warning" : " warnings")) << ")\n";
        }
    }
    return any_error ? kExitUsage : kExitOk;
}

}  // namespace app::cli
