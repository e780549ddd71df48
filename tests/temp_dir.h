// A fresh folder under the system temp folder for one test, removed with everything in it at the
// end (permissions restored first, so tests may make it unwritable).
#pragma once

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>
#include <vector>

namespace fl_test {

struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& prefix = "fusionlab_test_") {
        std::random_device entropy;
        path = std::filesystem::temp_directory_path() / (prefix + std::to_string(entropy()) + std::to_string(entropy()));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                     ignored);
        std::filesystem::remove_all(path, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    // Names of the entries in the folder, sorted.
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(path)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

}  // namespace fl_test
