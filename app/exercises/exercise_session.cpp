// The exercise pane's state and work (exercise_session.h). [SECTION] index:
//   files      the student's file: where, create, save, reload
//   compile    the compile check on a worker thread
//   run        a run in its own process, its measurements read back
#include "app/exercises/exercise_session.h"

#include "app/files/export.h"
#include "app/platform/platform.h"
#include "app/platform/platform_file.h"
#include "app/files/results_import.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <sstream>

namespace fs = std::filesystem;

namespace app::exercises {

// =============================================================================================
// [SECTION] files
// =============================================================================================
fs::path work_dir() {
    if (const char* e = std::getenv("FUSIONLAB_EXERCISE_WORK"); e && *e) return fs::path(e);
    const fs::path config = platform::config_dir();
    return config.empty() ? fs::temp_directory_path() / "fusionlab-exercises" : config / "exercises";
}

namespace {

std::string stamp() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
    return buf;
}

fs::file_time_type mtime(const std::string& path) {
    std::error_code ec;
    const fs::file_time_type t = fs::last_write_time(path, ec);
    return ec ? fs::file_time_type{} : t;
}

// Keeps `text` in a file beside the student's (never overwrites one).
std::string keep_copy(const ExerciseSession& s, const std::string& suffix, const std::string& text) {
    const std::string path = s.file + "." + suffix + "-" + stamp();
    const std::string err = write_file_atomic(path, text);
    return err.empty() ? path : "";
}

}  // namespace

std::string open_exercise(ExerciseSession& s, const std::string& name, const ExerciseAcceptor& accept) {
    std::string why;
    const std::string dir = exercises_dir(&why);
    if (dir.empty()) return why;
    std::string path;
    for (const std::string& f : exercise_files(dir))
        if (fs::path(f).stem().string() == name) path = f;
    if (path.empty()) return "no exercise named '" + name + "' in " + dir;
    ExerciseParse p = load_exercise(path);
    if (!p.ok()) return p.errors.front().text();
    if (accept)
        if (std::string refused = accept(p.exercise); !refused.empty()) return refused;
    s.ex = std::move(p.exercise);
    s.headers = exercise_headers(dir);
    s.hints_shown = 0;
    s.compiled_once = s.ran_once = false;
    s.compiled = {};
    s.last_run = {};
    std::error_code ec;
    fs::create_directories(work_dir(), ec);
    s.file = (work_dir() / (name + ".cu")).string();
    if (!fs::exists(s.file, ec)) {
        if (std::string err = write_file_atomic(s.file, s.ex.starter); !err.empty())
            return "cannot create your file " + s.file + ": " + err;
        s.file_message = "your file " + s.file + " starts from the starter";
    } else {
        s.file_message = "your file " + s.file + " (edit it here or in your own editor: it reloads when saved)";
    }
    std::string text;
    const platform::ReadResult r = platform::read_user_file(s.file, platform::UserFile::kernel_source, text);
    if (!r.ok()) return r.message;
    s.text = s.saved_text = text;
    s.file_time = mtime(s.file);
    s.edited_at = -1;
    s.open = true;
    return "";
}

void mark_edited(ExerciseSession& s, double now) { s.edited_at = now; }

std::string save_now(ExerciseSession& s) {
    if (s.file.empty() || s.text == s.saved_text) {
        s.edited_at = -1;
        return "";
    }
    // Another editor saved since we last looked: keep its version beside ours, never lose either.
    if (mtime(s.file) != s.file_time) {
        std::string theirs;
        if (platform::read_user_file(s.file, platform::UserFile::kernel_source, theirs).ok() && theirs != s.saved_text) {
            const std::string kept = keep_copy(s, "conflict", theirs);
            s.file_message = "the file changed on disk while you typed here: its version is kept as " + kept;
        }
    }
    if (std::string err = write_file_atomic(s.file, s.text); !err.empty()) {
        s.file_message = "not saved: " + err + " (your text stays here; fix the folder and it saves again)";
        return err;
    }
    s.saved_text = s.text;
    s.file_time = mtime(s.file);
    s.edited_at = -1;
    return "";
}

void reset_to_starter(ExerciseSession& s, double now) {
    if (s.text != s.ex.starter) {
        const std::string kept = keep_copy(s, "before-starter", s.text);
        s.file_message = "the starter is back; your text is kept as " + kept;
    }
    s.text = s.ex.starter;
    mark_edited(s, now);
}

// =============================================================================================
// [SECTION] compile
// =============================================================================================
void start_compile(ExerciseSession& s, int cc_major, int cc_minor) {
    if (s.compiling) return;
    save_now(s);
    kernels::nvrtc::CompileRequest req;
    req.source = s.text;
    req.source_name = fs::path(s.file).filename().string();
    req.element_type = element_type(s.ex.params.dtype);
    req.headers = s.headers;
    req.cc_major = cc_major;
    req.cc_minor = cc_minor;
    s.compiling = true;
    s.compile_future = std::async(std::launch::async, [req] { return kernels::nvrtc::compile(req); });
}

std::vector<kernels::nvrtc::Diagnostic> diagnostics_in_output(const std::string& output, const std::string& file_name) {
    std::vector<kernels::nvrtc::Diagnostic> out;
    std::istringstream in(output);
    std::string line;
    const std::string head = file_name + ":";
    while (std::getline(in, line)) {
        const size_t at = line.find(head);
        if (at == std::string::npos) continue;
        size_t i = at + head.size(), j = i;
        while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
        if (j == i || j - i > 9 || line.compare(j, 9, ": error: ") != 0) continue;
        out.push_back({std::stoi(line.substr(i, j - i)), "error", line.substr(j + 9)});
    }
    return out;
}

std::vector<kernels::nvrtc::Diagnostic> ExerciseSession::diagnostics() const {
    if (ran_once && !compiled_once) return diagnostics_in_output(last_run.output, fs::path(file).filename().string());
    return compiled.diagnostics;
}

// =============================================================================================
// [SECTION] run
// =============================================================================================
void start_run(ExerciseSession& s, const std::string& program) {
    if (s.running) return;
    save_now(s);
    const std::string json = s.file + ".run.json";
    std::error_code ec;
    fs::remove(json, ec);
    const std::vector<std::string> args{program, "exercises", "run", s.ex.path, "--kernel", s.file, "--json", json};
    s.running = true;
    s.run_future = std::async(std::launch::async, [args, json] {
        RunOutcome r;
        r.exit_code = platform::run_process(args, r.output);
        std::error_code e;
        if (fs::exists(json, e)) r.read_error = load_measurements_json(json, r.measured);
        else r.read_error = "the run wrote no measurements";
        return r;
    });
}

bool service(ExerciseSession& s, double now) {
    if (!s.open) return false;
    if (s.edited_at >= 0 && now - s.edited_at >= kAutosaveSeconds) {
        if (save_now(s).empty()) s.file_message = "saved " + s.file;
    }
    if (now - s.checked_disk_at >= kReloadPollSeconds) {
        s.checked_disk_at = now;
        const fs::file_time_type t = mtime(s.file);
        if (t != s.file_time) {
            s.file_time = t;
            std::string theirs;
            const platform::ReadResult read = platform::read_user_file(s.file, platform::UserFile::kernel_source, theirs);
            if (!read.ok()) {
                // Replaced by what is no kernel file (a folder, a FIFO, a device, a huge file) or
                // removed: said once per change on disk; the text here stays and is what saves.
                s.file_message = "not reloaded: " + read.message + " (the text here is kept)";
            } else if (theirs != s.saved_text) {
                if (s.text != s.saved_text) {
                    // Unsaved edits here and a new version there: the buffer's text is kept beside it.
                    const std::string kept = keep_copy(s, "unsaved", s.text);
                    s.file_message = "reloaded: another editor saved the file; the text you had typed here is kept "
                                     "as " + kept;
                } else {
                    s.file_message = "reloaded: another editor saved " + s.file;
                }
                s.text = s.saved_text = theirs;
                s.edited_at = -1;
            }
        }
    }
    if (s.compiling && s.compile_future.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        s.compiled = s.compile_future.get();
        s.compiling = false;
        s.compiled_once = true;
    }
    if (s.running && s.run_future.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        s.last_run = s.run_future.get();
        s.running = false;
        s.ran_once = true;
        s.compiled_once = false;  // the run's compile errors (if any) are the ones to mark
        return true;
    }
    return false;
}

}  // namespace app::exercises
