#include "output/failure_text.h"

#include <fmt/format.h>

#include "common/units.h"
#include "output/partition_failure_text.h"

namespace shardplan {

namespace {
std::string storage_text(const Storage& s) {
  return format_bytes(static_cast<double>(s.hbm)) + " HBM + " + format_bytes(static_cast<double>(s.ddr)) + " DDR";
}
}  // namespace

std::string explain_failure(const PlanRun& run) {
  if (run.enumeration_error) return "no sharding option: " + *run.enumeration_error + "\n";
  if (!run.result.failure) return "";
  const PlanFailure& f = *run.result.failure;
  if (f.stage == FailureStage::kCrash) return f.stage_reason + "\n";
  std::string out = fmt::format("no feasible plan ({}, after {} proposals)\n",
                                name_of(kPlannerErrorTypeNames, f.error_type), run.result.num_proposals);
  if (f.stage != FailureStage::kPlan) return out + "  " + f.stage_reason + "\n";
  for (const auto& t : f.tables)
    out += fmt::format("  {} needs {} in its smallest option; the largest free rank has {}\n", t.fqn,
                       storage_text(t.smallest_option), storage_text(f.largest_rank_free));
  out += fmt::format("  storage left for the tables on all ranks: {}; the smallest proposal needs {}\n",
                     storage_text(f.global_available), storage_text(f.lowest_storage));
  if (f.last_partition_failure)
    out += "  last partitioner error: " + partition_failure_text(*f.last_partition_failure, run.search_space) + "\n";
  out += fmt::format(
      "Possible fixes:\n"
      "  1) more devices (world size {}) or devices with more memory (--world-size, --hbm-cap)\n"
      "  2) a smaller model or batch size (--batch-size)\n"
      "  3) a smaller storage reservation (--reservation-percentage)\n"
      "  4) fewer constraints on the tables named above\n",
      run.topology.world_size);
  return out;
}

}  // namespace shardplan
