// torchrec's GreedyPerfPartitioner: uniform options (row_wise, data_parallel) first,
// one shard per rank; then every other option, largest first, each shard on the
// least-loaded device that can hold it (device), within one host (host), or over
// whole hosts (multi_host, grid_shard).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>

#include "common/names.h"
#include "config/config.h"
#include "planner/partition_option_summary.h"
#include "planner/types.h"

namespace shardplan {

// torchrec's SortBy: which total orders the non-uniform options (descending):
// storage (hbm, then ddr) or perf. Named in config/planner_names.h.
using SortBy = GreedySortBy;

class GreedyPerfPartitioner final : public Partitioner {
 public:
  // balance_modules: options of modules with fewer tables are placed first.
  explicit GreedyPerfPartitioner(SortBy sort_by = SortBy::kStorage, bool balance_modules = false)
      : sort_by_(sort_by), balance_modules_(balance_modules) {}

  // Buffers, the heap and host order, and the previous proposal's sort keys.
  std::unique_ptr<PartitionWorkspace> make_workspace() const override;

  using Partitioner::partition;
  PartitionOutcome partition(const SearchSpace& space, const Proposal& proposal, const Topology& storage_constraint,
                             PartitionWorkspace* workspace) const override;

  // Stops once the options left surely fit (rest_fits.h) while a rank's load is
  // above stop_above (devices starting at zero perf, ranks at their positions).
  PartitionOutcome partition_above(const SearchSpace& space, const Proposal& proposal,
                                   const Topology& storage_constraint, PartitionWorkspace* workspace,
                                   double stop_above) const override;

  // torchrec's partition(..., hbm_per_device): a non-zero hbm_per_device replaces
  // every device's HBM capacity (MemoryBalancedPartitioner's search).
  PartitionOutcome partition_capped(const SearchSpace& space, const Proposal& proposal,
                                    const Topology& storage_constraint, std::int64_t hbm_per_device,
                                    PartitionWorkspace* workspace,
                                    double stop_above = std::numeric_limits<double>::infinity()) const;

 private:
  SortBy sort_by_;
  bool balance_modules_;
};

}  // namespace shardplan
