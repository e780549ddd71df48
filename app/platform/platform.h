// The one place for operating-system specific calls: where settings live, finding programs on
// PATH, and re-running this binary under a virtual X server for headless screenshots.
// Everything else in app/ stays portable (Linux, Windows, macOS). Reading a file the user names
// (bounded, regular files only) is the other half of this layer: app/platform/platform_file.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

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

// True when we already were re-executed under xvfb-run (so we never loop).
bool running_under_reexec();

// Replaces this process with `xvfb-run -a -s "-screen 0 WxHx24" <this binary> <same args>`.
// Only returns on failure, with a message saying why (or what to install). Linux/BSD only:
// other systems always have a display server, so this reports that it is not supported there.
std::string reexec_under_xvfb(int screen_width, int screen_height);

}  // namespace app::platform
