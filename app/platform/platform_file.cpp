// [SECTION] Kinds, limits and message text
// [SECTION] The bounded read (POSIX)
// [SECTION] The bounded read (elsewhere: std::filesystem and streams)
//
// Reading a file the user names, bounded (see platform_file.h for why). OS calls live here and
// in platform.cpp only.
#include "app/platform/platform_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#define FL_POSIX_READ 1
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#else
#define FL_POSIX_READ 0
#include <filesystem>
#include <fstream>
#include <system_error>
#endif

namespace app::platform {

// ---------------------------------------------------------------------------------------------
// [SECTION] Kinds, limits and message text
// ---------------------------------------------------------------------------------------------
// Each limit is far above the largest legitimate file of its kind (platform_file.h lists them), so
// no real file comes near it, yet low enough that refusing costs nothing and reading the largest
// allowed file takes well under a second.
int64_t kind_limit_bytes(UserFile kind) {
    switch (kind) {
    case UserFile::lesson: return 1ll << 20;       // 1 MiB: 100 times the longest lesson
    case UserFile::recording: return 64ll << 20;   // 64 MiB: 58 times the 2026-11-27 recordings
    case UserFile::reference: return 16ll << 20;   // 16 MiB: 290 times the shipped PyTorch reference
    case UserFile::results: return 64ll << 20;     // 64 MiB: 76 times the largest shipped export
    case UserFile::settings: return 1ll << 20;     // 1 MiB: settings.json is a few KB
    case UserFile::answers: return 8ll << 20;      // 8 MiB: a prediction's answer is about 400 B, a class's year a few hundred KB
    case UserFile::test_input: return 1ll << 20;   // 1 MiB: 100 times the largest corpus entry
    case UserFile::exercise: return 1ll << 20;     // 1 MiB: 80 times the longest exercise
    case UserFile::kernel_source: return 1ll << 20;  // 1 MiB: a kernel file of 20000 lines
    case UserFile::glossary: return 1ll << 20;     // 1 MiB: 140 times the shipped glossary
    case UserFile::superseded: return 1ll << 20;   // 1 MiB: a line a workload and reason, 850 B shipped
    }
    return 1ll << 20;
}

const char* kind_name(UserFile kind) {
    switch (kind) {
    case UserFile::lesson: return "lesson";
    case UserFile::recording: return "recording";
    case UserFile::reference: return "PyTorch reference file";
    case UserFile::results: return "results file";
    case UserFile::settings: return "settings file";
    case UserFile::answers: return "answers file";
    case UserFile::test_input: return "test input";
    case UserFile::exercise: return "exercise";
    case UserFile::kernel_source: return "kernel source file";
    case UserFile::glossary: return "glossary";
    case UserFile::superseded: return "superseded-points list";
    }
    return "file";
}

std::string byte_size_text(int64_t bytes) {
    static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    double value = static_cast<double>(bytes);
    int64_t whole_unit = 1;
    while (unit < 4 && bytes >= whole_unit * 1024) {
        whole_unit *= 1024;
        ++unit;
    }
    value /= static_cast<double>(whole_unit);
    char text[40];
    if (bytes % whole_unit == 0) std::snprintf(text, sizeof text, "%lld %s", static_cast<long long>(bytes / whole_unit), kUnits[unit]);
    else std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
    return text;
}

namespace {

std::function<void(const std::string&, int64_t)>& chunk_hook() {
    static std::function<void(const std::string&, int64_t)> hook;
    return hook;
}

// Read in chunks of this size; a file that changes while it is read is read this many times.
constexpr int64_t kChunkBytes = 64 << 10;
constexpr int kAttempts = 3;

ReadResult failed(ReadFailure failure, const std::string& path, std::string reason) {
    ReadResult r;
    r.failure = failure;
    r.message = path + ": " + reason;
    r.reason = std::move(reason);
    return r;
}

// "a recording", "an answers file", "an exercise": the kind with its article.
std::string a_kind(const std::string& what) {
    const bool vowel = !what.empty() && std::strchr("aeiouAEIOU", what.front()) != nullptr;
    return (vowel ? "an " : "a ") + what;
}

// "; a recording is read only from a regular file of at most 64 MiB"
std::string expected_text(const std::string& what, int64_t limit) {
    return "; " + a_kind(what) + " is read only from a regular file of at most " + byte_size_text(limit);
}

ReadResult not_regular(const std::string& path, const char* it_is, const std::string& what, int64_t limit) {
    return failed(ReadFailure::not_regular, path, std::string(it_is) + ", not a regular file" + expected_text(what, limit));
}

ReadResult symlink_loop(const std::string& path, const std::string& what, int64_t limit) {
    return failed(ReadFailure::not_regular, path,
                  "a loop of symbolic links (or too many links in a row), not a regular file" + expected_text(what, limit));
}

ReadResult too_large_reported(const std::string& path, int64_t size, const std::string& what, int64_t limit) {
    return failed(ReadFailure::too_large, path,
                  byte_size_text(size) + ", larger than " + a_kind(what) + " can be (limit " + byte_size_text(limit) + ")");
}

ReadResult too_large_read(const std::string& path, int64_t reported, const std::string& what, int64_t limit) {
    return failed(ReadFailure::too_large, path,
                  "more than " + byte_size_text(limit) + " read although the file system reports " +
                      byte_size_text(reported) + ", larger than " + a_kind(what) + " can be (limit " + byte_size_text(limit) + ")");
}

ReadResult kept_changing(const std::string& path, int64_t from, int64_t to, const std::string& what, int64_t limit) {
    return failed(ReadFailure::changed, path,
                  "changed while it was read, " + std::to_string(kAttempts) + " times (last from " + byte_size_text(from) +
                      " to " + byte_size_text(to) + "): still being written? Not loaded (" + what + ", limit " +
                      byte_size_text(limit) + ")");
}

ReadResult cannot_read(const std::string& path, int error) {
    return failed(error == ENOENT ? ReadFailure::not_found : ReadFailure::cannot_read, path,
                  std::string("cannot read: ") + std::strerror(error));
}

}  // namespace

void set_read_chunk_hook_for_tests(std::function<void(const std::string& path, int64_t bytes_so_far)> hook) {
    chunk_hook() = std::move(hook);
}

ReadResult read_user_file(const std::string& path, UserFile kind, std::string& out) {
    return read_bounded_file(path, kind_name(kind), kind_limit_bytes(kind), out);
}

#if FL_POSIX_READ
// ---------------------------------------------------------------------------------------------
// [SECTION] The bounded read (POSIX)
// ---------------------------------------------------------------------------------------------
namespace {

const char* what_it_is(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "not a file, a folder or a device";
}

// The identity and version of an open file: a change of size or modification time means it was
// written to while read.
struct Version {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    int64_t mtime_ns = 0;
    bool operator==(const Version& o) const {
        return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns;
    }
};

Version version_of(const struct stat& st) {
#if defined(__APPLE__)
    const struct timespec m = st.st_mtimespec;
#else
    const struct timespec m = st.st_mtim;
#endif
    return Version{st.st_dev, st.st_ino, st.st_size, static_cast<int64_t>(m.tv_sec) * 1000000000 + m.tv_nsec};
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

ReadResult read_bounded_file(const std::string& path, const std::string& what, int64_t limit, std::string& out) {
    out.clear();
    Version first_seen, last_seen;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        // What the path names, before opening it: opening a FIFO waits for a writer, and opening a
        // device can have effects of its own.
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) {
            const int error = errno;
            return error == ELOOP ? symlink_loop(path, what, limit) : cannot_read(path, error);
        }
        if (!S_ISREG(st.st_mode)) return not_regular(path, what_it_is(st.st_mode), what, limit);
        if (st.st_size > limit) return too_large_reported(path, st.st_size, what, limit);

        // Non-blocking, so a FIFO swapped in since the stat cannot hold the open; checked again
        // on the open file, which is what is read.
        Fd file;
        file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (file.fd < 0) {
            const int error = errno;
            return error == ELOOP ? symlink_loop(path, what, limit) : cannot_read(path, error);
        }
        if (::fstat(file.fd, &st) != 0) return cannot_read(path, errno);
        if (!S_ISREG(st.st_mode)) return not_regular(path, what_it_is(st.st_mode), what, limit);
        if (st.st_size > limit) return too_large_reported(path, st.st_size, what, limit);
        const Version before = version_of(st);
        if (attempt == 0) first_seen = before;

        // At most limit + 1 bytes, whatever the reported size: one byte over says "too large".
        std::string data;
        data.reserve(static_cast<size_t>(std::min<int64_t>(st.st_size, limit)) + 1);
        char chunk[kChunkBytes];
        int64_t total = 0;
        while (total <= limit) {
            const size_t want = static_cast<size_t>(std::min<int64_t>(kChunkBytes, limit + 1 - total));
            const ssize_t n = ::read(file.fd, chunk, want);
            if (n < 0) {
                if (errno == EINTR) continue;
                return cannot_read(path, errno);
            }
            if (n == 0) break;
            data.append(chunk, static_cast<size_t>(n));
            total += n;
            if (chunk_hook()) chunk_hook()(path, total);
        }
        if (total > limit) return too_large_read(path, before.size, what, limit);

        if (::fstat(file.fd, &st) != 0) return cannot_read(path, errno);
        last_seen = version_of(st);
        if (last_seen == before) {
            out = std::move(data);
            return {};
        }
        // Written to while read: what was read may mix two versions. Read it again.
    }
    return kept_changing(path, first_seen.size, last_seen.size, what, limit);
}

#else
// ---------------------------------------------------------------------------------------------
// [SECTION] The bounded read (elsewhere: std::filesystem and streams)
// ---------------------------------------------------------------------------------------------
// Windows has no FIFOs or devices in its file namespace that std::filesystem would call regular;
// the same checks through the standard library.
ReadResult read_bounded_file(const std::string& path, const std::string& what, int64_t limit, std::string& out) {
    namespace fs = std::filesystem;
    out.clear();
    int64_t first_size = 0, last_size = 0;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        std::error_code ec;
        const fs::file_status status = fs::status(path, ec);
        if (ec) return cannot_read(path, ec.value());
        switch (status.type()) {
        case fs::file_type::regular: break;
        case fs::file_type::not_found: return cannot_read(path, ENOENT);
        case fs::file_type::directory: return not_regular(path, "a folder", what, limit);
        case fs::file_type::fifo: return not_regular(path, "a FIFO (named pipe)", what, limit);
        case fs::file_type::socket: return not_regular(path, "a socket", what, limit);
        case fs::file_type::character: return not_regular(path, "a character device", what, limit);
        case fs::file_type::block: return not_regular(path, "a block device", what, limit);
        default: return not_regular(path, "not a file, a folder or a device", what, limit);
        }
        const int64_t size = static_cast<int64_t>(fs::file_size(path, ec));
        const auto written = fs::last_write_time(path, ec);
        if (size > limit) return too_large_reported(path, size, what, limit);
        if (attempt == 0) first_size = size;
        std::ifstream in(path, std::ios::binary);
        if (!in) return cannot_read(path, errno ? errno : EACCES);
        std::string data;
        char chunk[kChunkBytes];
        int64_t total = 0;
        while (total <= limit && in) {
            in.read(chunk, static_cast<std::streamsize>(std::min<int64_t>(kChunkBytes, limit + 1 - total)));
            const std::streamsize n = in.gcount();
            if (n <= 0) break;
            data.append(chunk, static_cast<size_t>(n));
            total += n;
            if (chunk_hook()) chunk_hook()(path, total);
        }
        if (total > limit) return too_large_read(path, size, what, limit);
        last_size = static_cast<int64_t>(fs::file_size(path, ec));
        if (last_size == size && fs::last_write_time(path, ec) == written) {
            out = std::move(data);
            return {};
        }
    }
    return kept_changing(path, first_size, last_size, what, limit);
}
#endif

}  // namespace app::platform
