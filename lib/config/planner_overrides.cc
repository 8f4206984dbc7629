#include "config/planner_overrides.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"
#include "config/limits.h"
#include "config/planner_names.h"

namespace shardplan {

namespace {

template <typename Enum, std::size_t N>
Enum checked_name(const NameTable<Enum, N>& table, const std::string& flag, const std::string& value) {
  if (auto parsed = parse_name(table, value)) return *parsed;
  throw InputError(SourcePos{}, flag, unknown_name_message("name", value, names_of(table)));
}

std::int64_t checked_size(const std::string& flag, const std::string& text) {
  std::string error;
  auto bytes = parse_size_flag(text, &error);
  // parse_size_flag's own words where it has them (no unit, not a number, negative).
  if (!bytes && (error.rfind(kSizeNeedsUnit, 0) == 0 || error.rfind("expected", 0) == 0))
    throw InputError(SourcePos{}, flag, error);
  if (!bytes || *bytes < 0)
    throw InputError(
        SourcePos{}, flag,
        "expected a size such as '80 GiB', found '" + text + "'" + (error.empty() ? "" : " (" + error + ")"));
  if (*bytes > kDeviceBytesRule.max)
    throw InputError(SourcePos{}, flag, past_limit_message(kDeviceBytesRule.max, "'" + text + "'"));
  return *bytes;
}

// `value` when it keeps `rule`; else throws the rule's problem under `flag`.
std::int64_t checked(const IntegerRule& rule, const std::string& flag, std::int64_t value) {
  if (auto problem = integer_problem(rule, value)) throw InputError(SourcePos{}, flag, *problem);
  return value;
}

}  // namespace

void apply_planner_overrides(const PlannerOverrides& o, PlanningInput& input) {
  PlannerOptions& p = input.planner;
  if (!o.partitioner.empty()) p.partitioner.type = checked_name(kPartitionerNames, "--partitioner", o.partitioner);
  if (!o.sort_by.empty()) p.partitioner.sort_by = checked_name(kGreedySortByNames, "--sort-by", o.sort_by);
  if (!o.storage_reservation.empty())
    p.storage_reservation.policy =
        checked_name(kReservationPolicyNames, "--storage-reservation", o.storage_reservation);
  if (o.reservation_percentage) {
    if (!is_reservation_fraction(*o.reservation_percentage))
      throw InputError(SourcePos{}, "--reservation-percentage",
                       fmt::format("expected a ratio from 0% to 100% (0 to 1), found {:g} ({:g}%)",
                                   *o.reservation_percentage, *o.reservation_percentage * 100));
    p.storage_reservation.percentage = *o.reservation_percentage;
  }
  if (!o.proposers.empty()) {
    std::vector<ProposerKind> names;
    std::size_t start = 0;
    while (start <= o.proposers.size()) {
      std::size_t comma = o.proposers.find(',', start);
      if (comma == std::string::npos) comma = o.proposers.size();
      std::string name = o.proposers.substr(start, comma - start);
      if (!name.empty()) names.push_back(checked_name(kProposerNames, "--proposers", name));
      start = comma + 1;
    }
    if (names.empty()) throw InputError(SourcePos{}, "--proposers", "expected at least one proposer name");
    p.proposers = names;
  }
  if (o.greedy_threshold)
    p.greedy_threshold = static_cast<int>(checked(kGreedyThresholdRule, "--greedy-threshold", *o.greedy_threshold));
  if (o.batch_size) input.model.batch_size = checked(kBatchSizeRule, "--batch-size", *o.batch_size);
  if (o.time_budget) {
    if (!(*o.time_budget >= 0 && *o.time_budget <= 3600))  // NaN too
      throw InputError(SourcePos{}, "--time-budget",
                       "expected seconds in [0, 3600], found " + std::to_string(*o.time_budget));
    p.partitioner.time_budget_seconds = *o.time_budget;
  }
  TopologyConfig& t = input.topology;
  if (o.world_size) {
    t.world_size = checked(kWorldSizeRule, "--world-size", *o.world_size);
    if (t.custom_hbm_cap && static_cast<std::int64_t>(t.custom_hbm_cap->size()) != t.world_size)
      throw InputError(SourcePos{}, "--world-size",
                       "the topology's custom.hbm_cap has " + std::to_string(t.custom_hbm_cap->size()) +
                           " entries; drop it or keep the world size");
    if (t.custom_ddr_cap && static_cast<std::int64_t>(t.custom_ddr_cap->size()) != t.world_size)
      throw InputError(SourcePos{}, "--world-size",
                       "the topology's custom.ddr_cap has " + std::to_string(t.custom_ddr_cap->size()) +
                           " entries; drop it or keep the world size");
  }
  if (o.local_world_size) t.local_world_size = checked(kLocalWorldSizeRule, "--local-world-size", *o.local_world_size);
  // Per-rank caps win over the uniform cap in torchrec's Topology, so a uniform
  // override on such a topology would be silently ignored: refuse it instead.
  if (!o.hbm_cap.empty() && t.custom_hbm_cap)
    throw InputError(SourcePos{}, "--hbm-cap",
                     "the topology sets per-rank HBM in custom.hbm_cap, which wins over a uniform cap; "
                     "edit custom.hbm_cap or drop it");
  if (!o.ddr_cap.empty() && t.custom_ddr_cap)
    throw InputError(SourcePos{}, "--ddr-cap",
                     "the topology sets per-rank DDR in custom.ddr_cap, which wins over a uniform cap; "
                     "edit custom.ddr_cap or drop it");
  if (!o.hbm_cap.empty()) t.hbm_cap = checked_size("--hbm-cap", o.hbm_cap);
  if (!o.ddr_cap.empty()) t.ddr_cap = checked_size("--ddr-cap", o.ddr_cap);
}

}  // namespace shardplan
