// The diff gate on hand-built diffs: the tolerance boundary, each --fail-on
// condition, the grammar's errors; and the text bars `show` draws.
#include <catch2/catch.hpp>

#include "common/error.h"
#include "common/units.h"
#include "diff/diff_gate.h"
#include "planner_output/plan_show.h"

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
  CHECK_FALSE(judge_diff(perf_diff(2.0, 1.0), 0, {}).failed);     // faster is no regression
  CHECK_FALSE(judge_diff(perf_diff(2.0, 2.5), 0.25, {}).failed);  // exactly at the tolerance
  const GateResult over = judge_diff(perf_diff(2.0, 2.6), 0.25, {});
  REQUIRE(over.failed);
  CHECK(over.reasons ==
        std::vector<std::string>{"max-rank perf regressed: 2.000000 ms -> 2.600000 ms (+30.00%, tolerance 25.00%)"});
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
  d.new_hbm_peak = MemoryFraction{3, 95 * kGiB / 10, 10 * kGiB, 0.95};
  d.new_has_memory = true;
  const auto conditions = parse_fail_on({"sharding-type-change,ranks-change", "tables-change", "hbm-over=90%",
                                         "ddr-over=0.5", "kernel-change", "inputs-change"});
  const GateResult r = judge_diff(d, 0, conditions);
  CHECK(r.failed);
  CHECK(r.reasons == std::vector<std::string>{
                         "sharding-type-change: 1 table (ebc.t_b)",
                         "ranks-change: 2 tables (ebc.t_a, ebc.t_b)",
                         "tables-change: 1 table (ebc.t_c)",
                         "hbm-over=90%: rank 3 of the new plan uses 95.00% of its usable HBM (9.50 GiB of 10.00 GiB)",
                     });
  d.inputs = InputsComparison::kDifferent;
  CHECK(judge_diff(d, 0, parse_fail_on({"inputs-change"})).reasons ==
        std::vector<std::string>{"inputs-change: the plans were planned from different inputs"});
}

TEST_CASE("diff gate: the --fail-on grammar's errors", "[diff][gate]") {
  CHECK(fail_on_problem({"hbm-over=0.9,kernel-change"}).empty());
  CHECK(
      fail_on_problem({"hbm-over=90%", "rank-perf-over=2.5ms", "table-hbm-over=1GiB", "rank-ddr-increase=0"}).empty());
  CHECK(fail_on_problem({"kernel-change=1"}) ==
        "--fail-on: condition 'kernel-change' takes no value, found 'kernel-change=1'");
  CHECK(fail_on_problem({"hbm-over=90"}) ==
        "--fail-on: condition 'hbm-over=90': a ratio above 1 is ambiguous, found '90': did you mean 90%? (write 5% or "
        "0.05)");
  CHECK(fail_on_problem({"hbm-over=inf"}) ==
        "--fail-on: condition 'hbm-over=inf': expected a finite ratio such as 5% or 0.05, found 'inf'");
  CHECK(fail_on_problem({"ddr-over=nan"}) ==
        "--fail-on: condition 'ddr-over=nan': expected a finite ratio such as 5% or 0.05, found 'nan'");
  CHECK(
      fail_on_problem({"table-perf-increase=-5%"}) ==
      "--fail-on: condition 'table-perf-increase=-5%': expected a ratio of 0 or more, such as 5% or 0.05, found '-5%'");
  CHECK(fail_on_problem({"hbm-over=0.9x"}) ==
        "--fail-on: condition 'hbm-over=0.9x': expected a finite ratio such as 5% or 0.05, found '0.9x'");
  CHECK(fail_on_problem({"hbm-over"}) ==
        "--fail-on: condition 'hbm-over' needs a ratio, e.g. 'hbm-over=90%', found 'hbm-over'");
  CHECK(
      fail_on_problem({"rank-perf-over="}) ==
      "--fail-on: condition 'rank-perf-over' needs a time in ms, e.g. 'rank-perf-over=2.5ms', found 'rank-perf-over='");
  CHECK(fail_on_problem({"rank-perf-over=inf"}) ==
        "--fail-on: condition 'rank-perf-over=inf': expected a finite time of 0 or more such as 2.5ms, found 'inf'");
  CHECK(fail_on_problem({"table-hbm-over=12"}) ==
        "--fail-on: condition 'table-hbm-over=12': a size needs a unit, found '12': did you mean '12GiB'? "
        "(KB/MB/GB/TB are read as KiB/MiB/GiB/TiB (1024-based, as torchrec's constants are))");
  CHECK(fail_on_problem({"rank-hbm-over"}) ==
        "--fail-on: condition 'rank-hbm-over' needs a size, e.g. 'rank-hbm-over=12GiB', found 'rank-hbm-over'");
  CHECK(fail_on_problem({"kernel-change,"}) == "--fail-on: expected a condition, found 'kernel-change,'");
  CHECK(fail_on_problem({"hbm-ovr=0.5"}) == "--fail-on: unknown condition 'hbm-ovr', did you mean 'hbm-over'?");
  CHECK(fail_on_problem({"rank-perf-increse=5%"}) ==
        "--fail-on: unknown condition 'rank-perf-increse', did you mean 'rank-perf-increase'?");
}

// A diff of two ranks and two tables in both plans, plus a rank and a table only NEW
// has, with figures chosen so that each limit below sits between two of them.
PlanDiff figures_diff() {
  PlanDiff d = perf_diff(1, 1);
  RankChange r0{0, true, true, Change{1.0, 1.05}, Change{1.0 * kGiB, 2.0 * kGiB}, Change{0, 0}};
  RankChange r1{1, true, true, Change{2.0, 2.5}, Change{4.0 * kGiB, 4.2 * kGiB}, Change{0, 1.0 * kMiB}};
  RankChange r2{2, false, true, Change{0, 3.0}, Change{0, 8.0 * kGiB}, Change{0, 0}};
  d.ranks = {r0, r1, r2};
  d.table_figures = {
      TableFigures{"ebc.a", true, true, Change{0.5, 0.6}, Change{1.0 * kGiB, 1.0 * kGiB}, Change{0, 0}},
      TableFigures{"ebc.b", true, true, Change{1.0, 1.01}, Change{2.0 * kGiB, 3.0 * kGiB}, Change{kMiB, 2.0 * kMiB}},
      TableFigures{"ebc.new", false, true, Change{0, 4.0}, Change{0, 5.0 * kGiB}, Change{0, 0}},
  };
  return d;
}

std::vector<std::string> reasons_of(const std::string& condition) {
  return judge_diff(figures_diff(), 0, parse_fail_on({condition})).reasons;
}

TEST_CASE("diff gate: each per-rank and per-table limit", "[diff][gate]") {
  using V = std::vector<std::string>;
  // -over: NEW's figures, every rank / table of NEW (the added ones too).
  CHECK(reasons_of("rank-perf-over=2.6ms") == V{"rank-perf-over=2.6ms: 1 rank (rank 2: 3.0000 ms)"});
  CHECK(reasons_of("rank-perf-over=3") == V{});
  CHECK(reasons_of("rank-hbm-over=4GiB") == V{"rank-hbm-over=4GiB: 2 ranks (rank 1: 4.20 GiB, rank 2: 8.00 GiB)"});
  CHECK(reasons_of("rank-ddr-over=512KiB") == V{"rank-ddr-over=512KiB: 1 rank (rank 1: 1.00 MiB)"});
  CHECK(reasons_of("table-perf-over=1ms") == V{"table-perf-over=1ms: 2 tables (ebc.b: 1.0100 ms, ebc.new: 4.0000 ms)"});
  CHECK(reasons_of("table-hbm-over=3GiB") == V{"table-hbm-over=3GiB: 1 table (ebc.new: 5.00 GiB)"});
  CHECK(reasons_of("table-ddr-over=1MiB") == V{"table-ddr-over=1MiB: 1 table (ebc.b: 2.00 MiB)"});
  // -increase: ranks and tables in both plans, relative to OLD.
  CHECK(reasons_of("rank-perf-increase=10%") ==
        V{"rank-perf-increase=10%: 1 rank (rank 1: 2.0000 ms -> 2.5000 ms (+25.00%))"});
  CHECK(reasons_of("rank-perf-increase=25%") == V{});  // exactly at the limit
  CHECK(reasons_of("rank-hbm-increase=50%") ==
        V{"rank-hbm-increase=50%: 1 rank (rank 0: 1.00 GiB -> 2.00 GiB (+100.00%))"});
  CHECK(reasons_of("rank-ddr-increase=1000%") ==
        V{"rank-ddr-increase=1000%: 1 rank (rank 1: 0.00 B -> 1.00 MiB (was 0))"});
  CHECK(reasons_of("table-perf-increase=5%") ==
        V{"table-perf-increase=5%: 1 table (ebc.a: 0.5000 ms -> 0.6000 ms (+20.00%))"});
  CHECK(reasons_of("table-hbm-increase=0.4") ==
        V{"table-hbm-increase=0.4: 1 table (ebc.b: 2.00 GiB -> 3.00 GiB (+50.00%))"});
  CHECK(reasons_of("table-ddr-increase=99%") ==
        V{"table-ddr-increase=99%: 1 table (ebc.b: 1.00 MiB -> 2.00 MiB (+100.00%))"});
  CHECK(reasons_of("table-ddr-increase=100%") == V{});
}

TEST_CASE("diff gate: hbm-over needs NEW's memory block", "[diff][gate]") {
  PlanDiff d = perf_diff(1, 1);
  d.new_file = "old-plan.json";
  CHECK_NOTHROW(check_conditions_apply(d, parse_fail_on({"rank-hbm-over=1GiB"})));
  try {
    check_conditions_apply(d, parse_fail_on({"hbm-over=90%"}));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.format() ==
          "old-plan.json: --fail-on: condition 'hbm-over=90%' needs the plan file's \"memory\" block (used and "
          "usable memory per rank), which this file lacks; plan it again with this shardplan");
  }
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
