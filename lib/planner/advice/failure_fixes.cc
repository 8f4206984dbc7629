#include "planner/advice/failure_fixes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/units.h"
#include "planner/advice/constraint_exclusions.h"

namespace shardplan {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

Storage shortfall(const Storage& needed, const Storage& free) {
  return {std::max<std::int64_t>(0, needed.hbm - free.hbm), std::max<std::int64_t>(0, needed.ddr - free.ddr)};
}

// Inverts the reservation: the smallest per-rank capacity, in whole GiB, that leaves
// `free_needed` for the tables. Only HBM loses the reservation percentage (torchrec's
// _reserve_storage_percentage); both lose the dense and KJT reservations.
class CapacityInverse {
 public:
  explicit CapacityInverse(const std::optional<ReservationResult>& reservation) {
    if (!reservation) return;
    percentage_ = reservation->percentage;
    taken_ = reservation->dense_storage + reservation->kjt_storage;
  }
  std::optional<std::int64_t> hbm_cap(std::int64_t free_needed) const {
    if (percentage_ >= 1) return std::nullopt;
    const double kept = 1 - percentage_;
    auto cap = static_cast<std::int64_t>(std::ceil(static_cast<double>(free_needed + taken_.hbm) / kept));
    cap = ceil_div(cap, kGiB) * kGiB;
    while (static_cast<std::int64_t>(kept * static_cast<double>(cap)) - taken_.hbm < free_needed) cap += kGiB;
    return cap;
  }
  std::int64_t ddr_cap(std::int64_t free_needed) const { return ceil_div(free_needed + taken_.ddr, kGiB) * kGiB; }

 private:
  double percentage_ = 0;
  Storage taken_;
};

OptionFit fit_of(const ShardingOption& option, std::vector<std::string> excluded_by = {}) {
  OptionFit fit{option.sharding_type,   option.compute_kernel, option.num_shards(), {},
                option.total_storage(), std::move(excluded_by)};
  for (const auto& shard : option.shards)
    fit.largest_shard = std::max(fit.largest_shard, shard.storage.value_or(Storage{}));
  return fit;
}

// How far past the current capacity an option's largest shard reaches, as the worst
// ratio of needed to current free storage over HBM and DDR (1: fits).
double reach(const OptionFit& fit, const Storage& free) {
  const auto ratio = [](std::int64_t needed, std::int64_t have) {
    if (needed <= have) return 1.0;
    return have <= 0 ? std::numeric_limits<double>::infinity()
                     : static_cast<double>(needed) / static_cast<double>(have);
  };
  return std::max(ratio(fit.largest_shard.hbm, free.hbm), ratio(fit.largest_shard.ddr, free.ddr));
}

bool narrows(const ParameterConstraintsConfig& c) {
  return (c.sharding_types && !c.sharding_types->empty()) || (c.compute_kernels && !c.compute_kernels->empty());
}

}  // namespace

void describe_fixes(PlanFailure& failure, const PlanningInput& input, const Topology& topology,
                    const std::optional<ReservationResult>& reservation,
                    const std::vector<ShardingOption>& search_space) {
  failure.has_fixes = true;
  const CapacityInverse inverse(reservation);
  const Storage& free = failure.largest_rank_free;

  std::set<std::string> constrained_seen;
  for (const auto& option : search_space) {
    auto it = input.model.constraints.find(option.name);
    if (it != input.model.constraints.end() && narrows(it->second) && constrained_seen.insert(option.fqn()).second)
      failure.constrained_tables.push_back(option.fqn());
  }

  std::vector<std::string> failing;
  for (const auto& t : failure.tables) failing.push_back(t.fqn);
  const auto excluded = options_excluded_by_constraints(input, topology, failing);
  for (auto& t : failure.tables) {
    const std::string name = t.fqn.substr(t.fqn.rfind('.') + 1);
    if (auto it = input.model.constraints.find(name); it != input.model.constraints.end()) {
      if (it->second.sharding_types && !it->second.sharding_types->empty())
        t.constraint_keys.push_back("constraints." + name + ".sharding_types");
      if (it->second.compute_kernels && !it->second.compute_kernels->empty())
        t.constraint_keys.push_back("constraints." + name + ".compute_kernels");
    }
    for (const auto& e : excluded) {
      if (e.option.fqn() != t.fqn) continue;
      OptionFit fit = fit_of(e.option, e.excluded_by);
      if (fit.largest_shard.fits_in(free)) t.fitting_if_unconstrained.push_back(std::move(fit));
    }
    // The allowed option that needs the smallest growth of one rank; the first in
    // enumeration order on a tie.
    for (const auto& option : search_space) {
      if (option.fqn() != t.fqn) continue;
      OptionFit fit = fit_of(option);
      if (!t.nearest || reach(fit, free) < reach(*t.nearest, free)) t.nearest = std::move(fit);
    }
    if (!t.nearest) continue;
    t.fix.more_per_rank = shortfall(t.nearest->largest_shard, free);
    if (t.fix.more_per_rank.hbm > 0) t.fix.hbm_cap = inverse.hbm_cap(t.nearest->largest_shard.hbm);
    if (t.fix.more_per_rank.ddr > 0) t.fix.ddr_cap = inverse.ddr_cap(t.nearest->largest_shard.ddr);
  }

  const Storage& lowest = failure.lowest_storage;
  const Storage& global = failure.global_available;
  const int ranks = std::max(1, topology.world_size);
  if (lowest.fits_in(global) || lowest.hbm == std::numeric_limits<std::int64_t>::max()) return;
  CapacityFix fix;
  fix.more_total = shortfall(lowest, global);
  fix.more_per_rank = {ceil_div(fix.more_total.hbm, ranks), ceil_div(fix.more_total.ddr, ranks)};
  // Devices of today's average free size that hold the smallest proposal's total.
  std::int64_t devices = ranks;
  if (fix.more_total.hbm > 0) {
    const std::int64_t per_rank = global.hbm / ranks;
    fix.hbm_cap = inverse.hbm_cap(per_rank + fix.more_per_rank.hbm);
    if (per_rank > 0)
      devices = std::max(devices, ceil_div(lowest.hbm, per_rank));
    else
      devices = 0;
  }
  if (fix.more_total.ddr > 0) {
    const std::int64_t per_rank = global.ddr / ranks;
    fix.ddr_cap = inverse.ddr_cap(per_rank + fix.more_per_rank.ddr);
    if (per_rank > 0 && devices > 0)
      devices = std::max(devices, ceil_div(lowest.ddr, per_rank));
    else
      devices = 0;
  }
  if (devices > ranks && devices <= std::numeric_limits<int>::max()) fix.world_size = static_cast<int>(devices);
  failure.total_fix = fix;
}

}  // namespace shardplan
