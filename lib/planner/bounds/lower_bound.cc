#include "planner/bounds/lower_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_map>

#include "planner/bounds/device_segments.h"
#include "planner/bounds/option_facts.h"
#include "planner/bounds/work_bounds.h"

namespace shardplan {
namespace {

// One table's usable options and their levels (see levels below).
struct TableFacts {
  std::vector<BoundOptionFacts> options;  // usable options only
  std::vector<double> levels;             // per option; +infinity: cannot be placed beside the forced loads
  bool all_forced = false;
};

// Least over `options` of f(option), +infinity for none.
template <typename F>
double least(const std::vector<BoundOptionFacts>& options, F f) {
  double best = kInfinity;
  for (const BoundOptionFacts& o : options) best = std::min(best, f(o));
  return best;
}

// Per device, the least over a forced table's options of the perf and (component-
// wise) the storage each puts there.
struct ForcedFloor {
  std::vector<double> perf;
  std::vector<Storage> storage;
};

void least_forced(const TableFacts& t, const DeviceCapacities& devices, ForcedFloor& floor, ForcedFloor& scratch) {
  const auto n = static_cast<std::size_t>(devices.size());
  floor.perf.assign(n, kInfinity);
  floor.storage.assign(n, Storage{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max()});
  for (const BoundOptionFacts& o : t.options) {
    forced_loads(o, devices, scratch.perf, scratch.storage);
    for (std::size_t i = 0; i < n; ++i) {
      floor.perf[i] = std::min(floor.perf[i], scratch.perf[i]);
      floor.storage[i].hbm = std::min(floor.storage[i].hbm, scratch.storage[i].hbm);
      floor.storage[i].ddr = std::min(floor.storage[i].ddr, scratch.storage[i].ddr);
    }
  }
}

LowerBound infeasible() {
  LowerBound out;
  out.feasible = false;
  out.value = kInfinity;
  return out;
}

}  // namespace

BoundInput bound_input(const std::vector<ShardingOption>& search_space, const std::vector<ShardingOption>& plan,
                       const Topology& reserved) {
  BoundInput in;
  in.reserved = &reserved;
  std::unordered_map<std::string, std::size_t> table_of;  // lookup only: tables keep first-seen order
  auto add = [&](const ShardingOption& option) {
    auto [it, fresh] = table_of.try_emplace(option.fqn(), in.tables.size());
    if (fresh) in.tables.emplace_back();
    in.tables[it->second].push_back(&option);
  };
  for (const ShardingOption& option : search_space) add(option);
  for (const ShardingOption& option : plan) add(option);
  return in;
}

void clamp_to_plan(LowerBound& bound, double plan_rating) {
  auto clamp = [plan_rating](double& value) {
    if (value > plan_rating && value <= plan_rating * (1 + 1e-9)) value = plan_rating;
  };
  clamp(bound.value);
  for (BoundValue& b : bound.bounds) clamp(b.value);
  for (const BoundValue& b : bound.bounds)  // the first bound reaching the value binds, as before
    if (b.value == bound.value) {
      bound.binding = b.kind;
      break;
    }
}

double bound_gap(double plan_rating, double bound) {
  if (bound == 0) return plan_rating == 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  return (plan_rating - bound) / bound;
}

LowerBound compute_lower_bound(const BoundInput& input, const Parallelism& parallelism) {
  LowerBound out;
  const DeviceCapacities devices(*input.reserved);
  const int ranks = devices.size();
  const auto n = static_cast<std::size_t>(ranks);
  if (ranks == 0 && !input.tables.empty()) return infeasible();

  // Per-table work (facts, levels) is independent: on every thread for a large
  // model, one lane per thread taking every lanes-th table; each result lands in
  // its table's slot, so nothing depends on the thread count.
  std::size_t options = 0;
  for (const auto& table : input.tables) options += table.size();
  const bool big = input.tables.size() >= kParallelMinTables && options * n >= parallelism.min_shards;
  const std::size_t lanes = big ? static_cast<std::size_t>(std::max(parallelism.threads(), 1)) : 1;
  const auto each_table_lane = [&](const std::function<void(std::size_t lane, std::size_t table)>& work) {
    parallelism.parallel_for(lanes, static_cast<int>(lanes), [&](std::size_t lane) {
      for (std::size_t t = lane; t < input.tables.size(); t += lanes) work(lane, t);
    });
  };

  std::vector<TableFacts> tables(input.tables.size());
  each_table_lane([&](std::size_t, std::size_t t) {
    for (const ShardingOption* option : input.tables[t]) {
      BoundOptionFacts facts = option_facts(*option, devices);
      if (facts.usable) tables[t].options.push_back(std::move(facts));
    }
    tables[t].all_forced = std::all_of(tables[t].options.begin(), tables[t].options.end(),
                                       [](const BoundOptionFacts& o) { return o.forced; });
  });
  for (const TableFacts& t : tables)
    if (t.options.empty()) return infeasible();  // no option of this table fits anywhere
  auto add = [&out](BoundKind kind, double value) { out.bounds.push_back({kind, value}); };

  // average_work. Every shard of the chosen options sits on some device, so the
  // device loads sum to the chosen options' total perfs, each at least its table's
  // least total perf; the largest load is at least the mean of the loads.
  double least_work = 0;
  for (const TableFacts& t : tables)
    least_work += least(t.options, [](const BoundOptionFacts& o) { return o.total_perf; });
  add(BoundKind::kAverageWork, least_work / ranks);

  // largest_shard. Whichever option a table takes, its largest shard lies whole on
  // one device, whose load is at least that shard's perf (perfs are >= 0).
  double largest = 0;
  for (const TableFacts& t : tables)
    largest = std::max(largest, least(t.options, [](const BoundOptionFacts& o) { return o.largest_shard_perf; }));
  add(BoundKind::kLargestShard, largest);

  // forced_load. A table whose usable options all fix every shard's device (uniform
  // options: shard k on device k) puts on device i at least the least, over its
  // options, of what each puts there; summing those floors over such tables bounds
  // device i's load (and, component-wise, its storage) in every plan.
  std::vector<double> floor(n, 0.0);
  std::vector<Storage> floor_storage(n);
  {
    ForcedFloor forced_floor, forced_scratch;
    for (const TableFacts& t : tables) {
      if (!t.all_forced) continue;
      least_forced(t, devices, forced_floor, forced_scratch);
      for (std::size_t i = 0; i < n; ++i) {
        floor[i] += forced_floor.perf[i];
        floor_storage[i] += forced_floor.storage[i];
      }
    }
  }
  add(BoundKind::kForcedLoad, ranks > 0 ? *std::max_element(floor.begin(), floor.end()) : 0.0);

  // Levels. For table t, let the other tables' floors be floor[i] - own[i] (own:
  // t's share, zero unless t is all-forced) and likewise for storage. An option o
  // of t that is forced puts its perf p_o(i) on every device i beside them, so any
  // plan choosing o has max load >= max_i (floor[i] - own[i] + p_o(i)), and o is
  // impossible if its storage on some i does not fit beside the others' floor
  // storage. An option that is not forced has its largest shard s on some device i
  // with room for s beside the others' floor storage: max load >= the least such
  // floor[i] - own[i], plus perf(s). That value is o's level.
  // Tables that are not all-forced have no share of the floors (own = 0): their
  // levels are read over segments of alike devices (device_segments.h).
  const std::vector<DeviceSegment> segments = device_segments(devices, floor, floor_storage);
  std::vector<ForcedFloor> lane_floors(lanes), lane_scratch(lanes);  // per lane: table_floor and scratch
  each_table_lane([&](std::size_t lane, std::size_t table) {
    TableFacts& t = tables[table];
    ForcedFloor& table_floor = lane_floors[lane];
    ForcedFloor& scratch = lane_scratch[lane];
    bool floor_made = false;  // table_floor holds t's share
    for (const BoundOptionFacts& o : t.options) {
      if (!t.all_forced && !o.forced) {
        t.levels.push_back(spread_option_level(o, segments));
        continue;
      }
      if (!t.all_forced && o.option->partition_by == PartitionBy::kUniform && o.option->num_shards() == ranks) {
        t.levels.push_back(uniform_option_level(o, segments));
        continue;
      }
      if (!floor_made) {
        table_floor.perf.assign(n, 0.0);
        table_floor.storage.assign(n, Storage{});
        if (t.all_forced) least_forced(t, devices, table_floor, scratch);
        floor_made = true;
      }
      double level = kInfinity;
      if (o.forced) {
        forced_loads(o, devices, scratch.perf, scratch.storage);
        level = 0;
        for (std::size_t i = 0; i < n && level < kInfinity; ++i) {
          const Storage room = devices.free(static_cast<int>(i)) - (floor_storage[i] - table_floor.storage[i]);
          if (!scratch.storage[i].fits_in(room))
            level = kInfinity;
          else
            level = std::max(level, floor[i] - table_floor.perf[i] + scratch.perf[i]);
        }
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          const Storage room = devices.free(static_cast<int>(i)) - (floor_storage[i] - table_floor.storage[i]);
          if (o.largest_shard_storage.fits_in(room))
            level = std::min(level, floor[i] - table_floor.perf[i] + o.largest_shard_perf);
        }
      }
      t.levels.push_back(level);
    }
  });

  // forced_load_plus_shard: every plan chooses, for each table, an option of level
  // at most its max load, so that max load is >= max_t min_o level(o).
  double plus_shard = 0;
  for (const TableFacts& t : tables) {
    const double table_least = *std::min_element(t.levels.begin(), t.levels.end());
    if (table_least == kInfinity) return infeasible();  // no option fits beside the forced loads
    plus_shard = std::max(plus_shard, table_least);
  }
  add(BoundKind::kForcedLoadPlusShard, plus_shard);

  // memory_work and shard_limited_work (proofs in work_bounds.cc).
  std::vector<std::vector<WorkItem>> items(tables.size());
  for (std::size_t t = 0; t < tables.size(); ++t)
    for (std::size_t k = 0; k < tables[t].options.size(); ++k) {
      const BoundOptionFacts& o = tables[t].options[k];
      if (tables[t].levels[k] == kInfinity) continue;  // no plan can choose it
      items[t].push_back(WorkItem{o.total_perf, static_cast<double>(o.total_storage.hbm),
                                  static_cast<double>(o.total_storage.ddr), tables[t].levels[k], o.largest_shard_perf});
    }
  Storage capacity;
  for (int i = 0; i < ranks; ++i) capacity += devices.free(i);
  const WorkBounds work(std::move(items), capacity, ranks);
  Multipliers memory_at;
  const double memory = work.maximize([&](const Multipliers& m) { return work.pooled(m); }, {}, memory_at);
  add(BoundKind::kMemoryWork, memory);
  // Searched from memory_work's multipliers, then from none (either may be better).
  Multipliers limited_at;
  double limited = work.maximize([&](const Multipliers& m) { return work.level_limited(m); }, memory_at, limited_at);
  limited = std::max(limited, work.level_limited(Multipliers{}));
  add(BoundKind::kShardLimitedWork, limited);

  // host_local_work. Devices are hosts of `local` consecutive ranks; the k-th
  // devices of the hosts are `hosts` devices. Uniform and grid_shard options put
  // shard j on a k = j mod local device, table_row_wise shard k on one: whichever
  // option a table takes, those devices together carry at least the least, over
  // its options, of that perf. Summed over tables, one of them carries at least
  // 1 / hosts of it.
  double host_local = 0;
  if (devices.hosts() > 0 && ranks % devices.local() == 0) {
    std::vector<double> local_floor(static_cast<std::size_t>(devices.local()), 0.0), least_local, option_local;
    for (const TableFacts& t : tables) {
      least_local.assign(local_floor.size(), kInfinity);
      for (const BoundOptionFacts& o : t.options) {
        local_index_loads(o, devices, option_local);
        for (std::size_t k = 0; k < least_local.size(); ++k) least_local[k] = std::min(least_local[k], option_local[k]);
      }
      for (std::size_t k = 0; k < local_floor.size(); ++k) local_floor[k] += least_local[k];
    }
    host_local = *std::max_element(local_floor.begin(), local_floor.end()) / devices.hosts();
  }
  add(BoundKind::kHostLocalWork, host_local);

  out.value = out.bounds.front().value;
  out.binding = out.bounds.front().kind;
  for (const BoundValue& b : out.bounds)
    if (b.value > out.value) out.value = b.value, out.binding = b.kind;
  return out;
}

}  // namespace shardplan
