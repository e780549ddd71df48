// The bounded reader of user-named files (app/platform/platform_file.h) and every loader routed
// through it: lessons, recordings, PyTorch reference files, results files to import, settings,
// answers (the app's and `lessons answers`), exercise files, the glossary, the student's kernel file
// (`exercises run --kernel` and the exercise pane's open and reload). Each is handed what a user might name by mistake (a folder, a FIFO nobody writes to, /dev/zero,
// /dev/urandom, a sparse file of 6 GiB, a loop of symbolic links, a file truncated while it is
// read) and must answer within a second, with memory flat, in one line naming the file, what it
// is and the limit. Before the reader, /dev/zero grew a loader to gigabytes in seconds.
#include "app/cli/cli.h"
#include "app/exercises/exercise.h"
#include "app/exercises/exercise_cli.h"
#include "app/exercises/exercise_session.h"
#include "app/lessons/glossary.h"
#include "app/lessons/model/answers.h"
#include "app/lessons/model/lesson.h"
#include "app/platform/platform_file.h"
#include "app/recordings/recording_file.h"
#include "app/recordings/sim_heldout.h"
#include "app/files/reference.h"
#include "app/files/results_import.h"
#include "app/core/settings.h"
#include "app/platform/platform.h"

#include "app/lessons/parser.h"
#include "temp_dir.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#define FL_HAVE_POSIX_FILES 1
#else
#define FL_HAVE_POSIX_FILES 0
#endif

namespace fs = std::filesystem;
using app::platform::ReadFailure;
using app::platform::UserFile;

namespace {

// The first line of a command's error output, without its newline.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

struct Reader {
    const char* name;
    UserFile kind;
    std::function<std::string(const std::string& path)> load;  // "" when loaded, else the message
};

const std::vector<Reader>& readers() {
    static const std::vector<Reader> all = {
        {"load_lesson", UserFile::lesson,
         [](const std::string& path) {
             const app::LessonParse p = app::load_lesson(path);
             return p.errors.empty() ? std::string() : p.errors.front().text();
         }},
        {"load_recording", UserFile::recording,
         [](const std::string& path) {
             app::Recording r;
             return app::load_recording(path, r);
         }},
        {"load_reference_json", UserFile::reference,
         [](const std::string& path) {
             app::ReferenceFile f;
             return app::load_reference_json(path, f);
         }},
        {"load_measurements_json", UserFile::results,
         [](const std::string& path) {
             std::vector<kernels::Measurement> m;
             return app::load_measurements_json(path, m);
         }},
        {"load_settings", UserFile::settings,
         [](const std::string& path) {
             app::Settings s;
             return app::load_settings(path, s);
         }},
        {"load_answers", UserFile::answers,
         [](const std::string& path) {
             app::AnswerBook book;
             return app::load_answers(path, book);
         }},
        {"lessons answers --answers", UserFile::answers,
         [](const std::string& path) {
             app::cli::LessonsOptions o;
             o.action = "answers";
             o.csv = "-";
             o.answers = path;
             std::ostringstream out, err;
             app::cli::run_lessons(o, out, err);
             return first_line(err.str());
         }},
        {"load_exercise", UserFile::exercise,
         [](const std::string& path) {
             const app::exercises::ExerciseParse p = app::exercises::load_exercise(path);
             return p.errors.empty() ? std::string() : p.errors.front().text();
         }},
        {"load_glossary", UserFile::glossary,
         [](const std::string& path) {
             const app::Glossary g = app::load_glossary(path);
             return g.errors.empty() ? std::string() : g.errors.front().text();
         }},
        // A recording folder's superseded.txt (`info --sim-heldout --repository DIR` reads every one).
        {"read_superseded", UserFile::superseded,
         [](const std::string& path) {
             std::vector<std::string> errors;
             app::read_superseded(path, errors);
             return errors.empty() ? std::string() : errors.front();
         }},
        // The student's kernel file, read before anything is compiled or run (no GPU needed).
        {"exercises run --kernel", UserFile::kernel_source,
         [](const std::string& path) {
             app::exercises::ExercisesOptions o;
             o.action = "run";
             o.name = (fs::path(FL_SOURCE_DIR) / "exercises" / "bias_gelu.exercise").string();
             o.kernel = path;
             std::ostringstream out, err;
             app::exercises::run_exercises(o, out, err);
             return first_line(err.str());
         }},
    };
    return all;
}

std::string limit_text(UserFile kind) { return app::platform::byte_size_text(app::platform::kind_limit_bytes(kind)); }

// Runs the loader: it must return within a second, keep the resident set within 8 MiB of where it
// was (an unbounded read of /dev/zero grows it by hundreds of MiB a second) and answer in one line.
std::string load_bounded(const Reader& reader, const std::string& path) {
    const auto rss_before = app::platform::host_rss_bytes(nullptr);
    const auto start = std::chrono::steady_clock::now();
    const std::string message = reader.load(path);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto rss_after = app::platform::host_rss_bytes(nullptr);
    INFO(reader.name << "(" << path << "): " << message << " (" << seconds << " s)");
    CHECK(seconds < 1.0);
    if (rss_before && rss_after) CHECK(*rss_after - *rss_before < (8 << 20));
    CHECK(message.find('\n') == std::string::npos);
    return message;
}

// A refusal names the file, what it is, the kind of file expected and the kind's limit.
void check_refused(const Reader& reader, const std::string& path, const std::string& it_is) {
    const std::string message = load_bounded(reader, path);
    INFO(reader.name << ": " << message);
    CHECK_THAT(message, Catch::Contains(path) && Catch::Contains(it_is) &&
                            Catch::Contains(app::platform::kind_name(reader.kind)) &&
                            Catch::Contains(limit_text(reader.kind)));
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

// Sets the reader's chunk hook for one test and removes it at the end, whatever happens.
struct ChunkHook {
    explicit ChunkHook(std::function<void(const std::string&, int64_t)> hook) {
        app::platform::set_read_chunk_hook_for_tests(std::move(hook));
    }
    ~ChunkHook() { app::platform::set_read_chunk_hook_for_tests(nullptr); }
    ChunkHook(const ChunkHook&) = delete;
    ChunkHook& operator=(const ChunkHook&) = delete;
};

}  // namespace

TEST_CASE("bounded read: every loader refuses a folder, naming it and the limit", "[bounded_read]") {
    fl_test::TempDir dir;
    for (const Reader& reader : readers()) check_refused(reader, dir.path.string(), "a folder");
}

#if FL_HAVE_POSIX_FILES
TEST_CASE("bounded read: every loader refuses a FIFO without a writer at once", "[bounded_read]") {
    fl_test::TempDir dir;
    const fs::path fifo = dir.path / "pipe.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    for (const Reader& reader : readers()) check_refused(reader, fifo.string(), "a FIFO (named pipe)");
}

TEST_CASE("bounded read: every loader refuses /dev/zero and /dev/urandom, which never end", "[bounded_read]") {
    for (const char* device : {"/dev/zero", "/dev/urandom"}) {
        if (!fs::exists(device)) continue;
        for (const Reader& reader : readers()) check_refused(reader, device, "a character device");
    }
}

TEST_CASE("bounded read: a socket is refused", "[bounded_read]") {
    fl_test::TempDir dir;
    const fs::path path = dir.path / "s.json";
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    REQUIRE(path.string().size() < sizeof address.sun_path);
    path.string().copy(address.sun_path, sizeof address.sun_path - 1);
    REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
    for (const Reader& reader : readers()) check_refused(reader, path.string(), "a socket");
    ::close(fd);
}

TEST_CASE("bounded read: every loader refuses a loop of symbolic links", "[bounded_read]") {
    fl_test::TempDir dir;
    const fs::path a = dir.path / "a.json", b = dir.path / "b.json";
    fs::create_symlink(b, a);
    fs::create_symlink(a, b);
    for (const Reader& reader : readers()) check_refused(reader, a.string(), "a loop of symbolic links");
}

TEST_CASE("bounded read: a recordings folder names a FIFO and a link loop among its recordings, and goes on", "[bounded_read]") {
    fl_test::TempDir dir;
    fs::create_directories(dir.path / "h100-2026-01-01");
    fs::create_directories(dir.path / "h200-2026-01-01");
    const fs::path fifo = dir.path / "h100-2026-01-01" / "recording.json";
    const fs::path loop = dir.path / "h200-2026-01-01" / "recording.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    fs::create_symlink(loop, loop);  // a link to itself
    const auto start = std::chrono::steady_clock::now();
    const app::RecordingCatalog catalog = app::load_recordings(dir.path.string());
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0);
    CHECK(catalog.recordings.empty());
    REQUIRE(catalog.errors.size() == 2);
    CHECK_THAT(catalog.errors[0], Catch::StartsWith(fifo.string() + ": a FIFO (named pipe), not a regular file"));
    CHECK_THAT(catalog.errors[1], Catch::StartsWith(loop.string() + ": a loop of symbolic links"));
}

// The exercise pane reads the student's file when it opens the exercise and again whenever its
// modification time changes (another editor saved it). Whatever replaces that file, the pane says so
// in one line naming the file, what it is and the limit, within a second and with memory flat, and
// the text in the editor stays.
TEST_CASE("bounded read: the exercise pane refuses what replaces the student's file, and keeps the text", "[bounded_read]") {
    fl_test::TempDir work{"fusionlab_exercise_work_"};
    ::setenv("FUSIONLAB_EXERCISE_WORK", work.path.c_str(), 1);
    struct Unset {
        ~Unset() { ::unsetenv("FUSIONLAB_EXERCISE_WORK"); }
    } unset;
    const fs::path file = work.path / "bias_gelu.cu";
    struct BadFile {
        const char* it_is;
        std::function<void()> make;  // replaces `file`
    };
    const std::vector<BadFile> bad = {
        {"a folder", [&] { fs::create_directory(file); }},
        {"a FIFO (named pipe)", [&] { REQUIRE(::mkfifo(file.c_str(), 0600) == 0); }},
        {"a character device", [&] { fs::create_symlink("/dev/zero", file); }},
        {"a loop of symbolic links", [&] { fs::create_symlink(file, file); }},
        {"6 GiB, larger than", [&] {
             write_text(file, "//");
             fs::resize_file(file, 6ull << 30);
         }},
        {"changed while it was read", [&] { write_text(file, std::string(300 << 10, ' ')); }},
    };
    int truncations = 0;
    ChunkHook hook([&](const std::string& path, int64_t bytes_so_far) {
        if (path != file.string() || bytes_so_far != (64 << 10)) return;
        fs::resize_file(file, fs::file_size(file) - 1024);
        ++truncations;
    });
    const std::string limit = limit_text(UserFile::kernel_source);
    double now = 100;
    for (const BadFile& b : bad) {
        INFO(b.it_is);
        std::error_code ec;
        fs::remove_all(file, ec);
        app::exercises::ExerciseSession s;
        REQUIRE(app::exercises::open_exercise(s, "bias_gelu") == "");
        REQUIRE(s.text == s.ex.starter);
        s.text += "// typed, not saved yet\n";
        const std::string typed = s.text;
        fs::remove(file, ec);
        b.make();
        // The reload: a new modification time (or none: the loop) is noticed at the next poll.
        const auto rss_before = app::platform::host_rss_bytes(nullptr);
        const auto start = std::chrono::steady_clock::now();
        now += 1;
        app::exercises::service(s, now);
        CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0);
        const auto rss_after = app::platform::host_rss_bytes(nullptr);
        if (rss_before && rss_after) CHECK(*rss_after - *rss_before < (8 << 20));
        INFO(s.file_message);
        CHECK_THAT(s.file_message, Catch::StartsWith("not reloaded: " + file.string() + ": ") && Catch::Contains(b.it_is) &&
                                       Catch::Contains("kernel source file") && Catch::Contains(limit));
        CHECK(s.file_message.find('\n') == std::string::npos);
        CHECK(s.text == typed);  // the editor's text stays
        // Opening the exercise on such a file: the same line, nothing opened (a loop of links is
        // not there to open: the starter replaces the link, as for a missing file).
        if (std::string(b.it_is) == "a loop of symbolic links") continue;
        app::exercises::ExerciseSession again;
        const auto open_start = std::chrono::steady_clock::now();
        const std::string why = app::exercises::open_exercise(again, "bias_gelu");
        CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - open_start).count() < 1.0);
        INFO(why);
        CHECK_THAT(why, Catch::StartsWith(file.string() + ": ") && Catch::Contains(b.it_is) && Catch::Contains(limit));
        CHECK_FALSE(again.open);
    }
    CHECK(truncations == 6);  // the truncated file: read three times at the reload, three at the open
}
#endif

TEST_CASE("bounded read: every loader refuses a sparse file of 6 GiB without reading it", "[bounded_read]") {
    fl_test::TempDir dir;
    const fs::path huge = dir.path / "huge.json";
    write_text(huge, "{");
    fs::resize_file(huge, 6ull << 30);  // sparse: no disk used, 6 GiB reported
    for (const Reader& reader : readers()) check_refused(reader, huge.string(), "6 GiB, larger than");
}

TEST_CASE("bounded read: every loader refuses a file truncated each time it is read", "[bounded_read]") {
    fl_test::TempDir dir;
    const fs::path file = dir.path / "shrinking.json";
    // Each read is cut short after its first 64 KiB chunk: the file loses 1 KiB, as if another
    // program were rewriting it, on every attempt.
    int truncations = 0;
    ChunkHook hook([&](const std::string& path, int64_t bytes_so_far) {
        if (path != file.string() || bytes_so_far != (64 << 10)) return;
        fs::resize_file(file, fs::file_size(file) - 1024);
        ++truncations;
    });
    for (const Reader& reader : readers()) {
        write_text(file, std::string(300 << 10, ' '));
        truncations = 0;
        check_refused(reader, file.string(), "changed while it was read");
        CHECK(truncations == 3);  // read three times, then refused
    }
}

TEST_CASE("bounded read: a file rewritten during the read is read again, whole", "[bounded_read]") {
    fl_test::TempDir dir;
    const fs::path file = dir.path / "rewritten.txt";
    const std::string first(200 << 10, 'a');
    const std::string second = std::string(150 << 10, 'b') + "end";
    write_text(file, first);
    bool rewritten = false;
    ChunkHook hook([&](const std::string& path, int64_t bytes_so_far) {
        if (rewritten || path != file.string() || bytes_so_far < (64 << 10)) return;
        rewritten = true;
        write_text(file, second);  // in the middle of the first read
    });
    std::string text;
    const app::platform::ReadResult r = app::platform::read_user_file(file.string(), UserFile::test_input, text);
    INFO(r.message);
    REQUIRE(r.ok());
    CHECK(rewritten);
    CHECK(text == second);  // not a mix of both versions
}

TEST_CASE("bounded read: the limit is the limit, and the size the file system reports is not trusted", "[bounded_read]") {
    fl_test::TempDir dir;
    const fs::path file = dir.path / "edge.txt";
    std::string text;
    write_text(file, std::string(1000, 'x'));
    CHECK(app::platform::read_bounded_file(file.string(), "test file", 1000, text).ok());
    CHECK(text.size() == 1000);
    write_text(file, std::string(1001, 'x'));
    const app::platform::ReadResult over = app::platform::read_bounded_file(file.string(), "test file", 1000, text);
    CHECK(over.failure == ReadFailure::too_large);
    CHECK(over.message == file.string() + ": 1001 B, larger than a test file can be (limit 1000 B)");
    CHECK(text.empty());
#if defined(__linux__)
    // /proc files report 0 bytes: the read is bounded by the limit, not by that size.
    const app::platform::ReadResult lying = app::platform::read_bounded_file("/proc/self/smaps", "test file", 4096, text);
    CHECK(lying.failure == ReadFailure::too_large);
    CHECK(lying.message == "/proc/self/smaps: more than 4 KiB read although the file system reports 0 B, larger "
                           "than a test file can be (limit 4 KiB)");
    CHECK(app::platform::read_bounded_file("/proc/self/status", "test file", 1 << 20, text).ok());
    CHECK_THAT(text, Catch::Contains("VmRSS:"));  // read whole although it says it holds nothing
#endif
}

TEST_CASE("bounded read: a missing file is 'not found' - settings then start from defaults", "[bounded_read]") {
    fl_test::TempDir dir;
    const std::string missing = (dir.path / "missing.json").string();
    std::string text;
    const app::platform::ReadResult r = app::platform::read_user_file(missing, UserFile::results, text);
    CHECK(r.failure == ReadFailure::not_found);
    CHECK(r.message == missing + ": cannot read: No such file or directory");
    app::Settings s;
    CHECK(app::load_settings(missing, s).empty());  // a first run, not an error
}

TEST_CASE("bounded read: the shipped lessons, recordings and exports are far below their kind's limit", "[bounded_read]") {
    const fs::path root = FL_SOURCE_DIR;
    struct Shipped {
        fs::path dir;
        std::string name;  // file name, or "" for every file with the extension
        std::string extension;
        UserFile kind;
    };
    const std::vector<Shipped> shipped = {{root / "lessons", "", ".lesson", UserFile::lesson},
                                          {root / "assets" / "recordings", "recording.json", "", UserFile::recording},
                                          {root / "assets" / "recordings", "superseded.txt", "", UserFile::superseded},
                                          {root / "assets" / "measurements", "reference.json", "", UserFile::reference},
                                          {root / "assets" / "measurements", "", ".json", UserFile::results}};
    for (const Shipped& s : shipped) {
        int64_t largest = 0;
        int files = 0;
        for (const auto& entry : fs::recursive_directory_iterator(s.dir)) {
            if (!entry.is_regular_file()) continue;
            const fs::path& p = entry.path();
            if (!s.name.empty() ? p.filename() != s.name : p.extension() != s.extension) continue;
            largest = std::max<int64_t>(largest, static_cast<int64_t>(entry.file_size()));
            ++files;
            std::string text;
            const app::platform::ReadResult r = app::platform::read_user_file(p.string(), s.kind, text);
            INFO(r.message);
            CHECK(r.ok());
        }
        INFO(s.dir << ": " << files << " files, the largest " << largest << " bytes");
        CHECK(files > 0);
        CHECK(largest * 10 < app::platform::kind_limit_bytes(s.kind));  // headroom for larger ones to come
    }
}

TEST_CASE("bounded read: the fuzzers' corpora go through the reader and the loaders", "[bounded_read]") {
    const fs::path corpus = fs::path(FL_SOURCE_DIR) / "tests" / "fuzz" / "corpus";
    struct Corpus {
        const char* name;
        UserFile kind;
    };
    const Corpus corpora[] = {{"lesson", UserFile::lesson},     {"recording", UserFile::recording},
                              {"settings", UserFile::settings}, {"cli", UserFile::test_input},
                              {"params", UserFile::test_input}, {"exercise", UserFile::exercise}};
    for (const Corpus& c : corpora) {
        int files = 0;
        for (const auto& entry : fs::directory_iterator(corpus / c.name)) {
            if (!entry.is_regular_file()) continue;
            const std::string path = entry.path().string();
            std::string text;
            const app::platform::ReadResult r = app::platform::read_user_file(path, c.kind, text);
            INFO(r.message);
            REQUIRE(r.ok());
            REQUIRE(text.size() == entry.file_size());
            ++files;
            // The loaders on the same files: a parse error at most, never a refusal by the reader.
            for (const Reader& reader : readers()) {
                if (reader.kind != c.kind) continue;
                const std::string message = reader.load(path);
                INFO(reader.name << ": " << message);
                CHECK(message.find("not a regular file") == std::string::npos);
                CHECK(message.find("larger than") == std::string::npos);
                CHECK(message.find("changed while it was read") == std::string::npos);
            }
        }
        INFO(c.name);
        CHECK(files >= 5);  // the smallest corpus (exercise) holds 7
    }
}

TEST_CASE("bounded read: sizes in messages", "[bounded_read]") {
    using app::platform::byte_size_text;
    CHECK(byte_size_text(0) == "0 B");
    CHECK(byte_size_text(1023) == "1023 B");
    CHECK(byte_size_text(1024) == "1 KiB");
    CHECK(byte_size_text(1536) == "1.5 KiB");
    CHECK(byte_size_text(64ll << 20) == "64 MiB");
    CHECK(byte_size_text(6ll << 30) == "6 GiB");
}
