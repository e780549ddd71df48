// OS-specific calls, kept in one file so the rest of app/ builds anywhere (see platform.h).
#include "app/platform/platform.h"

#include <cerrno>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#ifndef FUSIONLAB_DATA_FROM_BIN
#define FUSIONLAB_DATA_FROM_BIN "../share/fusionlab"
#endif

#if defined(__linux__)
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace app::platform {

namespace fs = std::filesystem;

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
std::optional<HeapStats> heap_stats() {
    const struct mallinfo2 m = ::mallinfo2();
    return HeapStats{static_cast<int64_t>(m.uordblks + m.hblkhd), static_cast<int64_t>(m.fordblks),
                     static_cast<int64_t>(m.hblkhd)};
}
#else
std::optional<HeapStats> heap_stats() { return std::nullopt; }
#endif

#if defined(__GLIBC__)
void release_free_heap() { (void)::malloc_trim(0); }
// Setting M_MMAP_THRESHOLD also turns off glibc's dynamic thresholds (mmap and trim) for good.
void configure_heap() { (void)::mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHeapMapThresholdBytes)); }
#else
void release_free_heap() {}
void configure_heap() {}
#endif

#if defined(__linux__)
std::optional<double> seconds_since_process_start() {
    std::ifstream stat("/proc/self/stat"), uptime("/proc/uptime");
    std::string line;
    double up = 0;
    if (!std::getline(stat, line) || !(uptime >> up)) return std::nullopt;
    // Field 22 (starttime, clock ticks after boot); fields 3.. follow the ")" that ends the name.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(line.substr(close + 1));
    std::string field;
    for (int i = 3; i <= 22; ++i)
        if (!(fields >> field)) return std::nullopt;
    const long ticks = ::sysconf(_SC_CLK_TCK);
    if (ticks <= 0) return std::nullopt;
    return up - std::stod(field) / static_cast<double>(ticks);
}
#else
std::optional<double> seconds_since_process_start() { return std::nullopt; }
#endif

// /proc/self/status gives the resident set and its parts in kB (statm would give pages of unknown
// size; smaps_rollup walks every mapping, too slow to read every second).
std::optional<HostRss> host_rss_split() {
#if defined(__linux__)
    std::ifstream status("/proc/self/status");
    std::string key;
    int64_t kb = 0;
    HostRss rss;
    int found = 0;
    while (status >> key) {
        if ((key == "VmRSS:" || key == "RssAnon:" || key == "RssFile:" || key == "RssShmem:") && status >> kb) {
            if (key == "VmRSS:") rss.total = kb * 1024;
            else if (key == "RssAnon:") rss.anon = kb * 1024;
            else rss.file += kb * 1024;
            ++found;
        }
        status.ignore(1 << 16, '\n');
    }
    if (found == 4) return rss;
#endif
    return std::nullopt;
}

std::optional<int64_t> host_rss_bytes(std::string* why) {
    if (const auto rss = host_rss_split()) return rss->total;
#if defined(__linux__)
    if (why) *why = "cannot read VmRSS, RssAnon, RssFile and RssShmem from /proc/self/status";
#else
    if (why) *why = "host RSS is only read on Linux (/proc)";
#endif
    return std::nullopt;
}

namespace {

// The environment variable that marks a child we started under xvfb-run.
constexpr const char* kReexecMarker = "FUSIONLAB_UNDER_XVFB";

std::string env_or_empty(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

bool is_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

}  // namespace

fs::path config_dir() {
#if defined(_WIN32)
    const std::string appdata = env_or_empty("APPDATA");
    if (!appdata.empty()) return fs::path(appdata) / "fusionlab";
    const std::string profile = env_or_empty("USERPROFILE");
    if (!profile.empty()) return fs::path(profile) / "AppData" / "Roaming" / "fusionlab";
    return {};
#elif defined(__APPLE__)
    const std::string home = env_or_empty("HOME");
    if (home.empty()) return {};
    return fs::path(home) / "Library" / "Application Support" / "fusionlab";
#else
    // XDG says a relative XDG_CONFIG_HOME is invalid and must be ignored.
    const std::string xdg = env_or_empty("XDG_CONFIG_HOME");
    if (!xdg.empty() && fs::path(xdg).is_absolute()) return fs::path(xdg) / "fusionlab";
    const std::string home = env_or_empty("HOME");
    if (home.empty()) return {};
    return fs::path(home) / ".config" / "fusionlab";
#endif
}

std::string find_on_path(const std::string& program) {
#if defined(_WIN32)
    const char separator = ';';
    const std::vector<std::string> suffixes = {"", ".exe"};
#else
    const char separator = ':';
    const std::vector<std::string> suffixes = {""};
#endif
    const std::string path = env_or_empty("PATH");
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find(separator, start);
        if (end == std::string::npos) end = path.size();
        const std::string folder = path.substr(start, end - start);
        if (!folder.empty()) {
            for (const std::string& suffix : suffixes) {
                const fs::path candidate = fs::path(folder) / (program + suffix);
                if (is_file(candidate)) return candidate.string();
            }
        }
        start = end + 1;
    }
    return {};
}

bool running_under_reexec() { return !env_or_empty(kReexecMarker).empty(); }

std::string data_dir(const char* env, const std::string& installed, const std::string& built,
                     bool (*usable)(const std::string& dir), const std::string& what, const std::string& built_name,
                     std::string* why_not) {
    std::error_code ec;
    if (const char* value = std::getenv(env); value && *value) {
        if (fs::is_directory(value, ec)) return value;
        if (why_not) {
            std::string text = "$";
            text.append(env).append(" is '").append(value).append("', which is not a folder (unset it to use the installed ");
            *why_not = text.append(what).append(")");
        }
        return "";
    }
    if (const fs::path exe = executable_path(); !exe.empty()) {
        const fs::path at = (exe.parent_path() / FUSIONLAB_DATA_FROM_BIN / installed).lexically_normal();
        if (usable(at.string())) return at.string();
    }
    if (!built.empty() && fs::is_directory(built, ec)) return built;
    if (why_not) {
        std::string text = "no ";
        text.append(what).append(" folder found (looked in $").append(env).append(", ").append(FUSIONLAB_DATA_FROM_BIN);
        text.append("/").append(installed).append(" from the program's folder and the source tree's ").append(built_name);
        *why_not = text.append("): set ").append(env).append(" or reinstall");
    }
    return "";
}

#if defined(__linux__)

fs::path executable_path() {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return fs::path();
    // Started through the dynamic loader (`ld-linux-x86-64.so.2 --inhibit-cache fusionlab ...`, as the
    // install test runs it with the CUDA libraries hidden), /proc/self/exe is the loader: the
    // program's own file is the name the loader opened it by, which dladdr gives for our code.
    if (self.filename().string().rfind("ld-", 0) == 0) {
        Dl_info info{};
        if (dladdr(reinterpret_cast<void*>(&executable_path), &info) != 0 && info.dli_fname && *info.dli_fname)
            return fs::weakly_canonical(fs::absolute(info.dli_fname, ec), ec);
    }
    return self;
}

namespace {

// Our own argv, read back from the kernel so callers need not thread argc/argv through.
std::vector<std::string> own_arguments() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> args;
    std::string arg;
    while (std::getline(in, arg, '\0')) args.push_back(arg);
    return args;
}

}  // namespace

std::string reexec_under_xvfb(int screen_width, int screen_height) {
    if (running_under_reexec())
        return "already running under xvfb-run, and still no display could be opened";
    const std::string xvfb_run = find_on_path("xvfb-run");
    if (xvfb_run.empty())
        return "no display found and xvfb-run is not installed: install it "
               "(Debian/Ubuntu: sudo apt-get install xvfb xauth) or run on a desktop session";

    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return "cannot find this program's path to re-run it under xvfb-run: " + ec.message();
    std::vector<std::string> args = own_arguments();
    if (args.empty()) return "cannot read this program's arguments to re-run it under xvfb-run";

    // The virtual screen only has to hold a hidden window: shots render into an offscreen
    // framebuffer, so any size works; 24-bit depth is what Mesa needs for an RGBA visual.
    const std::string screen = "-screen 0 " + std::to_string(screen_width) + "x" +
                               std::to_string(screen_height) + "x24";
    std::vector<std::string> command = {xvfb_run, "-a", "-s", screen, self.string()};
    command.insert(command.end(), args.begin() + 1, args.end());

    std::vector<char*> argv;
    for (std::string& s : command) argv.push_back(s.data());
    argv.push_back(nullptr);
    ::setenv(kReexecMarker, "1", 1);
    ::execv(xvfb_run.c_str(), argv.data());
    return "could not run " + xvfb_run + ": " + std::error_code(errno, std::generic_category()).message();
}

#else

// Not known here (Windows would use GetModuleFileNameW, macOS _NSGetExecutablePath; untested, so
// not written): the lessons are then found through $FUSIONLAB_LESSONS or the source tree.
fs::path executable_path() { return {}; }

std::string reexec_under_xvfb(int, int) {
    return "no display could be opened; this system has no xvfb-run fallback: "
           "run fusionlab from a desktop session";
}

#endif

int run_process(const std::vector<std::string>& args, std::string& output, size_t max_bytes) {
    output.clear();
    if (args.empty()) {
        output = "no program to run";
        return -1;
    }
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
    int fds[2];
    if (pipe(fds) != 0) {
        output = std::string("cannot make a pipe: ") + std::strerror(errno);
        return -1;
    }
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        output = std::string("cannot start ") + args[0] + ": " + std::strerror(errno);
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {  // the child: stdout and stderr into the pipe, then the program
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv.data());
        const std::string why = std::string("cannot run ") + args[0] + ": " + std::strerror(errno) + "\n";
        (void)!write(2, why.data(), why.size());
        _exit(127);
    }
    close(fds[1]);
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (output.size() < max_bytes) output.append(buf, std::min(static_cast<size_t>(n), max_bytes - output.size()));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    output += "\n" + args[0] + " ended by signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
#else
    (void)max_bytes;  // nothing is read here (the browser build: no processes)
    output = "running a program is not supported on this platform yet";
    return -1;
#endif
}

}  // namespace app::platform
