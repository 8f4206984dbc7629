#include "planner/partitioners/optimizing/scratch_start.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

namespace shardplan::optimizing {

namespace {

// Fill factors of the total capacity tried in turn when placement fails to pack.
constexpr double kScratchFills[] = {1.0, 0.97, 0.9, 0.8};
// Targets as multiples of the average rank load of the unlimited choice (0: none).
constexpr double kScratchTargetFactors[] = {0.0, 1.5, 1.0};
// Halvings of the price interval (log scale) per bisection.
constexpr int kScratchBisections = 48;

// A price direction: byte weights of HBM and DDR (1 / total capacity each, or 0).
struct ScratchDirection {
  double hbm = 0;
  double ddr = 0;
};

struct ScratchTotals {
  double hbm = 0;
  double ddr = 0;
  double perf = 0;
};

// Each table's option of least priced cost among those whose largest shard is
// within `target`; a table with none takes its option of least largest shard.
std::vector<int> scratch_choice(const SearchState& state, const MemoryPrices& prices, double target,
                                std::int64_t& work) {
  const auto& tables = state.tables();
  std::vector<int> choice(tables.size(), 0);
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const auto& shapes = tables[t].shapes();
    int best = -1;
    double best_cost = 0;
    int smallest = -1;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const RefinementOption& s = shapes[i];
      if (s.rule == PartitionBy::kMultiHost) continue;  // never placed from scratch
      const double cost = priced_cost(s, prices);
      if (s.max_shard_perf <= target && (best < 0 || cost < best_cost)) best = static_cast<int>(i), best_cost = cost;
      if (smallest < 0 || s.max_shard_perf < shapes[static_cast<std::size_t>(smallest)].max_shard_perf)
        smallest = static_cast<int>(i);
    }
    work += static_cast<std::int64_t>(shapes.size());
    choice[t] = best >= 0 ? best : std::max(smallest, 0);
  }
  return choice;
}

ScratchTotals scratch_totals(const SearchState& state, const std::vector<int>& choice) {
  ScratchTotals totals;
  for (std::size_t t = 0; t < choice.size(); ++t) {
    const RefinementOption& s = state.tables()[t].shapes()[static_cast<std::size_t>(choice[t])];
    totals.hbm += static_cast<double>(s.total_storage.hbm);
    totals.ddr += static_cast<double>(s.total_storage.ddr);
    totals.perf += s.total_perf;
  }
  return totals;
}

// The least price along `direction` (bisection on a log scale) at which the
// choice for `target` fits `fill` of the total capacity, weighted by the
// direction; nullopt when even the highest price does not.
std::optional<MemoryPrices> scratch_price(const SearchState& state, const ScratchDirection& direction, double target,
                                          double fill, const Storage& capacity, double price_scale,
                                          std::int64_t& work) {
  // The priced (weighted) memory of the choice falls as the price rises (the
  // Lagrangian's monotonicity), so bisection on it is sound; the resource left
  // unpriced may then not fit, and the placement's fallbacks deal with that.
  const double allowed =
      fill * (direction.hbm * static_cast<double>(capacity.hbm) + direction.ddr * static_cast<double>(capacity.ddr));
  const auto fits = [&](double mu) {
    const MemoryPrices p{mu * direction.hbm, mu * direction.ddr};
    const ScratchTotals totals = scratch_totals(state, scratch_choice(state, p, target, work));
    return direction.hbm * totals.hbm + direction.ddr * totals.ddr <= allowed;
  };
  if (fits(0)) return MemoryPrices{};
  double lo = std::log(price_scale * 1e-9);
  double hi = std::log(price_scale * 1e6);
  if (!fits(std::exp(hi))) return std::nullopt;
  for (int k = 0; k < kScratchBisections; ++k) {
    const double mid = 0.5 * (lo + hi);
    if (fits(std::exp(mid)))
      hi = mid;
    else
      lo = mid;
  }
  const double mu = std::exp(hi);
  return MemoryPrices{mu * direction.hbm, mu * direction.ddr};
}

// Places every table of `choice` (order below) on the empty `state`; a table whose
// chosen option no longer fits takes its next-cheapest one (priced) that does.
// The start, or nullopt when some table fits nowhere; `state` is left empty.
std::optional<ScratchStart> scratch_place(SearchState& state, const std::vector<int>& choice,
                                          const MemoryPrices& prices, const ScratchDirection& direction,
                                          bool memory_order, std::int64_t& work) {
  const auto& tables = state.tables();
  const auto n = tables.size();
  const int world = state.world_size();
  std::vector<std::pair<double, double>> key(n);
  for (std::size_t t = 0; t < n; ++t) {
    const RefinementOption& s = tables[t].shapes()[static_cast<std::size_t>(choice[t])];
    const double memory = direction.hbm * static_cast<double>(s.total_storage.hbm) +
                          direction.ddr * static_cast<double>(s.total_storage.ddr);
    key[t] = memory_order ? std::make_pair(memory, s.max_shard_perf) : std::make_pair(s.max_shard_perf, s.total_perf);
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return key[static_cast<std::size_t>(a)] > key[static_cast<std::size_t>(b)]; });
  ScratchStart start;
  start.shapes.assign(n, 0);
  start.ranks.assign(n, {});
  start.prices = prices;
  std::vector<int> placed;
  bool ok = true;
  for (int t : order) {
    const auto& shapes = tables[static_cast<std::size_t>(t)].shapes();
    const int chosen = choice[static_cast<std::size_t>(t)];
    work += static_cast<std::int64_t>(shapes[static_cast<std::size_t>(chosen)].perf.size()) * world + world;
    std::optional<std::vector<int>> ranks = state.greedy_ranks(t, chosen);
    int shape = chosen;
    if (!ranks) {
      std::vector<int> fallback;
      for (int i = 0; i < static_cast<int>(shapes.size()); ++i)
        if (i != chosen && shapes[static_cast<std::size_t>(i)].rule != PartitionBy::kMultiHost) fallback.push_back(i);
      std::stable_sort(fallback.begin(), fallback.end(), [&](int a, int b) {
        return priced_cost(shapes[static_cast<std::size_t>(a)], prices) <
               priced_cost(shapes[static_cast<std::size_t>(b)], prices);
      });
      for (int i : fallback) {
        work += static_cast<std::int64_t>(shapes[static_cast<std::size_t>(i)].perf.size()) * world + world;
        ranks = state.greedy_ranks(t, i);
        if (ranks) {
          shape = i;
          break;
        }
      }
    }
    if (!ranks) {
      ok = false;
      break;
    }
    start.shapes[static_cast<std::size_t>(t)] = shape;
    start.ranks[static_cast<std::size_t>(t)] = *ranks;
    state.place(t, shape, std::move(*ranks));
    placed.push_back(t);
  }
  if (ok) start.objective = state.objective();
  for (int t : placed) state.unplace(t);
  if (!ok) return std::nullopt;
  return start;
}

// Where shape `shape` of table t fits when packing tightly: device shards each on
// the rank with room whose room left (weighted by `direction`) is least; uniform
// shards on their rank; host options on the first host with room, tightly within
// it. nullopt when it fits nowhere.
std::optional<std::vector<int>> packed_ranks(const SearchState& state, int t, int shape_index,
                                             const ScratchDirection& direction) {
  const RefinementOption& shape =
      state.tables()[static_cast<std::size_t>(t)].shapes()[static_cast<std::size_t>(shape_index)];
  const int n = static_cast<int>(shape.perf.size());
  const int world = state.world_size();
  std::vector<Storage> extra(static_cast<std::size_t>(world));  // what this shape adds per rank so far
  const auto room_after = [&](int r, const Storage& s) -> std::optional<double> {
    Storage more = extra[static_cast<std::size_t>(r)] + s;
    if (!state.fits(r, more)) return std::nullopt;
    return direction.hbm * static_cast<double>(state.room(r).hbm - more.hbm) +
           direction.ddr * static_cast<double>(state.room(r).ddr - more.ddr);
  };
  std::vector<int> ranks(static_cast<std::size_t>(n), -1);
  const auto tight_in = [&](int begin, int end) {
    std::fill(extra.begin(), extra.end(), Storage{});
    for (int j = 0; j < n; ++j) {
      int best = -1;
      double best_room = 0;
      for (int r = begin; r < end; ++r) {
        const auto room = room_after(r, shape.storage[static_cast<std::size_t>(j)]);
        if (room && (best < 0 || *room < best_room)) best = r, best_room = *room;
      }
      if (best < 0) return false;
      ranks[static_cast<std::size_t>(j)] = best;
      extra[static_cast<std::size_t>(best)] += shape.storage[static_cast<std::size_t>(j)];
    }
    return true;
  };
  switch (shape.rule) {
    case PartitionBy::kUniform:
      if (n != world) return std::nullopt;
      for (int r = 0; r < n; ++r) {
        if (!state.fits(r, shape.storage[static_cast<std::size_t>(r)])) return std::nullopt;
        ranks[static_cast<std::size_t>(r)] = r;
      }
      return ranks;
    case PartitionBy::kDevice:
      if (tight_in(0, world)) return ranks;
      return std::nullopt;
    case PartitionBy::kHost:
      for (int h = 0; h < state.num_hosts(); ++h) {
        const int first = h * state.ranks_per_host();
        if (shape.table_row_wise) {
          if (n != state.ranks_per_host()) return std::nullopt;
          bool ok = true;
          for (int k = 0; k < n && ok; ++k) {
            ok = state.fits(first + k, shape.storage[static_cast<std::size_t>(k)]);
            ranks[static_cast<std::size_t>(k)] = first + k;
          }
          if (ok) return ranks;
        } else if (tight_in(first, first + state.ranks_per_host())) {
          return ranks;
        }
      }
      return std::nullopt;
    case PartitionBy::kMultiHost:
      return std::nullopt;
  }
  return std::nullopt;
}

// The last resort when no balanced start placed every table: pack for room
// alone. Each table's option of least weighted memory, tables largest first,
// each shard on the tightest rank with room (best fit), a table that does not fit
// taking its next-smallest option. The search then balances what this packs.
std::optional<ScratchStart> scratch_pack(SearchState& state, const ScratchDirection& direction, std::int64_t& work) {
  const auto& tables = state.tables();
  const auto n = tables.size();
  const auto memory = [&](const RefinementOption& s) {
    return direction.hbm * static_cast<double>(s.total_storage.hbm) +
           direction.ddr * static_cast<double>(s.total_storage.ddr);
  };
  std::vector<std::vector<int>> by_size(n);
  std::vector<double> largest(n, 0);
  for (std::size_t t = 0; t < n; ++t) {
    for (int i = 0; i < static_cast<int>(tables[t].shapes().size()); ++i)
      if (tables[t].shapes()[static_cast<std::size_t>(i)].rule != PartitionBy::kMultiHost) by_size[t].push_back(i);
    std::stable_sort(by_size[t].begin(), by_size[t].end(), [&](int a, int b) {
      return memory(tables[t].shapes()[static_cast<std::size_t>(a)]) <
             memory(tables[t].shapes()[static_cast<std::size_t>(b)]);
    });
    if (!by_size[t].empty()) largest[t] = memory(tables[t].shapes()[static_cast<std::size_t>(by_size[t].front())]);
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return largest[static_cast<std::size_t>(a)] > largest[static_cast<std::size_t>(b)];
  });
  ScratchStart start;
  start.shapes.assign(n, 0);
  start.ranks.assign(n, {});
  std::vector<int> placed;
  bool ok = true;
  for (int t : order) {
    std::optional<std::vector<int>> ranks;
    for (int i : by_size[static_cast<std::size_t>(t)]) {
      work += static_cast<std::int64_t>(
                  tables[static_cast<std::size_t>(t)].shapes()[static_cast<std::size_t>(i)].perf.size()) *
                  state.world_size() +
              state.world_size();
      ranks = packed_ranks(state, t, i, direction);
      if (ranks) {
        start.shapes[static_cast<std::size_t>(t)] = i;
        break;
      }
    }
    if (!ranks) {
      ok = false;
      break;
    }
    start.ranks[static_cast<std::size_t>(t)] = *ranks;
    state.place(t, start.shapes[static_cast<std::size_t>(t)], std::move(*ranks));
    placed.push_back(t);
  }
  if (ok) start.objective = state.objective();
  for (int t : placed) state.unplace(t);
  if (!ok) return std::nullopt;
  return start;
}

}  // namespace

double priced_cost(const RefinementOption& shape, const MemoryPrices& prices) {
  return shape.total_perf + prices.hbm * static_cast<double>(shape.total_storage.hbm) +
         prices.ddr * static_cast<double>(shape.total_storage.ddr);
}

void apply_start(SearchState& state, const ScratchStart& start) {
  for (std::size_t t = 0; t < start.shapes.size(); ++t)
    state.place(static_cast<int>(t), start.shapes[t], start.ranks[t]);
}

std::vector<ScratchStart> scratch_starts(SearchState& state, std::int64_t work_limit, std::int64_t& work,
                                         std::chrono::steady_clock::time_point deadline) {
  const auto stop = [&] { return work >= work_limit || std::chrono::steady_clock::now() > deadline; };
  std::vector<ScratchStart> starts;
  const int world = state.world_size();
  if (world == 0 || state.tables().empty()) return starts;
  for (const TableState& table : state.tables())  // a table with nothing placeable: no start
    if (std::none_of(table.shapes().begin(), table.shapes().end(),
                     [](const RefinementOption& s) { return s.rule != PartitionBy::kMultiHost; }))
      return starts;
  Storage capacity;
  for (int r = 0; r < world; ++r) capacity += state.capacity(r);
  // The price unit: a normalized memory share priced at the model's largest total perf.
  double price_scale = 0;
  for (const TableState& table : state.tables())
    for (const RefinementOption& s : table.shapes()) price_scale = std::max(price_scale, s.total_perf);
  price_scale = std::max(price_scale * static_cast<double>(state.tables().size()), 1e-12);
  const double hbm_weight = capacity.hbm > 0 ? 1.0 / static_cast<double>(capacity.hbm) : 0.0;
  const double ddr_weight = capacity.ddr > 0 ? 1.0 / static_cast<double>(capacity.ddr) : 0.0;
  std::vector<ScratchDirection> directions{{hbm_weight, ddr_weight}};
  if (hbm_weight > 0 && ddr_weight > 0) {
    directions.push_back({hbm_weight, 0});
    directions.push_back({0, ddr_weight});
  }
  std::set<std::vector<int>> tried;
  constexpr double kNoTarget = std::numeric_limits<double>::infinity();
  for (const ScratchDirection& direction : directions) {
    for (double fill : kScratchFills) {
      if (stop()) break;
      const std::optional<MemoryPrices> unlimited =
          scratch_price(state, direction, kNoTarget, fill, capacity, price_scale, work);
      if (!unlimited) break;  // a lower fill is no easier
      const double average = scratch_totals(state, scratch_choice(state, *unlimited, kNoTarget, work)).perf / world;
      bool placed_any = false;
      for (double factor : kScratchTargetFactors) {
        if (stop()) break;  // a price bisection scans every option 50 times: check before each
        const double target = factor > 0 ? factor * average : kNoTarget;
        const std::optional<MemoryPrices> prices =
            factor > 0 ? scratch_price(state, direction, target, fill, capacity, price_scale, work) : unlimited;
        if (!prices) continue;
        std::vector<int> choice = scratch_choice(state, *prices, target, work);
        if (!tried.insert(choice).second) continue;
        for (bool memory_order : {false, true}) {
          if (stop()) break;
          if (auto start = scratch_place(state, choice, *prices, direction, memory_order, work)) {
            starts.push_back(std::move(*start));
            placed_any = true;
          }
        }
      }
      if (placed_any) break;
    }
  }
  if (starts.empty())
    for (const ScratchDirection& direction : directions)
      if (auto start = scratch_pack(state, direction, work)) {
        starts.push_back(std::move(*start));
        break;
      }
  std::stable_sort(starts.begin(), starts.end(), [](const ScratchStart& a, const ScratchStart& b) {
    return std::make_pair(a.objective.max_load, a.objective.sum_squares) <
           std::make_pair(b.objective.max_load, b.objective.sum_squares);
  });
  return starts;
}

}  // namespace shardplan::optimizing
