// The exercise pane's work without a window (app/exercises/exercise_session.h): the student's file
// made from the starter, autosaved, reloaded after another editor's save, nothing typed ever lost;
// the compile check's errors by line; a run's errors read back from its output; and the process
// runner it uses (app/platform/platform.h run_process).
#include "app/platform/platform.h"
#include "app/exercises/exercise_session.h"
#include "kernels/gpu/nvrtc_compile.h"
#include "temp_dir.h"

#include "test_skip.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace app::exercises;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
}

// File times on some file systems have a coarse grain: wait until a rewrite shows a new time.
void touch_later(const fs::path& p, const std::string& text) {
    const fs::file_time_type before = fs::last_write_time(p);
    for (int i = 0; i < 50; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        write_text(p, text);
        if (fs::last_write_time(p) != before) return;
    }
}

struct WorkFolder {
    fl_test::TempDir dir{"fusionlab_exercise_work_"};
    WorkFolder() { setenv("FUSIONLAB_EXERCISE_WORK", dir.path.c_str(), 1); }
    ~WorkFolder() { unsetenv("FUSIONLAB_EXERCISE_WORK"); }
};

}  // namespace

TEST_CASE("opening an exercise makes the student's file from the starter and keeps it after") {
    WorkFolder work;
    ExerciseSession s;
    REQUIRE(open_exercise(s, "bias_gelu") == "");
    CHECK(s.open);
    CHECK(fs::path(s.file) == work.dir.path / "bias_gelu.cu");
    CHECK(read_text(s.file) == s.ex.starter);
    CHECK(s.text == s.ex.starter);
    // The student's own text survives closing and opening again.
    write_text(s.file, "// mine\n");
    ExerciseSession again;
    REQUIRE(open_exercise(again, "bias_gelu") == "");
    CHECK(again.text == "// mine\n");
    CHECK(open_exercise(again, "no_such_exercise").find("no exercise named 'no_such_exercise'") != std::string::npos);
}

// The GUI hands in a check from above (the lesson engine parsing the `== predictions` section):
// what it refuses does not open, and the session keeps the exercise it had.
TEST_CASE("an exercise the acceptor refuses does not open and leaves the session as it was") {
    WorkFolder work;
    ExerciseSession s;
    REQUIRE(open_exercise(s, "bias_gelu") == "");
    std::string seen;
    const std::string why = open_exercise(s, "chain_fused", [&seen](const Exercise& ex) {
        seen = ex.name;
        return ex.predictions_line > 0 ? std::string("its predictions are malformed") : std::string();
    });
    CHECK(seen == "chain_fused");
    CHECK(why == "its predictions are malformed");
    CHECK(s.ex.name == "bias_gelu");
    CHECK_FALSE(fs::exists(work.dir.path / "chain_fused.cu"));
    CHECK(open_exercise(s, "chain_fused", [](const Exercise&) { return std::string(); }) == "");
    CHECK(s.ex.name == "chain_fused");
}

TEST_CASE("the buffer is saved a second after the last edit") {
    WorkFolder work;
    ExerciseSession s;
    REQUIRE(open_exercise(s, "bias_gelu") == "");
    s.text += "// typed\n";
    mark_edited(s, 10.0);
    service(s, 10.5);
    CHECK(read_text(s.file) == s.ex.starter);  // not yet: still typing
    service(s, 10.0 + kAutosaveSeconds + 0.01);
    CHECK(read_text(s.file) == s.ex.starter + "// typed\n");
    CHECK(s.edited_at < 0);
}

TEST_CASE("a file saved by another editor is reloaded and unsaved typing is kept beside it") {
    WorkFolder work;
    ExerciseSession s;
    REQUIRE(open_exercise(s, "bias_gelu") == "");
    SECTION("no unsaved edits: the editor shows the new file") {
        touch_later(s.file, "// from vim\n");
        service(s, 100.0);
        CHECK(s.text == "// from vim\n");
        CHECK(s.file_message.find("reloaded") != std::string::npos);
    }
    SECTION("unsaved edits: they go to a file of their own, never lost") {
        s.text = "// typed here, not saved yet\n";
        mark_edited(s, 99.9);
        touch_later(s.file, "// from vim\n");
        service(s, 100.0);
        CHECK(s.text == "// from vim\n");
        bool kept = false;
        for (const std::string& name : work.dir.entries())
            if (name.rfind("bias_gelu.cu.unsaved-", 0) == 0)
                kept = read_text(work.dir.path / name) == "// typed here, not saved yet\n";
        CHECK(kept);
    }
}

TEST_CASE("restoring the starter keeps the student's text") {
    WorkFolder work;
    ExerciseSession s;
    REQUIRE(open_exercise(s, "chain_fused") == "");
    s.text = "// my attempt\n";
    reset_to_starter(s, 5.0);
    CHECK(s.text == s.ex.starter);
    bool kept = false;
    for (const std::string& name : work.dir.entries())
        if (name.rfind("chain_fused.cu.before-starter-", 0) == 0) kept = read_text(work.dir.path / name) == "// my attempt\n";
    CHECK(kept);
}

TEST_CASE("a compile check marks the line of each error") {
    if (!kernels::nvrtc::status().empty()) {
        fl_test::skip(kernels::nvrtc::status());
        return;
    }
    WorkFolder work;
    ExerciseSession s;
    REQUIRE(open_exercise(s, "bias_gelu") == "");
    s.text = "extern \"C\" __global__ void bias_gelu_yours(const T* x, const T* bias, T* out, int64_t hidden) {\n"
             "    out[0] = x[0]\n"  // line 2: no semicolon
             "}\n";
    start_compile(s, 9, 0);
    for (int i = 0; i < 600 && s.compiling; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        service(s, 1000.0 + i);
    }
    REQUIRE_FALSE(s.compiling);
    CHECK_FALSE(s.compiled.ok);
    REQUIRE_FALSE(s.diagnostics().empty());
    CHECK(s.diagnostics()[0].line == 3);  // NVRTC reports the missing ';' where the next token is
    CHECK(read_text(s.file) == s.text);   // saved before compiling
}

TEST_CASE("a run's output gives its compile errors by line") {
    const std::string output = "exercise bias_gelu: Fuse bias + GELU\n"
                               "fusionlab exercises run: yours failed: your kernel does not compile (NVRTC 13.0, sm_90):\n"
                               "  bias_gelu.cu:5: error: identifier \"bias_value\" is undefined\n"
                               "  other.cu:7: error: not this file\n"
                               "  bias_gelu.cu:x: error: no number\n";
    const auto d = diagnostics_in_output(output, "bias_gelu.cu");
    REQUIRE(d.size() == 1);
    CHECK(d[0].line == 5);
    CHECK(d[0].message == "identifier \"bias_value\" is undefined");
}

TEST_CASE("run_process gives the exit code and the output of a program") {
    std::string out;
    CHECK(app::platform::run_process({"/bin/sh", "-c", "echo out; echo err 1>&2; exit 3"}, out) == 3);
    CHECK(out.find("out\n") != std::string::npos);
    CHECK(out.find("err\n") != std::string::npos);
    CHECK(app::platform::run_process({"/no/such/program"}, out) == 127);
    CHECK(out.find("cannot run /no/such/program") != std::string::npos);
    CHECK(app::platform::run_process({"/bin/sh", "-c", "kill -9 $$"}, out) == -1);
    CHECK(out.find("ended by signal 9") != std::string::npos);
}
