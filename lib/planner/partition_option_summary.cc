#include "planner/partition_option_summary.h"

#include <algorithm>

namespace shardplan {

namespace {
// Writes into rank_of(s) the dense rank of key_of(s), descending (0 = largest).
template <typename Key, typename Rank>
void assign_ranks(std::vector<PartitionOptionSummary>& all, Key key_of, Rank rank_of) {
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key_of(all[a]) > key_of(all[b]); });
  int rank = -1;
  for (std::size_t n = 0; n < order.size(); ++n) {
    if (n == 0 || key_of(all[order[n - 1]]) > key_of(all[order[n]])) ++rank;
    rank_of(all[order[n]]) = rank;
  }
}

}  // namespace

PartitionOptionSummary summarise(const ShardingOption& option, int path_id) {
  PartitionOptionSummary s;
  s.total_storage = option.total_storage();
  s.total_perf = option.total_perf();
  s.path_id = path_id;
  s.perf_homogeneous = !option.shards.empty();
  s.storage_homogeneous = !option.shards.empty();
  if (!option.shards.empty()) {
    s.shard_perf = option.shards.front().perf.value_or(Perf{});
    s.shard_storage = option.shards.front().storage.value_or(Storage{});
  }
  // Every shard of a run has the run's values: one check per run.
  for (const ShardRun& run : option.shards.runs()) {
    const Storage storage = run.storage.value_or(Storage{});
    // Negative storage would make "every prefix fits" differ from "the total fits".
    if (storage.hbm < 0 || storage.ddr < 0) s.perf_homogeneous = false;
    if (run.perf.value_or(Perf{}) != s.shard_perf) s.perf_homogeneous = false;
    if (storage != s.shard_storage) s.storage_homogeneous = false;
    const int end = run.begin + run.count;
    if (s.storage_runs.empty() || s.storage_runs.back().storage != storage)
      s.storage_runs.push_back({run.begin, end, storage});
    else
      s.storage_runs.back().end = end;
  }
  s.storage_homogeneous = s.storage_homogeneous && s.perf_homogeneous;
  return s;
}

void assign_dense_ranks(std::vector<PartitionOptionSummary>& summaries) {
  assign_ranks(
      summaries, [](const PartitionOptionSummary& s) { return s.total_storage; },
      [](PartitionOptionSummary& s) -> int& { return s.storage_rank; });
  bool finite = true;
  for (const auto& s : summaries) finite = finite && s.total_perf == s.total_perf;  // no NaN
  if (finite)
    assign_ranks(
        summaries, [](const PartitionOptionSummary& s) { return s.total_perf; },
        [](PartitionOptionSummary& s) -> int& { return s.perf_rank; });
}

void append_placement_runs(const ShardList& list, std::vector<PlacementRun>& out) {
  for (const ShardRun& run : list.runs())
    out.push_back({run.begin, run.count, run.storage.value_or(Storage{}), run.perf.value_or(Perf{})});
}

PartitionOptionBrief brief_of(const ShardingOption& option, const PartitionOptionSummary& summary,
                              const PlacementRun* runs) {
  PartitionOptionBrief b;
  b.total_storage = summary.total_storage;
  b.point_at(option.shards, runs);
  b.sharding_type = option.sharding_type;
  b.partition_by = option.partition_by;
  b.perf_homogeneous = summary.perf_homogeneous;
  b.storage_rank = summary.storage_rank;
  b.perf_rank = summary.perf_rank;
  b.path_id = summary.path_id;
  return b;
}

}  // namespace shardplan
