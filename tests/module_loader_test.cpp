// app/platform/module_loader: what the program says when the GPU module or a library it needs cannot
// be loaded, or the driver is too old (the loading itself is tested as installed: install.tree,
// install.package_deb in tests/install_test.cmake).
#include "app/platform/module_loader.h"

#include <catch2/catch.hpp>

using app::gpu_module::driver_too_old;
using app::gpu_module::explain_load_error;
using Catch::Contains;
using Catch::StartsWith;

namespace {
const std::string kModule = "/usr/lib/fusionlab/libfusionlab_gpu.so";
}

TEST_CASE("a missing cuBLAS is named, with its version and the package that provides it", "[module_loader]") {
    for (const std::string lib : {"libcublas.so.13", "libcublasLt.so.13"}) {
        const std::string error = lib + ": cannot open shared object file: No such file or directory";
        const std::string why = explain_load_error(error, kModule);
        INFO(why);
        // The banner shows the first clause, the backend menu the text up to the first ';'.
        CHECK_THAT(why, StartsWith("cuBLAS ") && Contains(" not installed (" + error + ");"));
        CHECK_THAT(why, Contains("the GPU module needs " + lib + " from CUDA "));
        CHECK_THAT(why, Contains("install NVIDIA's libcublas-") && Contains("ldconfig"));
    }
}

TEST_CASE("another missing library is named as the loader named it", "[module_loader]") {
    const std::string why =
        explain_load_error("libnvJitLink.so.13: cannot open shared object file: No such file or directory", kModule);
    CHECK_THAT(why, StartsWith("libnvJitLink.so.13 not installed (libnvJitLink.so.13: cannot open"));
    CHECK_THAT(why, Contains("install the package that provides it"));
}

TEST_CASE("a module that cannot be read, is for another machine, or needs newer libraries says so", "[module_loader]") {
    CHECK_THAT(explain_load_error(kModule + ": cannot open shared object file: Permission denied", kModule),
               StartsWith("GPU module unreadable (") && Contains("reinstall the fusionlab-gpu package"));
    CHECK_THAT(explain_load_error(kModule + ": invalid ELF header", kModule),
               StartsWith("GPU module for another processor or damaged ("));
    const std::string old_libstdcxx =
        "/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by " + kModule + ")";
    CHECK_THAT(explain_load_error(old_libstdcxx, kModule),
               StartsWith("a library of the GPU module is too old (") && Contains("GLIBCXX_3.4.32"));
    CHECK_THAT(explain_load_error("something else went wrong", kModule),
               StartsWith("GPU module not loaded (something else went wrong)"));
}

TEST_CASE("a driver older than the module's CUDA runtime is named with the driver to install", "[module_loader]") {
    const std::string why = driver_too_old(12040, 13000);
    CHECK_THAT(why, StartsWith("NVIDIA driver too old (it supports CUDA 12.4; the GPU module's runtime is CUDA 13.0)"));
    CHECK_THAT(why, Contains("install the NVIDIA driver 580 or newer"));
    CHECK_THAT(driver_too_old(11080, 12060), Contains("CUDA 11.8") && Contains("driver 525 or newer"));
    // CUDA's minor-version compatibility: any driver of the same major version, or newer, runs it.
    CHECK(driver_too_old(13000, 13000).empty());
    CHECK(driver_too_old(13000, 13020).empty());
    CHECK(driver_too_old(14000, 13000).empty());
}

TEST_CASE("the loader's answer is given once and says why when the module is not loaded", "[module_loader]") {
    const app::gpu_module::Status& s = app::gpu_module::status();
    CHECK(&s == &app::gpu_module::status());
    if (s.loaded) {
        CHECK(s.why_not.empty());
        CHECK_FALSE(s.path.empty());
        CHECK(s.api != nullptr);
    } else {
        CHECK_FALSE(s.why_not.empty());
        CHECK(s.api == nullptr);
    }
}
