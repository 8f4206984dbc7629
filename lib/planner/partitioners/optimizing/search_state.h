// The optimizing partitioner's own small model of a placed plan: per table its
// candidate options (shard perf totals and storage, the partition rule) and the
// ranks of the chosen one; per rank its capacity, storage used and perf load.
// Built once from the interface's types, so that the search below does not
// depend on how proposals and placements are spelled elsewhere.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "planner/types.h"

namespace shardplan::optimizing {

// One option a table may take, reduced to what placement needs.
struct RefinementOption {
  const ShardingOption* option = nullptr;
  PartitionBy rule = PartitionBy::kDevice;
  bool table_row_wise = false;   // host rule: shard k on local device k of the host
  std::vector<double> perf;      // per shard, Perf::total()
  std::vector<Storage> storage;  // per shard
  double total_perf = 0;
  double max_shard_perf = 0;  // the largest entry of `perf`
  Storage total_storage;      // sum of `storage`
};

// `option` reduced to what the searches read (also the exact search's base).
RefinementOption refinement_option_of(const ShardingOption& option);

// A table: its candidate shapes (shape 0 is the option the plan started with)
// and where the current shape's shards are.
struct TableState {
  // Shared by every copy of a state (the search copies states per start; the
  // shapes, up to world_size shards each, never change).
  std::shared_ptr<const std::vector<RefinementOption>> shape_list;
  int current = 0;
  std::vector<int> ranks;  // per shard of shapes()[current]
  const std::vector<RefinementOption>& shapes() const { return *shape_list; }
  const RefinementOption& shape() const { return shapes()[static_cast<std::size_t>(current)]; }
};

// One shard of one table (refers into TableState).
struct ShardRef {
  int table = 0;
  int shard = 0;
};

// (max rank load, sum of squared rank loads): the search lowers the first and,
// at an equal first, the second (spreading load off tied bottlenecks).
struct Objective {
  double max_load = 0;
  double sum_squares = 0;
  // Strictly better, past rounding noise (sums are re-added in other orders).
  bool better_than(const Objective& o) const;
};

class SearchState {
 public:
  // Every rank's capacity from `reserved`; no table placed yet.
  explicit SearchState(const Topology& reserved);

  int world_size() const { return static_cast<int>(loads_.size()); }
  int ranks_per_host() const { return ranks_per_host_; }
  int num_hosts() const { return num_hosts_; }
  double load(int rank) const { return loads_[static_cast<std::size_t>(rank)]; }
  // What `rank` may hold in all (its reserved capacity).
  const Storage& capacity(int rank) const { return capacity_[static_cast<std::size_t>(rank)]; }
  // What `rank` has left now.
  Storage room(int rank) const {
    return capacity_[static_cast<std::size_t>(rank)] - used_[static_cast<std::size_t>(rank)];
  }
  // Whether `s` more fits on `rank` now.
  bool fits(int rank, const Storage& s) const {
    const auto r = static_cast<std::size_t>(rank);
    return (used_[r] + s).fits_in(capacity_[r]);
  }
  // Whether `rank` still fits after giving up `out` and taking `in` (a swap).
  bool fits_exchange(int rank, const Storage& out, const Storage& in) const {
    const auto r = static_cast<std::size_t>(rank);
    return (used_[r] - out + in).fits_in(capacity_[r]);
  }
  // The movable shards (device and host rules) on `rank`, in placement order.
  const std::vector<ShardRef>& movable_on(int rank) const { return on_rank_[static_cast<std::size_t>(rank)]; }

  std::vector<TableState>& tables() { return tables_; }
  const std::vector<TableState>& tables() const { return tables_; }

  // Adds table t's shape `shape` on `ranks` (loads, storage, rank lists).
  void place(int t, int shape, std::vector<int> ranks);
  // Takes table t's shards off their ranks (it stays at its shape, unplaced).
  void unplace(int t);
  // Moves one shard of a placed table to `rank`.
  void move_shard(int t, int shard, int rank);

  // The rank with the highest load (lowest rank on a tie).
  int bottleneck() const;
  Objective objective() const;

  // Where shape `shape` of (unplaced) table t would go by the greedy rules of its
  // partition rule: uniform shard k on rank k; device shards largest first on the
  // least-loaded rank with room; table_row_wise on the host with the lowest
  // resulting load; table_column_wise on the best host, device-greedy within it.
  // nullopt when it fits nowhere (or is multi_host: never re-placed).
  std::optional<std::vector<int>> greedy_ranks(int t, int shape);

  // Whether rank `rank` is allowed for shard `shard` of table t at its current
  // shape without moving the table's other shards.
  bool allowed(int t, int shard, int rank) const;

 private:
  void add(int rank, double perf, const Storage& s) {
    loads_[static_cast<std::size_t>(rank)] += perf;
    used_[static_cast<std::size_t>(rank)] += s;
  }
  void remove_ref(int rank, ShardRef ref);
  // Device-greedy placement of `shape`'s shards over ranks [begin, end); applied
  // to loads while choosing, then taken off again.
  std::optional<std::vector<int>> device_greedy(const RefinementOption& shape, int begin, int end);

  std::vector<double> loads_;
  std::vector<Storage> used_;
  std::vector<Storage> capacity_;
  std::vector<std::vector<ShardRef>> on_rank_;
  std::vector<TableState> tables_;
  std::vector<double> host_loads_;  // greedy_ranks' buffer (its content means nothing between calls)
  int ranks_per_host_ = 1;
  int num_hosts_ = 0;
};

}  // namespace shardplan::optimizing
