#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "planner/types.h"

namespace shardplan {

namespace {

// Bit for bit: a run must give back exactly the perf pushed (-0.0 is not 0.0).
bool same_perf_bits(const std::optional<Perf>& a, const std::optional<Perf>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  const double x[] = {a->fwd_compute, a->fwd_comms, a->bwd_compute, a->bwd_comms, a->prefetch_compute};
  const double y[] = {b->fwd_compute, b->fwd_comms, b->bwd_compute, b->bwd_comms, b->prefetch_compute};
  for (int i = 0; i < 5; ++i)
    if (std::bit_cast<std::uint64_t>(x[i]) != std::bit_cast<std::uint64_t>(y[i])) return false;
  return true;
}

// Two pairs compared element by element: std::array's == calls memcmp, and
// enumeration compares millions of them.
bool same_dims(const ShardDims& a, const ShardDims& b) { return a[0] == b[0] && a[1] == b[1]; }

// Whether `shard` is the next shard of `run`; sets the run's steps when the run
// holds one shard so far.
bool extend_run(ShardRun& run, const Shard& shard) {
  if (!same_dims(shard.size, run.size) || shard.storage != run.storage ||
      shard.rank.has_value() != run.rank.has_value() || !same_perf_bits(shard.perf, run.perf))
    return false;
  if (run.count == 1) {
    const std::int64_t rank_step = shard.rank ? std::int64_t{*shard.rank} - *run.rank : 0;
    if (rank_step != static_cast<std::int32_t>(rank_step)) return false;
    run.offset_step = {shard.offset[0] - run.offset[0], shard.offset[1] - run.offset[1]};
    run.rank_step = static_cast<std::int32_t>(rank_step);
  } else {
    const ShardDims next = {run.offset[0] + run.count * run.offset_step[0],
                            run.offset[1] + run.count * run.offset_step[1]};
    if (!same_dims(shard.offset, next)) return false;
    if (shard.rank && std::int64_t{*shard.rank} != std::int64_t{*run.rank} + std::int64_t{run.count} * run.rank_step)
      return false;
  }
  ++run.count;
  return true;
}

}  // namespace

ShardList::ShardList(std::initializer_list<Shard> shards) {
  for (const Shard& shard : shards) push_back(shard);
}

ShardList::ShardList(const std::vector<Shard>& shards) {
  for (const Shard& shard : shards) push_back(shard);
}

const Shard ShardList::at(std::size_t i) const {
  if (i >= size())
    throw std::out_of_range("shard " + std::to_string(i) + " of a list of " + std::to_string(size()) + " shards");
  return (*this)[i];
}

void ShardList::push_back(const Shard& shard) {
  if (runs_.empty() || !extend_run(runs_.back(), shard)) {
    ShardRun run;
    run.size = shard.size;
    run.offset = shard.offset;
    run.storage = shard.storage;
    run.perf = shard.perf;
    run.rank = shard.rank;
    run.begin = size_;
    run.count = 1;
    runs_.push_back(run);
  }
  ++size_;
}

void ShardList::set(std::size_t i, const Shard& shard) {
  std::vector<Shard> all = to_vector();
  all.at(i) = shard;
  *this = ShardList(all);
}

const ShardRun& ShardList::find_run(std::size_t i) const {
  // The last run whose first shard is at or before i.
  const auto after = std::upper_bound(runs_.begin(), runs_.end(), static_cast<std::int32_t>(i),
                                      [](std::int32_t index, const ShardRun& run) { return index < run.begin; });
  return *(after - 1);
}

}  // namespace shardplan
