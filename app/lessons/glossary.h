// The glossary (lessons/glossary.terms): terms a lesson links with {term KEY}, their aliases and
// definitions.
#pragma once

#include "app/lessons/model/lesson.h"

#include <string>
#include <vector>

namespace app {

// One glossary entry (lessons/glossary.terms): the key lessons link with {term KEY}, other words
// that mean it (found in prose for the first-use check), and its definition as prose.
struct GlossaryTerm {
    std::string key;                    // "CTA"
    std::vector<std::string> aliases;   // "thread block"
    std::string definition;             // plain text (maths rendered)
    int line = 0;
};
struct Glossary {
    std::string path;
    std::vector<GlossaryTerm> terms;
    std::vector<LessonError> errors;
    const GlossaryTerm* find(const std::string& key) const;  // case-insensitive, key or alias
};
Glossary parse_glossary(const std::string& path, const std::string& text);
// The shipped glossary (lessons_dir()/glossary.terms), read once.
const Glossary& shipped_glossary();
// Every term key a list of spans links ({term KEY}), nested verdict texts included, in order.
void linked_terms(const std::vector<ProseSpan>& spans, std::vector<std::string>& out);

}  // namespace app
