// Finding lesson files: the shipped folder, its *.lesson files, loading them all, finding one by
// name or number (app/lessons/lesson_files.h).
#include "app/lessons/lesson_files.h"

#include "app/platform/platform.h"
#include "app/lessons/parser.h"
#include "app/lessons/text_helpers.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#ifndef FUSIONLAB_LESSONS_DIR
#define FUSIONLAB_LESSONS_DIR ""
#endif

namespace app {

namespace fs = std::filesystem;
using namespace lesson_text;

std::string lessons_dir(std::string* why_not) {
    // Installed: <prefix>/bin/fusionlab finds <prefix>/share/fusionlab/lessons (when it holds lessons),
    // wherever it is run from.
    return platform::data_dir(
        "FUSIONLAB_LESSONS", "lessons", FUSIONLAB_LESSONS_DIR,
        [](const std::string& dir) { return !lesson_files(dir).empty(); }, "lessons", "lessons/", why_not);
}

std::vector<std::string> lesson_files(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".lesson") files.push_back(it->path().string());
    std::sort(files.begin(), files.end());
    return files;
}

void load_all_lessons(std::vector<Lesson>& lessons, std::vector<LessonError>& errors) {
    lessons.clear();
    errors.clear();
    std::string why;
    const std::string dir = lessons_dir(&why);
    if (dir.empty()) {
        errors.push_back({"lessons", 0, why});
        return;
    }
    for (const std::string& file : lesson_files(dir)) {
        LessonParse p = load_lesson(file);
        if (p.ok()) lessons.push_back(std::move(p.lesson));
        else errors.insert(errors.end(), p.errors.begin(), p.errors.end());
    }
}

const Lesson* find_lesson(const std::vector<Lesson>& lessons, const std::string& name, std::string* why) {
    for (const Lesson& l : lessons)
        if (l.name == name || l.path == name) return &l;
    // A number: "2" or "02" matches "02-...".
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const int n = std::atoi(name.c_str());
        for (const Lesson& l : lessons)
            if (std::isdigit(static_cast<unsigned char>(l.name[0])) && std::atoi(l.name.c_str()) == n) return &l;
    }
    std::vector<std::string> names;
    for (const Lesson& l : lessons) names.push_back(l.name);
    if (why) *why = "no lesson '" + name + "' (legal: " + (names.empty() ? std::string("none found") : join(names, ", ")) + ")";
    return nullptr;
}

}  // namespace app
