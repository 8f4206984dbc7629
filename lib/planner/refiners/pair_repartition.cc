#include "planner/refiners/pair_repartition.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace shardplan::optimizing {

namespace {

// One shard free to sit on either rank of the pair.
struct PairItem {
  ShardRef ref;
  double perf = 0;
  Storage storage;
  bool on_b = false;  // where it is now
};

// Whether shard `ref` (on rank `from`) may sit on `to` as well, its table's other shards staying.
bool pair_item_free(const SearchState& state, const ShardRef& ref, int to) {
  const RefinementOption& s = state.tables()[static_cast<std::size_t>(ref.table)].shape();
  if (s.rule == PartitionBy::kDevice) return true;
  if (s.rule == PartitionBy::kHost && !s.table_row_wise) return state.allowed(ref.table, ref.shard, to);
  return false;
}

void collect_pair_items(const SearchState& state, int from, int to, bool on_b, std::vector<PairItem>& out) {
  for (const ShardRef& ref : state.movable_on(from)) {
    if (!pair_item_free(state, ref, to)) continue;
    const RefinementOption& s = state.tables()[static_cast<std::size_t>(ref.table)].shape();
    out.push_back(
        {ref, s.perf[static_cast<std::size_t>(ref.shard)], s.storage[static_cast<std::size_t>(ref.shard)], on_b});
  }
}

}  // namespace

bool repartition_pair(SearchState& state, int b, std::int64_t& work, std::vector<PairMoveRecord>* record) {
  const int world = state.world_size();
  const double lb = state.load(b);
  const double eps = 1e-12 * std::max(1.0, lb);
  // Other ranks, least loaded first: the pair's larger load is at least the mean of
  // the two, so once the best found is within that of the next rank, none can beat it.
  std::vector<int> others;
  for (int r = 0; r < world; ++r)
    if (r != b && state.load(r) < lb) others.push_back(r);
  std::stable_sort(others.begin(), others.end(), [&](int x, int y) { return state.load(x) < state.load(y); });
  work += world;

  double best_max = lb - eps;
  int best_rank = -1;
  std::vector<PairItem> best_items;
  std::uint32_t best_mask = 0;
  std::vector<PairItem> items;
  for (int r : others) {
    const double lr = state.load(r);
    if (best_rank >= 0 && best_max <= 0.5 * (lb + lr)) break;
    items.clear();
    collect_pair_items(state, b, r, true, items);
    const std::size_t from_b = items.size();
    collect_pair_items(state, r, b, false, items);
    work += static_cast<std::int64_t>(items.size()) + 1;
    if (from_b == 0) continue;  // nothing of b's can leave
    if (items.size() > static_cast<std::size_t>(kPairRepartitionShards)) {
      // The largest stay free; the rest stay where they are.
      std::stable_sort(items.begin(), items.end(),
                       [](const PairItem& x, const PairItem& y) { return x.perf > y.perf; });
      items.resize(static_cast<std::size_t>(kPairRepartitionShards));
    }
    const int n = static_cast<int>(items.size());
    double fixed_b = lb;
    double fixed_r = lr;
    double free_total = 0;
    Storage out_b;  // storage of the free items now on b (leaves b when reassigned)
    Storage out_r;
    Storage free_storage;
    for (const PairItem& item : items) {
      (item.on_b ? fixed_b : fixed_r) -= item.perf;
      (item.on_b ? out_b : out_r) += item.storage;
      free_total += item.perf;
      free_storage += item.storage;
    }
    // Gray code over 2^n assignments (bit k set: item k on b), from "all on r".
    double to_b = 0;
    Storage storage_b;
    std::uint32_t mask = 0;
    const std::uint32_t count = 1U << static_cast<unsigned>(n);
    // One Gray step is a few additions: an eighth of a rank scan.
    work += count / 8;
    for (std::uint32_t step = 1; step < count; ++step) {
      const int k = __builtin_ctz(step);
      const std::uint32_t bit = 1U << static_cast<unsigned>(k);
      const PairItem& item = items[static_cast<std::size_t>(k)];
      if (mask & bit) {
        to_b -= item.perf;
        storage_b -= item.storage;
      } else {
        to_b += item.perf;
        storage_b += item.storage;
      }
      mask ^= bit;
      const double pair_max = std::max(fixed_b + to_b, fixed_r + (free_total - to_b));
      if (pair_max >= best_max) continue;
      if (!state.fits_exchange(b, out_b, storage_b) || !state.fits_exchange(r, out_r, free_storage - storage_b))
        continue;
      best_max = pair_max;
      best_rank = r;
      best_items = items;
      best_mask = mask;
    }
  }
  if (best_rank < 0) return false;
  const Objective before = state.objective();
  struct PairMove {
    ShardRef ref;
    int from, to;
  };
  std::vector<PairMove> moves;
  for (std::size_t k = 0; k < best_items.size(); ++k) {
    const bool to_b = (best_mask >> k) & 1U;
    if (to_b != best_items[k].on_b)
      moves.push_back({best_items[k].ref, best_items[k].on_b ? b : best_rank, to_b ? b : best_rank});
  }
  for (const PairMove& m : moves) state.move_shard(m.ref.table, m.ref.shard, m.to);
  if (state.objective().better_than(before)) {
    if (record)
      for (const PairMove& m : moves) record->push_back({m.ref, m.from});
    return true;
  }
  // Rounding ate the gain: undo.
  for (auto it = moves.rbegin(); it != moves.rend(); ++it) state.move_shard(it->ref.table, it->ref.shard, it->from);
  return false;
}

}  // namespace shardplan::optimizing
