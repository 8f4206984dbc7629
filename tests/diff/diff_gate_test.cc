// The diff gate on hand-built diffs: the tolerance boundary, each --fail-on
// condition, the grammar's errors; and the text bars `show` draws.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "diff/diff_gate.h"
#include "output/plan_show.h"

namespace shardplan {
namespace {

PlanDiff perf_diff(double old_perf, double new_perf) {
  PlanDiff d;
  d.max_rank_perf = Change{old_perf, new_perf};
  d.inputs = InputsComparison::kSame;
  return d;
}

std::string fail_on_problem(const std::vector<std::string>& values) {
  try {
    parse_fail_on(values);
  } catch (const InputError& e) {
    return e.format();
  }
  return "";
}

TEST_CASE("diff gate: max-rank perf against the relative tolerance", "[diff][gate]") {
  CHECK_FALSE(judge_diff(perf_diff(2.0, 2.0), 0, {}).failed);
  CHECK(judge_diff(perf_diff(2.0, 2.0000001), 0, {}).failed);
  CHECK_FALSE(judge_diff(perf_diff(2.0, 1.0), 0, {}).failed);  // faster is no regression
  CHECK_FALSE(judge_diff(perf_diff(2.0, 2.5), 0.25, {}).failed);  // exactly at the tolerance
  const GateResult over = judge_diff(perf_diff(2.0, 2.6), 0.25, {});
  REQUIRE(over.failed);
  CHECK(over.reasons == std::vector<std::string>{
                            "max-rank perf regressed: 2.000000 ms -> 2.600000 ms (+30.00%, tolerance 25.00%)"});
}

TEST_CASE("diff gate: --fail-on conditions name what tripped them", "[diff][gate]") {
  PlanDiff d = perf_diff(1, 1);
  TableChange moved;
  moved.fqn = "ebc.t_a";
  moved.ranks_changed = true;
  TableChange retyped;
  retyped.fqn = "ebc.t_b";
  retyped.sharding_type_changed = true;
  retyped.ranks_changed = true;
  TableChange added;
  added.fqn = "ebc.t_c";
  added.kind = TableChangeKind::kAdded;
  d.tables = {moved, retyped, added};
  d.new_hbm_fraction = 0.95;
  d.new_hbm_fraction_rank = 3;
  const auto conditions = parse_fail_on({"sharding-type-change,ranks-change", "tables-change", "hbm-over=0.9",
                                         "ddr-over=0.5", "kernel-change", "inputs-change"});
  const GateResult r = judge_diff(d, 0, conditions);
  CHECK(r.failed);
  CHECK(r.reasons == std::vector<std::string>{
                         "sharding-type-change: 1 table (ebc.t_b)",
                         "ranks-change: 2 tables (ebc.t_a, ebc.t_b)",
                         "tables-change: 1 table (ebc.t_c)",
                         "hbm-over=0.9: rank 3 of the new plan uses 95.00% of its HBM",
                     });
  d.inputs = InputsComparison::kDifferent;
  CHECK(judge_diff(d, 0, parse_fail_on({"inputs-change"})).reasons ==
        std::vector<std::string>{"inputs-change: the plans were planned from different inputs"});
}

TEST_CASE("diff gate: the --fail-on grammar's errors", "[diff][gate]") {
  CHECK(fail_on_problem({"hbm-over=0.9,kernel-change"}).empty());
  CHECK(fail_on_problem({"kernel-change=1"}) == "--fail-on: condition 'kernel-change' takes no value, found 'kernel-change=1'");
  CHECK(fail_on_problem({"ddr-over=0"}) ==
        "--fail-on: condition 'ddr-over' needs a fraction above 0, e.g. 'ddr-over=0.9', found 'ddr-over=0'");
  CHECK(fail_on_problem({"hbm-over=0.9x"}) ==
        "--fail-on: condition 'hbm-over' needs a fraction above 0, e.g. 'hbm-over=0.9', found 'hbm-over=0.9x'");
  CHECK(fail_on_problem({"kernel-change,"}) == "--fail-on: expected a condition, found 'kernel-change,'");
  CHECK(fail_on_problem({"hbm-ovr=0.5"}) == "--fail-on: unknown condition 'hbm-ovr', did you mean 'hbm-over'?");
}

TEST_CASE("show: text bars", "[show]") {
  CHECK(text_bar(0, 10, 8) == "........");
  CHECK(text_bar(5, 10, 8) == "####....");
  CHECK(text_bar(10, 10, 8) == "########");
  CHECK(text_bar(11, 10, 8) == "#######!");
  CHECK(text_bar(3, 0, 4) == "....");  // no capacity: nothing to draw against
}

}  // namespace
}  // namespace shardplan
