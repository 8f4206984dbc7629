#include "planner/search_space.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace shardplan {

namespace {

// Reserves room for n elements in `v`, asking the kernel to back it with huge pages
// where it can (transparent huge pages in madvise mode): the placement steps read
// these arrays at random, thousands of times per proposal, and with 4 KiB pages the
// address translations missed as often as the data (measured 4-8 % of the loop on
// 5 000 tables x 1 024 ranks). Only advice: no effect on any result.
template <typename T>
void reserve_hot(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
  const std::uintptr_t end = begin + n * sizeof(T);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t last = end & ~(kHuge - 1);
  if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

bool same_cache(const std::optional<CacheParams>& a, const std::optional<CacheParams>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->load_factor == b->load_factor && a->algorithm == b->algorithm && a->reserved_memory == b->reserved_memory &&
         a->precision == b->precision && a->prefetch_pipeline == b->prefetch_pipeline;
}

}  // namespace

bool same_option_content(const ShardingOption& a, const ShardingOption& b) {
  if (a.path != b.path || a.name != b.name || a.sharding_type != b.sharding_type ||
      a.compute_kernel != b.compute_kernel || !same_cache(a.cache_params, b.cache_params) ||
      a.shards.size() != b.shards.size())
    return false;
  for (std::size_t i = 0; i < a.shards.size(); ++i) {
    const Shard& x = a.shards[i];
    const Shard& y = b.shards[i];
    if (x.size != y.size || x.offset != y.offset || x.storage != y.storage || x.rank != y.rank || x.perf != y.perf)
      return false;
  }
  return true;
}

SearchSpace::SearchSpace(std::vector<ShardingOption> enumerated) : enumerated_(std::move(enumerated)) {
  std::unordered_map<std::string, std::size_t> table_of;  // lookup only, never iterated
  for (std::size_t i = 0; i < enumerated_.size(); ++i) {
    const ShardingOption& option = enumerated_[i];
    path_ids_.emplace(option.path, static_cast<int>(path_ids_.size()));
    auto [it, inserted] = table_of.emplace(option.fqn(), tables_.size());
    if (inserted) tables_.emplace_back();
    tables_[it->second].push_back(static_cast<OptionId>(i));
    total_shards_ += option.shards.size();
  }
  std::vector<PartitionOptionSummary> summaries;
  summaries.reserve(enumerated_.size());
  for (const auto& option : enumerated_) summaries.push_back(summarise(option, path_ids_.at(option.path)));
  assign_dense_ranks(summaries);
  summaries_.reserve(enumerated_.size());
  std::size_t runs = 0;
  for (const auto& option : enumerated_) runs += option.shards.runs().size();
  // The placement steps read briefs and runs of random options for every proposal.
  reserve_hot(briefs_, enumerated_.size());
  reserve_hot(placement_runs_, runs);
  perf_.reserve(enumerated_.size());
  for (std::size_t i = 0; i < enumerated_.size(); ++i) add_columns(enumerated_[i], std::move(summaries[i]));
  shard_perf_totals_.shrink_to_fit();
}

void SearchSpace::add_columns(const ShardingOption& option, PartitionOptionSummary summary) {
  const PlacementRun* const base = placement_runs_.data();
  const std::size_t first_run = placement_runs_.size();
  append_placement_runs(option.shards, placement_runs_);
  if (placement_runs_.data() != base) {
    // Moved (a derived option past the reserve): point every brief at the new place.
    std::size_t at = 0;
    for (PartitionOptionBrief& b : briefs_) {
      b.runs = placement_runs_.data() + at;
      at += static_cast<std::size_t>(b.num_runs);
    }
  }
  briefs_.push_back(brief_of(option, summary, placement_runs_.data() + first_run));
  summaries_.push_back(std::move(summary));
  PerfColumn column;
  column.first = shard_perf_totals_.size();
  const auto& runs = option.shards.runs();
  // Data-parallel and even row-wise options repeat one total on every rank: then
  // the column holds it once. Every shard of a run has the run's total, so
  // comparing run totals with the first (== as the shards compare: a NaN total
  // makes no column single) answers for every shard without writing them out.
  const double first_total = runs.empty() ? 0.0 : runs.front().perf.value_or(Perf{}).total();
  column.single = !runs.empty() && std::all_of(runs.begin(), runs.end(), [&](const ShardRun& run) {
    return run.perf.value_or(Perf{}).total() == first_total;
  });
  max_option_shards_ = std::max(max_option_shards_, option.shards.size());
  bool first = true;
  for (const ShardRun& run : runs) {
    const Perf perf = run.perf.value_or(Perf{});
    for (double part : {perf.fwd_compute, perf.fwd_comms, perf.bwd_compute, perf.bwd_comms, perf.prefetch_compute})
      perfs_finite_nonnegative_ = perfs_finite_nonnegative_ && std::isfinite(part) && part >= 0;
    const double total = perf.total();
    if (!column.single) shard_perf_totals_.insert(shard_perf_totals_.end(), static_cast<std::size_t>(run.count), total);
    // torchrec's max over shards, as _sharding_option_score compares them.
    if (first || total > column.max_total) column.max_total = total;
    first = false;
  }
  if (column.single) shard_perf_totals_.push_back(first_total);
  perf_.push_back(column);
}

OptionId SearchSpace::add(ShardingOption derived) {
  if (by_name_.empty())
    for (std::size_t id = 0; id < size(); ++id) {
      const ShardingOption& o = (*this)[static_cast<OptionId>(id)];
      by_name_[std::make_tuple(o.fqn(), o.sharding_type, o.compute_kernel)].push_back(static_cast<OptionId>(id));
    }
  std::vector<OptionId>& same_name =
      by_name_[std::make_tuple(derived.fqn(), derived.sharding_type, derived.compute_kernel)];
  for (OptionId id : same_name)
    if (same_option_content((*this)[id], derived)) return id;
  const auto id = static_cast<OptionId>(size());
  same_name.push_back(id);
  derived_.push_back(std::move(derived));
  const ShardingOption& option = derived_.back();
  auto path = path_ids_.find(option.path);
  add_columns(option, summarise(option, path == path_ids_.end() ? -1 : path->second));
  return id;
}

}  // namespace shardplan
