// Exercise files (exercise.h; the format is exercises/README.md). [SECTION] index:
//   text helpers    trimming, words, identifiers, numbers
//   dimensions      launch-geometry expressions: parse, check, evaluate
//   signature       the kernel's parameter list
//   parser          header lines, then sections
//   checks          what a whole file must have
//   files           where the shipped exercises are, their header
//   submissions     an exercise and a source become a job
#include "app/exercises/exercise.h"

#include "app/platform/platform.h"
#include "app/platform/platform_file.h"
#include "kernels/core/registry.h"
#include "kernels/core/workload_def.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#ifndef FUSIONLAB_EXERCISES_DIR
#define FUSIONLAB_EXERCISES_DIR "exercises"
#endif

namespace fs = std::filesystem;

namespace app::exercises {

// =============================================================================================
// [SECTION] text helpers
// =============================================================================================
namespace {

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

bool is_identifier(const std::string& s) {
    if (s.empty() || s.size() > 64) return false;
    if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A finite number, the whole text (no trailing characters).
bool parse_number(const std::string& s, double& out) {
    if (s.empty() || s.size() > 32) return false;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
    out = v;
    return true;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

std::string Goal::text() const {
    return std::string(kind == Kind::dram ? "dram" : "time") + " <= " + number_text(factor) + " x " + against;
}

std::string ExerciseError::text() const { return file + ":" + std::to_string(line) + ": " + message; }

std::string Exercise::signature() const {
    std::string args;
    for (const Argument& a : arguments) args += (args.empty() ? "" : ", ") + a.type + " " + a.name;
    return "extern \"C\" __global__ void " + kernel + "(" + args + ")";
}

// =============================================================================================
// [SECTION] dimensions
// =============================================================================================
// Grammar: expr := factor ('*' factor)* ; factor := INTEGER | NAME | ceil(NAME '/' INTEGER).
// Small on purpose: a grid is "one block per row" or "one block per 64 rows per head".
namespace {

struct Factor {
    bool is_ceil = false;
    std::string name;     // a parameter (empty for a literal)
    int64_t literal = 0;  // the literal, or ceil's divisor
};

bool parse_integer(const std::string& s, int64_t& out) {
    if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoll(s);
    return true;
}

std::string parse_factors(const std::string& expr, std::vector<Factor>& out) {
    std::string compact;
    for (char c : expr)
        if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
    if (compact.empty()) return "empty expression";
    size_t start = 0;
    while (start <= compact.size()) {
        const size_t star = compact.find('*', start);
        const std::string f = compact.substr(start, star == std::string::npos ? std::string::npos : star - start);
        Factor factor;
        if (f.rfind("ceil(", 0) == 0 && f.size() > 6 && f.back() == ')') {
            const std::string inner = f.substr(5, f.size() - 6);
            const size_t slash = inner.find('/');
            if (slash == std::string::npos) return "ceil() takes NAME/INTEGER, e.g. ceil(N/64)";
            factor.is_ceil = true;
            factor.name = inner.substr(0, slash);
            if (!is_identifier(factor.name)) return "'" + factor.name + "' is not a parameter name";
            if (!parse_integer(inner.substr(slash + 1), factor.literal) || factor.literal <= 0)
                return "ceil()'s divisor must be a positive integer";
        } else if (parse_integer(f, factor.literal)) {
            if (factor.literal <= 0) return "a dimension factor must be positive";
        } else if (is_identifier(f)) {
            factor.name = f;
        } else {
            return "'" + f + "' is neither an integer, a parameter name nor ceil(NAME/INTEGER)";
        }
        out.push_back(factor);
        if (star == std::string::npos) break;
        start = star + 1;
    }
    return "";
}

}  // namespace

std::string check_dimension(const std::string& expr, const std::string& workload) {
    std::vector<Factor> factors;
    if (std::string why = parse_factors(expr, factors); !why.empty()) return why;
    for (const Factor& f : factors)
        if (!f.name.empty() && !kernels::find_param_spec(workload, f.name))
            return "'" + f.name + "' is not a parameter of " + workload;
    return "";
}

bool evaluate_dimension(const std::string& expr, const kernels::Params& p, int64_t& value, std::string& why) {
    std::vector<Factor> factors;
    why = parse_factors(expr, factors);
    if (!why.empty()) return false;
    double v = 1;
    for (const Factor& f : factors) {
        double x = static_cast<double>(f.literal);
        if (!f.name.empty()) {
            if (!kernels::find_param_spec(p.workload, f.name)) {
                why = "'" + f.name + "' is not a parameter of " + p.workload;
                return false;
            }
            x = p.get(f.name);
            if (f.is_ceil) x = std::ceil(x / static_cast<double>(f.literal));
        }
        v *= x;
    }
    if (!(v >= 1 && v <= 2147483647.0)) {
        why = "'" + expr + "' is " + number_text(v) + " for these parameters (a grid dimension is 1 .. 2^31-1)";
        return false;
    }
    value = static_cast<int64_t>(v);
    return true;
}

// =============================================================================================
// [SECTION] signature
// =============================================================================================
namespace {

// "const T* __restrict__ x, int64_t n" -> {"const T* __restrict__", "x"}, {"int64_t", "n"}.
std::string parse_signature(const std::string& text, std::vector<Argument>& out) {
    const std::set<std::string> allowed_words{"const", "T", "float", "int", "unsigned", "long", "int64_t", "uint64_t",
                                              "int32_t", "uint32_t", "__restrict__", "*", "&"};
    std::string piece;
    std::vector<std::string> pieces;
    for (char c : text) {
        if (c == ',') {
            pieces.push_back(piece);
            piece.clear();
        } else {
            piece += c;
        }
    }
    pieces.push_back(piece);
    std::set<std::string> seen;
    for (const std::string& raw : pieces) {
        std::string spaced;
        for (char c : raw) {
            if (c == '*' || c == '&') spaced += std::string(" ") + c + " ";
            else spaced += c;
        }
        std::vector<std::string> w = words(spaced);
        if (w.size() < 2) return "each parameter needs a type and a name: '" + trim(raw) + "'";
        const std::string name = w.back();
        if (!is_identifier(name)) return "'" + name + "' is not a parameter name";
        w.pop_back();
        for (const std::string& word : w)
            if (!allowed_words.count(word))
                return "type word '" + word + "' of parameter " + name +
                       " is not one the harness passes (T, float, int, int64_t, uint64_t, uint32_t, const, *, "
                       "__restrict__)";
        if (!seen.insert(name).second) return "parameter '" + name + "' appears twice";
        std::string type;
        for (const std::string& word : w) {
            if (word == "*" || word == "&") type += word;
            else type += (type.empty() ? "" : " ") + word;
        }
        out.push_back({type, name});
    }
    return "";
}

}  // namespace

// =============================================================================================
// [SECTION] parser
// =============================================================================================
namespace {

enum class Section { none, task, hint, starter, solution, predictions };

class Parser {
public:
    Parser(const std::string& path, const std::string& text) : path_(path), text_(text) {
        ex_.path = path;
        ex_.name = fs::path(path).stem().string();
    }

    ExerciseParse run() {
        std::istringstream in(text_);
        std::string line;
        int no = 0;
        while (std::getline(in, line)) {
            ++no;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.rfind("==", 0) == 0) {
                start_section(trim(line.substr(2)), no);
                continue;
            }
            if (section_ != Section::none || skipping_) {
                if (!skipping_) body_ += line + "\n";
                continue;
            }
            const std::string t = trim(line);
            if (t.empty() || t[0] == '#') continue;
            header_line(t, no);
        }
        end_section();
        check_whole(no);
        ExerciseParse r;
        r.exercise = std::move(ex_);
        r.errors = std::move(errors_);
        return r;
    }

private:
    void error(int line, const std::string& message) { errors_.push_back({path_, line, message}); }

    void header_line(const std::string& t, int no) {
        const size_t colon = t.find(':');
        if (colon == std::string::npos) {
            error(no, "expected KEY: VALUE or a section (== task, == hint, == starter, == solution, == predictions), got '" + t + "'");
            return;
        }
        const std::string key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
        if (key != "goal" && !seen_keys_.insert(key).second) {
            error(no, "'" + key + "' is given twice");
            return;
        }
        key_lines_[key] = no;
        if (value.empty()) return error(no, "'" + key + "' needs a value");
        if (key == "exercise") {
            if (value != ex_.name)
                error(no, "exercise '" + value + "' differs from the file's name '" + ex_.name +
                              "' (the name `fusionlab exercises run` takes is the file's)");
        } else if (key == "title") {
            ex_.title = value;
        } else if (key == "workload") {
            if (!kernels::parse_workload(value, ex_.workload))
                return error(no, "unknown workload '" + value + "' (legal: " + kernels::workload_names_text() + ")");
            ex_.params = kernels::default_params(ex_.workload);
        } else if (key == "params") {
            if (ex_.workload.empty()) return error(no, "put 'workload:' before 'params:'");
            for (const std::string& item : words(value)) {
                const size_t eq = item.find('=');
                if (eq == std::string::npos) {
                    error(no, "params takes NAME=VALUE items, got '" + item + "'");
                    continue;
                }
                const std::string name = item.substr(0, eq), v = item.substr(eq + 1);
                if (name == "dtype") {
                    kernels::DType dt;
                    if (!kernels::parse_dtype(v, dt)) error(no, "bad dtype '" + v + "' (legal: fp32, fp16, bf16)");
                    else ex_.params.dtype = dt;
                    continue;
                }
                const kernels::ParamSpec* spec = kernels::find_param_spec(ex_.workload, name);
                if (!spec) {
                    std::vector<std::string> names;
                    for (const kernels::ParamSpec& s : kernels::param_specs(ex_.workload)) names.push_back(s.name);
                    error(no, "unknown parameter '" + name + "' of " + ex_.workload + " (legal: " + join(names, ", ") +
                                  ", dtype)");
                    continue;
                }
                double x = 0;
                if (!parse_number(v, x)) {
                    error(no, "bad value '" + v + "' for " + name + " (legal: " + kernels::legal_values_text(*spec) + ")");
                    continue;
                }
                if (std::string why = kernels::check_param_value(*spec, x); !why.empty()) {
                    error(no, why);
                    continue;
                }
                ex_.params.set(spec->name, x);
            }
            if (std::string why = kernels::validate(ex_.params); !why.empty()) error(no, why);
        } else if (key == "variant") {
            if (!need_workload(no)) return;
            if (!kernels::has_variant(ex_.workload, value)) return error(no, kernels::unknown_variant_message(ex_.workload, value));
            ex_.variant = value;
        } else if (key == "replaces") {
            ex_.replaces = value;  // checked against the variant's kernels once both are known
        } else if (key == "compare") {
            if (!need_workload(no)) return;
            for (const std::string& v : words(value)) {
                if (!kernels::has_variant(ex_.workload, v)) error(no, kernels::unknown_variant_message(ex_.workload, v));
                else ex_.compare.push_back(v);
            }
        } else if (key == "kernel") {
            if (!is_identifier(value)) return error(no, "kernel '" + value + "' is not a C identifier");
            ex_.kernel = value;
        } else if (key == "signature") {
            if (std::string why = parse_signature(value, ex_.arguments); !why.empty()) error(no, "signature: " + why);
        } else if (key == "grid") {
            std::vector<std::string> dims;
            std::string cur;
            for (char c : value) {
                if (c == ',') {
                    dims.push_back(trim(cur));
                    cur.clear();
                } else {
                    cur += c;
                }
            }
            dims.push_back(trim(cur));
            if (dims.size() > 3) return error(no, "grid takes at most 3 dimensions (x, y, z)");
            if (!need_workload(no)) return;
            for (size_t i = 0; i < dims.size(); ++i) {
                if (std::string why = check_dimension(dims[i], ex_.workload); !why.empty())
                    return error(no, "grid dimension " + std::to_string(i + 1) + ": " + why);
                ex_.grid[i] = dims[i];
            }
        } else if (key == "block") {
            const std::vector<std::string> dims = words(value);
            if (dims.empty() || dims.size() > 3) return error(no, "block takes 1 to 3 integers: 'block: 256' or 'block: 32 4'");
            int64_t total = 1;
            for (size_t i = 0; i < dims.size(); ++i) {
                int64_t v = 0;
                if (!parse_integer(dims[i], v) || v < 1 || v > 1024)
                    return error(no, "block dimension '" + dims[i] + "' is not an integer 1 .. 1024");
                ex_.block[i] = static_cast<int>(v);
                total *= v;
            }
            if (total > 1024) error(no, "a block of " + std::to_string(total) + " threads exceeds CUDA's 1024");
        } else if (key == "shared") {
            int64_t v = 0;
            if (!parse_integer(value, v) || v > 232448)
                return error(no, "shared (dynamic shared memory per block, bytes) must be 0 .. 232448");
            ex_.shared_bytes = static_cast<int>(v);
        } else if (key == "watchdog") {
            double v = 0;
            if (!parse_number(value, v) || v < 0.5 || v > 300)
                return error(no, "watchdog (seconds the checked run may take) must be 0.5 .. 300");
            ex_.watchdog_seconds = v;
        } else if (key == "goal") {
            parse_goal(value, no);
        } else {
            error(no, "unknown key '" + key +
                          "' (legal: exercise, title, workload, params, variant, replaces, compare, kernel, signature, "
                          "grid, block, shared, watchdog, goal)");
        }
    }

    bool need_workload(int no) {
        if (!ex_.workload.empty()) return true;
        error(no, "put 'workload:' first");
        return false;
    }

    // "dram <= 1.1 x fused", "time <= 1.5 x fused"
    void parse_goal(const std::string& value, int no) {
        const std::vector<std::string> w = words(value);
        Goal g;
        g.line = no;
        double f = 0;
        if (w.size() != 5 || (w[0] != "dram" && w[0] != "time") || w[1] != "<=" || !parse_number(w[2], f) || w[3] != "x")
            return error(no, "goal takes 'dram <= FACTOR x VARIANT' or 'time <= FACTOR x VARIANT', got '" + value + "'");
        if (!(f > 0 && f <= 1000)) return error(no, "a goal's factor must be > 0 and <= 1000");
        g.kind = w[0] == "dram" ? Goal::Kind::dram : Goal::Kind::time;
        g.factor = f;
        g.against = w[4];
        ex_.goals.push_back(g);
    }

    void start_section(const std::string& name, int no) {
        end_section();
        if (name == "task") section_ = Section::task;
        else if (name == "hint") section_ = Section::hint;
        else if (name == "starter") section_ = Section::starter;
        else if (name == "solution") section_ = Section::solution;
        else if (name == "predictions") section_ = Section::predictions;
        else {
            error(no, "unknown section '== " + name + "' (legal: task, hint, starter, solution, predictions)");
            section_ = Section::none;
            skipping_ = true;
            return;
        }
        skipping_ = false;
        section_line_ = no;
        if (section_ != Section::hint && !seen_sections_.insert(name).second) error(no, "section '" + name + "' appears twice");
    }

    // Prose as written wraps at ~100 columns: a single line break is a space, a blank line a paragraph.
    static std::string reflow(const std::string& text) {
        std::string out;
        for (size_t i = 0; i < text.size(); ++i) {
            const char c = text[i];
            if (c == '\n' && i + 1 < text.size() && text[i + 1] != '\n' && i > 0 && text[i - 1] != '\n') out += ' ';
            else out += c;
        }
        return out;
    }

    void end_section() {
        // Trailing blank lines belong to no section.
        while (body_.size() >= 2 && body_[body_.size() - 1] == '\n' && body_[body_.size() - 2] == '\n') body_.pop_back();
        switch (section_) {
        case Section::task: ex_.task = reflow(trim(body_)); break;
        case Section::hint:
            if (trim(body_).empty()) error(section_line_, "an empty hint");
            else ex_.hints.push_back(reflow(trim(body_)));
            break;
        case Section::starter:
            ex_.starter = body_;
            ex_.starter_line = section_line_ + 1;
            break;
        case Section::solution:
            ex_.solution = body_;
            ex_.solution_line = section_line_ + 1;
            break;
        case Section::predictions:
            if (ex_.workload.empty()) {
                error(section_line_, "== predictions needs 'workload:' in the header (its expressions are checked against it)");
                break;
            }
            // Kept as written: app/lessons/exercise_predictions.h parses it (the lessons' syntax).
            ex_.predictions_text = body_;
            ex_.predictions_line = section_line_ + 1;
            break;
        case Section::none: break;
        }
        body_.clear();
        section_ = Section::none;
    }

    // =========================================================================================
    // [SECTION] checks
    // =========================================================================================
    void check_whole(int last_line) {
        for (const char* key : {"title", "workload", "variant", "replaces", "kernel", "signature", "grid", "block"})
            if (!seen_keys_.count(key)) error(1, std::string("missing '") + key + ":'");
        for (const char* s : {"task", "starter", "solution"})
            if (!seen_sections_.count(s)) error(last_line, std::string("missing section '== ") + s + "'");
        if (ex_.hints.empty()) error(last_line, "at least one '== hint' section is needed (staged hints)");
        if (ex_.workload.empty()) return;
        const int line_of = key_lines_.count("replaces") ? key_lines_["replaces"] : 1;
        if (!ex_.variant.empty() && !ex_.replaces.empty() && kernels::validate(ex_.params).empty()) {
            const kernels::Schedule s = kernels::schedule(ex_.variant, ex_.params);
            std::vector<std::string> names;
            for (const kernels::ScheduleKernel& k : s.kernels) names.push_back(k.name);
            if (std::find(names.begin(), names.end(), ex_.replaces) == names.end())
                error(line_of, "replaces '" + ex_.replaces + "': " + ex_.variant + " has no such kernel (its kernels: " +
                                   join(names, ", ") + ")");
        }
        for (const Goal& g : ex_.goals)
            if (std::find(ex_.compare.begin(), ex_.compare.end(), g.against) == ex_.compare.end())
                error(g.line, "goal against '" + g.against + "', which 'compare:' does not list (" + join(ex_.compare, ", ") +
                                  "): the goal needs that variant measured in the same run");
        if (ex_.goals.empty()) error(last_line, "at least one 'goal:' is needed");
        if (!ex_.kernel.empty()) {
            for (const auto& [code, line, what] :
                 {std::tuple{&ex_.starter, ex_.starter_line, "starter"}, std::tuple{&ex_.solution, ex_.solution_line, "solution"}}) {
                if (code->empty()) continue;
                if (code->find("extern \"C\"") == std::string::npos || code->find(ex_.kernel + "(") == std::string::npos)
                    error(line, std::string("the ") + what + " must define extern \"C\" __global__ void " + ex_.kernel + "(...)");
            }
        }
    }

    std::string path_, text_;
    Exercise ex_;
    std::vector<ExerciseError> errors_;
    std::set<std::string> seen_keys_, seen_sections_;
    std::map<std::string, int> key_lines_;
    Section section_ = Section::none;
    bool skipping_ = false;
    int section_line_ = 0;
    std::string body_;
};

}  // namespace

ExerciseParse parse_exercise(const std::string& path, const std::string& text) { return Parser(path, text).run(); }

ExerciseParse load_exercise(const std::string& path) {
    std::string text;
    const platform::ReadResult r = platform::read_user_file(path, platform::UserFile::exercise, text);
    if (!r.ok()) {
        ExerciseParse p;
        p.exercise.path = path;
        p.errors.push_back({path, 0, r.reason});
        return p;
    }
    return parse_exercise(path, text);
}

// =============================================================================================
// [SECTION] files
// =============================================================================================
std::vector<std::string> exercise_files(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".exercise") files.push_back(it->path().string());
    std::sort(files.begin(), files.end());
    return files;
}

std::string exercises_dir(std::string* why_not) {
    return platform::data_dir(
        "FUSIONLAB_EXERCISES", "exercises", FUSIONLAB_EXERCISES_DIR,
        [](const std::string& dir) { return !exercise_files(dir).empty(); }, "exercises", "exercises/", why_not);
}

std::vector<std::pair<std::string, std::string>> exercise_headers(const std::string& dir) {
    std::vector<std::pair<std::string, std::string>> out;
    const std::string path = (fs::path(dir) / "include" / "fusionlab_exercise.cuh").string();
    std::string text;
    if (platform::read_user_file(path, platform::UserFile::kernel_source, text).ok())
        out.emplace_back("fusionlab_exercise.cuh", text);
    return out;
}

// =============================================================================================
// [SECTION] submissions
// =============================================================================================
const char* element_type(kernels::DType t) {
    switch (t) {
    case kernels::DType::f32: return "float";
    case kernels::DType::f16: return "__half";
    case kernels::DType::bf16: return "__nv_bfloat16";
    }
    return "float";
}

kernels::Job submission_job(const Exercise& ex, const kernels::Params& p, const std::string& source,
                            const std::string& source_name,
                            const std::vector<std::pair<std::string, std::string>>& headers) {
    auto k = std::make_shared<kernels::StudentKernel>();
    k->exercise = ex.name;
    k->source = source;
    k->source_name = source_name;
    k->headers = headers;
    k->entry = ex.kernel;
    k->base_variant = ex.variant;
    k->replaces = ex.replaces;
    for (const Argument& a : ex.arguments) {
        k->argument_names.push_back(a.name);
        k->argument_types.push_back(a.type);
    }
    for (size_t i = 0; i < 3; ++i) {
        std::string why;
        if (!evaluate_dimension(ex.grid[i], p, k->grid[i], why)) throw std::invalid_argument("grid: " + why);
        k->block[i] = ex.block[i];
    }
    k->shared_bytes = ex.shared_bytes;
    k->watchdog_seconds = ex.watchdog_seconds;
    kernels::Job job;
    job.params = p;
    job.variant = kernels::kStudentVariant;
    job.backend = kernels::BackendKind::gpu;
    job.student = std::move(k);
    return job;
}

}  // namespace app::exercises
