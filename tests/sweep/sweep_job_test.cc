// `sweep --timeout` and `sweep --log` below the CLI: the duration parser, the
// planner's stop flag (polled between proposals and stages, never a killed thread),
// timed-out points as whole rows, and the job log's lines.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "config/loader.h"
#include "planner/plan_stop.h"
#include "planner/run.h"
#include "support/run_binary.h"
#include "sweep/sweep_grid.h"
#include "sweep/sweep_job.h"
#include "sweep/sweep_log.h"
#include "sweep/sweep_rows.h"
#include "sweep/sweep_run.h"

namespace shardplan::testing {
namespace {

TEST_CASE("sweep --timeout: durations with a unit, a bare number in seconds", "[sweep][timeout]") {
  CHECK(parse_sweep_timeout("30s") == 30.0);
  CHECK(parse_sweep_timeout("2m") == 120.0);
  CHECK(parse_sweep_timeout("1.5h") == 5400.0);
  CHECK(parse_sweep_timeout("500ms") == Approx(0.5));
  CHECK(parse_sweep_timeout("90") == 90.0);
  CHECK(parse_sweep_timeout("0.25") == 0.25);
  for (const char* bad : {"", "0", "0s", "-1", "abc", "1.2.3", "s", "ms", "5x", "5 s", ".", "1e3"}) {
    INFO(bad);
    CHECK_FALSE(parse_sweep_timeout(bad).has_value());
  }
  CHECK_FALSE(parse_sweep_timeout(std::string(400, '9')).has_value());  // beyond a double: refused, not thrown
}

TEST_CASE("PlanStop: a request or a passed deadline stops; nothing else does", "[planner][stop]") {
  PlanStop never;
  CHECK_FALSE(never.requested());
  never.request();
  CHECK(never.requested());
  const PlanStop past(PlanStop::Clock::now() - std::chrono::seconds(1));
  CHECK(past.requested());
  const PlanStop future(PlanStop::Clock::now() + std::chrono::hours(1));
  CHECK_FALSE(future.requested());
  CHECK_FALSE(plan_stop_requested(nullptr));
}

TEST_CASE("run_plan with a stop: polled between proposals, a stopped run has no plan and no failure",
          "[planner][stop]") {
  const PlanningInput input = load_case(kQuickstartConfig);
  const PlanRun plain = run_plan(input);
  REQUIRE(plain.ok());
  REQUIRE(plain.result.num_proposals > 2);
  CHECK_FALSE(plain.stopped());

  // A stop that never asks changes nothing.
  PlanStop idle;
  const PlanRun with_idle = run_plan(input, {}, nullptr, {}, &idle);
  CHECK(with_idle.ok());
  CHECK(with_idle.result.perf_rating == plain.result.perf_rating);
  CHECK(with_idle.result.num_proposals == plain.result.num_proposals);

  // Asked before planning: stopped after enumeration.
  PlanStop early;
  early.request();
  const PlanRun at_once = run_plan(input, {}, nullptr, {}, &early);
  CHECK(at_once.stopped());
  CHECK_FALSE(at_once.ok());
  CHECK(at_once.result.plan.empty());
  CHECK_FALSE(at_once.result.failure.has_value());
  CHECK_FALSE(at_once.bound.has_value());

  // Asked by the progress observer after the second proposal: the loop stops at its
  // next check, before a third proposal is tried, and keeps none of the first two.
  PlanStop midway;
  int proposals_seen = 0;
  const ProgressObserver ask_after_two = [&](const PlanProgress& p) {
    proposals_seen = std::max(proposals_seen, p.proposals_tried);
    if (p.proposals_tried >= 2) midway.request();
  };
  const PlanRun stopped = run_plan(input, {}, nullptr, ask_after_two, &midway);
  CHECK(stopped.stopped());
  CHECK(stopped.result.plan.empty());
  CHECK(stopped.result.num_proposals == 0);
  CHECK(proposals_seen == 2);
}

SweepGrid sweep_job_test_grid() { return read_sweep_grid("", {"world_size=2,4", "hbm_cap=8 GiB,16 GiB"}); }

TEST_CASE("sweep points past their timeout: every point a whole TIMEOUT row, the sweep goes on", "[sweep][timeout]") {
  const PlanningInput input = load_case(kQuickstartConfig);
  const SweepGrid grid = sweep_job_test_grid();
  const std::vector<std::size_t> all{0, 1, 2, 3};
  for (const int threads : {1, 2}) {
    INFO("threads " << threads);
    SweepRunSettings settings;
    settings.threads = threads;
    settings.want_plan_text = true;
    // A nanosecond: past before enumeration ends, so every point stops at its first check.
    settings.timeout_seconds = 1e-9;
    std::vector<SweepPointResult> results;
    run_sweep_points(input, grid, all, settings, [&](SweepPointResult&& p) { results.push_back(std::move(p)); });
    REQUIRE(results.size() == 4);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const SweepPointResult& p = results[i];
      CHECK(p.index == i);
      CHECK(p.timed_out);
      CHECK_FALSE(p.feasible);
      CHECK(p.failure == "TIMEOUT");
      CHECK(p.failure_stage == "timeout");
      CHECK(p.plan_text.empty());  // nothing to write: no half plan file
      CHECK_FALSE(p.max_rank_perf_ms.has_value());
      CHECK(p.proposals == 0);
      CHECK(p.wall_seconds.has_value());
    }
    // The row says so, and is the same whatever the thread count (no timing in it).
    const SweepRowContext context{"0123456789abcdef", &grid};
    CHECK(
        render_sweep_row(SweepFormat::kJsonl, context, results[1], "") ==
        "{\"sweep\":\"0123456789abcdef\",\"index\":1,\"points\":4,\"values\":{\"world_size\":2,\"hbm_cap\":\"16 GiB\"},"
        "\"feasible\":false,\"failure\":\"TIMEOUT\",\"failure_stage\":\"timeout\",\"max_rank_perf_ms\":null,"
        "\"max_hbm_bytes\":null,\"max_hbm_fraction\":null,\"max_ddr_bytes\":null,\"max_ddr_fraction\":null,"
        "\"imbalance\":null,\"throughput_samples_per_s\":null,\"proposals\":0,\"plan\":null}\n");
  }
  // An hour is never reached here: the points are planned as without a timeout.
  SweepRunSettings generous;
  generous.timeout_seconds = 3600;
  std::vector<SweepPointResult> planned;
  run_sweep_points(input, grid, all, generous, [&](SweepPointResult&& p) { planned.push_back(std::move(p)); });
  REQUIRE(planned.size() == 4);
  for (const auto& p : planned) CHECK((p.feasible && !p.timed_out));
}

// Collects a run's log lines as a listener would see them.
class SweepEventRecorder final : public SweepPointListener {
 public:
  void point_started(std::size_t index) override {
    std::lock_guard<std::mutex> lock(mutex_);
    events.push_back({"start", index});
  }
  void point_finished(const SweepPointResult& point) override {
    std::lock_guard<std::mutex> lock(mutex_);
    events.push_back({point.feasible ? "feasible" : point.failure, point.index});
  }
  std::vector<std::pair<std::string, std::size_t>> events;

 private:
  std::mutex mutex_;
};

TEST_CASE("sweep listener: each point starts once and ends once after it started, on any thread", "[sweep][log]") {
  const PlanningInput input = load_case(kQuickstartConfig);
  const SweepGrid grid = read_sweep_grid("", {"world_size=1,2,4,8", "hbm_cap=100 MiB,16 GiB", "ddr_cap=1 MiB"});
  const std::vector<std::size_t> all{0, 1, 2, 3, 4, 5, 6, 7};
  for (const int threads : {1, 2}) {
    INFO("threads " << threads);
    SweepEventRecorder listener;
    SweepRunSettings settings;
    settings.threads = threads;
    settings.listener = &listener;
    std::vector<SweepPointResult> rows;
    run_sweep_points(input, grid, all, settings, [&](SweepPointResult&& p) { rows.push_back(std::move(p)); });
    REQUIRE(listener.events.size() == 16);
    std::map<std::size_t, int> started;
    for (const auto& [event, index] : listener.events) {
      if (event == "start") {
        CHECK(started[index]++ == 0);
      } else {
        CHECK(started[index] == 1);  // its start came first
        CHECK(event == (rows[index].feasible ? "feasible" : rows[index].failure));
      }
    }
    CHECK(started.size() == 8);
  }
}

TEST_CASE("sweep log lines: tab-separated, the values as given, the status and the wall time", "[sweep][log]") {
  const SweepGrid grid = sweep_job_test_grid();
  CHECK(sweep_log_values(grid, 3) == "world_size=4, hbm_cap=16 GiB");
  CHECK(sweep_log_start_line(0.0125, grid, 1) == "0.013\tstart\t1\tworld_size=2, hbm_cap=16 GiB\n");
  SweepPointResult done;
  done.index = 2;
  done.feasible = true;
  done.wall_seconds = 1.25;
  CHECK(sweep_log_end_line(3.5, grid, done) == "3.500\tend\t2\tworld_size=4, hbm_cap=8 GiB\tfeasible\t1.250000\n");
  SweepPointResult late;
  late.index = 0;
  late.timed_out = true;
  late.failure = kSweepTimeoutFailure;
  late.wall_seconds = 30.0004;
  CHECK(sweep_log_end_line(30.1, grid, late) == "30.100\tend\t0\tworld_size=2, hbm_cap=8 GiB\tTIMEOUT\t30.000400\n");
}

}  // namespace
}  // namespace shardplan::testing
