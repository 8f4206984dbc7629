// `--partitioner optimizing` on cases where no plan exists: it searched every
// option, says so after greedy's unchanged text, and gives the argument that
// proves no plan exists (total capacity, or a table that fits no rank).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "config/loader.h"
#include "planner/run.h"
#include "planner_output/failure_text.h"
#include "support/golden.h"

namespace shardplan::testing {
namespace {

PlanRun run_infeasible(PlanningInput input, PartitionerKind kind) {
  input.planner.partitioner.type = kind;
  return run_plan(input);
}

// `text` without the search's two lines (the one naming the search and the next).
std::string without_search_lines(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  bool skip_next = false;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos + 1);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (line.rfind("  --partitioner optimizing then searched", 0) == 0) {
      skip_next = true;
      continue;
    }
    if (skip_next) {
      skip_next = false;
      continue;
    }
    out += line;
  }
  return out;
}

TEST_CASE("optimizing: no plan, after searching every option, and why", "[optimizing][planner-failure]") {
  auto dir = cases_dir();
  if (!dir) {
    note_parity_skipped();
    return;
  }
  const std::map<std::string, std::string> proof_line{
      // One table needs 1.86 TiB of DDR in every option; all ranks hold far less.
      {"case-infeasible-insufficient-storage.json", "  and no plan exists: the options with the least HBM + DDR need "},
      // big_tw's only option (table_wise/fused) is larger than any rank.
      {"case-infeasible-strict-constraints.json",
       "  and no plan exists: no option of ebc.big_tw fits a rank (above)\n"},
  };
  for (const auto& [name, expected] : proof_line) {
    INFO("case " << name);
    const PlanningInput input = load_case((std::filesystem::path(*dir) / name).string());
    const PlanRun greedy = run_infeasible(input, PartitionerKind::kGreedy);
    const PlanRun ours = run_infeasible(input, PartitionerKind::kOptimizing);
    REQUIRE_FALSE(greedy.ok());
    REQUIRE_FALSE(ours.ok());
    CHECK_FALSE(greedy.result.failure->option_search);
    REQUIRE(ours.result.failure->option_search);
    const std::string greedy_text = explain_failure(greedy);
    const std::string our_text = explain_failure(ours);
    CHECK(greedy_text.find("searched") == std::string::npos);
    CHECK(our_text.find("  --partitioner optimizing then searched all ") != std::string::npos);
    CHECK(our_text.find(expected) != std::string::npos);
    // Greedy's text is untouched; the search only adds its two lines.
    CHECK(without_search_lines(our_text) == greedy_text);
    const OptionSearchVerdict& v = *ours.result.failure->option_search;
    CHECK(v.num_options == ours.search_space.enumerated().size());
    if (v.proof) {
      // The proof recomputed here: least HBM + DDR per table, summed, against all ranks.
      std::map<std::string, std::int64_t> least;
      for (const auto& option : ours.search_space.enumerated()) {
        const Storage s = option.total_storage();
        auto [it, fresh] = least.emplace(option.fqn(), s.hbm + s.ddr);
        if (!fresh) it->second = std::min(it->second, s.hbm + s.ddr);
      }
      double needed = 0;
      for (const auto& [fqn, bytes] : least) needed += static_cast<double>(bytes);
      double held = 0;
      for (const auto& device : ours.result.reservation->reserved.devices)
        held += static_cast<double>(device.storage.hbm + device.storage.ddr);
      CHECK(v.proof->hbm_weight == 1);
      CHECK(v.proof->ddr_weight == 1);
      CHECK(v.proof->needed == Approx(needed));
      CHECK(v.proof->available == Approx(held));
      CHECK(needed > held);
    }
  }
}

}  // namespace
}  // namespace shardplan::testing
