// A proof that the options a greedy partition has still to place will all find
// room, whatever the partitioner decides for each of them, from the devices' free
// storage now and a few sums over those options. With it, a partition can stop as
// soon as it also knows that the plan cannot be the best (some rank's load already
// above the best rating): the proposal's verdict, placeable, is then known without
// placing the rest (GreedyPerfPartitioner::partition_above).
//
// The argument is a pigeonhole one. A device-level shard fails only when no device
// can hold it, and a host-level option only when no host can (torchrec tries them
// all). Call a device "good" when its free storage is at least the largest remaining
// device-level shard: a good device takes any of them until the remaining options
// have put more than its slack (free minus that shard) on it. The remaining options
// hold E bytes in all, so they cannot spoil good devices whose slacks sum to E or
// more. Hosts alike, with a host's slack the least of its devices', and E counting
// only what can land on one device (a table_row_wise option puts one shard on each
// device of its host, so at most its largest shard on any one). HBM and DDR each
// spoil a unit on their own; units_outlast in rest_fits.cc weighs the two.
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "planner/partition_option_summary.h"
#include "planner/partitioners/greedy/device_load.h"
#include "planner/partitioners/greedy/host_order.h"

namespace shardplan {

// What the remaining options ask of the devices, summed in one pass over them.
// Byte sums are doubles: thousands of options' totals may pass 2^63 together.
struct RestDemand {
  struct Bytes {
    double hbm = 0;
    double ddr = 0;
  };
  bool covered = true;      // every option is of a kind the proof covers (see rest_demand)
  bool any_device = false;  // some option is placed per device
  bool any_host = false;    // some option is placed within one host
  Bytes device_bytes;       // device-level options' total storage
  Storage device_largest;   // their largest shard, per kind of memory
  Bytes host_bytes;         // host-level options' total storage
  Bytes host_per_device;    // what each host-level option can put on one device, summed
  Storage host_largest;     // the most one host-level option can need on a device of its host
};

// The demand of the options briefs[i] for i in `rest`. Not covered: multi-host options, host-level
// options other than table_row_wise (one shard per device of the host, shard count =
// devices per host) and table_column_wise (treated as needing its whole storage on
// one device), and negative shard storage.
RestDemand rest_demand(std::span<const int> rest, std::span<const PartitionOptionBrief* const> briefs,
                       int devices_per_host);

// The demands of the suffixes of `order` that start at each of `starts` (ascending),
// in one pass over the options from starts.front() on: out[m] is
// rest_demand(order from starts[m] on).
void rest_demands_from(std::span<const int> order, std::span<const std::size_t> starts,
                       std::span<const PartitionOptionBrief* const> briefs, int devices_per_host,
                       std::vector<RestDemand>& out);

// True when every option of `demand` surely finds room on `devices` (grouped into
// `hosts`); false when that is not proven (it may still fit). `scratch`: a buffer.
bool rest_surely_fits(const RestDemand& demand, std::span<const DeviceLoad> devices, const Hosts& hosts,
                      std::vector<std::pair<double, double>>& scratch);

}  // namespace shardplan
