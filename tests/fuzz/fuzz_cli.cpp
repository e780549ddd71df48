// libFuzzer target: the whole command line (app::cli::parse_command_line), one argument per line
// of the input. Whatever the bytes, parsing must return a command or an exit code (0 help,
// 2 usage) and never crash, hang or throw; a usage error is one line on stderr, naming an option.
//
// Output paths (--csv/--json/--out) are probed for writability by the parser (it writes and
// removes a probe file): confine_paths() points them into a fresh empty folder of our own.
#include "app/cli/cli.h"
#include "tests/fuzz/fuzz_input.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

// An empty folder of our own, made on first use and removed at exit. (Not chdir'd into: libFuzzer
// reads corpus files by relative path between runs.)
struct Sandbox {
    std::filesystem::path dir;
    Sandbox() {
        dir = std::filesystem::temp_directory_path() / ("fusionlab_fuzz_cli_" + std::to_string(std::random_device{}()));
        std::filesystem::create_directories(dir);
    }
    ~Sandbox() {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
    }
    Sandbox(const Sandbox&) = delete;
    Sandbox& operator=(const Sandbox&) = delete;
};

const std::string& sandbox() {
    static const Sandbox box;
    static const std::string dir = box.dir.string() + "/";
    return dir;
}

// Output paths land in the sandbox: '/' and '\\' become '_' everywhere, and the value of an
// output option (--csv F or --csv=F) gets the sandbox folder in front.
void confine_paths(std::vector<std::string>& args) {
    static const char* const kPathOptions[] = {"--csv", "--json", "--out"};
    for (std::string& a : args)
        for (char& c : a)
            if (c == '/' || c == '\\') c = '_';
    for (size_t i = 0; i < args.size(); ++i)
        for (const char* option : kPathOptions) {
            const std::string o = option;
            if (args[i] == o && i + 1 < args.size()) args[i + 1] = sandbox() + args[i + 1];
            else if (args[i].rfind(o + "=", 0) == 0) args[i] = o + "=" + sandbox() + args[i].substr(o.size() + 1);
        }
}

[[noreturn]] void fail(const std::string& what, const std::vector<std::string>& args, const std::string& err) {
    std::fprintf(stderr, "fuzz_cli: %s\n  args:", what.c_str());
    for (const std::string& a : args) std::fprintf(stderr, " [%s]", a.c_str());
    std::fprintf(stderr, "\n  stderr: %s\n", err.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> args = fuzz::split_lines(std::string(reinterpret_cast<const char*>(data), size));
    confine_paths(args);

    std::ostringstream out, err;
    const app::cli::ParsedCommand cmd = app::cli::parse_command_line(args, out, err);  // must not throw
    const std::string e = err.str();
    if (cmd.exit_code != -1 && cmd.exit_code != app::cli::kExitOk && cmd.exit_code != app::cli::kExitUsage)
        fail("exit code " + std::to_string(cmd.exit_code) + " is neither -1, 0 nor 2", args, e);
    if (cmd.exit_code == app::cli::kExitUsage) {
        // One clear line: not empty, ends the message with a newline, no second line.
        if (e.empty() || e.back() != '\n') fail("usage error without a message line", args, e);
        if (e.find('\n') != e.size() - 1) fail("usage error message spans several lines", args, e);
    }
    if (cmd.exit_code == -1 && !e.empty()) fail("accepted command line but wrote to stderr", args, e);
    if (cmd.exit_code == -1 && cmd.command == app::cli::Command::bench) {
        // Accepted bench options hold only legal values: every swept parameter set validates.
        for (const std::string& w : cmd.bench.workloads)
            for (kernels::DType t : cmd.bench.dtypes)
                for (const kernels::Params& p : app::cli::sweep_params(cmd.bench, w, t))
                    if (std::string why = kernels::validate(p); !why.empty())
                        fail("bench accepted an invalid parameter set: " + why, args, e);
    }
    return 0;
}
