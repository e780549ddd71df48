// `fusionlab lessons check [FILES...]` and `fusionlab lessons list` (app/cli/cli.h run_lessons).
#include "app/cli/cli.h"

#include "app/cli/text.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/parser.h"

#include <ostream>

namespace app::cli {

int run_lessons(const LessonsOptions& o, std::ostream& out, std::ostream& err) {
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
    for (const std::string& file : files) {
        const LessonParse p = load_lesson(file);
        for (const LessonError& e : p.errors) err << e.text() << "\n";
        if (o.action == "check")
            for (const LessonError& w : p.warnings) err << w.text() << "\n";
        any_error = any_error || !p.ok();
        if (o.action == "list") {
            if (p.ok())
                out << pad_right(p.lesson.name, 28) << pad_left(std::to_string(p.lesson.steps.size()), 3) << " steps  "
                    << p.lesson.title << "\n";
        } else if (p.ok()) {
            out << "ok  " << file << " (" << p.lesson.steps.size() << " steps"
                << (p.warnings.empty() ? std::string() : ", " + std::to_string(p.warnings.size()) + (p.warnings.size() == 1 ? " warning" : " warnings")) << ")\n";
        }
    }
    return any_error ? kExitUsage : kExitOk;
}

}  // namespace app::cli
