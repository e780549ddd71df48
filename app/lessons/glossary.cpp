// The glossary (lessons/glossary.terms): its parser and the shipped copy (app/lessons/glossary.h).
#include "app/lessons/glossary.h"

#include "app/lessons/lesson_files.h"
#include "app/lessons/prose.h"
#include "app/lessons/text_helpers.h"
#include "app/platform/platform_file.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace app {

namespace fs = std::filesystem;
using namespace lesson_text;

const GlossaryTerm* Glossary::find(const std::string& key) const {
    const std::string k = lower_text(trim(key));
    for (const GlossaryTerm& t : terms) {
        if (lower_text(t.key) == k) return &t;
        for (const std::string& a : t.aliases)
            if (lower_text(a) == k) return &t;
    }
    return nullptr;
}

// Format: `@term KEY`, optionally `@also ALIAS, ALIAS`, then the definition's lines (maths in $..$
// rendered), up to the next @term. // comments and blank lines are skipped.
Glossary parse_glossary(const std::string& path, const std::string& text) {
    Glossary g;
    g.path = path;
    std::istringstream in(text);
    std::string line;
    int no = 0;
    auto finish = [&] {
        if (!g.terms.empty() && trim(g.terms.back().definition).empty())
            g.errors.push_back({path, g.terms.back().line, "term '" + g.terms.back().key + "' has no definition"});
    };
    while (std::getline(in, line)) {
        ++no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::string t = trim(line);
        if (t.empty() || t.rfind("//", 0) == 0) continue;
        if (t.rfind("@term ", 0) == 0) {
            finish();
            const std::string key = trim(t.substr(6));
            if (g.find(key)) g.errors.push_back({path, no, "term '" + key + "' is defined twice"});
            g.terms.push_back({key, {}, "", no});
            continue;
        }
        if (t.rfind("@also ", 0) == 0 && !g.terms.empty()) {
            std::string alias;
            for (char c : t.substr(6) + ",") {
                if (c == ',') {
                    if (!trim(alias).empty()) g.terms.back().aliases.push_back(trim(alias));
                    alias.clear();
                } else {
                    alias += c;
                }
            }
            continue;
        }
        if (t[0] == '@' || g.terms.empty()) {
            g.errors.push_back({path, no, "expected @term KEY, @also ALIASES or the definition's text"});
            continue;
        }
        // The definition: plain text with $maths$ rendered.
        std::string rendered;
        for (size_t i = 0; i < t.size(); ++i) {
            if (t[i] == '$') {
                const size_t close = t.find('$', i + 1);
                if (close == std::string::npos) {
                    g.errors.push_back({path, no, "unclosed $ (maths)"});
                    rendered += t.substr(i);
                    break;
                }
                rendered += render_math(t.substr(i + 1, close - i - 1));
                i = close;
                continue;
            }
            if (t[i] != '`') rendered += t[i];
        }
        std::string& d = g.terms.back().definition;
        d += (d.empty() ? "" : " ") + rendered;
    }
    finish();
    return g;
}

Glossary load_glossary(const std::string& path) {
    std::string text;
    if (const platform::ReadResult read = platform::read_user_file(path, platform::UserFile::glossary, text); !read.ok()) {
        Glossary none;
        none.path = path;
        none.errors.push_back({path, 0, read.reason});
        return none;
    }
    return parse_glossary(path, text);
}

const Glossary& shipped_glossary() {
    static const Glossary g = [] {
        const std::string dir = lessons_dir();
        const std::string path = (fs::path(dir) / "glossary.terms").string();
        if (dir.empty()) {
            Glossary none;
            none.path = path;
            none.errors.push_back({path, 0, "cannot read the glossary: no lessons folder"});
            return none;
        }
        return load_glossary(path);
    }();
    return g;
}

void linked_terms(const std::vector<ProseSpan>& spans, std::vector<std::string>& out) {
    for (const ProseSpan& s : spans) {
        if (s.kind != ProseSpan::Kind::expr) continue;
        if (s.expr.func == "term") {
            const std::string key = join(s.expr.args, " ");
            const GlossaryTerm* t = shipped_glossary().find(key);
            const std::string k = t ? t->key : key;
            if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
        }
        for (const auto& branch : s.expr.branch_spans) linked_terms(branch, out);
    }
}

}  // namespace app
