// Sweep rows read back as written (both formats), and the file checks of resume
// and merge: torn rows, rows of another sweep, overlapping and missing points.
#include "sweep/sweep_rows.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "config/config_test_util.h"
#include "sweep/sweep_files.h"

namespace shardplan {
namespace {

using testing::problems_of;
using testing::scratch_prefix;
using testing::write_scratch;

SweepPointResult feasible_point(std::size_t index, double perf) {
  SweepPointResult p;
  p.index = index;
  p.feasible = true;
  p.max_rank_perf_ms = perf;
  p.max_hbm_bytes = 3 * 1024 * 1024;
  p.max_ddr_bytes = 0;
  p.max_hbm_fraction = 0.25;
  p.max_ddr_fraction = 0.0;
  p.imbalance = 1.5;
  p.proposals = 7;
  return p;
}

SweepPointResult infeasible_point(std::size_t index) {
  SweepPointResult p;
  p.index = index;
  p.failure = "INSUFFICIENT_STORAGE";
  p.failure_stage = "plan";
  p.proposals = 3;
  return p;
}

// Every row of a 4-point grid, in order.
std::string all_rows(SweepFormat format, const SweepRowContext& context) {
  std::string out = sweep_header(format, *context.grid);
  for (std::size_t i = 0; i < 4; ++i)
    out += render_sweep_row(format, context, i == 2 ? infeasible_point(i) : feasible_point(i, 0.5 + i), "");
  return out;
}

TEST_CASE("sweep rows: both formats read back to the same record", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"world_size=2,4", "hbm_cap=8 GiB,16 GiB"});
  const SweepRowContext context{"0123456789abcdef", &grid};
  const std::string header = sweep_header(SweepFormat::kCsv, grid);
  CHECK(header ==
        "sweep,index,points,world_size,hbm_cap,feasible,failure,failure_stage,max_rank_perf_ms,max_hbm_bytes,"
        "max_hbm_fraction,max_ddr_bytes,max_ddr_fraction,imbalance,throughput_samples_per_s,proposals,plan\n");
  for (const SweepFormat format : {SweepFormat::kJsonl, SweepFormat::kCsv}) {
    for (const auto& point : {feasible_point(3, 1.25), infeasible_point(1)}) {
      std::string row = render_sweep_row(format, context, point, point.feasible ? "point-000003.json" : "");
      REQUIRE(row.back() == '\n');
      row.pop_back();
      const auto record = parse_sweep_row(format, row, csv_column_count(header.substr(0, header.size() - 1)));
      REQUIRE(record);
      CHECK(record->sweep_id == "0123456789abcdef");
      CHECK(record->index == point.index);
      CHECK(record->points == 4);
      CHECK(record->feasible == point.feasible);
      CHECK(record->max_rank_perf_ms == point.max_rank_perf_ms);
      CHECK(record->max_hbm_bytes.has_value() == point.feasible);
      // A row cut in half does not read back (a cut within the last CSV cell would:
      // only the row's '\n' says it is complete, which resume and merge require).
      CHECK_FALSE(parse_sweep_row(format, row.substr(0, row.size() / 2), 17));
    }
  }
  const std::string csv = render_sweep_row(SweepFormat::kCsv, context, feasible_point(3, 1.25), "");
  CHECK(csv == "0123456789abcdef,3,4,4,16 GiB,true,,,1.25,3145728,0.25,0,0.0,1.5,,7,\n");  // no throughput given
}

TEST_CASE("sweep resume: complete rows are kept, a torn last row is dropped, other sweeps refused", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"world_size=2,4", "hbm_cap=8 GiB,16 GiB"});
  const SweepRowContext context{"0123456789abcdef", &grid};
  const std::vector<std::size_t> slice{0, 1, 2, 3};
  for (const SweepFormat format : {SweepFormat::kJsonl, SweepFormat::kCsv}) {
    const std::string header = sweep_header(format, grid);
    const std::string full = all_rows(format, context);
    const std::string two_rows = full.substr(0, full.find('\n', full.find('\n', header.size()) + 1) + 1);
    const std::string path = write_scratch("resume.out", two_rows + full.substr(two_rows.size(), 9));
    const SweepResume resume = read_sweep_resume(path, format, header, context.sweep_id, slice);
    CHECK(resume.rows_done == 2);
    CHECK(resume.kept == two_rows);
    // An absent file: nothing done.
    CHECK(read_sweep_resume(scratch_prefix() + "absent.out", format, header, context.sweep_id, slice).rows_done == 0);
  }
  const std::string jsonl = all_rows(SweepFormat::kJsonl, context);
  const std::string path = write_scratch("resume.jsonl", jsonl);
  CHECK(problems_of([&] { read_sweep_resume(path, SweepFormat::kJsonl, "", "fedcba9876543210", slice); }) ==
        std::vector<std::string>{"resume.jsonl:1:1: this row is of another sweep (id 0123456789abcdef; this sweep's id "
                                 "is fedcba9876543210: other inputs, grid, format or version); give another -o, or "
                                 "drop --resume"});
  CHECK(problems_of([&] {
          read_sweep_resume(path, SweepFormat::kJsonl, "", context.sweep_id, {1, 3});
        }) == std::vector<std::string>{"resume.jsonl:1:1: point 0 is not the next point of this slice (expected 1)"});
  // A broken row that is not the last line is not an interruption's doing.
  const std::string broken = write_scratch("broken.jsonl", "{\"sweep\":\n" + jsonl);
  CHECK(problems_of([&] { read_sweep_resume(broken, SweepFormat::kJsonl, "", context.sweep_id, slice); }) ==
        std::vector<std::string>{"broken.jsonl:1:1: not a complete jsonl row of a sweep"});
}

TEST_CASE("sweep merge: slices join in grid order; overlaps, gaps and other sweeps are refused", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"world_size=2,4", "hbm_cap=8 GiB,16 GiB"});
  const SweepRowContext context{"0123456789abcdef", &grid};
  for (const SweepFormat format : {SweepFormat::kJsonl, SweepFormat::kCsv}) {
    const std::string header = sweep_header(format, grid);
    auto rows_of = [&](std::vector<std::size_t> indices, const SweepRowContext& c) {
      std::string out = header;
      for (std::size_t i : indices) out += render_sweep_row(format, c, feasible_point(i, 1.0 + i), "");
      return out;
    };
    const std::string a = write_scratch("slice-a", rows_of({1, 3}, context));
    const std::string b = write_scratch("slice-b", rows_of({0, 2}, context));
    CHECK(merge_sweep_slices({a, b}) == rows_of({0, 1, 2, 3}, context));
    CHECK(problems_of([&] { merge_sweep_slices({a}); }) ==
          std::vector<std::string>{"2 of the sweep's 4 points are in no slice (the first: 0, 2); merge every slice"});
    const std::string c = write_scratch("slice-c", rows_of({2}, context));
    CHECK(problems_of([&] {
            merge_sweep_slices({a, b, c});
          }) == std::vector<std::string>{"slice-c:" + std::to_string(format == SweepFormat::kCsv ? 2 : 1) +
                                         ":1: point 2 is also at " + b + ":" +
                                         std::to_string(format == SweepFormat::kCsv ? 3 : 2) + ": slices overlap"});
    const SweepRowContext other{"fedcba9876543210", &grid};
    const std::string d = write_scratch("slice-d", rows_of({0, 2}, other));
    CHECK(problems_of([&] { merge_sweep_slices({a, d}); }).size() == 1);
    const std::string full = rows_of({0, 1, 2, 3}, context);
    const std::string torn = write_scratch("slice-torn", full.substr(0, full.size() - 4));
    CHECK(problems_of([&] { merge_sweep_slices({torn}); }).size() == 1);
  }
}

}  // namespace
}  // namespace shardplan
