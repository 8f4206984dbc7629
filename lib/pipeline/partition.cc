#include "pipeline/partition.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace shardplan::pipeline {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kRelativeTolerance = 1e-9;

// a < b by more than the relative tolerance (docs/formats/pipeline.md: values within 1e-9 are equal).
bool clearly_less(double a, double b) {
  if (!(a < b)) return false;
  if (b == kInfinity) return true;
  return b - a > kRelativeTolerance * std::max(std::fabs(a), std::fabs(b));
}

std::vector<double> prefix_sums(const std::vector<double>& costs) {
  std::vector<double> prefix{0.0};
  for (double c : costs) prefix.push_back(prefix.back() + c);
  return prefix;
}

// Walks the choice table of the sum-of-squares DP into a balance.
std::vector<int> balance_from_choices(const std::vector<std::vector<int>>& choice, int stages) {
  std::vector<int> balance;
  int at = 0;
  for (int k = stages; k >= 1; --k) {
    int end = choice[k][at];
    balance.push_back(end - at);
    at = end;
  }
  return balance;
}

// The tie-breaking suffix DP of docs/formats/pipeline.md step 2. `last_end(j, i)` bounds the ends
// tried for stage j starting at i (every end past it costs more than the
// threshold or does not fit); ends are tried in ascending order, so the same
// feasible transitions give the same answer whatever the bound.
std::optional<std::vector<int>> least_squares_balance(
    const std::vector<double>& prefix, int n, double threshold, const StageFits& fits,
    const std::function<int(int, int)>& last_end, const std::vector<std::vector<char>>* reachable_begins = nullptr) {
  const int layers = static_cast<int>(prefix.size()) - 1;
  std::vector<std::vector<double>> best(n + 1, std::vector<double>(layers + 1, kInfinity));
  std::vector<std::vector<int>> choice(n + 1, std::vector<int>(layers + 1, -1));
  best[0][layers] = 0;
  std::vector<int> finite_before(layers + 2);  // ends t' < t from which k - 1 stages finish
  for (int k = 1; k <= n; ++k) {
    const int stage = n - k;
    finite_before[0] = 0;
    for (int t = 0; t <= layers; ++t) finite_before[t + 1] = finite_before[t] + (best[k - 1][t] < kInfinity);
    for (int i = stage; i <= layers - k; ++i) {
      // A stage cannot begin where the stages before it cannot end, nor where no
      // end in reach lets the later stages finish: skipping those begins changes
      // nothing but the time taken.
      if (reachable_begins && !(*reachable_begins)[stage][i]) continue;
      const int hi = std::min(last_end(stage, i), layers - k + 1);
      if (hi < i + 1 || finite_before[hi + 1] == finite_before[i + 1]) continue;
      for (int t = i + 1; t <= hi; ++t) {
        if (best[k - 1][t] == kInfinity) continue;
        const double cost = prefix[t] - prefix[i];
        if (cost > threshold) continue;
        if (fits && !fits(stage, i, t)) continue;
        const double value = cost * cost + best[k - 1][t];
        if (clearly_less(value, best[k][i])) {
          best[k][i] = value;
          choice[k][i] = t;
        }
      }
    }
  }
  if (best[n][0] == kInfinity) return std::nullopt;
  return balance_from_choices(choice, n);
}

// When the bottleneck is 0 every feasible partition has stage costs 0 and sum
// of squares 0, so the DP's answer is the lexicographically smallest feasible
// balance: the shortest first stage from which the rest can still be cut, and so
// on. Found in O(n N) instead of visiting every (arbitrarily long) window.
// `last_end(j, b)` is the last end stage j may have when it begins at b.
std::optional<std::vector<int>> zero_cost_balance(int n, int layers, const std::function<int(int, int)>& last_end) {
  // can_finish[k][b]: layers [b, N) can be cut into k stages (the first being stage n - k).
  std::vector<std::vector<char>> can_finish(n + 1, std::vector<char>(layers + 1, 0));
  can_finish[0][layers] = 1;
  std::vector<int> count(layers + 2);
  for (int k = 1; k <= n; ++k) {
    // count[p] = number of ends t < p from which k - 1 stages finish.
    count[0] = 0;
    for (int p = 0; p <= layers; ++p) count[p + 1] = count[p] + can_finish[k - 1][p];
    for (int b = 0; b + k <= layers; ++b) {
      int hi = std::min(last_end(n - k, b), layers - k + 1);
      if (hi >= b + 1 && count[hi + 1] - count[b + 1] > 0) can_finish[k][b] = 1;
    }
  }
  if (!can_finish[n][0]) return std::nullopt;
  std::vector<int> balance;
  int at = 0;
  for (int k = n; k >= 1; --k) {
    int t = at + 1;
    while (!can_finish[k - 1][t]) ++t;
    balance.push_back(t - at);
    at = t;
  }
  return balance;
}

}  // namespace

std::vector<double> layer_costs(const PipelineInput& input) {
  std::vector<double> costs;
  const double latent_scale = static_cast<double>(input.batch_size) / input.options.chunks;
  for (const auto& layer : input.layers) {
    switch (input.options.balance_by) {
      case BalanceBy::kTime:
        costs.push_back(layer.fwd_ms_per_sample + layer.bwd_ms_per_sample);
        break;
      case BalanceBy::kSize:
        costs.push_back(std::trunc(static_cast<double>(layer.activation_bytes_per_sample) * latent_scale +
                                   static_cast<double>(layer.param_bytes) * input.options.param_scale));
        break;
      case BalanceBy::kParameters:
        costs.push_back(static_cast<double>(layer.param_bytes));
        break;
      case BalanceBy::kUniform:
        costs.push_back(1.0);
        break;
    }
  }
  return costs;
}

std::optional<std::vector<int>> optimal_balance_reference(const BalanceProblem& problem) {
  const int layers = static_cast<int>(problem.costs.size());
  const int n = problem.stages;
  if (n == 0) return layers == 0 ? std::optional<std::vector<int>>(std::vector<int>{}) : std::nullopt;
  if (layers < n) return std::nullopt;
  const std::vector<double> prefix = prefix_sums(problem.costs);
  // Step 1: bottleneck[k][i] = smallest largest stage cost of layers [i, N) in k stages.
  std::vector<std::vector<double>> bottleneck(n + 1, std::vector<double>(layers + 1, kInfinity));
  bottleneck[0][layers] = 0;
  for (int k = 1; k <= n; ++k) {
    const int stage = n - k;
    for (int i = stage; i <= layers - k; ++i)
      for (int t = i + 1; t <= layers - k + 1; ++t) {
        if (bottleneck[k - 1][t] == kInfinity) continue;
        if (problem.fits && !problem.fits(stage, i, t)) continue;
        bottleneck[k][i] = std::min(bottleneck[k][i], std::max(prefix[t] - prefix[i], bottleneck[k - 1][t]));
      }
  }
  const double best = bottleneck[n][0];
  if (best == kInfinity) return std::nullopt;
  return least_squares_balance(prefix, n, best * (1 + kRelativeTolerance), problem.fits,
                               [&](int, int) { return layers; });
}

std::optional<std::vector<int>> optimal_balance(const BalanceProblem& problem) {
  const int layers = static_cast<int>(problem.costs.size());
  const int n = problem.stages;
  if (n == 0) return layers == 0 ? std::optional<std::vector<int>>(std::vector<int>{}) : std::nullopt;
  if (layers < n) return std::nullopt;
  const std::vector<double> prefix = prefix_sums(problem.costs);

  // The last end that fits for each (stage, begin): fitting is monotone in the end,
  // so a binary search finds it; computed once, for every stage only when it matters.
  const int fit_rows = problem.fits && problem.fits_depends_on_stage ? n : 1;
  std::vector<std::vector<int>> fit_reach(fit_rows, std::vector<int>(layers, layers));
  if (problem.fits)
    for (int j = 0; j < fit_rows; ++j)
      for (int b = 0; b < layers; ++b) {
        int lo = b, hi = layers;  // fits(b, lo] known true for lo > b; find the last true end
        while (lo < hi) {
          int mid = lo + (hi - lo + 1) / 2;
          if (problem.fits(j, b, mid))
            lo = mid;
          else
            hi = mid - 1;
        }
        fit_reach[j][b] = lo;
      }
  // cost_end[b]: the last end whose stage from b costs <= limit. prefix is
  // non-decreasing, so it never moves left as b grows: two pointers, O(N).
  std::vector<int> cost_end(layers);
  auto compute_cost_ends = [&](double limit) {
    int e = 0;
    for (int b = 0; b < layers; ++b) {
      e = std::max(e, b);
      while (e < layers && prefix[e + 1] - prefix[b] <= limit) ++e;
      cost_end[b] = e;
    }
  };
  auto reach = [&](int stage, int begin) {
    return std::min(cost_end[begin], fit_reach[fit_rows == 1 ? 0 : stage][begin]);
  };

  // Can [0, N) be cut into exactly n stages each costing <= limit and fitting?
  // Stage k may end anywhere in [b+1, reach(k, b)] for a begin b reachable after
  // k stages, so one sweep with a difference array per stage decides it.
  // `begins`, when given, keeps the reachable begins of every stage.
  std::vector<char> reachable(layers + 1), next(layers + 1);
  std::vector<int> delta(layers + 2);
  auto feasible = [&](double limit, std::vector<std::vector<char>>* begins) {
    compute_cost_ends(limit);
    std::fill(reachable.begin(), reachable.end(), 0);
    reachable[0] = 1;
    for (int k = 0; k < n; ++k) {
      if (begins) begins->push_back(reachable);
      std::fill(delta.begin(), delta.end(), 0);
      const int max_end = layers - (n - k - 1);
      bool any = false;
      for (int b = 0; b < layers; ++b) {
        if (!reachable[b]) continue;
        int e = std::min(reach(k, b), max_end);
        if (e < b + 1) continue;
        ++delta[b + 1];
        --delta[e + 1];
        any = true;
      }
      if (!any) return false;
      int running = 0;
      for (int p = 0; p <= layers; ++p) {
        running += delta[p];
        next[p] = running > 0;
      }
      std::swap(reachable, next);
    }
    return reachable[layers] != 0;
  };

  // The bottleneck is the smallest double `limit` that is feasible; non-negative
  // doubles order like their bit patterns, so bisect on those (at most 64 tests).
  const double total = prefix[layers];
  if (!feasible(total, nullptr)) return std::nullopt;
  // No stage costs less than the dearest layer or than an equal share; the
  // margin covers the rounding of prefix differences (at most a few ulps of total).
  const double lower = std::max(*std::max_element(problem.costs.begin(), problem.costs.end()), total / n);
  std::uint64_t lo = std::bit_cast<std::uint64_t>(std::max(0.0, std::min(lower, total) - 1e-9 * total));
  std::uint64_t hi = std::bit_cast<std::uint64_t>(total);
  while (lo < hi) {
    std::uint64_t mid = lo + (hi - lo) / 2;
    if (feasible(std::bit_cast<double>(mid), nullptr))
      hi = mid;
    else
      lo = mid + 1;
  }
  const double bottleneck = std::bit_cast<double>(hi);
  if (bottleneck == 0) {
    compute_cost_ends(0.0);
    return zero_cost_balance(n, layers, [&](int stage, int begin) { return reach(stage, begin); });
  }
  const double threshold = bottleneck * (1 + kRelativeTolerance);
  std::vector<std::vector<char>> begins;
  feasible(threshold, &begins);
  // reach() already stops at the last end that fits, so no fit test is repeated.
  return least_squares_balance(
      prefix, n, threshold, StageFits{}, [&](int stage, int begin) { return reach(stage, begin); }, &begins);
}

BlockpartitionResult blockpartition(const std::vector<double>& costs, int partitions) {
  const int n = static_cast<int>(costs.size());
  const double lo = *std::min_element(costs.begin(), costs.end());
  const double span = *std::max_element(costs.begin(), costs.end()) - lo;
  std::vector<double> weights(n, 0.0);
  if (span != 0)
    for (int l = 0; l < n; ++l) weights[l] = (costs[l] - lo) / span;

  std::vector<int> splits;
  for (int t = 0; t < partitions - 1; ++t) splits.push_back(n / partitions * (t + 1));
  splits.push_back(n);

  // Python's list slicing: negative bounds count from the end, then clamp.
  auto clamp = [&](int bound) {
    if (bound < 0) bound += n;
    return std::clamp(bound, 0, n);
  };
  auto block = [&](int t) {
    int start = clamp(t > 0 ? splits[t - 1] : 0);
    int stop = clamp(splits[t]);
    return std::pair{start, std::max(start, stop)};
  };
  auto block_size = [&](int t) {
    auto [start, stop] = block(t);
    double sum = 0;
    for (int l = start; l < stop; ++l) sum += weights[l];
    return sum;
  };

  BlockpartitionResult result;
  int moves = 0;
  while (true) {
    // max over (size, t): on equal sizes the larger t wins.
    double max_size = -kInfinity;
    int p = 0;
    for (int t = 0; t < partitions; ++t)
      if (double s = block_size(t); s >= max_size) max_size = s, p = t;
    while (true) {
      // min over (size, t): on equal sizes the smaller t wins.
      double min_size = kInfinity;
      int q = 0;
      for (int t = 0; t < partitions; ++t)
        if (double s = block_size(t); s < min_size) min_size = s, q = t;
      // torchgpipe compares against the maximum found at step (1), not a fresh one.
      if (max_size <= min_size + 1) {
        for (int t = 0; t < partitions; ++t) {
          auto [start, stop] = block(t);
          result.balance.push_back(stop - start);
        }
        return result;
      }
      if (++moves > kBlockpartitionMaxMoves) {
        result.converged = false;
        return result;
      }
      int h;
      if (p < q) {
        h = q - 1;
        splits[h] -= 1;
      } else {
        h = q + 1;
        splits[q] += 1;
      }
      if (p == h) break;
    }
  }
}

std::vector<int> uniform_balance(int layers, int stages) {
  std::vector<int> balance(stages, layers / stages);
  for (int t = 0; t < layers % stages; ++t) ++balance[t];
  return balance;
}

}  // namespace shardplan::pipeline
