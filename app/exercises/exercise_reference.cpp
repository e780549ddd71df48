// The reference solution's measurements on real GPUs (app/exercises/exercise_reference.h).
#include "app/exercises/exercise_reference.h"

#include "app/exercises/exercise_cli.h"
#include "app/files/results_import.h"
#include "kernels/core/format.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace app::exercises {

namespace fs = std::filesystem;

namespace {

std::string row_text(const kernels::Measurement& m) {
    if (!m.ok) return m.job.variant + " failed";
    std::string s = m.job.variant + " " + kernels::format_time_ms(m.time.median_ms);
    if (m.measured_bytes) s += ", DRAM " + kernels::format_bytes(static_cast<double>(*m.measured_bytes));
    return s;
}

MeasuredReference read_reference(const Exercise& ex, const std::string& path) {
    MeasuredReference r;
    r.file = path;
    std::vector<kernels::Measurement> rows;
    if (std::string why = load_measurements_json(path, rows); !why.empty()) {
        r.error = why;
        return r;
    }
    const kernels::Measurement* yours = nullptr;
    std::vector<kernels::Measurement> compared;
    for (const kernels::Measurement& m : rows) {
        if (m.job.params.workload != ex.workload) continue;
        if (m.job.variant == kernels::kStudentVariant) yours = &m;
        else compared.push_back(m);
    }
    if (!yours) {
        r.error = path + ": no row of yours (not the --json of `exercises run " + ex.name + " --solution`)";
        return r;
    }
    r.device = yours->device.name;
    std::string line = "reference solution on " + r.device + ": " + row_text(*yours);
    for (const kernels::Measurement& m : compared) line += "; " + row_text(m);
    r.lines.push_back(line);
    for (const GoalVerdict& v : judge_goals(ex, *yours, compared))
        r.lines.push_back("goal " + v.goal.text() + ": " + (v.checked ? (v.met ? "met" : "MISSED") : "unchecked") + " - " +
                          v.reason);
    return r;
}

}  // namespace

std::vector<MeasuredReference> measured_references(const Exercise& ex) {
    std::vector<MeasuredReference> out;
    const fs::path dir = fs::path(ex.path).parent_path() / "measured";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    std::vector<std::string> files;
    const std::string prefix = ex.name + ".";
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && e.path().extension() == ".json") files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) out.push_back(read_reference(ex, f));
    return out;
}

}  // namespace app::exercises
