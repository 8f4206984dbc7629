#include "planner/bounds/pruned_forced_load.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>

#include "planner/bounds/option_facts.h"

namespace shardplan {
namespace {

// Instances with more shards than this are left out (the work test's 1e-9 margin
// covers the rounding of sums of up to about 10^6 terms).
constexpr std::size_t kPrunedMaxShards = 200'000;
// Targets below this are not tried (far above the subnormal range, where the
// relative rounding bounds of the proof would not hold).
constexpr double kPrunedMinTarget = 1e-250;
constexpr double kPrunedInfinity = std::numeric_limits<double>::infinity();

// A float sum `sum` of at most `terms` positive perfs (pruned_forced_load.h): at
// most what any plan's rank holding those shards (or larger ones) sums to.
double pruned_floor_of(double sum, int terms) {
  if (terms <= 2) return sum;  // fl(x + y) in any order: exact
  return sum * (1.0 - 2.0 * static_cast<double>(terms) * DBL_EPSILON);
}

// The least float sum of three perfs >= 0 over the orders they can be added in
// (which pair comes first: fl is commutative): at most what any plan's rank holding
// these three shards (or larger ones) sums to, with no rounding margin.
double pruned_least_sum3(double x, double y, double z) { return std::min({(x + y) + z, (x + z) + y, (y + z) + x}); }

Storage pruned_min(const Storage& a, const Storage& b) {
  return Storage{std::min(a.hbm, b.hbm), std::min(a.ddr, b.ddr)};
}

constexpr Storage kPrunedNoStorage{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max()};

// What the all-forced tables put on the ranks, for one round: per forced table
// (in table order) its least perf, storage and most terms per rank, and their
// running sums from the front and from the back, so that "every forced table
// but this one" is one addition of two partial sums (a summation tree like any other).
struct PrunedFloors {
  std::size_t ranks = 0;
  std::vector<int> slot;                                // per table: its index among the forced tables, or -1
  std::vector<double> own_perf, front_perf, back_perf;  // [f * ranks + i]; front/back: (F + 1) rows
  std::vector<Storage> own_storage;
  std::vector<int> own_terms, front_terms, back_terms;
  std::vector<Storage> storage;  // per rank: the forced tables' storage, summed
  // Per rank, when every forced table puts at most one positive shard there: the
  // first two such perfs (least over options), for exact sums of three terms.
  std::vector<double> first, second;
  std::vector<char> singles;
  std::size_t forced = 0;

  double perf_at(std::size_t i) const { return front_perf[forced * ranks + i]; }
  int terms_at(std::size_t i) const { return front_terms[forced * ranks + i]; }
  // Every forced table but slot f, on rank i.
  double others_perf(std::size_t f, std::size_t i) const {
    return front_perf[f * ranks + i] + back_perf[(f + 1) * ranks + i];
  }
  int others_terms(std::size_t f, std::size_t i) const {
    return front_terms[f * ranks + i] + back_terms[(f + 1) * ranks + i];
  }
};

}  // namespace

PrunedInstance pruned_instance(const BoundInput& input) {
  PrunedInstance out;
  const DeviceCapacities devices(*input.reserved);
  if (devices.size() == 0) return out;
  std::size_t shards = 0;
  for (const auto& table : input.tables)
    for (const ShardingOption* option : table) shards += option->shards.size();
  if (shards > kPrunedMaxShards) return out;
  for (int i = 0; i < devices.size(); ++i) out.free.push_back(devices.free(i));
  for (const auto& table : input.tables) {
    std::vector<PrunedOption> options;
    for (const ShardingOption* option : table) {
      const BoundOptionFacts facts = option_facts(*option, devices);
      if (!facts.usable) continue;  // no plan can choose it
      PrunedOption pruned;
      pruned.forced = facts.forced;
      std::set<std::pair<double, std::pair<std::int64_t, std::int64_t>>> distinct;
      for (const Shard& shard : option->shards) {
        const double p = shard.perf.value_or(Perf{}).total();
        // Negative, subnormal or non-finite perfs are outside the proof: no bound.
        if (!std::isfinite(p) || p < 0 || (p > 0 && p < kPrunedMinTarget)) return PrunedInstance{};
        const Storage s = shard.storage.value_or(Storage{});
        pruned.total_perf += p;
        pruned.total_storage += s;
        if (!pruned.forced && distinct.emplace(p, std::make_pair(s.hbm, s.ddr)).second)
          pruned.shards.emplace_back(p, s);
      }
      if (pruned.forced) forced_loads(facts, devices, pruned.perf, pruned.storage, &pruned.terms);
      options.push_back(std::move(pruned));
    }
    if (options.empty()) return PrunedInstance{};
    out.tables.push_back(std::move(options));
  }
  return out;
}

bool pruned_excludes(const PrunedInstance& instance, double target, std::int64_t& work) {
  const std::size_t n = instance.free.size();
  const std::size_t tables = instance.tables.size();
  if (n == 0 || tables == 0 || !(target >= kPrunedMinTarget) || !std::isfinite(target)) return false;
  std::vector<std::vector<char>> alive(tables);
  for (std::size_t t = 0; t < tables; ++t) alive[t].assign(instance.tables[t].size(), 1);
  // Work test margins: the summed least work, taken 1e-9 low, against T ranks taken 1e-9 high.
  const double work_needed = target * static_cast<double>(n) * (1 + 1e-9);
  PrunedFloors floors;
  floors.ranks = n;
  std::vector<char> all_forced(tables);
  std::vector<Storage> least_storage(tables);  // per table: least total storage of its remaining options
  std::vector<double> least_work(tables);      // per table: least total perf
  std::vector<double> work_front(tables + 1), work_back(tables + 1);
  for (;;) {
    if (work > kPrunedForcedWorkBudget) return false;
    // Which tables are left with only forced options; their least loads per rank.
    floors.slot.assign(tables, -1);
    floors.forced = 0;
    for (std::size_t t = 0; t < tables; ++t) {
      bool any = false, every = true;
      least_storage[t] = kPrunedNoStorage;
      least_work[t] = kPrunedInfinity;
      for (std::size_t k = 0; k < instance.tables[t].size(); ++k) {
        if (!alive[t][k]) continue;
        const PrunedOption& o = instance.tables[t][k];
        any = true;
        every = every && o.forced;
        least_storage[t] = pruned_min(least_storage[t], o.total_storage);
        least_work[t] = std::min(least_work[t], o.total_perf);
      }
      if (!any) return true;  // no option of this table is left: no plan below T
      all_forced[t] = every ? 1 : 0;
      if (every) floors.slot[t] = static_cast<int>(floors.forced++);
    }
    const std::size_t forced = floors.forced;
    floors.own_perf.assign(forced * n, kPrunedInfinity);
    floors.own_storage.assign(forced * n, kPrunedNoStorage);
    floors.own_terms.assign(forced * n, 0);
    for (std::size_t t = 0; t < tables; ++t) {
      if (!all_forced[t]) continue;
      const auto f = static_cast<std::size_t>(floors.slot[t]);
      for (std::size_t k = 0; k < instance.tables[t].size(); ++k) {
        if (!alive[t][k]) continue;
        const PrunedOption& o = instance.tables[t][k];
        work += static_cast<std::int64_t>(n);
        for (std::size_t i = 0; i < n; ++i) {
          floors.own_perf[f * n + i] = std::min(floors.own_perf[f * n + i], o.perf[i]);
          floors.own_storage[f * n + i] = pruned_min(floors.own_storage[f * n + i], o.storage[i]);
          floors.own_terms[f * n + i] = std::max(floors.own_terms[f * n + i], o.terms[i]);
        }
      }
    }
    floors.front_perf.assign((forced + 1) * n, 0.0);
    floors.back_perf.assign((forced + 1) * n, 0.0);
    floors.front_terms.assign((forced + 1) * n, 0);
    floors.back_terms.assign((forced + 1) * n, 0);
    floors.storage.assign(n, Storage{});
    floors.first.assign(n, 0.0);
    floors.second.assign(n, 0.0);
    floors.singles.assign(n, 1);
    for (std::size_t f = 0; f < forced; ++f)
      for (std::size_t i = 0; i < n; ++i) {
        floors.front_perf[(f + 1) * n + i] = floors.front_perf[f * n + i] + floors.own_perf[f * n + i];
        floors.front_terms[(f + 1) * n + i] = floors.front_terms[f * n + i] + floors.own_terms[f * n + i];
        floors.storage[i] += floors.own_storage[f * n + i];
        const int own = floors.own_terms[f * n + i];
        if (own > 1) floors.singles[i] = 0;
        if (own != 1) continue;
        // A table with one positive shard there: its least perf there (options
        // without one add 0, and then own_perf is 0, never above the shard).
        (floors.front_terms[f * n + i] == 0 ? floors.first[i] : floors.second[i]) = floors.own_perf[f * n + i];
      }
    for (std::size_t f = forced; f-- > 0;)
      for (std::size_t i = 0; i < n; ++i) {
        floors.back_perf[f * n + i] = floors.back_perf[(f + 1) * n + i] + floors.own_perf[f * n + i];
        floors.back_terms[f * n + i] = floors.back_terms[(f + 1) * n + i] + floors.own_terms[f * n + i];
      }
    work += static_cast<std::int64_t>(3 * forced * n);

    // The forced loads alone, and their storage per rank.
    std::vector<Storage> room(n);
    Storage total_room;
    for (std::size_t i = 0; i < n; ++i) {
      room[i] = instance.free[i] - floors.storage[i];
      if (room[i].hbm < 0 || room[i].ddr < 0) return true;
      total_room += room[i];
      if (pruned_floor_of(floors.perf_at(i), floors.terms_at(i)) >= target) return true;
    }
    // Every table's least total storage (the forced ones' is in the floors) must fit
    // in the room left, and their least work must stay below T per rank.
    Storage pooled;
    for (std::size_t t = 0; t < tables; ++t)
      if (!all_forced[t]) pooled += least_storage[t];
    if (!pooled.fits_in(total_room)) return true;
    for (std::size_t t = 0; t < tables; ++t) work_front[t + 1] = work_front[t] + least_work[t];
    work_back[tables] = 0;
    for (std::size_t t = tables; t-- > 0;) work_back[t] = work_back[t + 1] + least_work[t];
    if (work_front[tables] * (1 - 1e-9) >= work_needed) return true;

    // Rule out what cannot be in a plan below T.
    bool changed = false;
    for (std::size_t t = 0; t < tables; ++t) {
      const int f = floors.slot[t];
      const Storage others_pooled = all_forced[t] ? pooled : pooled - least_storage[t];
      const double others_work = work_front[t] + work_back[t + 1];
      for (std::size_t k = 0; k < instance.tables[t].size(); ++k) {
        if (!alive[t][k]) continue;
        const PrunedOption& o = instance.tables[t][k];
        bool out = (others_work + o.total_perf) * (1 - 1e-9) >= work_needed;
        if (!out && !all_forced[t]) out = !(others_pooled + o.total_storage).fits_in(total_room);
        if (!out && o.forced) {
          work += static_cast<std::int64_t>(n);
          for (std::size_t i = 0; i < n && !out; ++i) {
            // The other forced tables' storage and load on rank i, with this option's.
            Storage others_storage = floors.storage[i];
            double others = floors.perf_at(i);
            int terms = floors.terms_at(i);
            if (f >= 0) {
              const auto slot = static_cast<std::size_t>(f);
              others_storage -= floors.own_storage[slot * n + i];
              others = floors.others_perf(slot, i);
              terms = floors.others_terms(slot, i);
            }
            out = !o.storage[i].fits_in(instance.free[i] - others_storage) ||
                  pruned_floor_of(others + o.perf[i], terms + o.terms[i]) >= target ||
                  (f < 0 && terms == 2 && o.terms[i] == 1 && floors.singles[i] &&
                   pruned_least_sum3(floors.first[i], floors.second[i], o.perf[i]) >= target);
          }
        } else if (!out) {
          // Not forced (so its table has no share of the floors): each distinct
          // shard needs a rank with room where it stays below T.
          for (const auto& [p, s] : o.shards) {
            work += static_cast<std::int64_t>(n);
            bool below = false;
            for (std::size_t i = 0; i < n && !below; ++i) {
              if (!s.fits_in(room[i])) continue;
              const int terms = floors.terms_at(i) + (p > 0);
              below = terms == 3 && p > 0 && floors.singles[i]
                          ? pruned_least_sum3(floors.first[i], floors.second[i], p) < target
                          : pruned_floor_of(floors.perf_at(i) + p, terms) < target;
            }
            if (!below) {
              out = true;
              break;
            }
          }
        }
        if (out) {
          alive[t][k] = 0;
          changed = true;
        }
      }
    }
    if (!changed) return false;
  }
}

double pruned_forced_bound(const PrunedInstance& instance, double known, double ceiling) {
  if (instance.tables.empty() || instance.free.empty() || !std::isfinite(ceiling) || ceiling < kPrunedMinTarget)
    return 0;
  std::int64_t work = 0;
  if (pruned_excludes(instance, ceiling, work)) return ceiling;
  // Positive doubles order as their bit patterns: bisection on those between an
  // accepted lo and a refused hi (every accepted target is proven, whatever the
  // monotonicity).
  const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
  const auto from_bits = [](std::uint64_t b) { return std::bit_cast<double>(b); };
  std::uint64_t lo = 0, hi = bits(ceiling);  // lo == 0: nothing accepted yet
  if (known >= kPrunedMinTarget && known < ceiling) {
    if (pruned_excludes(instance, known, work))
      lo = bits(known);
    else
      hi = bits(known);
  }
  if (lo == 0) {
    if (!pruned_excludes(instance, kPrunedMinTarget, work)) return 0;
    lo = bits(kPrunedMinTarget);
  }
  while (hi - lo > 1 && work <= kPrunedForcedWorkBudget) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (pruned_excludes(instance, from_bits(mid), work))
      lo = mid;
    else
      hi = mid;
  }
  return from_bits(lo);
}

}  // namespace shardplan
