// The runner on the simulated backend: results carry their jobs, newer batches make older results
// stale, run_blocking answers every job, and a GPU job without a GPU fails with a reason.
#include "app/core/runner.h"
#include "tests/test_skip.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <set>
#include <thread>

namespace {

kernels::Job sim_job(const std::string& w, const std::string& variant, int64_t rows, int64_t hidden,
                     const std::string& gpu = "H100") {
    kernels::Job job;
    job.params.workload = w;
    job.params.set("rows", rows);
    job.params.set("hidden", hidden);
    job.variant = variant;
    job.backend = kernels::BackendKind::simulated;
    job.sim_gpu = gpu;
    return job;
}

// Polls take_results until `want` results arrived or a generous deadline passed.
std::vector<kernels::Measurement> collect(app::Runner& runner, size_t want) {
    std::vector<kernels::Measurement> got;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (got.size() < want && std::chrono::steady_clock::now() < deadline) {
        for (auto& m : runner.take_results()) got.push_back(std::move(m));
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return got;
}

}  // namespace

TEST_CASE("runner: run_blocking returns one result per job, each carrying its job", "[runner]") {
    app::Runner runner;
    std::vector<kernels::Job> batch = {
        sim_job("chain", "unfused", 64, 1000),
        sim_job("chain", "fused", 128, 512),
        sim_job("bias_gelu", "unfused", 256, 768, "A100"),
        sim_job("bias_gelu", "fused", 3, 5, "RTX4090"),
    };
    const auto results = runner.run_blocking(batch);
    REQUIRE(results.size() == batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
        INFO("job " << i);
        CHECK(results[i].ok);
        CHECK(results[i].error.empty());
        CHECK(results[i].job.params == batch[i].params);
        CHECK(results[i].job.variant == batch[i].variant);
        CHECK(results[i].job.sim_gpu == batch[i].sim_gpu);
        CHECK(results[i].device.simulated);
        CHECK_FALSE(results[i].build_type.empty());
        if (i > 0) CHECK(results[i].job.id == results[i - 1].job.id + 1);
    }
    // Each simulated GPU answers with its own datasheet device.
    CHECK(results[2].device.name != results[0].device.name);
    CHECK_FALSE(runner.busy());
}

TEST_CASE("runner: jobs of one batch do not cancel each other", "[runner]") {
    // Regression for a token that compared job ids: every job but the last of a batch looked stale.
    std::atomic<uint64_t> newest_batch{10};
    kernels::CancelToken first_of_batch{&newest_batch, 10};
    CHECK_FALSE(first_of_batch.cancelled());
    newest_batch = 14;
    CHECK(first_of_batch.cancelled());
    kernels::CancelToken none;
    CHECK_FALSE(none.cancelled());

    app::Runner runner;
    std::vector<kernels::Job> batch;
    for (int i = 0; i < 16; ++i) batch.push_back(sim_job("chain", i % 2 ? "fused" : "unfused", 32 + i, 64));
    const auto results = runner.run_blocking(batch);
    REQUIRE(results.size() == batch.size());
    for (const auto& m : results) CHECK(m.ok);
}

TEST_CASE("runner: a newer batch drops the results of older ones", "[runner]") {
    app::Runner runner;
    std::vector<kernels::Job> old_batch;
    for (int i = 0; i < 300; ++i) old_batch.push_back(sim_job("chain", "unfused", 512 + i, 1024));
    const uint64_t old_first = runner.submit(old_batch);

    std::vector<kernels::Job> new_batch = {sim_job("bias_gelu", "fused", 77, 99),
                                           sim_job("bias_gelu", "unfused", 77, 99)};
    const uint64_t new_first = runner.submit(new_batch);
    CHECK(new_first == old_first + old_batch.size());

    const auto results = collect(runner, new_batch.size());
    REQUIRE(results.size() == new_batch.size());
    std::set<uint64_t> ids;
    for (const auto& m : results) {
        CHECK(m.job.id >= new_first);
        CHECK(m.job.params.get_int("rows") == 77);
        ids.insert(m.job.id);
    }
    CHECK(ids == std::set<uint64_t>{new_first, new_first + 1});
    // Nothing of the old batch shows up later either.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(runner.take_results().empty());
}

TEST_CASE("runner: a GPU job without a GPU comes back failed with the reason", "[runner]") {
    app::Runner runner;
    runner.wait_until_probed();
    REQUIRE(runner.gpu_probed());
    if (runner.gpu_available()) {
        fl_test::skip("a GPU is present (" + runner.gpu_status() + "): the no-GPU path cannot be exercised here");
        return;
    }
    CHECK_FALSE(runner.gpu_status().empty());
    kernels::Job job = sim_job("chain", "fused", 64, 64);
    job.backend = kernels::BackendKind::gpu;
    const auto results = runner.run_blocking({job});
    REQUIRE(results.size() == 1);
    CHECK_FALSE(results[0].ok);
    CHECK_THAT(results[0].error, Catch::Contains("no GPU"));
    CHECK_THAT(results[0].error, Catch::Contains(runner.gpu_status()));
    CHECK(results[0].job.params == job.params);
}

TEST_CASE("runner: an unknown simulated GPU fails the job, not the runner", "[runner]") {
    app::Runner runner;
    const auto results = runner.run_blocking({sim_job("chain", "fused", 8, 8, "NOPE")});
    REQUIRE(results.size() == 1);
    CHECK_FALSE(results[0].ok);
    CHECK_THAT(results[0].error, Catch::Contains("NOPE"));
    // The runner still works afterwards.
    CHECK(runner.run_blocking({sim_job("chain", "fused", 8, 8)}).at(0).ok);
}

TEST_CASE("runner: shuts down cleanly with work queued", "[runner]") {
    const auto start = std::chrono::steady_clock::now();
    {
        app::Runner runner;
        std::vector<kernels::Job> batch;
        for (int i = 0; i < 2000; ++i) batch.push_back(sim_job("chain", "unfused", 1 + i, 4096));
        runner.submit(batch);
        CHECK(runner.run_blocking({}).empty());  // an empty batch answers at once
    }
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}
