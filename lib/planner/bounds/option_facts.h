// What the lower bounds read of one sharding option and of the reserved devices:
// totals, the largest shard, whether the partition rules fix every shard's device,
// and whether the option can be placed at all on its own.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// The capacities left per device (position i = the i-th reserved device) and the
// host layout (hosts of local_world_size consecutive devices).
class DeviceCapacities {
 public:
  explicit DeviceCapacities(const Topology& reserved);
  int size() const { return static_cast<int>(free_.size()); }
  int local() const { return local_; }
  int hosts() const { return local_ > 0 ? size() / local_ : 0; }
  const Storage& free(int i) const { return free_[static_cast<std::size_t>(i)]; }
  // Whether some device could hold `s` on its own.
  bool any_fits(const Storage& s) const;

 private:
  std::vector<Storage> free_;
  int local_ = 1;
  std::vector<std::int64_t> hbm_descending_;   // every device's HBM, largest first
  std::vector<std::int64_t> ddr_running_max_;  // most DDR among the first k of those
};

// One option as the bounds see it.
struct BoundOptionFacts {
  const ShardingOption* option = nullptr;
  // False when no placement of this option alone respects its partition rule and
  // the devices' capacities (so no plan can use it).
  bool usable = false;
  // True when the partition rule leaves every shard only one device (uniform
  // options; host and multi-host options on a single host; anything on one device).
  bool forced = false;
  double total_perf = 0;  // sum of the shards' perf totals
  Storage total_storage;
  double largest_shard_perf = 0;  // the first shard of largest perf total
  Storage largest_shard_storage;  // that shard's storage
};

// The facts of `option` on `devices`.
BoundOptionFacts option_facts(const ShardingOption& option, const DeviceCapacities& devices);

// The perf `facts`' option must put on the k-th device of some host, per local
// index k (resized to devices.local() and overwritten): uniform and grid_shard
// shard j and table_row_wise shard k go to local index j mod local_world_size and k.
void local_index_loads(const BoundOptionFacts& facts, const DeviceCapacities& devices, std::vector<double>& perf);

// For a forced option: the perf and storage it puts on each device (vectors are
// resized to devices.size() and overwritten); `positive`, when given, gets how
// many of its shards with a positive perf each device holds.
void forced_loads(const BoundOptionFacts& facts, const DeviceCapacities& devices, std::vector<double>& perf,
                  std::vector<Storage>& storage, std::vector<int>* positive = nullptr);

}  // namespace shardplan
