// Finding lesson files: the shipped lessons' folder, the files in it, loading them, one by name.
#pragma once

#include "app/lessons/model/lesson.h"

#include <string>
#include <vector>

namespace app {

// The folder of shipped lessons: $FUSIONLAB_LESSONS, else the installed share/fusionlab/lessons
// beside this program's bin/, else the source tree's lessons/ this binary was built from; the
// same from any current folder. "" when none exists, with why_not saying so (and naming a
// $FUSIONLAB_LESSONS that is not a folder).
std::string lessons_dir(std::string* why_not = nullptr);
// Every *.lesson file directly in `dir` (not pending/), sorted by name.
std::vector<std::string> lesson_files(const std::string& dir);
// Loads every shipped lesson: valid ones into lessons, errors into errors.
void load_all_lessons(std::vector<Lesson>& lessons, std::vector<LessonError>& errors);
// A lesson by name ("02-elementwise-chain", its number "02" or "2", or a path). nullptr + why.
const Lesson* find_lesson(const std::vector<Lesson>& lessons, const std::string& name, std::string* why);

}  // namespace app
