#include "planner/refiners/target_search.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/split_mix_rng.h"

namespace shardplan::optimizing {

namespace {

using TargetSearchRng = SplitMixRng;

// Tables ruined at once, at most.
constexpr std::size_t kTargetRuinTables = 40;
// Rounds in a row that lower neither the overflow nor the spread before the phase gives up.
constexpr int kTargetMaxFailedRounds = 400;

// A change in the overflow or the sum of squares smaller than this share of it is rounding.
constexpr double kTargetRelativeEpsilon = 1e-9;

// (overflow over the target, sum of squared loads); smaller is better, the first first.
struct TargetScore {
  double overflow = 0;
  double sum_squares = 0;
};

TargetScore target_score(const SearchState& state, double target) {
  TargetScore s;
  for (int r = 0; r < state.world_size(); ++r) {
    const double l = state.load(r);
    if (l > target) s.overflow += l - target;
    s.sum_squares += l * l;
  }
  return s;
}

bool target_better(const TargetScore& a, const TargetScore& b, double eps) {
  if (a.overflow < b.overflow - eps) return true;
  if (a.overflow > b.overflow + eps) return false;
  return a.sum_squares < b.sum_squares * (1 - kTargetRelativeEpsilon);
}

// Every table's shape and ranks.
using TargetSnapshot = std::vector<std::pair<int, std::vector<int>>>;

TargetSnapshot target_snapshot(const SearchState& state) {
  TargetSnapshot out;
  out.reserve(state.tables().size());
  for (const TableState& t : state.tables()) out.emplace_back(t.current, t.ranks);
  return out;
}

void target_restore(SearchState& state, const TargetSnapshot& snapshot) {
  for (std::size_t t = 0; t < snapshot.size(); ++t) state.unplace(static_cast<int>(t));
  for (std::size_t t = 0; t < snapshot.size(); ++t)
    state.place(static_cast<int>(t), snapshot[t].first, snapshot[t].second);
}

bool target_table_on(const SearchState& state, int t, int rank) {
  const TableState& table = state.tables()[static_cast<std::size_t>(t)];
  return std::find(table.ranks.begin(), table.ranks.end(), rank) != table.ranks.end();
}

bool target_fixed(const TableState& table) {
  return table.shape().rule == PartitionBy::kMultiHost && table.shapes().size() == 1;
}

}  // namespace

bool target_search(SearchState& state, std::int64_t budget, std::uint64_t seed,
                   std::chrono::steady_clock::time_point deadline, std::int64_t& work, bool& stopped_by_clock) {
  const int world = state.world_size();
  const auto num_tables = static_cast<int>(state.tables().size());
  if (world == 0 || num_tables == 0 || budget <= 0) return false;
  TargetSearchRng rng(seed);
  const TargetSnapshot entry = target_snapshot(state);
  const double entry_max = state.objective().max_load;
  double best_max = entry_max;
  TargetSnapshot best;
  double target = best_max * (1 - kTargetStep);
  const std::int64_t end = work + budget;
  std::vector<int> ruined;
  std::vector<int> overloaded;
  int failed_rounds = 0;
  for (std::int64_t round = 0; work < end && failed_rounds <= kTargetMaxFailedRounds; ++round) {
    if (round % 16 == 0 && std::chrono::steady_clock::now() > deadline) {
      stopped_by_clock = true;
      break;
    }
    // Relative to the loads, not to 1: on a model of microsecond loads the rounding
    // that re-adding shards leaves would otherwise pass for a gain, round after round.
    const double eps = kTargetRelativeEpsilon * target * world;
    const TargetScore before = target_score(state, target);
    work += world;
    overloaded.clear();
    for (int r = 0; r < world; ++r)
      if (state.load(r) > target) overloaded.push_back(r);
    if (overloaded.empty()) {  // every rank within the target: a better plan
      best_max = state.objective().max_load;
      best = target_snapshot(state);
      target = best_max * (1 - kTargetStep);
      work += num_tables;
      failed_rounds = 0;
      continue;
    }
    const int b = overloaded[static_cast<std::size_t>(rng.below(static_cast<int>(overloaded.size())))];
    ruined.clear();
    const auto take = [&](int t) {
      if (ruined.size() < kTargetRuinTables && !target_fixed(state.tables()[static_cast<std::size_t>(t)]) &&
          std::find(ruined.begin(), ruined.end(), t) == ruined.end())
        ruined.push_back(t);
    };
    for (int t = 0; t < num_tables; ++t)
      if (target_table_on(state, t, b) && rng.unit() < 0.6) take(t);
    work += num_tables;
    const int per_host = state.ranks_per_host();
    if (state.num_hosts() > 1 && per_host > 1 && rng.below(3) == 0) {
      int h = rng.below(state.num_hosts() - 1);
      if (h >= b / per_host) ++h;
      for (int r = h * per_host; r < (h + 1) * per_host; ++r)
        for (const ShardRef& ref : state.movable_on(r)) take(ref.table);
    } else {
      for (int k = 0; k < 2; ++k)
        for (const ShardRef& ref : state.movable_on(rng.below(world))) take(ref.table);
    }
    if (ruined.empty()) {
      ++failed_rounds;
      continue;
    }
    std::vector<std::pair<int, std::vector<int>>> saved;
    std::vector<std::pair<double, int>> order;
    for (int t : ruined) {
      const TableState& table = state.tables()[static_cast<std::size_t>(t)];
      saved.emplace_back(table.current, table.ranks);
      order.emplace_back(table.shape().total_perf * (1.0 + 0.5 * rng.unit()), t);
      state.unplace(t);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    bool ok = true;
    std::vector<int> placed;
    for (const auto& entry_order : order) {
      const int t = entry_order.second;
      const auto& shapes = state.tables()[static_cast<std::size_t>(t)].shapes();
      int best_shape = -1;
      std::vector<int> best_ranks;
      TargetScore best_score;
      for (int i = 0; i < static_cast<int>(shapes.size()); ++i) {
        work += static_cast<std::int64_t>(shapes[static_cast<std::size_t>(i)].perf.size()) * 2 + 2 * world;
        std::optional<std::vector<int>> ranks = state.greedy_ranks(t, i);
        if (!ranks) continue;
        state.place(t, i, *ranks);
        const TargetScore s = target_score(state, target);
        state.unplace(t);
        if (best_shape < 0 || target_better(s, best_score, eps))
          best_shape = i, best_score = s, best_ranks = std::move(*ranks);
      }
      if (best_shape < 0) {
        ok = false;
        break;
      }
      state.place(t, best_shape, std::move(best_ranks));
      placed.push_back(t);
    }
    if (ok && target_better(target_score(state, target), before, eps)) {
      failed_rounds = 0;
      continue;
    }
    ++failed_rounds;
    for (int t : placed) state.unplace(t);
    for (std::size_t k = 0; k < ruined.size(); ++k) state.place(ruined[k], saved[k].first, saved[k].second);
  }
  if (best_max < entry_max && !best.empty()) {
    target_restore(state, best);
    return true;
  }
  target_restore(state, entry);
  return false;
}

}  // namespace shardplan::optimizing
