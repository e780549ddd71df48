#include "app/lessons/lesson_bundle.h"

#include "app/files/export.h"
#include "kernels/core/backend.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>
#include <system_error>

namespace app {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

ojson device_json(const kernels::DeviceInfo& d) {
    ojson j;
    j["name"] = d.name;
    j["simulated"] = d.simulated;
    j["driver"] = d.driver;
    j["runtime"] = d.runtime;
    j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    j["sm_count"] = d.sm_count;
    j["sm_clock_mhz"] = d.sm_clock_mhz;
    j["mem_clock_mhz"] = d.mem_clock_mhz;
    j["global_mem_bytes"] = d.global_mem_bytes;
    j["l2_bytes"] = d.l2_bytes;
    j["smem_per_block_optin"] = d.smem_per_block_optin;
    j["peak_bw_gbps"] = d.peak_bw_gbps;
    j["peak_tensor_tflops"] = d.peak_tensor_tflops;
    if (d.measured_copy_gbps) j["measured_copy_gbps"] = *d.measured_copy_gbps;
    else j["measured_copy_gbps"] = nullptr;
    j["ceiling_note"] = d.ceiling_note;
    j["build_type"] = kernels::build_type();
    return j;
}

std::string utc_now() {
    char stamp[32] = "";
    const std::time_t now = std::time(nullptr);
    if (const std::tm* t = std::gmtime(&now)) std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", t);
    return stamp;
}

std::string random_suffix() {
    std::random_device entropy;
    char text[16];
    std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(entropy()));
    return text;
}

}  // namespace

std::string bundle_step_text(const BundleStep& step) {
    std::string text = "# " + step.title + "\n\n" + step.prose;
    if (!step.recalls.empty()) {
        if (!text.empty() && text.back() != '\n') text += "\n";
        text += "\n## Recall\n";
        for (size_t i = 0; i < step.recalls.size(); ++i) {
            const std::string n = std::to_string(i + 1);
            text.append("\nQ").append(n).append(". ").append(step.recalls[i].first).append("\n");
            text.append("A").append(n).append(". ").append(step.recalls[i].second);
            if (text.back() != '\n') text += "\n";
        }
    }
    return text;
}

std::string bundle_step_stem(int index) {
    char text[32];
    std::snprintf(text, sizeof text, "step-%02d", index + 1);
    return text;
}

BundleWriter::~BundleWriter() { abort(); }

void BundleWriter::abort() {
    if (!open_) return;
    open_ = false;
    std::error_code ec;
    fs::remove_all(tmp_, ec);
}

std::string BundleWriter::fail(const std::string& why) {
    abort();
    return why;
}

std::string BundleWriter::begin(const std::string& dir, const Lesson& lesson, const kernels::DeviceInfo& device) {
    abort();
    files_.clear();
    step_entries_.clear();
    if (dir.empty()) return "the bundle needs a folder (--out DIR)";
    std::error_code ec;
    const fs::path target = fs::absolute(fs::path(dir), ec).lexically_normal();
    fs::path parent = target.parent_path();
    if (target.filename().empty()) parent = target.parent_path().parent_path();
    if (!fs::is_directory(parent, ec)) return "cannot write the bundle " + target.string() + ": folder " + parent.string() + " does not exist";
    if (fs::exists(target, ec)) {
        if (!fs::is_directory(target, ec)) return "cannot write the bundle: " + target.string() + " exists and is not a folder";
        const bool empty = fs::is_empty(target, ec);
        if (!empty && !fs::exists(target / "lesson.json", ec))
            return "cannot write the bundle: " + target.string() +
                   " is a folder that is not a lesson bundle (no lesson.json); choose a new or empty folder";
    }
    dir_ = target.string();
    std::string hidden = ".";  // beside the target, so the final rename stays on one file system
    hidden.append(target.filename().string()).append(".tmp-").append(random_suffix());
    tmp_ = (parent / hidden).string();
    if (!fs::create_directory(tmp_, ec) || ec)
        return "cannot write the bundle in " + parent.string() + ": " + (ec ? ec.message() : std::string("cannot create a folder"));
    open_ = true;
    lesson_name_ = lesson.name;
    lesson_title_ = lesson.title;
    lesson_path_ = lesson.path;
    device_ = device;
    return "";
}

std::string BundleWriter::add_step(const BundleStep& step) {
    if (!open_) return "the bundle is not open";
    const std::string stem = bundle_step_stem(step.index);
    const fs::path tmp(tmp_);
    auto write = [&](const std::string& name, const std::string& bytes) {
        files_.push_back(name);
        return write_file_atomic((tmp / name).string(), bytes);
    };
    if (step.rgba.empty() || step.width <= 0 || step.height <= 0) return fail("step " + std::to_string(step.index + 1) + ": no image to save");
    files_.push_back(stem + ".png");
    if (std::string e = export_png((tmp / (stem + ".png")).string(), step.width, step.height, step.rgba); !e.empty())
        return fail(e);
    if (std::string e = write(stem + "-measurements.csv", measurements_csv(step.measurements)); !e.empty()) return fail(e);
    if (std::string e = write(stem + "-measurements.json", measurements_json(step.measurements)); !e.empty()) return fail(e);
    ojson settings;
    settings["lesson"] = lesson_name_;
    settings["step"] = step.index + 1;
    settings["title"] = step.title;
    settings["view"] = step.view;
    settings["highlight"] = step.highlight;
    settings["settings"] = ojson::parse(settings_to_json(step.settings), nullptr, false);
    settings["device"] = device_json(step.measurements.empty() ? device_ : step.measurements.front().device);
    if (std::string e = write(stem + "-settings.json", settings.dump(2) + "\n"); !e.empty()) return fail(e);
    if (!step.sweep.empty()) {
        if (std::string e = write(stem + "-sweep.csv", measurements_csv(step.sweep)); !e.empty()) return fail(e);
        if (std::string e = write(stem + "-sweep.json", measurements_json(step.sweep)); !e.empty()) return fail(e);
    }
    if (std::string e = write(stem + ".txt", bundle_step_text(step)); !e.empty()) return fail(e);
    ojson entry;
    entry["step"] = step.index + 1;
    entry["title"] = step.title;
    entry["png"] = stem + ".png";
    entry["measurements"] = step.measurements.size();
    if (!step.sweep.empty()) entry["sweep_measurements"] = step.sweep.size();
    entry["recalls"] = step.recalls.size();
    step_entries_.push_back(entry.dump());
    return "";
}

std::string BundleWriter::finish() {
    if (!open_) return "the bundle is not open";
    ojson j;
    j["lesson"] = lesson_name_;
    j["title"] = lesson_title_;
    j["source"] = lesson_path_;
    j["written_utc"] = utc_now();
    j["simulated"] = device_.simulated;
    j["device"] = device_json(device_);
    ojson steps = ojson::array();
    for (const std::string& s : step_entries_) steps.push_back(ojson::parse(s));
    j["steps"] = steps;
    files_.push_back("lesson.json");
    if (std::string e = write_file_atomic((fs::path(tmp_) / "lesson.json").string(), j.dump(2) + "\n"); !e.empty())
        return fail(e);
    std::error_code ec;
    // An earlier bundle moves aside first, then the new one takes its name, then the old goes.
    fs::path old;
    if (fs::exists(dir_, ec)) {
        old = fs::path(tmp_).string() + ".old";
        fs::rename(dir_, old, ec);
        if (ec) return fail("cannot replace " + dir_ + ": " + ec.message());
    }
    fs::rename(tmp_, dir_, ec);
    if (ec) {
        std::error_code ignored;
        if (!old.empty()) fs::rename(old, dir_, ignored);
        return fail("cannot move the bundle into " + dir_ + ": " + ec.message());
    }
    open_ = false;
    if (!old.empty()) fs::remove_all(old, ec);
    return "";
}

std::string bundle_dir_for(const Settings& s, const std::string& lesson, int step, bool all_steps) {
    char stamp[32] = "";
    const std::time_t now = std::time(nullptr);
    if (const std::tm* local = std::localtime(&now)) std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", local);
    const fs::path folder = s.export_dir.empty() ? fs::path(".") : fs::path(s.export_dir);
    std::string stem = lesson;
    stem.append(all_steps ? std::string("-all") : std::string("-").append(bundle_step_stem(step)));
    stem.append("-").append(stamp);
    std::error_code ec;
    fs::path candidate = folder / stem;
    for (int n = 2; fs::exists(candidate, ec) && n < 1000; ++n) candidate = folder / (stem + "-" + std::to_string(n));
    const fs::path absolute = fs::absolute(candidate, ec);
    return (ec ? candidate : absolute).lexically_normal().string();
}

}  // namespace app
