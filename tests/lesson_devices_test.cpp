// Every step of every shipped lesson, played on every device the app offers: each simulated GPU
// (kernels::sim_gpus()) and each shipped recording (app::recordings()). The step's text is
// evaluated as the lesson pane shows it (no window, no PNG) and must read true on that device:
//   - no live number left "unavailable" or "measuring", no stray brace;
//   - no word said twice ("`flash_wgmma` flash_wgmma needs");
//   - no limiter named for a variant the device refuses (the engine then says "unavailable");
//   - no ratio quoted the wrong way round ("0.87× faster", "0.5× fewer bytes");
//   - no "at the ... ceiling" in a paragraph whose own percentages of the ceiling are all below
//     the threshold the lessons use (85 %).
// Emulation (a simulated GPU's error against the reference) runs only for the variants whose
// error a step quotes, so the test stays fast enough for CI.
#include "app/lessons/expressions.h"
#include "app/lessons/lesson.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/lesson_player.h"
#include "app/recordings/auto_pick.h"
#include "app/recordings/recorded_backend.h"
#include "app/recordings/recording_file.h"
#include "app/lessons/prose.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

using app::Lesson;
using app::LessonStep;
using app::ProseSpan;

struct Device {
    std::string label;                          // "simulated H100", "recording h100-2026-11-27"
    std::unique_ptr<kernels::Backend> backend;
    kernels::BackendKind kind = kernels::BackendKind::simulated;
    std::string sim_key, recording;
    const kernels::DeviceInfo* fallback = nullptr;
};

std::vector<Device> all_devices() {
    std::vector<Device> out;
    for (const kernels::SimGpu& g : kernels::sim_gpus()) {
        Device d;
        d.label = "simulated " + g.key;
        d.backend = kernels::make_sim_backend(g);
        d.sim_key = g.key;
        out.push_back(std::move(d));
    }
    for (const auto& r : app::recordings()->recordings) {
        Device d;
        d.label = "recording " + r->key;
        std::string why;
        d.backend = app::make_recorded_backend(r, &why);
        INFO(why);
        REQUIRE(d.backend);
        d.kind = kernels::BackendKind::recorded;
        d.recording = r->key;
        d.sim_key = r->card;
        if (const kernels::SimGpu* g = kernels::find_sim_gpu(r->card)) d.fallback = &g->info;
        out.push_back(std::move(d));
    }
    return out;
}

// Variants whose error against the reference the spans quote (emulation is only run for them).
void error_variants(const std::vector<ProseSpan>& spans, std::set<std::string>& out) {
    for (const ProseSpan& s : spans) {
        if (s.kind != ProseSpan::Kind::expr) continue;
        if (s.expr.func == "measured.error" && !s.expr.args.empty()) out.insert(s.expr.args[0]);
        for (const auto& b : s.expr.branch_spans) error_variants(b, out);
    }
}

std::string step_text(const LessonStep& step, const app::ExprContext& ctx) {
    std::string text = step.title + ".\n" + app::prose_plain_text(step.prose, ctx);
    for (const app::RecallQuestion& q : step.recalls)
        text += "Q: " + app::spans_plain_text(q.question, ctx) + "\nA: " + app::prose_plain_text(q.answer, ctx);
    return text;
}

std::string without_markup(std::string s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '`') continue;
        if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '*') {
            ++i;
            continue;
        }
        out += s[i];
    }
    return out;
}

// Problems in one rendered step: each a short message.
std::vector<std::string> problems_in(const std::string& rendered) {
    std::vector<std::string> found;
    // An emulation stopped because this CPU was busy (kernels/sim/emulate.cpp's overrun stop)
    // depends on the machine's load, not on the lesson: the app says why, and so it is not counted.
    static const std::regex overrun(R"(unavailable: not emulated: stopped after [^)]*\))");
    const std::string text = std::regex_replace(without_markup(rendered), overrun, "(emulation stopped)");
    for (const char* bad : {"unavailable", "measuring", "{", "}"})
        if (text.find(bad) != std::string::npos) found.push_back(std::string("says '") + bad + "'");
    for (const std::string& w : app::doubled_words(text)) found.push_back("says '" + w + " " + w + "'");
    // A ratio quoted the wrong way round: "0.87× faster", "0.50× fewer".
    static const std::regex ratio(R"(([0-9]+\.?[0-9]*)\xC3\x97 (faster|fewer|more|slower|less))");
    for (std::sregex_iterator it(text.begin(), text.end(), ratio), end; it != end; ++it)
        if (std::atof((*it)[1].str().c_str()) < 1.0) found.push_back("quotes '" + it->str() + "'");
    // "at the copy/memory ceiling" in a paragraph whose percentages of the ceiling are all below 85 %.
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find("\n\n", start);
        if (end == std::string::npos) end = text.size();
        const std::string para = text.substr(start, end - start);
        start = end + 2;
        static const std::regex at_ceiling(R"((^|[^t] )at (or near )?the (copy|memory) ceiling)");
        if (!std::regex_search(para, at_ceiling)) continue;
        static const std::regex percent(R"(([0-9]+) % of )");
        double best = -1;
        for (std::sregex_iterator it(para.begin(), para.end(), percent), e; it != e; ++it)
            best = std::max(best, std::atof((*it)[1].str().c_str()));
        if (best >= 0 && best < 85) found.push_back("says 'at the ceiling' beside " + std::to_string(static_cast<int>(best)) + " %");
    }
    return found;
}

}  // namespace

TEST_CASE("every step of every lesson reads true on every device: both recordings and every simulated GPU",
          "[lessons][devices]") {
    std::vector<Lesson> lessons;
    std::vector<app::LessonError> errors;
    app::load_all_lessons(lessons, errors);
    for (const auto& e : errors) FAIL_CHECK(e.text());
    REQUIRE(lessons.size() >= 10);
    std::vector<Device> devices = all_devices();
    // Both shipped recordings and at least the H100, H200, A100 and RTX 4090.
    REQUIRE(devices.size() >= 6);

    size_t steps_played = 0, steps_per_device = 0;
    for (const Lesson& lesson : lessons) steps_per_device += lesson.steps.size();
    // FL_LESSON_TEXT_DIR=folder: also write every rendered step there, one file per device, to read.
    const char* dump_dir = std::getenv("FL_LESSON_TEXT_DIR");
    for (Device& dev : devices) {
        // Measurements already taken on this device, by variant and parameters.
        std::map<std::string, kernels::Measurement> cache;
        std::string dump;
        for (const Lesson& lesson : lessons) {
            for (size_t si = 0; si < lesson.steps.size(); ++si) {
                const LessonStep& step = lesson.steps[si];
                std::set<std::string> want_error;
                for (const auto& b : step.prose) error_variants(b.spans, want_error);
                for (const auto& q : step.recalls)
                    for (const auto& b : q.answer) error_variants(b.spans, want_error);
                std::vector<kernels::Measurement> results;
                for (const std::string& v : step.state.variants) {
                    const std::string key = v + "|" + app::point_key(step.state.params, v) + (want_error.count(v) ? "|e" : "");
                    auto it = cache.find(key);
                    if (it == cache.end()) {
                        kernels::Job job;
                        job.params = step.state.params;
                        job.variant = v;
                        job.backend = dev.kind;
                        job.sim_gpu = dev.sim_key;
                        job.recording = dev.recording;
                        job.reps = 5;
                        job.warmup = 1;
                        job.emulate = want_error.count(v) > 0;
                        // As the runner runs it: an auto tile resolved on this device (app/recordings/auto_pick.h).
                        it = cache.emplace(key, app::run_resolved(*dev.backend, job, kernels::CancelToken{})).first;
                    }
                    results.push_back(it->second);
                }
                app::ExprContext ctx;
                ctx.params = step.state.params;
                ctx.selected = step.state.variants;
                ctx.device = &dev.backend->device();
                ctx.fallback_device = dev.fallback;
                ctx.results = &results;
                ctx.pending = false;
                const std::string text = step_text(step, ctx);
                if (dump_dir) dump += "==== " + lesson.name + " step " + std::to_string(si + 1) + "\n" + text + "\n";
                for (const std::string& p : problems_in(text))
                    FAIL_CHECK(lesson.name << " step " << si + 1 << " on " << dev.label << ": " << p << "\n---\n" << text);
                ++steps_played;
            }
        }
        if (dump_dir) std::ofstream(std::string(dump_dir) + "/" + dev.label + ".txt") << dump;
    }
    CHECK(steps_played == devices.size() * steps_per_device);
}

TEST_CASE("the device test's checks catch what they are for", "[lessons][devices]") {
    CHECK(!problems_in("flash takes unavailable: refused").empty());
    CHECK(problems_in("error unavailable: not emulated: stopped after 0.8 s, ~2 s needed on this CPU (estimated 0.4 s).").empty());
    CHECK(!problems_in("a {stray} brace").empty());
    CHECK(!problems_in("`flash_wgmma` flash_wgmma needs more").empty());
    CHECK(!problems_in("it is 0.87\xC3\x97 faster").empty());
    CHECK(problems_in("it is 1.20\xC3\x97 faster").empty());
    CHECK(!problems_in("It reaches 70 % of the copy ceiling: at the copy ceiling.").empty());
    CHECK(problems_in("It reaches 90 % of the copy ceiling: at the copy ceiling.").empty());
    CHECK(problems_in("It reaches 70 % of the copy ceiling: not at the copy ceiling.").empty());
}
