#include "planner/refiners/option_repair.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "planner/refiners/pair_repartition.h"

namespace shardplan::optimizing {

bool change_option_with_repair(SearchState& state, int b, std::int64_t& work) {
  const Objective before = state.objective();
  // b's tables, the heaviest there first (table index on a tie).
  std::vector<std::pair<double, int>> on_b;
  for (std::size_t t = 0; t < state.tables().size(); ++t) {
    const TableState& table = state.tables()[t];
    if (table.shapes().size() < 2) continue;
    double p = 0;
    for (std::size_t j = 0; j < table.ranks.size(); ++j)
      if (table.ranks[j] == b) p += table.shape().perf[j];
    if (p > 0) on_b.emplace_back(p, static_cast<int>(t));
  }
  work += static_cast<std::int64_t>(state.tables().size());
  std::stable_sort(on_b.begin(), on_b.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (on_b.size() > static_cast<std::size_t>(kRepairTables)) on_b.resize(static_cast<std::size_t>(kRepairTables));
  std::vector<PairMoveRecord> moves;
  for (const auto& [load_on_b, t] : on_b) {
    TableState& table = state.tables()[static_cast<std::size_t>(t)];
    if (table.shape().rule == PartitionBy::kMultiHost) continue;
    const int old_shape = table.current;
    const std::vector<int> old_ranks = table.ranks;
    for (int i = 0; i < static_cast<int>(table.shapes().size()); ++i) {
      if (i == old_shape) continue;
      state.unplace(t);
      work +=
          static_cast<std::int64_t>(table.shapes()[static_cast<std::size_t>(i)].perf.size()) * 2 + state.world_size();
      std::optional<std::vector<int>> ranks = state.greedy_ranks(t, i);
      if (!ranks) {
        state.place(t, old_shape, old_ranks);
        continue;
      }
      state.place(t, i, std::move(*ranks));
      moves.clear();
      for (int k = 0; k < kRepairSteps; ++k)
        if (!repartition_pair(state, state.bottleneck(), work, &moves)) break;
      if (state.objective().better_than(before)) return true;
      for (auto it = moves.rbegin(); it != moves.rend(); ++it) state.move_shard(it->ref.table, it->ref.shard, it->from);
      state.unplace(t);
      state.place(t, old_shape, old_ranks);
    }
  }
  return false;
}

}  // namespace shardplan::optimizing
