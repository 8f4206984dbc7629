#include "planner/bounds/packing_bound.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>

#include "planner/bounds/option_facts.h"

namespace shardplan {
namespace {

// Targets below this are not tried (far above the subnormal range, where the
// relative rounding bounds of the proof would not hold).
constexpr double kPackingMinTarget = 1e-250;
// At most this many thresholds are tried.
constexpr std::size_t kPackingMaxThresholds = 256;

// T' = T (1 + eta) rounded up enough: eta = (M + 2) DBL_EPSILON = 2 (M + 2) u makes
// fl(fl(1 + eta) T) (1 - u)^(M - 1) >= T (packing_bound.h, case 2).
double packing_medium_scale(double target, std::size_t most_per_rank) {
  const double eta = static_cast<double>(most_per_rank + 2) * DBL_EPSILON;
  return target * (1.0 + eta);
}

// One option's count at (target, threshold); `scaled` is T'.
double packing_option_count(const PackingOption& option, double target, double threshold, double scaled,
                            std::int64_t& work) {
  work += static_cast<std::int64_t>(option.perfs.size());
  double big = 0, medium = 0;
  // Ascending: the small shards first, then the medium ones, the big ones last.
  for (const double p : option.perfs) {
    if (p < threshold) continue;
    if (p + threshold >= target)
      big += 1;
    else
      medium += p;
  }
  return big + medium / scaled;
}

// Per table, the least option count at (target, threshold), and their sum.
double packing_table_counts(const PackingInstance& instance, double target, double threshold,
                            std::vector<double>& least, std::int64_t& work) {
  const double scaled = packing_medium_scale(target, instance.most_per_rank);
  least.assign(instance.tables.size(), std::numeric_limits<double>::infinity());
  double total = 0;
  for (std::size_t t = 0; t < instance.tables.size(); ++t) {
    for (const PackingOption& option : instance.tables[t])
      least[t] = std::min(least[t], packing_option_count(option, target, threshold, scaled, work));
    total += least[t];
  }
  return total;
}

// The thresholds the forced-option test tries: at most 16 of the instance's
// distinct shard perfs, evenly spread (the smallest and the largest kept).
std::vector<double> packing_thresholds(const PackingInstance& instance, std::size_t most) {
  std::vector<double> thresholds;
  for (const auto& options : instance.tables)
    for (const PackingOption& option : options)
      thresholds.insert(thresholds.end(), option.perfs.begin(), option.perfs.end());
  std::sort(thresholds.begin(), thresholds.end());
  thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
  if (thresholds.size() > most) {
    std::vector<double> spread;
    const std::size_t n = thresholds.size();
    for (std::size_t k = 0; k < most; ++k) spread.push_back(thresholds[k * (n - 1) / (most - 1)]);
    thresholds = std::move(spread);
  }
  return thresholds;
}

// Whether a plan choosing table `table`'s forced option with floor `floor` has
// max-rank perf >= target: the other tables count above the ranks at
// T2 = T - F + 1e-9 T for one of `thresholds` (packing_bound.h).
bool packing_rules_out(const PackingInstance& instance, std::size_t table, double floor, double target,
                       const std::vector<double>& thresholds, std::int64_t& work) {
  const double reduced = (target - floor) + 1e-9 * target;
  if (!(reduced >= kPackingMinTarget)) return false;
  const double needed = static_cast<double>(instance.ranks) * (1 + 1e-9);
  std::vector<double> least;
  for (const double threshold : thresholds) {
    if (work > kPackingWorkBudget) return false;
    packing_table_counts(instance, reduced, threshold, least, work);
    double others = 0;
    for (std::size_t t = 0; t < least.size(); ++t)
      if (t != table) others += least[t];
    if (others > needed) return true;
  }
  return false;
}

}  // namespace

PackingInstance packing_instance(const BoundInput& input) {
  PackingInstance out;
  const DeviceCapacities devices(*input.reserved);
  if (devices.size() == 0) return out;
  std::size_t shards = 0;
  for (const auto& table : input.tables)
    for (const ShardingOption* option : table) shards += option->shards.size();
  if (shards > kPackingMaxShards) return out;
  std::size_t most_per_rank = 0;
  std::vector<double> loads;
  std::vector<Storage> storage;
  for (const auto& table : input.tables) {
    std::vector<PackingOption> options;
    std::size_t most = 0;
    for (const ShardingOption* option : table) {
      const BoundOptionFacts facts = option_facts(*option, devices);
      if (!facts.usable) continue;  // no plan can choose it
      PackingOption packed;
      for (const Shard& shard : option->shards) {
        const double p = shard.perf.value_or(Perf{}).total();
        // Negative, subnormal or non-finite perfs are outside the proof: no bound.
        if (!std::isfinite(p) || p < 0 || (p > 0 && p < kPackingMinTarget)) return PackingInstance{};
        packed.perfs.push_back(p);
      }
      std::sort(packed.perfs.begin(), packed.perfs.end());
      if (facts.forced) {  // the least a rank gets of it, taken 1e-9 low (rounding of the per-rank sums)
        forced_loads(facts, devices, loads, storage);
        const double least = *std::min_element(loads.begin(), loads.end());
        if (least >= kPackingMinTarget) packed.forced_floor = least * (1 - 1e-9);
      }
      most = std::max(most, packed.perfs.size());
      options.push_back(std::move(packed));
    }
    if (options.empty()) return PackingInstance{};  // no plan at all: the other bounds say so
    std::sort(options.begin(), options.end());
    options.erase(std::unique(options.begin(), options.end()), options.end());
    most_per_rank += most;
    out.tables.push_back(std::move(options));
  }
  out.most_per_rank = most_per_rank;
  out.ranks = devices.size();
  return out;
}

bool packing_excludes(const PackingInstance& instance, double target, double threshold, std::int64_t& work) {
  if (instance.ranks <= 0 || !(target >= kPackingMinTarget) || !std::isfinite(target)) return false;
  const double scaled = packing_medium_scale(target, instance.most_per_rank);
  // Far beyond the rounding of these sums (relative (shards + tables) u < 1e-10).
  const double needed = static_cast<double>(instance.ranks) * (1 + 1e-9);
  std::vector<std::vector<double>> counts(instance.tables.size());
  double total = 0;
  bool forced = false;
  for (std::size_t t = 0; t < instance.tables.size(); ++t) {
    double least = std::numeric_limits<double>::infinity();
    for (const PackingOption& option : instance.tables[t]) {
      counts[t].push_back(packing_option_count(option, target, threshold, scaled, work));
      least = std::min(least, counts[t].back());
      forced = forced || option.forced_floor > 0;
    }
    total += least;
  }
  if (total > needed) return true;
  if (!forced) return false;
  // Rule out forced options where the others prove T, then count again.
  const std::vector<double> thresholds = packing_thresholds(instance, 16);
  total = 0;
  for (std::size_t t = 0; t < instance.tables.size(); ++t) {
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < instance.tables[t].size(); ++k) {
      const PackingOption& option = instance.tables[t][k];
      if (counts[t][k] >= least) continue;  // cannot lower the table's least
      if (option.forced_floor > 0 && packing_rules_out(instance, t, option.forced_floor, target, thresholds, work))
        continue;
      least = std::min(least, counts[t][k]);
    }
    if (least == std::numeric_limits<double>::infinity()) return true;  // every option ruled out
    total += least;
  }
  return total > needed;
}

double packing_bound(const PackingInstance& instance, double ceiling) {
  if (instance.ranks <= 0 || instance.tables.empty() || !std::isfinite(ceiling) || ceiling < kPackingMinTarget)
    return 0;
  const std::vector<double> thresholds = packing_thresholds(instance, kPackingMaxThresholds);
  // Positive doubles order as their bit patterns: bisection on those finds, for a
  // threshold, the largest double the test accepts (it is monotonic in the
  // target; every accepted target is proven whatever the monotonicity).
  const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
  const auto from_bits = [](std::uint64_t b) { return std::bit_cast<double>(b); };
  double best = 0;
  std::int64_t work = 0;
  for (const double threshold : thresholds) {
    if (work > kPackingWorkBudget) break;
    const double start = best > 0 ? std::nextafter(best, ceiling * 2) : kPackingMinTarget;
    if (start > ceiling || !packing_excludes(instance, start, threshold, work)) continue;
    if (packing_excludes(instance, ceiling, threshold, work)) return ceiling;  // nothing larger can be proven
    std::uint64_t lo = bits(start), hi = bits(ceiling);                        // lo accepted, hi not
    while (hi - lo > 1 && work <= kPackingWorkBudget) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (packing_excludes(instance, from_bits(mid), threshold, work))
        lo = mid;
      else
        hi = mid;
    }
    best = from_bits(lo);
  }
  return best;
}

}  // namespace shardplan
