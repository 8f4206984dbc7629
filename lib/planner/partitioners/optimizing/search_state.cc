#include "planner/partitioners/optimizing/search_state.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shardplan::optimizing {

namespace {

// Relative size of a change that counts as real rather than re-association noise.
constexpr double kRelativeEpsilon = 1e-12;

}  // namespace

RefinementOption refinement_option_of(const ShardingOption& option) {
  RefinementOption s;
  s.option = &option;
  s.rule = option.partition_by;
  s.table_row_wise = option.sharding_type == ShardingType::kTableRowWise;
  for (const auto& shard : option.shards) {
    s.perf.push_back(shard.perf.value_or(Perf{}).total());
    s.storage.push_back(shard.storage.value_or(Storage{}));
    s.total_perf += s.perf.back();
    s.max_shard_perf = std::max(s.max_shard_perf, s.perf.back());
    s.total_storage += s.storage.back();
  }
  return s;
}

bool Objective::better_than(const Objective& o) const {
  const double max_eps = kRelativeEpsilon * std::max(1.0, std::abs(o.max_load));
  if (max_load < o.max_load - max_eps) return true;
  if (max_load > o.max_load + max_eps) return false;
  // An equal max (within noise) may hide a tiny real rise: accept only if not higher.
  if (max_load > o.max_load) return false;
  const double sq_eps = kRelativeEpsilon * std::max(1.0, std::abs(o.sum_squares));
  return sum_squares < o.sum_squares - sq_eps;
}

SearchState::SearchState(const Topology& reserved)
    : loads_(reserved.devices.size(), 0.0),
      used_(reserved.devices.size()),
      on_rank_(reserved.devices.size()),
      ranks_per_host_(std::max(1, reserved.local_world_size)),
      num_hosts_(static_cast<int>(reserved.devices.size()) / std::max(1, reserved.local_world_size)) {
  for (const auto& device : reserved.devices) capacity_.push_back(device.storage);
}

void SearchState::remove_ref(int rank, ShardRef ref) {
  auto& list = on_rank_[static_cast<std::size_t>(rank)];
  auto it = std::find_if(list.begin(), list.end(),
                         [&](const ShardRef& r) { return r.table == ref.table && r.shard == ref.shard; });
  if (it != list.end()) list.erase(it);  // erase keeps the order: iteration order stays fixed
}

void SearchState::place(int t, int shape, std::vector<int> ranks) {
  TableState& table = tables_[static_cast<std::size_t>(t)];
  table.current = shape;
  table.ranks = std::move(ranks);
  const RefinementOption& s = table.shape();
  const bool movable = s.rule == PartitionBy::kDevice || s.rule == PartitionBy::kHost;
  for (std::size_t j = 0; j < table.ranks.size(); ++j) {
    add(table.ranks[j], s.perf[j], s.storage[j]);
    if (movable) on_rank_[static_cast<std::size_t>(table.ranks[j])].push_back({t, static_cast<int>(j)});
  }
}

void SearchState::unplace(int t) {
  TableState& table = tables_[static_cast<std::size_t>(t)];
  const RefinementOption& s = table.shape();
  const bool movable = s.rule == PartitionBy::kDevice || s.rule == PartitionBy::kHost;
  for (std::size_t j = 0; j < table.ranks.size(); ++j) {
    add(table.ranks[j], -s.perf[j], Storage{} - s.storage[j]);
    if (movable) remove_ref(table.ranks[j], {t, static_cast<int>(j)});
  }
  table.ranks.clear();
}

void SearchState::move_shard(int t, int shard, int rank) {
  TableState& table = tables_[static_cast<std::size_t>(t)];
  const RefinementOption& s = table.shape();
  const auto j = static_cast<std::size_t>(shard);
  const int from = table.ranks[j];
  add(from, -s.perf[j], Storage{} - s.storage[j]);
  remove_ref(from, {t, shard});
  add(rank, s.perf[j], s.storage[j]);
  on_rank_[static_cast<std::size_t>(rank)].push_back({t, shard});
  table.ranks[j] = rank;
}

int SearchState::bottleneck() const {
  return static_cast<int>(std::max_element(loads_.begin(), loads_.end()) - loads_.begin());
}

Objective SearchState::objective() const {
  Objective o;
  for (double l : loads_) {
    o.max_load = std::max(o.max_load, l);
    o.sum_squares += l * l;
  }
  return o;
}

bool SearchState::allowed(int t, int shard, int rank) const {
  const TableState& table = tables_[static_cast<std::size_t>(t)];
  const RefinementOption& s = table.shape();
  const int here = table.ranks[static_cast<std::size_t>(shard)];
  switch (s.rule) {
    case PartitionBy::kDevice:
      return true;
    case PartitionBy::kHost:
      // table_column_wise shards may use any device of their host; table_row_wise
      // shards are pinned to local device k (torchrec's _uniform_partition on the host).
      return !s.table_row_wise && rank / ranks_per_host_ == here / ranks_per_host_ &&
             rank < num_hosts_ * ranks_per_host_;
    case PartitionBy::kUniform:
    case PartitionBy::kMultiHost:
      return rank == here;
  }
  return false;
}

std::optional<std::vector<int>> SearchState::device_greedy(const RefinementOption& shape, int begin, int end) {
  // The least-loaded rank with room for shard j (the lowest on a tie), or -1.
  const auto least_loaded = [&](std::size_t j) {
    int best = -1;
    for (int r = begin; r < end; ++r) {
      if (!fits(r, shape.storage[j])) continue;
      if (best < 0 || loads_[static_cast<std::size_t>(r)] < loads_[static_cast<std::size_t>(best)]) best = r;
    }
    return best;
  };
  if (shape.perf.size() == 1) {  // one shard: nothing to sort
    const int best = least_loaded(0);
    if (best < 0) return std::nullopt;
    // On and off again as below: the rank's load keeps the same rounding.
    add(best, shape.perf[0], shape.storage[0]);
    add(best, -shape.perf[0], Storage{} - shape.storage[0]);
    return std::vector<int>{best};
  }
  std::vector<std::size_t> order(shape.perf.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return shape.perf[a] > shape.perf[b]; });
  std::vector<int> ranks(shape.perf.size(), -1);
  bool ok = true;
  for (std::size_t j : order) {
    const int best = least_loaded(j);
    if (best < 0) {
      ok = false;
      break;
    }
    ranks[j] = best;
    add(best, shape.perf[j], shape.storage[j]);
  }
  for (std::size_t j = 0; j < ranks.size(); ++j)
    if (ranks[j] >= 0) add(ranks[j], -shape.perf[j], Storage{} - shape.storage[j]);
  if (!ok) return std::nullopt;
  return ranks;
}

std::optional<std::vector<int>> SearchState::greedy_ranks(int t, int shape_index) {
  const RefinementOption& shape = tables_[static_cast<std::size_t>(t)].shapes()[static_cast<std::size_t>(shape_index)];
  const int n = static_cast<int>(shape.perf.size());
  switch (shape.rule) {
    case PartitionBy::kUniform: {
      if (n != world_size()) return std::nullopt;
      for (int r = 0; r < n; ++r)
        if (!fits(r, shape.storage[static_cast<std::size_t>(r)])) return std::nullopt;
      std::vector<int> ranks(static_cast<std::size_t>(n));
      std::iota(ranks.begin(), ranks.end(), 0);
      return ranks;
    }
    case PartitionBy::kDevice:
      return device_greedy(shape, 0, world_size());
    case PartitionBy::kHost: {
      std::optional<std::vector<int>> best;
      double best_peak = 0;
      for (int h = 0; h < num_hosts_; ++h) {
        const int first = h * ranks_per_host_;
        std::optional<std::vector<int>> ranks;
        if (shape.table_row_wise) {
          if (n != ranks_per_host_) return std::nullopt;
          std::vector<int> r(static_cast<std::size_t>(n));
          bool ok = true;
          for (int k = 0; k < n && ok; ++k) {
            r[static_cast<std::size_t>(k)] = first + k;
            ok = fits(first + k, shape.storage[static_cast<std::size_t>(k)]);
          }
          if (ok) ranks = std::move(r);
        } else {
          ranks = device_greedy(shape, first, first + ranks_per_host_);
        }
        if (!ranks) continue;
        // The host's peak load once the table is on it.
        std::vector<double>& host = host_loads_;
        host.assign(loads_.begin() + first, loads_.begin() + first + ranks_per_host_);
        for (int k = 0; k < n; ++k)
          host[static_cast<std::size_t>((*ranks)[static_cast<std::size_t>(k)] - first)] +=
              shape.perf[static_cast<std::size_t>(k)];
        const double peak = *std::max_element(host.begin(), host.end());
        if (!best || peak < best_peak) {
          best = std::move(ranks);
          best_peak = peak;
        }
      }
      return best;
    }
    case PartitionBy::kMultiHost:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace shardplan::optimizing
