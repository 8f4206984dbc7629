// The plan must not depend on the thread count: tables enumerated on several
// threads are joined in table order, proposals evaluated ahead on several
// threads are merged in proposal order, and proposers walked ahead by copies on
// another thread are replayed in order. Runs mid-size scale cases with one
// thread and with four, both ways of using threads, and compares the plan files
// byte for byte, plus the counts the plan file does not carry.
#include <catch2/catch.hpp>
#include <filesystem>

#include "config/loader.h"
#include "planner/run.h"
#include "planner_output/failure_text.h"
#include "planner_output/plan_json.h"
#include "support/golden.h"

namespace shardplan::testing {
namespace {

struct DeterminismRun {
  std::string file;  // the plan file text, or the failure explanation
  int num_proposals = 0;
  int num_plans = 0;
};

// How extra threads are used. kPerProposal: proposals (and tables) handed out
// one by one even when small; kWalkAhead: the default below 400 000 shards a
// proposal, later proposers walked ahead by copies on a second thread.
enum class Use { kPerProposal, kWalkAhead };

DeterminismRun plan_with_threads(const PlanningInput& input, int threads, Use use) {
  ThreadPool pool(threads);
  Parallelism parallelism{&pool};
  if (use == Use::kPerProposal) {
    parallelism.min_shards = 0;
    parallelism.walk_max_shards = 0;
  }
  PlanRun run = run_plan(input, parallelism);
  DeterminismRun out{"", run.result.num_proposals, run.result.num_plans};
  if (!run.ok()) {
    out.file = explain_failure(run);
    return out;
  }
  out.file = plan_file_text(run, input.model.name);
  return out;
}

TEST_CASE("the plan is byte-identical for any thread count", "[determinism]") {
  auto dir = cases_dir();
  if (!dir) {
    WARN("no cases directory; skipped");
    return;
  }
  // T100-ws64: greedy proposals that fail and succeed interleaved, uniform,
  // host and device steps; T200-ws8: many more proposals fail than pass.
  for (const char* name : {"case-scale-T100-ws64.json", "case-scale-T200-ws8.json"}) {
    const std::string path = (std::filesystem::path(*dir) / "scale" / name).string();
    if (!std::filesystem::exists(path)) {
      WARN(name << " missing; skipped");
      continue;
    }
    const PlanningInput input = load_case(path);
    // With a greedy threshold the proposers stop on the verdicts, so the walks
    // must stop exactly where the loop does.
    PlanningInput stopping = input;
    stopping.planner.greedy_threshold = 3;
    for (const PlanningInput* in : std::initializer_list<const PlanningInput*>{&input, &stopping}) {
      const DeterminismRun serial = plan_with_threads(*in, 1, Use::kWalkAhead);
      for (Use use : {Use::kPerProposal, Use::kWalkAhead}) {
        const DeterminismRun parallel = plan_with_threads(*in, 4, use);
        INFO("case " << name << (in == &stopping ? " with greedy threshold 3" : "")
                     << (use == Use::kWalkAhead ? ", walked ahead" : ", per proposal"));
        CHECK(serial.num_proposals > 0);
        CHECK(parallel.num_proposals == serial.num_proposals);
        CHECK(parallel.num_plans == serial.num_plans);
        CHECK(parallel.file.size() == serial.file.size());
        CHECK(parallel.file == serial.file);
      }
    }
  }
}

}  // namespace
}  // namespace shardplan::testing
