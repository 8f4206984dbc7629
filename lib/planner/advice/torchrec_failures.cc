#include "planner/advice/torchrec_failures.h"

#include <algorithm>

#include <fmt/format.h>

#include "planner/reservations/storage_reservation.h"

namespace shardplan {

namespace {

int whole_hosts(const Topology& topology) { return topology.world_size / std::max(topology.local_world_size, 1); }

bool has_multi_host_option(const SearchSpace& space, const Proposal& proposal) {
  return std::any_of(proposal.begin(), proposal.end(),
                     [&](OptionId id) { return space[id].partition_by == PartitionBy::kMultiHost; });
}

}  // namespace

std::optional<PlanFailure> reservation_failure(const PlanningInput& input, const Topology& topology) {
  const auto reservation = make_storage_reservation(input.planner.storage_reservation);
  ReservationOutcome reserved = reservation->reserve(topology, input.model);
  if (reserved.ok) return std::nullopt;
  // The same failure EmbeddingShardingPlanner::plan returns for this stage.
  PlanFailure f;
  f.error_type = reserved.error_type;
  f.stage = FailureStage::kReservation;
  f.stage_reason = std::move(reserved.message);
  return f;
}

bool multi_host_crash_possible(const Topology& topology, const SearchSpace& space) {
  if (whole_hosts(topology) > 0) return false;
  return std::any_of(space.enumerated().begin(), space.enumerated().end(),
                     [](const ShardingOption& o) { return o.partition_by == PartitionBy::kMultiHost; });
}

PartitionOutcome MultiHostCrashGuard::partition(const SearchSpace& space, const Proposal& proposal,
                                                const Topology& storage_constraint,
                                                PartitionWorkspace* workspace) const {
  // torchrec crashes only if its greedy steps reach the grid_shard option before
  // another step raises PlannerError; the step reports that as kNoHostLevel
  // (torchrec's list of hosts is empty there, not None).
  PartitionOutcome outcome = inner_.partition(space, proposal, storage_constraint, workspace);
  if (!outcome.ok && outcome.failure.kind == PartitionFailureKind::kNoHostLevel &&
      whole_hosts(storage_constraint) == 0 && has_multi_host_option(space, proposal)) {
    std::lock_guard<std::mutex> lock(mutex_);
    crashed_ = true;
  }
  return outcome;
}

bool MultiHostCrashGuard::crashed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return crashed_;
}

PlanFailure multi_host_crash(const Topology& topology, const SearchSpace& space) {
  std::vector<std::string> tables;
  for (const auto& option : space.enumerated())
    if (option.partition_by == PartitionBy::kMultiHost &&
        std::find(tables.begin(), tables.end(), option.fqn()) == tables.end())
      tables.push_back(option.fqn());
  std::string names;
  for (const auto& t : tables) names += (names.empty() ? "" : ", ") + t;
  PlanFailure f;
  f.error_type = PlannerErrorType::kOther;
  f.stage = FailureStage::kCrash;
  f.stage_reason = fmt::format(
      "torchrec's planner crashes on this input (IndexError in partitioners.py "
      "GreedyPerfPartitioner._multi_hosts_partition): grid_shard is placed on whole hosts, and world_size {} "
      "// local_world_size {} = 0 hosts; grid_shard options of: {}. Give a local_world_size of at most the "
      "world size, or take grid_shard out of these tables' sharding_types",
      topology.world_size, topology.local_world_size, names);
  return f;
}

}  // namespace shardplan
