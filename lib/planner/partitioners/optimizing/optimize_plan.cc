#include "planner/partitioners/optimizing/optimize_plan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "common/split_mix_rng.h"
#include "planner/bounds/lower_bound.h"
#include "planner/partitioners/optimizing/scratch_start.h"
#include "planner/partitioners/optimizing/search_state.h"
#include "planner/partitioners/optimizing/start_stages.h"
#include "planner/refiners/option_repair.h"
#include "planner/refiners/pair_repartition.h"
#include "planner/refiners/target_search.h"

namespace shardplan::optimizing {

namespace {

// Evaluations per (table x rank) of the instance, plus a floor for small ones:
// measured to end well inside greedy's own planning time at 1 000 tables x 512
// ranks (docs/optimizing-partitioner.md) while leaving small instances enough room to converge.
constexpr std::int64_t kWorkPerTableRank = 40;
constexpr std::int64_t kWorkFloor = 60'000'000;
// Tables x ranks up to which the budget grows with the size; it shrinks past it,
// so that the search ends far inside the default --time-budget on the largest
// models (docs/optimizing-partitioner.md: determinism).
constexpr double kWorkFullSize = 250'000;
// Tables up to which the whole floor applies; past it (and up to kWorkFullSize) the
// floor is at most kFloorPastTables and shrinks as 1 / tables. The floor is for small
// instances; at 1 000 tables x 64 ranks it made the search cost 1.7x greedy's own
// planning time (issue 28: at most 1.5x), and a quarter of it gives the same max-rank
// perf there and on the scale cases of that size (measured: 1.5e7 and 6e7 plan the
// synthetic 1 000 x 64 and 2 000 x 64 models alike; 9e6 at 2 000 x 64 did not).
constexpr std::size_t kFloorFullTables = 500;
constexpr std::int64_t kFloorPastTables = 15'000'000;
// Tables x ranks up to which the whole floor applies whatever the tables: on few
// ranks greedy's proposals mostly fail fast (scale-T1000-ws8: no plan at all), so
// there is no greedy time to stay near, and the search is what finds the plan.
constexpr double kFloorFullSize = 32'000;
// Past both kFloorFullTables and kFloorFullSize, where greedy's own planning time is
// the yardstick (issue 28: at most 1.5x), two fifths of the budget above are kept
// (the scratch starts' limit is not cut: default_scratch_limit): once
// greedy's loop stopped placing proposals that cannot be kept, it took 0.2-0.3 s at
// 1 000 tables x 64-1 024 ranks and the whole budget's search 0.12-0.16 s on two threads.
constexpr std::int64_t kPastFloorKeep = 2;  // kept: this many fifths
constexpr std::int64_t kPastFloorFifths = 5;
// Tables whose options are re-chosen per step, the heaviest on the bottleneck first.
constexpr std::size_t kOptionChangeTables = 16;
// Tables ruined at once (the bottleneck's and two random ranks'), at most.
constexpr std::size_t kRuinTables = 24;
// Tables ruined at once when a whole host's are taken, at most.
constexpr std::size_t kRuinHostTables = 48;
// Ruin-and-recreate rounds in a row without a gain before the search gives up.
constexpr int kMaxFailedRuins = 300;
// Failed ruins between two tries of an option change with repair (option_repair.h).
constexpr int kRepairEveryFailedRuins = 50;
// The share of the work budget the scratch starts may use (1 / this).
constexpr std::int64_t kScratchWorkShare = 8;
// Scratch starts the search is run from (the best ones), besides greedy's.
constexpr std::size_t kScratchSearches = 2;
// Restarts in a row without a gain before the second stage gives up (start_stages.h).
constexpr int kMaxFruitlessRestarts = 4;
// Stage 3's record-to-record travel: a ruin whose plan is at most this much (relative)
// above the best max-rank perf of its run is kept (Search::ruin_and_recreate).
constexpr double kTravelSlack = 0.004;
// Tables x ranks up to which stage 3 runs (on the instances whose whole work floor
// applies: past it the search must stay near greedy's own planning time).
constexpr double kTravelFullSize = kFloorFullSize;
// Stage 3's work, beyond the budget: 1 / this of it.
constexpr std::int64_t kTravelWorkShare = 4;
// The share of the work left (1 / this) that the trials of all starts use together.
constexpr std::int64_t kTrialWorkShare = 4;

using Rng = SplitMixRng;

bool same_shape(const RefinementOption& a, const RefinementOption& b) {
  return a.option->sharding_type == b.option->sharding_type && a.option->compute_kernel == b.option->compute_kernel &&
         a.perf == b.perf && a.storage == b.storage;
}

class Search {
 public:
  // `slack` > 0: record-to-record travel (see ruin_and_recreate); 0: only gains are kept.
  Search(SearchState& state, std::int64_t budget, std::chrono::steady_clock::time_point deadline, std::uint64_t seed,
         const MemoryPrices& prices, double slack = 0)
      : state_(state), budget_(budget), deadline_(deadline), rng_(seed), prices_(prices), slack_(slack) {}

  void run() {
    bool at_local_optimum = false;
    int failed_ruins = 0;
    best_ = state_.objective();
    for (std::int64_t step = 0; work_ < budget_; ++step) {
      if (step % 16 == 0 && out_of_time()) {
        stopped_by_clock_ = true;
        break;
      }
      note_best();
      const int b = state_.bottleneck();
      if (!at_local_optimum) {
        if (move_or_swap(b) || repartition_pair(state_, b, work_) || change_option(b)) continue;
        at_local_optimum = true;
      }
      const RuinOutcome ruin = ruin_and_recreate(b);
      if (ruin == RuinOutcome::kGain) {
        at_local_optimum = false;
        failed_ruins = 0;
      } else if (ruin == RuinOutcome::kTravel) {
        at_local_optimum = false;  // a new neighbourhood; no gain, so it counts as a failed ruin
        if (++failed_ruins > kMaxFailedRuins) break;
      } else if (++failed_ruins > kMaxFailedRuins) {
        break;
      } else if (failed_ruins % kRepairEveryFailedRuins == 0 && change_option_with_repair(state_, b, work_)) {
        at_local_optimum = false;  // a compound step the ruins did not find
        failed_ruins = 0;
      }
    }
    note_best();
    if (saved_best_) state_ = std::move(*saved_best_);  // the travel ended above the best plan it saw
  }

  std::int64_t work() const { return work_; }
  bool stopped_by_clock() const { return stopped_by_clock_; }

 private:
  bool out_of_time() const { return std::chrono::steady_clock::now() > deadline_; }

  enum class RuinOutcome { kNone, kGain, kTravel };

  // Keeps best_ up to date: a state better than every one seen so far is the best,
  // and a copy saved from before a travel step is then stale.
  void note_best() {
    if (slack_ <= 0) return;
    const Objective now = state_.objective();
    if (now.better_than(best_)) {
      best_ = now;
      saved_best_.reset();
    }
  }

  // Ranks shard (t, j) may move to, as [begin, end).
  std::pair<int, int> range_of(int t, int j) const {
    const TableState& table = state_.tables()[static_cast<std::size_t>(t)];
    if (table.shape().rule == PartitionBy::kDevice) return {0, state_.world_size()};
    const int host = table.ranks[static_cast<std::size_t>(j)] / state_.ranks_per_host();
    return {host * state_.ranks_per_host(), (host + 1) * state_.ranks_per_host()};
  }
  bool single_movable(int t) const {
    const RefinementOption& s = state_.tables()[static_cast<std::size_t>(t)].shape();
    return s.rule == PartitionBy::kDevice || (s.rule == PartitionBy::kHost && !s.table_row_wise);
  }

  // The best single move or pairwise swap of a shard on `b`: each lowers b and
  // keeps the other rank below b's old load, so the max never rises and the sum
  // of squares falls. Applies it; false when none exists.
  bool move_or_swap(int b) {
    const double lb = state_.load(b);
    double best_delta = 0;
    ShardRef best_from{-1, -1};
    ShardRef best_with{-1, -1};
    int best_rank = -1;
    const std::vector<ShardRef> on_b = state_.movable_on(b);
    for (const ShardRef& ref : on_b) {
      if (!single_movable(ref.table)) continue;
      const RefinementOption& s = state_.tables()[static_cast<std::size_t>(ref.table)].shape();
      const double p = s.perf[static_cast<std::size_t>(ref.shard)];
      const Storage& st = s.storage[static_cast<std::size_t>(ref.shard)];
      const auto [begin, end] = range_of(ref.table, ref.shard);
      for (int r = begin; r < end; ++r) {
        ++work_;
        const double lr = state_.load(r);
        if (r == b || lr >= lb) continue;
        if (lr + p < lb && state_.fits(r, st)) {
          const double delta = 2 * p * (lr + p - lb);
          if (delta < best_delta) {
            best_delta = delta, best_from = ref, best_rank = r, best_with = {-1, -1};
          }
        }
        for (const ShardRef& other : state_.movable_on(r)) {
          ++work_;
          if (!single_movable(other.table) || !state_.allowed(other.table, other.shard, b)) continue;
          const RefinementOption& o = state_.tables()[static_cast<std::size_t>(other.table)].shape();
          const double d = p - o.perf[static_cast<std::size_t>(other.shard)];
          if (d <= 0 || lr + d >= lb) continue;
          const double delta = 2 * d * (lr + d - lb);
          if (delta >= best_delta) continue;
          const Storage& ost = o.storage[static_cast<std::size_t>(other.shard)];
          if (!state_.fits_exchange(b, st, ost) || !state_.fits_exchange(r, ost, st)) continue;
          best_delta = delta, best_from = ref, best_rank = r, best_with = other;
        }
      }
    }
    if (best_rank < 0) return false;
    state_.move_shard(best_from.table, best_from.shard, best_rank);
    if (best_with.table >= 0) state_.move_shard(best_with.table, best_with.shard, b);
    return true;
  }

  // Perf table t puts on rank b now.
  double perf_on(int t, int b) const {
    const TableState& table = state_.tables()[static_cast<std::size_t>(t)];
    double p = 0;
    for (std::size_t j = 0; j < table.ranks.size(); ++j)
      if (table.ranks[j] == b) p += table.shape().perf[j];
    return p;
  }

  // The tables with load on b, heaviest there first (table index on a tie).
  std::vector<int> tables_on(int b) {
    std::vector<std::pair<double, int>> found;
    const auto& tables = state_.tables();
    for (std::size_t t = 0; t < tables.size(); ++t) {
      const TableState& table = tables[t];
      bool on_b = false;
      if (table.shape().rule == PartitionBy::kUniform)
        on_b = b < static_cast<int>(table.ranks.size());
      else
        on_b = std::find(table.ranks.begin(), table.ranks.end(), b) != table.ranks.end();
      work_ += 1;
      if (on_b) found.emplace_back(perf_on(static_cast<int>(t), b), static_cast<int>(t));
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::vector<int> out;
    for (const auto& f : found) out.push_back(f.second);
    return out;
  }

  // Re-places one of the heaviest tables on b with the option (or the same
  // option elsewhere) whose greedy placement gives the best objective.
  bool change_option(int b) {
    const Objective before = state_.objective();
    std::vector<int> candidates = tables_on(b);
    if (candidates.size() > kOptionChangeTables) candidates.resize(kOptionChangeTables);
    for (int t : candidates) {
      TableState& table = state_.tables()[static_cast<std::size_t>(t)];
      const int old_shape = table.current;
      const std::vector<int> old_ranks = table.ranks;
      if (table.shape().rule == PartitionBy::kMultiHost && table.shapes().size() == 1) continue;
      state_.unplace(t);
      Objective best = before;
      int best_shape = -1;
      std::vector<int> best_ranks;
      for (int i = 0; i < static_cast<int>(table.shapes().size()); ++i) {
        work_ += static_cast<std::int64_t>(table.shapes()[static_cast<std::size_t>(i)].perf.size()) * 2 +
                 state_.world_size();
        std::optional<std::vector<int>> ranks = state_.greedy_ranks(t, i);
        if (!ranks) continue;
        state_.place(t, i, *ranks);
        const Objective o = state_.objective();
        state_.unplace(t);
        if (o.better_than(best)) best = o, best_shape = i, best_ranks = std::move(*ranks);
      }
      if (best_shape >= 0) {
        state_.place(t, best_shape, std::move(best_ranks));
        return true;
      }
      state_.place(t, old_shape, old_ranks);
    }
    return false;
  }

  // Ruin and recreate: takes a random part of b's heaviest tables (any rule,
  // uniform ones included) and the movable tables of two random ranks off, then
  // puts them back heaviest first (the order perturbed at random), each with the
  // option whose greedy placement scores best; keeps the result only if the
  // objective improves. Half of the rounds score a reinsertion by the sum of
  // squared loads alone: the max cannot see that several uniform tables turned
  // into host- or device-local ones free every rank at once (Criteo-TB's best
  // plans look like that), the sum of squares can.
  RuinOutcome ruin_and_recreate(int b) {
    const Objective before = state_.objective();
    std::vector<int> ruined;
    auto take = [&](int t) {
      if (ruined.size() < kRuinTables && std::find(ruined.begin(), ruined.end(), t) == ruined.end())
        ruined.push_back(t);
    };
    auto take_host = [&](int t) {
      if (ruined.size() < kRuinHostTables && std::find(ruined.begin(), ruined.end(), t) == ruined.end())
        ruined.push_back(t);
    };
    const std::vector<int> on_b = tables_on(b);
    const std::size_t wanted =
        1 + static_cast<std::size_t>(rng_.below(static_cast<int>(std::min(on_b.size(), kRuinTables / 2)) + 1));
    for (int t : on_b) {
      if (ruined.size() >= wanted) break;
      const TableState& table = state_.tables()[static_cast<std::size_t>(t)];
      if (table.shape().rule == PartitionBy::kMultiHost && table.shapes().size() == 1) continue;
      if (rng_.unit() < 0.7) take(t);
    }
    const int hosts = state_.num_hosts();
    if (hosts > 1 && state_.ranks_per_host() > 1 && rng_.below(3) == 0) {
      // A whole other host: a host-rule table on b's host (table_row_wise) can only
      // move to a host whose every rank makes room, which single moves never do.
      int h = rng_.below(hosts - 1);
      if (h >= b / state_.ranks_per_host()) ++h;
      for (int r = h * state_.ranks_per_host(); r < (h + 1) * state_.ranks_per_host(); ++r)
        for (const ShardRef& ref : state_.movable_on(r)) take_host(ref.table);
    } else {
      for (int k = 0; k < 2; ++k)
        for (const ShardRef& ref : state_.movable_on(rng_.below(state_.world_size()))) take(ref.table);
    }
    if (ruined.empty()) return RuinOutcome::kNone;
    // 0: by the objective; 1: by the sum of squares; 2: priced (load spread plus the
    // memory prices of the scratch start, which keeps room for the tables after).
    const bool priced_available = prices_.hbm > 0 || prices_.ddr > 0;
    const int mode = rng_.below(priced_available ? 3 : 2);
    const bool by_squares = mode == 1;
    struct Saved {
      int table, shape;
      std::vector<int> ranks;
    };
    std::vector<Saved> saved;
    std::vector<std::pair<double, int>> order;
    for (int t : ruined) {
      TableState& table = state_.tables()[static_cast<std::size_t>(t)];
      saved.push_back({t, table.current, table.ranks});
      order.emplace_back(table.shape().total_perf * (1.0 + 0.5 * rng_.unit()), t);
      state_.unplace(t);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    bool ok = true;
    std::vector<int> placed;
    for (const auto& [key, t] : order) {
      TableState& table = state_.tables()[static_cast<std::size_t>(t)];
      Objective best{};
      int best_shape = -1;
      std::vector<int> best_ranks;
      double mean = 0;
      if (mode == 2) {
        for (int r = 0; r < state_.world_size(); ++r) mean += state_.load(r);
        mean = std::max(mean / state_.world_size(), 1e-300);
      }
      for (int i = 0; i < static_cast<int>(table.shapes().size()); ++i) {
        work_ += static_cast<std::int64_t>(table.shapes()[static_cast<std::size_t>(i)].perf.size()) * 2 +
                 state_.world_size();
        std::optional<std::vector<int>> ranks = state_.greedy_ranks(t, i);
        if (!ranks) continue;
        state_.place(t, i, *ranks);
        Objective o = state_.objective();
        state_.unplace(t);
        if (by_squares) std::swap(o.max_load, o.sum_squares);
        if (mode == 2) {
          // d(sum of squares) / (2 x mean load) is about the perf added; plus its memory's price.
          const RefinementOption& s = table.shapes()[static_cast<std::size_t>(i)];
          o.max_load = o.sum_squares / (2 * mean) + prices_.hbm * static_cast<double>(s.total_storage.hbm) +
                       prices_.ddr * static_cast<double>(s.total_storage.ddr);
          o.sum_squares = 0;
        }
        if (best_shape < 0 || o.better_than(best)) best = o, best_shape = i, best_ranks = std::move(*ranks);
      }
      if (best_shape < 0) {
        ok = false;
        break;
      }
      state_.place(t, best_shape, std::move(best_ranks));
      placed.push_back(t);
    }
    if (ok) {
      const Objective after = state_.objective();
      if (after.better_than(before)) return RuinOutcome::kGain;
      // Record-to-record travel: a recreated plan within `slack` of the best max seen
      // is kept even when it is not better than the one it replaced (the best state is
      // saved first, once), so that the search can leave a basin a strict descent
      // cannot (synthetic-200-skewed-ws128: 5.9654 ms with descent alone).
      if (slack_ > 0 && before.better_than(after) && after.max_load <= best_.max_load * (1 + slack_)) {
        if (!saved_best_) {  // then the state before this ruin is the best seen (note_best)
          SearchState copy = state_;
          for (int t : placed) copy.unplace(t);
          for (const Saved& s : saved) copy.place(s.table, s.shape, s.ranks);
          saved_best_ = std::move(copy);
        }
        return RuinOutcome::kTravel;
      }
    }
    for (int t : placed) state_.unplace(t);
    for (Saved& s : saved) state_.place(s.table, s.shape, std::move(s.ranks));
    return RuinOutcome::kNone;
  }

  SearchState& state_;
  std::int64_t budget_;
  std::chrono::steady_clock::time_point deadline_;
  Rng rng_;
  MemoryPrices prices_;
  double slack_ = 0;
  Objective best_;                         // the best objective seen in this run (with slack_ > 0)
  std::optional<SearchState> saved_best_;  // that state, while the search travels above it
  std::int64_t work_ = 0;
  bool stopped_by_clock_ = false;
};

}  // namespace

std::vector<std::size_t> stage_two_trials(const std::vector<Objective>& trials) {
  std::vector<std::size_t> order(trials.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return trials[x].better_than(trials[y]); });
  if (order.size() > kStageTwoStarts) order.resize(kStageTwoStarts);
  // A trial far behind the best one gives its share to the others.
  const double best = order.empty() ? 0.0 : trials[order.front()].max_load;
  while (order.size() > 1 && trials[order.back()].max_load > best * (1 + kTrialMargin)) order.pop_back();
  return order;
}

bool far_from_bound(double max_load, double bound) { return bound > 0 && max_load > bound * (1 + kFarFromBound); }

std::int64_t default_work_budget(std::size_t num_tables, int world_size) {
  const double size = static_cast<double>(num_tables) * std::max(world_size, 0);
  const double full = static_cast<double>(kWorkFloor) + static_cast<double>(kWorkPerTableRank) * kWorkFullSize;
  const bool past_floor = num_tables > kFloorFullTables && size > kFloorFullSize;
  std::int64_t budget = 0;
  if (size <= kWorkFullSize) {
    const std::int64_t floor =
        !past_floor ? kWorkFloor
                    : std::min(kFloorPastTables, kWorkFloor * static_cast<std::int64_t>(kFloorFullTables) /
                                                     static_cast<std::int64_t>(num_tables));
    budget = floor + kWorkPerTableRank * static_cast<std::int64_t>(size);
  } else {
    // Past kWorkFullSize a unit of work costs more (longer scans, colder caches) while
    // the wall-clock cap stays: the budget falls as 1 / sqrt(size).
    budget = static_cast<std::int64_t>(full * std::sqrt(kWorkFullSize / size));
  }
  return past_floor ? budget * kPastFloorKeep / kPastFloorFifths : budget;
}

std::int64_t default_scratch_limit(std::size_t num_tables, int world_size) {
  const double size = static_cast<double>(num_tables) * std::max(world_size, 0);
  const bool past_floor = num_tables > kFloorFullTables && size > kFloorFullSize;
  // The scratch starts keep the share of the whole budget: a start that runs out of
  // work before it places every table is lost (2 000 x 64 planned 2.5x worse).
  const std::int64_t whole = default_work_budget(num_tables, world_size);
  return (past_floor ? whole * kPastFloorFifths / kPastFloorKeep : whole) / kScratchWorkShare;
}

double max_rank_perf(const std::vector<ShardingOption>& plan, int world_size) {
  std::vector<double> perfs(static_cast<std::size_t>(std::max(world_size, 0)), 0.0);
  for (const auto& option : plan)
    for (const auto& shard : option.shards)
      if (shard.rank && *shard.rank >= 0 && *shard.rank < world_size)
        perfs[static_cast<std::size_t>(*shard.rank)] += shard.perf.value_or(Perf{}).total();
  return perfs.empty() ? 0.0 : *std::max_element(perfs.begin(), perfs.end());
}

namespace {

// Table t of the search's model (search_model): its shapes.
void model_table(SearchState& state, std::size_t t, const std::vector<const ShardingOption*>& first,
                 const std::vector<std::vector<const ShardingOption*>>& candidates) {
  std::vector<RefinementOption> shapes;
  if (first[t]) shapes.push_back(refinement_option_of(*first[t]));
  for (const ShardingOption* option : candidates[t]) {
    RefinementOption s = refinement_option_of(*option);
    if (s.rule == PartitionBy::kMultiHost) continue;
    if (!shapes.empty() && same_shape(s, shapes.front())) continue;
    shapes.push_back(std::move(s));
  }
  state.tables()[t].shape_list = std::make_shared<const std::vector<RefinementOption>>(std::move(shapes));
}

// The search's model of the tables: per table its shapes (`first`, when given,
// as shape 0, then the other options of the same fqn in search-space order), none placed.
// Past kFloorFullSize tables x ranks the tables are modelled on the threads of
// `parallelism`, each into its own slot (the same model on any number of threads).
SearchState search_model(const std::vector<const ShardingOption*>& first,
                         const std::vector<std::vector<const ShardingOption*>>& candidates, const Topology& reserved,
                         const Parallelism& parallelism) {
  SearchState state(reserved);
  state.tables().resize(candidates.size());
  const double size = static_cast<double>(candidates.size()) * state.world_size();
  const std::size_t lanes =
      size <= kFloorFullSize
          ? 1
          : std::min(candidates.size(), static_cast<std::size_t>(std::max(parallelism.threads(), 1)));
  parallelism.parallel_for(lanes, static_cast<int>(lanes), [&](std::size_t lane) {
    const std::size_t end = candidates.size() * (lane + 1) / lanes;
    for (std::size_t t = candidates.size() * lane / lanes; t < end; ++t) model_table(state, t, first, candidates);
  });
  return state;
}

// A start's state and the memory prices its priced ruins use.
struct StartTrial {
  SearchState state;
  MemoryPrices prices;
  bool greedy = false;
  std::int64_t work = 0;          // its trial's work (stage 1)
  bool stopped_by_clock = false;  // its trial was ended by its share of the clock
};

// The end of a run's share of the clock: of the time from `now` to `end`, an equal
// part for each round of runs still to begin (`left` runs on `lanes` threads, this
// one included), so that when the clock cap, not the work budget, ends the search,
// every run still gets its turn.
std::chrono::steady_clock::time_point run_deadline_of(std::chrono::steady_clock::time_point end, std::size_t left,
                                                      std::size_t lanes) {
  const auto now = std::chrono::steady_clock::now();
  const std::size_t rounds = std::max<std::size_t>(1, (left + lanes - 1) / std::max<std::size_t>(lanes, 1));
  return end > now ? now + (end - now) / static_cast<int>(rounds) : end;
}

// Runs the search from greedy's placement (`from_greedy`, when given) and from the
// best scratch starts in two stages (start_stages.h): first every start with an
// equal share of a quarter of the work left (a trial), then the trials that
// stage_two_trials picks, each with an equal share of the rest: the search goes on,
// restarted with new seeds while the plan is far from `lower_bound()` (0: unknown;
// called at most once) and restarts still gain, then the target phase spends what is left. The
// best end state (nullopt when there was no start at all).
//
// Two schedules. Up to kFloorFullSize tables x ranks (where stage 3 runs too) the
// searches run one after another, and work a search leaves unused goes to the next
// ones (`sequential`). Past it every share is fixed before its stage begins (a
// trial: its equal part of the trial work; a stage-2 run: its equal part of the work
// left after stage 1), so the searches of a stage are independent and run at once on
// the threads of options.parallelism, merged in start order: the same plan on any
// number of threads.
std::optional<SearchState> search_all_starts(const SearchState& empty, const std::optional<SearchState>& from_greedy,
                                             const OptimizeOptions& options, std::int64_t budget,
                                             std::int64_t scratch_limit, const std::function<double()>& lower_bound,
                                             OptimizeResult& result) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(options.time_budget_seconds));
  const double size = static_cast<double>(empty.tables().size()) * empty.world_size();
  const bool sequential = size <= kFloorFullSize;
  const std::size_t threads = sequential ? 1 : static_cast<std::size_t>(std::max(options.parallelism.threads(), 1));
  std::int64_t work = 0;
  SearchState scratch_model = empty;
  std::vector<ScratchStart> starts = scratch_starts(scratch_model, scratch_limit, work, deadline);
  result.scratch_starts = static_cast<int>(starts.size());
  if (starts.size() > kScratchSearches) starts.resize(kScratchSearches);
  const std::size_t runs = starts.size() + (from_greedy ? 1 : 0);
  if (runs == 0) {
    result.work_used = work;
    return std::nullopt;
  }
  // Stage 1: the trial of every start.
  const auto make_trial = [&](std::size_t k) {
    StartTrial trial{from_greedy && k == 0 ? *from_greedy : empty, {}, false};
    if (from_greedy && k == 0) {
      trial.greedy = true;
      if (!starts.empty()) trial.prices = starts.front().prices;
    } else {
      const ScratchStart& start = starts[k - (from_greedy ? 1 : 0)];
      apply_start(trial.state, start);
      trial.prices = start.prices;
    }
    return trial;
  };
  const auto run_trial = [&](StartTrial& trial, std::size_t k, std::int64_t share,
                             std::chrono::steady_clock::time_point run_deadline) {
    Search search(trial.state, share, run_deadline, options.seed + k, trial.prices);
    search.run();
    trial.work = search.work();
    trial.stopped_by_clock = search.stopped_by_clock();
  };
  std::vector<std::optional<StartTrial>> slots(runs);
  const std::int64_t trial_work = std::max<std::int64_t>(0, budget - work) / kTrialWorkShare;
  std::size_t lanes = 1;
  if (sequential) {
    std::int64_t trial_used = 0;
    for (std::size_t k = 0; k < runs; ++k) {
      slots[k] = make_trial(k);
      const std::int64_t share =
          std::max<std::int64_t>(0, trial_work - trial_used) / static_cast<std::int64_t>(runs - k);
      // An equal share of the time left too (one more share kept for stage 2).
      run_trial(*slots[k], k, share, run_deadline_of(deadline, runs - k + 1, 1));
      trial_used += slots[k]->work;
    }
  } else {
    lanes = std::min(threads, runs);
    const std::int64_t share = trial_work / static_cast<std::int64_t>(runs);
    // The trials' part of the clock: one round of stage 2 kept after theirs.
    const std::size_t rounds = (runs + lanes - 1) / lanes;
    const auto now = std::chrono::steady_clock::now();
    const auto stage_end =
        deadline > now ? now + (deadline - now) * static_cast<int>(rounds) / static_cast<int>(rounds + 1) : deadline;
    std::atomic<std::size_t> begun{0};
    options.parallelism.parallel_for(runs, static_cast<int>(lanes), [&](std::size_t k) {
      const std::size_t left = runs - begun.fetch_add(1);
      StartTrial trial = make_trial(k);
      run_trial(trial, k, share, run_deadline_of(stage_end, left, lanes));
      slots[k] = std::move(trial);
    });
  }
  std::vector<StartTrial> trials;
  bool stopped_by_clock = false;  // some search, trial or stage 2, was ended by its share of the clock
  for (std::optional<StartTrial>& slot : slots) {
    work += slot->work;
    stopped_by_clock = stopped_by_clock || slot->stopped_by_clock;
    trials.push_back(std::move(*slot));
  }
  // Stage 2: the best trials go on, each with an equal share of the work left.
  std::vector<Objective> trial_objectives;
  for (const StartTrial& trial : trials) trial_objectives.push_back(trial.state.objective());
  const std::vector<std::size_t> order = stage_two_trials(trial_objectives);
  const std::size_t kept_runs = order.size();

  // The lower bound, asked at most once, by whichever run stalls first.
  std::once_flag bound_once;
  double bound = 0;
  struct RunOutcome {
    std::int64_t used = 0;
    bool stopped_by_clock = false;
  };
  // Run i of stage 2 (on trials[order[i]]) with `share` of the work.
  const auto run_kept = [&](std::size_t i, std::int64_t share, std::chrono::steady_clock::time_point run_deadline) {
    StartTrial& kept = trials[order[i]];
    RunOutcome out;
    int fruitless = 0;
    std::uint64_t seed = options.seed + 0x2d57a9e + 97 * i;
    while (!out.stopped_by_clock && out.used < share) {
      const Objective before = kept.state.objective();
      Search search(kept.state, share - out.used, run_deadline, seed++, kept.prices);
      search.run();
      out.used += search.work();
      out.stopped_by_clock = search.stopped_by_clock();
      if (kept.state.objective().better_than(before))
        fruitless = 0;
      else
        ++fruitless;
      if (out.stopped_by_clock || out.used >= share || fruitless >= kMaxFruitlessRestarts) break;
      // Asked only when a search stalls before its share ends (the bound costs as much
      // as a few rounds of the proposal loop on the largest models).
      std::call_once(bound_once, [&] { bound = lower_bound(); });
      if (!far_from_bound(kept.state.objective().max_load, bound)) break;
    }
    if (!out.stopped_by_clock && out.used < share) {  // the work left: toward a lower target (target_search.h)
      std::int64_t phase_work = 0;
      target_search(kept.state, share - out.used, options.seed + 0x7a46 + i, run_deadline, phase_work,
                    out.stopped_by_clock);
      out.used += phase_work;
    }
    return out;
  };
  std::vector<RunOutcome> outcomes(kept_runs);
  if (sequential) {
    for (std::size_t i = 0; i < kept_runs; ++i) {
      const std::int64_t share = std::max<std::int64_t>(0, budget - work) / static_cast<std::int64_t>(kept_runs - i);
      outcomes[i] = run_kept(i, share, run_deadline_of(deadline, kept_runs - i, 1));
      work += outcomes[i].used;
    }
  } else {
    const std::size_t kept_lanes = std::min(threads, kept_runs);
    lanes = std::max(lanes, kept_lanes);
    const std::int64_t share = std::max<std::int64_t>(0, budget - work) / static_cast<std::int64_t>(kept_runs);
    std::atomic<std::size_t> begun{0};
    options.parallelism.parallel_for(kept_runs, static_cast<int>(kept_lanes), [&](std::size_t i) {
      const std::size_t left = kept_runs - begun.fetch_add(1);
      outcomes[i] = run_kept(i, share, run_deadline_of(deadline, left, kept_lanes));
    });
    for (const RunOutcome& out : outcomes) work += out.used;
  }
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < kept_runs; ++i) {
    stopped_by_clock = stopped_by_clock || outcomes[i].stopped_by_clock;
    if (!best || trials[order[i]].state.objective().better_than(trials[*best].state.objective())) best = order[i];
  }
  StartTrial& kept = trials[*best];
  // Stage 3 on small instances: record-to-record travel from the best plan, on work of
  // its own (it ends at that plan or a better one: every plan before it is unchanged).
  if (size <= kTravelFullSize && !stopped_by_clock && std::chrono::steady_clock::now() < deadline) {
    result.travel_from = kept.state.objective().max_load;
    Search travel(kept.state, budget / kTravelWorkShare, deadline, options.seed + 0x3a7e1, kept.prices, kTravelSlack);
    travel.run();
    work += travel.work();
    stopped_by_clock = stopped_by_clock || travel.stopped_by_clock();
    result.travel_work = travel.work();
  }
  result.stopped_by_clock = result.stopped_by_clock || stopped_by_clock;
  result.best_start = kept.greedy ? "greedy" : "scratch";
  result.work_used = work;
  result.search_threads = static_cast<int>(lanes);
  return std::move(kept.state);
}

// The plan of `state`: each table's current option with its shards' ranks.
std::vector<ShardingOption> plan_of(const SearchState& state, const std::vector<const ShardingOption*>& first,
                                    int& changed) {
  std::vector<ShardingOption> out;
  out.reserve(state.tables().size());
  changed = 0;
  for (std::size_t t = 0; t < state.tables().size(); ++t) {
    const TableState& table = state.tables()[t];
    const bool kept = first[t] && table.current == 0;
    ShardingOption& option = out.emplace_back(kept ? *first[t] : *table.shape().option);
    changed += kept ? 0 : 1;
    option.shards.with_ranks([&](std::size_t j) { return table.ranks[j]; });
  }
  return out;
}

// The options of `search_space` grouped by table (fqn), tables in order of first appearance.
std::vector<std::vector<const ShardingOption*>> options_by_table(const std::vector<ShardingOption>& search_space,
                                                                 std::vector<std::string>& fqns) {
  std::map<std::string, std::size_t> index;
  std::vector<std::vector<const ShardingOption*>> out;
  for (const auto& option : search_space) {
    auto [it, fresh] = index.emplace(option.fqn(), out.size());
    if (fresh) {
      out.emplace_back();
      fqns.push_back(option.fqn());
    }
    out[it->second].push_back(&option);
  }
  return out;
}

}  // namespace

OptimizeResult optimize_plan(const std::vector<ShardingOption>& plan, const std::vector<ShardingOption>& search_space,
                             const Topology& reserved, const OptimizeOptions& options) {
  const int world_size = static_cast<int>(reserved.devices.size());
  OptimizeResult result;
  result.plan = plan;
  result.perf_rating = max_rank_perf(plan, world_size);
  result.work_budget = options.work_budget > 0 ? options.work_budget : default_work_budget(plan.size(), world_size);
  if (options.time_budget_seconds <= 0 || plan.empty() || world_size == 0) return result;

  // The candidate options of each table: the search space's options of the same fqn.
  std::vector<std::string> fqns;
  const auto grouped = options_by_table(search_space, fqns);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < fqns.size(); ++i) index.emplace(fqns[i], i);
  std::vector<const ShardingOption*> first;
  std::vector<std::vector<const ShardingOption*>> candidates;
  for (const auto& option : plan) {
    first.push_back(&option);
    auto it = index.find(option.fqn());
    candidates.push_back(it == index.end() ? std::vector<const ShardingOption*>{} : grouped[it->second]);
  }
  const SearchState empty = search_model(first, candidates, reserved, options.parallelism);
  std::optional<SearchState> from_greedy = empty;
  for (std::size_t t = 0; t < plan.size(); ++t) {
    std::vector<int> ranks;
    for (const auto& shard : plan[t].shards) {
      if (!shard.rank || *shard.rank < 0 || *shard.rank >= world_size) return result;  // not placed: nothing to improve
      ranks.push_back(*shard.rank);
    }
    from_greedy->place(static_cast<int>(t), 0, std::move(ranks));
  }

  const auto lower_bound = [&] { return compute_lower_bound(bound_input(search_space, plan, reserved)).value; };
  const std::int64_t scratch_limit = options.work_budget > 0 ? options.work_budget / kScratchWorkShare
                                                             : default_scratch_limit(plan.size(), world_size);
  std::optional<SearchState> best =
      search_all_starts(empty, from_greedy, options, result.work_budget, scratch_limit, lower_bound, result);
  int changed = 0;
  std::vector<ShardingOption> improved = plan_of(*best, first, changed);
  // Rated as the planner rates (NoopPerfModel's order), so "better" is exact.
  const double rating = max_rank_perf(improved, world_size);
  if (rating < result.perf_rating) {
    result.plan = std::move(improved);
    result.perf_rating = rating;
    result.improved = true;
    result.options_changed = changed;
  } else {
    result.best_start = "greedy";
  }
  return result;
}

OptimizeResult search_plan(const std::vector<ShardingOption>& search_space, const Topology& reserved,
                           const OptimizeOptions& options) {
  const int world_size = static_cast<int>(reserved.devices.size());
  OptimizeResult result;
  std::vector<std::string> fqns;
  const auto grouped = options_by_table(search_space, fqns);
  // No greedy plan: greedy's time (every proposal failing fast) is no yardstick to
  // cut the budget for (kPastFloorKeep), and the search is what finds a plan.
  result.work_budget = options.work_budget > 0 ? options.work_budget
                                               : default_scratch_limit(grouped.size(), world_size) * kScratchWorkShare;
  if (grouped.empty() || world_size == 0) return result;
  const std::vector<const ShardingOption*> first(grouped.size(), nullptr);
  const SearchState empty = search_model(first, grouped, reserved, options.parallelism);
  // No plan to improve: the clock cap still applies, but a search is always made.
  OptimizeOptions capped = options;
  if (capped.time_budget_seconds <= 0) capped.time_budget_seconds = kDefaultTimeBudgetSeconds;
  const auto lower_bound = [&] { return compute_lower_bound(bound_input(search_space, {}, reserved)).value; };
  std::optional<SearchState> best =
      search_all_starts(empty, std::nullopt, capped, result.work_budget, result.work_budget / 2, lower_bound, result);
  if (!best) return result;
  int changed = 0;
  result.plan = plan_of(*best, first, changed);
  result.perf_rating = max_rank_perf(result.plan, world_size);
  result.improved = true;
  return result;
}

}  // namespace shardplan::optimizing
