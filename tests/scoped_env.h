// Sets an environment variable for one scope and restores what was there before (the
// configuration pickers of kernels/elementwise read FUSIONLAB_ROW_CONFIG / FUSIONLAB_FLAT_CONFIG
// on every call, so a test can force a layout for a few checks).
#pragma once

#include <cstdlib>
#include <string>

class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) had_ = true, saved_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (had_) ::setenv(name_, saved_.c_str(), 1);
        else ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    bool had_ = false;
    std::string saved_;
};
