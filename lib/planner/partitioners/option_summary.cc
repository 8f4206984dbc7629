#include "planner/partitioners/option_summary.h"

namespace shardplan {

namespace {
bool same_perf(const Perf& a, const Perf& b) {
  return a.fwd_compute == b.fwd_compute && a.fwd_comms == b.fwd_comms &&
         a.bwd_compute == b.bwd_compute && a.bwd_comms == b.bwd_comms &&
         a.prefetch_compute == b.prefetch_compute;
}
}  // namespace

OptionSummary OptionSummaries::summarise(const ShardingOption& option) const {
  OptionSummary s;
  s.total_storage = option.total_storage();
  s.total_perf = option.total_perf();
  auto it = path_ids_.find(option.path);
  s.path_id = it == path_ids_.end() ? -1 : it->second;
  s.perf_homogeneous = !option.shards.empty();
  s.storage_homogeneous = !option.shards.empty();
  if (!option.shards.empty()) {
    s.shard_perf = option.shards.front().perf.value_or(Perf{});
    s.shard_storage = option.shards.front().storage.value_or(Storage{});
  }
  for (const Shard& shard : option.shards) {
    const Storage storage = shard.storage.value_or(Storage{});
    // Negative storage would make "every prefix fits" differ from "the total fits".
    if (storage.hbm < 0 || storage.ddr < 0) s.perf_homogeneous = false;
    if (!same_perf(shard.perf.value_or(Perf{}), s.shard_perf)) s.perf_homogeneous = false;
    if (storage != s.shard_storage) s.storage_homogeneous = false;
  }
  s.storage_homogeneous = s.storage_homogeneous && s.perf_homogeneous;
  return s;
}

void OptionSummaries::prepare(const std::vector<ShardingOption>& search_space) {
  begin_ = search_space.data();
  size_ = search_space.size();
  path_ids_.clear();
  for (const auto& option : search_space)
    path_ids_.emplace(option.path, static_cast<int>(path_ids_.size()));
  summaries_.clear();
  summaries_.reserve(search_space.size());
  for (const auto& option : search_space) summaries_.push_back(summarise(option));
}

const OptionSummary& OptionSummaries::of(const ShardingOption& option, OptionSummary& scratch) const {
  if (&option >= begin_ && &option < begin_ + size_)
    return summaries_[static_cast<std::size_t>(&option - begin_)];
  scratch = summarise(option);
  return scratch;
}

}  // namespace shardplan
