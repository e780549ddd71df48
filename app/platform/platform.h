// The one place for operating-system specific calls: where settings live, finding programs on
// PATH, and re-running this binary under a virtual X server for headless screenshots.
// Everything else in app/ stays portable (Linux, Windows, macOS). Reading a file the user names
// (bounded, regular files only) is the other half of this layer: app/platform/platform_file.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace app::platform {

// The C heap as the allocator sees it (glibc's mallinfo2 over all arenas): bytes in live blocks,
// those in the arenas and those glibc mmapped on their own (large blocks) together; of those the
// mmapped part; bytes freed but still held by the allocator. Arena bytes alone would not do: glibc
// moves its mmap threshold up as large blocks are freed, so the same live buffer can be counted on
// either side from one run to the next. Empty where not available.
struct HeapStats {
    int64_t in_use = 0, free_held = 0, mmapped = 0;
};
std::optional<HeapStats> heap_stats();

// Hands freed heap memory back to the operating system (glibc: malloc_trim over every arena).
// Jobs on the GPU backend allocate and free large host buffers on several threads (the runner,
// the reference thread), whose arenas would otherwise keep the freed pages: the runner calls this
// after each job so that the resident set, which the soak test judges, follows the memory in use.
// No-op elsewhere.
void release_free_heap();

// Fixes the allocator's mmap threshold at kHeapMapThresholdBytes for the whole process: blocks that
// large or larger are mapped on their own and unmapped when freed, and every arena's free top is
// trimmed past glibc's default trim threshold. Called once at start (app/cli/entry.cpp main_entry,
// which every program built from app/main.cpp runs, and the headless soak). Why: left dynamic, glibc
// raises the threshold to the size of the first large mapped block freed (up to 32 MiB) and the trim
// threshold to twice that, so the next block of that size comes from the freeing thread's arena and,
// freed, stays resident at the arena's top, which malloc_trim returns for the main arena only. The
// simulated backend's emulation check frees a 14 MB buffer per chain job on the runner thread: the
// headless soak's RSS rose 13.4 MiB in pass 2 and 1.7 MiB in pass 3, then held for six more passes
// while the C heap stayed flat (docs/RELIABILITY.md, 2026-11-28). Bounded, but memory a lab machine
// gave up for nothing, and a soak could not tell it from a leak. No-op elsewhere.
inline constexpr int64_t kHeapMapThresholdBytes = 1 << 20;
void configure_heap();

// Seconds since this process started (Linux: /proc/self/stat against /proc/uptime, 10 ms steps),
// so a soak's pass ends can be found in a heap profiler's timeline. Empty elsewhere.
std::optional<double> seconds_since_process_start();

// The resident set split by what backs it (/proc/self/status: RssAnon, RssFile + RssShmem).
struct HostRss {
    int64_t total = 0, anon = 0, file = 0;  // bytes
};
std::optional<HostRss> host_rss_split();
// Host resident set size in bytes, or nullopt with `why` (only Linux's /proc is read): the soak
// test's memory probe and `bench`'s FUSIONLAB_HEAP_TRACE lines.
std::optional<int64_t> host_rss_bytes(std::string* why);

// Per-user configuration folder for fusionlab (not created here):
//   Linux:   $XDG_CONFIG_HOME/fusionlab, else ~/.config/fusionlab
//   Windows: %APPDATA%\fusionlab
//   macOS:   ~/Library/Application Support/fusionlab
// Returns an empty path when no home folder can be found (settings then stay in memory).
std::filesystem::path config_dir();

// This running program's own file (Linux: /proc/self/exe, links resolved), so data installed
// beside it (../share/fusionlab) is found from any current folder. Empty where not known.
std::filesystem::path executable_path();

// A folder of data the app ships (lessons, recordings): the one $<env> names when it is set (why_not
// says so when that is not a folder), else <prefix>/share/fusionlab/<installed> beside this program's
// bin/ when `usable` accepts it (an install, the .deb), else `built` (the source tree this binary was
// built from) when it is a folder. "" and why_not when none is; `what` ("lessons") and `built_name`
// ("lessons/") word the messages.
std::string data_dir(const char* env, const std::string& installed, const std::string& built,
                     bool (*usable)(const std::string& dir), const std::string& what, const std::string& built_name,
                     std::string* why_not);

// Full path of `program` found on PATH, or "" when it is not there.
std::string find_on_path(const std::string& program);

// Runs the program args[0] with args[1..] (no shell) and waits for it: its stdout and stderr
// together into `output` (the first `max_bytes` kept). Returns its exit code; -1 when it could not
// start or did not exit normally (a signal), with `output` saying why. Linux: fork/execv and a pipe;
// elsewhere -1 ("not supported here"). The exercise pane runs each submission so, in a process of
// its own, so that a kernel that hangs or faults takes its own GPU context down and not the app's.
int run_process(const std::vector<std::string>& args, std::string& output, size_t max_bytes = size_t{1} << 20);

// True when we already were re-executed under xvfb-run (so we never loop).
bool running_under_reexec();

// Replaces this process with `xvfb-run -a -s "-screen 0 WxHx24" <this binary> <same args>`.
// Only returns on failure, with a message saying why (or what to install). Linux/BSD only:
// other systems always have a display server, so this reports that it is not supported there.
std::string reexec_under_xvfb(int screen_width, int screen_height);

}  // namespace app::platform
