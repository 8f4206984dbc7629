#include "planner/perf_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace shardplan {

double NoopPerfModel::rate(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
                           int world_size) const {
  std::vector<double> perfs(static_cast<std::size_t>(std::max(world_size, 0)), 0.0);
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    const OptionId id = proposal[i];
    const int from = placement.consecutive_from(i);
    const std::span<const int> ranks = placement.ranks_of(i);
    const std::size_t n = placement.num_shards(i);
    const double* totals = space.shard_perf_totals(id);
    const bool single = space.single_perf_total(id);
    if (from >= 0) {  // one shard per rank from `from` on: loops the compiler vectorises
      double* __restrict at = perfs.data() + from;
      if (single) {
        const double total = totals[0];  // a local: `at` cannot alias it
        for (std::size_t j = 0; j < n; ++j) at[j] += total;
      } else {
        const double* __restrict each = totals;
        for (std::size_t j = 0; j < n; ++j) at[j] += each[j];
      }
    } else if (single) {
      for (int rank : ranks) perfs[static_cast<std::size_t>(rank)] += totals[0];
    } else {
      for (std::size_t j = 0; j < n; ++j) perfs[static_cast<std::size_t>(ranks[j])] += totals[j];
    }
  }
  return perfs.empty() ? 0.0 : *std::max_element(perfs.begin(), perfs.end());
}

namespace {
// rated_above's relative slack for proposals of `num_options` options, or NaN when
// none is known.
double rating_slack(const SearchSpace& space, std::size_t num_options) {
  if (!space.perfs_finite_nonnegative()) return std::nan("");
  // A rank sums at most every shard of the proposal: options x the most shards of one.
  const double terms = static_cast<double>(num_options) * static_cast<double>(space.max_option_shards()) + 8;
  const double slack = 8 * terms * 0x1p-53;
  return slack < 0x1p-20 ? slack : std::nan("");
}
}  // namespace

bool NoopPerfModel::rated_above(const SearchSpace& space, const PartitionOutcome& outcome, double cutoff) const {
  if (!outcome.ok || std::isnan(outcome.largest_rank_load)) return false;
  const double slack = rating_slack(space, outcome.placement.size());
  if (std::isnan(slack)) return false;
  return outcome.largest_rank_load * (1 - slack) > cutoff;
}

double NoopPerfModel::load_above(const SearchSpace& space, std::size_t num_options, double cutoff) const {
  const double slack = rating_slack(space, num_options);
  if (std::isnan(slack) || !(cutoff >= 0) || !std::isfinite(cutoff)) return std::numeric_limits<double>::infinity();
  // L > cutoff / (1 - slack) gives L * (1 - slack) > cutoff but for the roundings of
  // the quotient and the product; 2^-40 more covers both.
  return cutoff / (1 - slack) * (1 + 0x1p-40);
}

}  // namespace shardplan
