// Corpus replay for builds without libFuzzer (gcc, MSVC): feeds every file named on the command
// line (or found in a named folder) to the target's LLVMFuzzerTestOneInput, the same entry
// libFuzzer calls. ctest runs it over tests/fuzz/corpus/<target>/ so the seeds, and every crash
// input committed there as a regression, are exercised on every build.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {

bool replay_file(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "fuzz replay: cannot read %s\n", file.string().c_str());
        return false;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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
            for (const fs::path& f : files) count += replay_file(f) ? 1 : 0;
        } else if (fs::is_regular_file(path, ec)) {
            count += replay_file(path) ? 1 : 0;
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
