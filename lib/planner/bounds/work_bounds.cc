#include "planner/bounds/work_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardplan {
namespace {

double cost(const WorkItem& o, const Multipliers& m) { return o.perf + m.per_hbm * o.hbm + m.per_ddr * o.ddr; }

// Golden-section search of a function of one multiplier over [0, inf), through
// lambda = scale * t / (1 - t), t in [0, 1). For a concave function (memory_work's)
// this finds the maximum; for others it is a heuristic. Raises `best` (and sets
// `best_lambda`) to the best value seen.
void golden_search(const std::function<double(double)>& value_at, double scale, double& best, double& best_lambda) {
  const auto lambda = [scale](double t) { return scale * t / (1.0 - t); };
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double lo = 0.0, hi = 1.0 - 1e-9;
  double a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo);
  double fa = value_at(lambda(a)), fb = value_at(lambda(b));
  auto keep = [&](double t, double f) {
    if (f > best) best = f, best_lambda = lambda(t);
  };
  keep(a, fa);
  keep(b, fb);
  for (int i = 0; i < 60; ++i) {
    if (fa < fb) {
      lo = a, a = b, fa = fb;
      b = lo + ratio * (hi - lo);
      fb = value_at(lambda(b));
      keep(b, fb);
    } else {
      hi = b, b = a, fb = fa;
      a = hi - ratio * (hi - lo);
      fa = value_at(lambda(a));
      keep(a, fa);
    }
  }
}

// Whether work_limited's sweep reaches another option of the table before
// options[o] (a lower level, or the same level earlier in the table) that costs no
// more at any multipliers (perf, hbm and ddr each no larger: a, b >= 0 and
// rounding are monotonic). Then options[o] never lowers the table's least cost,
// and leaving it out of the sweep changes nothing, not even where the sweep
// stops: the levels it checks at still see the same sums (proof in work_limited).
bool swept_before_by_cheaper(const std::vector<WorkItem>& options, std::size_t o) {
  const WorkItem& item = options[o];
  for (std::size_t k = 0; k < options.size(); ++k) {
    const WorkItem& other = options[k];
    const bool earlier = other.level < item.level || (other.level == item.level && k < o);
    if (earlier && other.perf <= item.perf && other.hbm <= item.hbm && other.ddr <= item.ddr) return true;
  }
  return false;
}

// Whether another option of the table costs no more than options[o] at any
// multipliers (the first of equal ones is kept): pooled's least cost per table
// never needs options[o].
bool costs_no_less_than_another(const std::vector<WorkItem>& options, std::size_t o) {
  const WorkItem& item = options[o];
  for (std::size_t k = 0; k < options.size(); ++k) {
    const WorkItem& other = options[k];
    if (k == o || other.perf > item.perf || other.hbm > item.hbm || other.ddr > item.ddr) continue;
    const bool equal = other.perf == item.perf && other.hbm == item.hbm && other.ddr == item.ddr;
    if (!equal || k < o) return true;
  }
  return false;
}

// Whether another option of the table has a level and a largest shard no larger
// than options[o]'s (the first of equal ones is kept): wherever options[o] is a
// small one for tables_with_big_shards, so is that one.
bool small_whenever_another_is(const std::vector<WorkItem>& options, std::size_t o) {
  const WorkItem& item = options[o];
  for (std::size_t k = 0; k < options.size(); ++k) {
    const WorkItem& other = options[k];
    if (k == o || other.level > item.level || other.largest_shard > item.largest_shard) continue;
    if (other.level != item.level || other.largest_shard != item.largest_shard || k < o) return true;
  }
  return false;
}

}  // namespace

WorkBounds::WorkBounds(std::vector<std::vector<WorkItem>> tables, const Storage& capacity, int ranks)
    : tables_(std::move(tables)),
      pooled_(tables_.size()),
      small_candidates_(tables_.size()),
      capacity_(capacity),
      ranks_(std::max(ranks, 1)) {
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    double least = kInfinity;
    for (std::size_t o = 0; o < tables_[t].size(); ++o) {
      if (!swept_before_by_cheaper(tables_[t], o)) by_level_.push_back(ByLevel{tables_[t][o].level, tables_[t][o], t});
      if (!costs_no_less_than_another(tables_[t], o)) pooled_[t].push_back(tables_[t][o]);
      if (!small_whenever_another_is(tables_[t], o)) small_candidates_[t].push_back(tables_[t][o]);
      least = std::min(least, tables_[t][o].perf);
      largest_shard_ = std::max(largest_shard_, tables_[t][o].largest_shard);
    }
    least_work_ += least;
  }
  std::stable_sort(by_level_.begin(), by_level_.end(),
                   [](const ByLevel& a, const ByLevel& b) { return a.level < b.level; });
}

// Proof (memory_work). Any plan's options o_t fit in the summed free storage C, so
// for a, b >= 0, a (sum_t hbm(o_t) - C.hbm) + b (sum_t ddr(o_t) - C.ddr) <= 0 and
//   sum_t perf(o_t) >= sum_t [perf(o_t) + a hbm(o_t) + b ddr(o_t)] - a C.hbm - b C.ddr
//                   >= sum_t min_o [perf(o) + a hbm(o) + b ddr(o)] - a C.hbm - b C.ddr.
// The device loads sum to sum_t perf(o_t) and the largest is at least their mean.
// This is the Lagrangian dual of the LP relaxation of the pooled problem (choose
// options fractionally within the summed capacity); its maximum over (a, b) is that
// LP's value. (a, b) = (0, 0) gives average_work.
double WorkBounds::pooled(const Multipliers& m) const {
  double sum = 0;
  for (const auto& options : pooled_) {
    double least = kInfinity;
    for (const WorkItem& o : options) least = std::min(least, cost(o, m));
    sum += least;
  }
  sum -= m.per_hbm * static_cast<double>(capacity_.hbm) + m.per_ddr * static_cast<double>(capacity_.ddr);
  return sum / ranks_;
}

// Proof (shard_limited_work). Let a plan of max load T* choose o_t. Each level(o_t)
// <= T* (a level is a load some device of any plan choosing o_t reaches), so o_t is
// among {o: level(o) <= T*} and, as for memory_work,
//   ranks * T* >= sum_t perf(o_t) >= S(T*) := sum_t min_{o: level(o) <= T*} cost(o) - a C.hbm - b C.ddr.
// S is non-increasing in T and ranks * T increasing, so the T meeting
// ranks * T >= S(T) form an interval [T0, inf) holding T*: T* >= T0. S is a step
// function, constant between consecutive levels; the sweep finds T0 exactly.
// Big shards. In that plan, a table all of whose options of level <= T* have a
// shard above T*/2 has such a shard on some device; two of them on one device
// would load it above T*, so they are on distinct devices: at most `ranks` such
// tables. Their count is non-increasing in T (more options qualify, the threshold
// rises), so the T meeting both conditions are again an interval [T1, inf) holding
// T*; bisection from T0 returns a T known to fail, hence below T1 <= T*.
std::size_t WorkBounds::tables_with_big_shards(double t) const {
  std::size_t count = 0;
  for (const auto& options : small_candidates_) {
    bool small_one = false;
    for (const WorkItem& o : options) small_one = small_one || (o.level <= t && o.largest_shard <= t / 2);
    if (!small_one) ++count;
  }
  return count;
}

double WorkBounds::level_limited(const Multipliers& m) const {
  const double t0 = work_limited(m);
  if (!(t0 < kInfinity) || tables_with_big_shards(t0) <= static_cast<std::size_t>(ranks_)) return t0;
  double fails = t0;
  double holds = std::max(t0, 2 * largest_shard_) * 2 + 1e-300;  // no shard is big: only the work condition
  for (int i = 0; i < 100 && holds - fails > 1e-12 * holds; ++i) {
    const double mid = fails + (holds - fails) / 2;
    if (tables_with_big_shards(mid) <= static_cast<std::size_t>(ranks_))
      holds = mid;  // the work condition holds at every T >= t0
    else
      fails = mid;
  }
  return fails;
}

double WorkBounds::work_limited(const Multipliers& m) const {
  std::vector<double> least(tables_.size(), kInfinity);
  std::size_t missing = tables_.size();
  double sum = 0;  // of the finite `least`
  const double credit = m.per_hbm * static_cast<double>(capacity_.hbm) + m.per_ddr * static_cast<double>(capacity_.ddr);
  std::size_t k = 0;
  while (k < by_level_.size()) {
    const double level = by_level_[k].level;
    for (; k < by_level_.size() && by_level_[k].level == level; ++k) {
      const ByLevel& r = by_level_[k];
      const double c = cost(r.item, m);
      if (least[r.table] == kInfinity) {
        --missing;
        least[r.table] = c;
        sum += c;
      } else if (c < least[r.table]) {
        sum += c - least[r.table];
        least[r.table] = c;
      }
    }
    if (missing > 0) continue;
    // Without an option of the sweep whose level is alone, the check at the level
    // before meets the next one: with W = (sum - credit) / ranks unchanged there,
    // max(L1, W) < L2 returns as before, and otherwise max(L1, W) = W >= L2 =
    // max(L2, W), so the check at L2 would have found the same value.
    const double next = k < by_level_.size() ? by_level_[k].level : kInfinity;
    const double t = std::max(level, (sum - credit) / ranks_);
    if (t < next) return t;
  }
  return tables_.empty() ? 0.0 : kInfinity;  // unreachable with levels finite
}

double WorkBounds::maximize(const std::function<double(const Multipliers&)>& bound, Multipliers start,
                            Multipliers& at) const {
  at = start;
  double best = bound(at);
  const double hbm_scale = capacity_.hbm > 0 ? std::max(least_work_, 1e-300) / static_cast<double>(capacity_.hbm) : 0;
  const double ddr_scale = capacity_.ddr > 0 ? std::max(least_work_, 1e-300) / static_cast<double>(capacity_.ddr) : 0;
  for (int round = 0; round < 3; ++round) {
    const double before = best;
    if (hbm_scale > 0) {
      double lambda = at.per_hbm;
      golden_search([&](double a) { return bound(Multipliers{a, at.per_ddr}); }, hbm_scale, best, lambda);
      at.per_hbm = lambda;
    }
    if (ddr_scale > 0) {
      double lambda = at.per_ddr;
      golden_search([&](double b) { return bound(Multipliers{at.per_hbm, b}); }, ddr_scale, best, lambda);
      at.per_ddr = lambda;
    }
    if (!(best > before)) break;
  }
  return best;
}

}  // namespace shardplan
