// The lesson file's parser: line by line into the data model (app/lessons/model/lesson.h), every error
// collected with its line, and each finished step checked (expressions against its workload,
// levels against its highlight, limiter words, doubled words, glossary terms linked first).
#pragma once

#include "app/lessons/model/lesson.h"

#include <string>

namespace app {

// Parses `text` as the lesson file `path` (used in messages and for the name). Every error is
// collected with its line; parsing goes on after an error so one run shows them all.
LessonParse parse_lesson(const std::string& path, const std::string& text);
// Reads and parses a file; an unreadable file gives one error at line 0.
LessonParse load_lesson(const std::string& path);

}  // namespace app
