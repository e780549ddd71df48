// The one reader of files a user names (lessons, recordings, PyTorch reference files, results
// files to import, settings): part of the platform layer (with app/platform/platform.h), the only
// other place where operating-system calls are made.
//
// What a user names can be anything: a folder, a FIFO nobody writes to, /dev/zero, a sparse file
// of many GiB, a loop of symbolic links, a file another program is still writing. Each reader
// used to pour the whole stream into a string, so a file that never ends grew the process until
// the machine ran out of memory. Here:
// - only regular files are read; anything else is refused before it is opened (a FIFO's open
//   would wait for a writer, a device's read never ends), and again after opening (non-blocking)
//   in case the path was swapped in between;
// - each kind of file has a size limit, well above the largest legitimate file of that kind, and
//   at most limit + 1 bytes are ever read, whatever size the file system reports (/proc files say
//   0 bytes; a network file system may be wrong);
// - a file whose size or modification time changes while it is read is read again, and refused
//   when it keeps changing: what is returned is one whole version of the file;
// - every refusal is one line naming the file, what it is and the limit.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace app::platform {

// The kinds of file a user names, each with its own limit (kind_limit_bytes).
enum class UserFile {
    lesson,      // *.lesson (largest shipped: about 10 KB)
    recording,   // assets/recordings/*/recording.json (largest: about 1.1 MB)
    reference,   // a PyTorch reference file from scripts/torch_reference.py (largest: about 56 KB)
    results,     // a results (measurements) JSON export to import (largest shipped: about 0.8 MB)
    settings,    // settings.json (a few KB)
    answers,     // answers.json: a student's answers to the lessons' predictions (app/lessons/model/answers.h)
    test_input,  // a fuzzer corpus entry (tests/fuzz; the largest about 10 KB)
    exercise,    // *.exercise (exercises/; the largest about 12 KB)
    kernel_source,  // a student's kernel file or an exercise header (a few KB)
    glossary,    // glossary.terms in the lessons folder ($FUSIONLAB_LESSONS; the shipped one about 7 KB)
    superseded,  // superseded.txt in a recording's folder (app/recordings/sim_heldout.h; the shipped ones about 850 B)
};

// "lesson", "recording", "PyTorch reference file", ...: what the messages call the kind.
const char* kind_name(UserFile kind);
int64_t kind_limit_bytes(UserFile kind);

// Why a read failed, for callers that treat some cases apart (a settings file that does not exist
// yet is not an error).
enum class ReadFailure { none, not_found, not_regular, too_large, changed, cannot_read };

struct ReadResult {
    ReadFailure failure = ReadFailure::none;
    std::string message;  // one line: "PATH: " + reason; empty when read
    std::string reason;   // the same without the path, for messages that name the file their own way
    bool ok() const { return failure == ReadFailure::none; }
};

// Reads the whole of `path` into `out` (cleared first; left empty on failure).
ReadResult read_user_file(const std::string& path, UserFile kind, std::string& out);

// The same with an explicit name and limit (tests, and kinds not listed above).
ReadResult read_bounded_file(const std::string& path, const std::string& what, int64_t limit_bytes, std::string& out);

// Tests only: called after each chunk read with the bytes read so far of this attempt, so a test
// can truncate or grow the file in the middle of a read. Null: none (the default).
void set_read_chunk_hook_for_tests(std::function<void(const std::string& path, int64_t bytes_so_far)> hook);

// The size text the messages use: "512 B", "64 KiB", "1.5 MiB", "4.0 GiB".
std::string byte_size_text(int64_t bytes);

}  // namespace app::platform
