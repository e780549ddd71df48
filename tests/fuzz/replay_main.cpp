// Corpus replay for builds without libFuzzer (gcc, MSVC): feeds every file named on the command
// line (or found in a named folder) to the target's LLVMFuzzerTestOneInput, the same entry
// libFuzzer calls. ctest runs it over tests/fuzz/corpus/<target>/ so the seeds, and every crash
// input committed there as a regression, are exercised on every build. Each file is read by the
// app's own bounded reader (app/platform/platform_file.h) as the kind of file the target parses, so
// every corpus entry is also one that reader accepts within its kind's limit.
#include "app/platform/platform_file.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#ifndef FL_FUZZ_TARGET
#define FL_FUZZ_TARGET ""
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {

// The kind of file the target's parser reads in the app; cli and params inputs are not files.
app::platform::UserFile target_kind() {
    using app::platform::UserFile;
    if (std::strcmp(FL_FUZZ_TARGET, "lesson") == 0) return UserFile::lesson;
    if (std::strcmp(FL_FUZZ_TARGET, "recording") == 0) return UserFile::recording;
    if (std::strcmp(FL_FUZZ_TARGET, "settings") == 0) return UserFile::settings;
    return UserFile::test_input;
}

bool replay_file(const fs::path& file) {
    std::string bytes;
    if (const auto read = app::platform::read_user_file(file.string(), target_kind(), bytes); !read.ok()) {
        std::fprintf(stderr, "fuzz replay: %s\n", read.message.c_str());
        return false;
    }
    // A copy in its own allocation, as libFuzzer does, so reads past the end are caught by ASan.
    std::vector<uint8_t> copy(bytes.begin(), bytes.end());
    LLVMFuzzerTestOneInput(copy.data(), copy.size());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
        return 2;
    }
    size_t count = 0;
    for (int i = 1; i < argc; ++i) {
        const fs::path path(argv[i]);
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            std::vector<fs::path> files;
            for (const auto& entry : fs::directory_iterator(path))
                if (entry.is_regular_file()) files.push_back(entry.path());
            std::sort(files.begin(), files.end());
            for (const fs::path& f : files) {
                if (!replay_file(f)) return 1;
                ++count;
            }
        } else if (fs::is_regular_file(path, ec)) {
            if (!replay_file(path)) return 1;
            ++count;
        } else {
            std::fprintf(stderr, "fuzz replay: %s is neither a file nor a folder\n", argv[i]);
            return 2;
        }
    }
    if (count == 0) {
        std::fprintf(stderr, "fuzz replay: no inputs found\n");
        return 1;
    }
    std::printf("fuzz replay: %zu inputs, no failure\n", count);
    return 0;
}
