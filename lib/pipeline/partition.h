// Cutting the layer list into contiguous stages (docs/formats/pipeline.md): per-layer
// costs, the optimal balance (fast, and the plain DP it must agree with),
// torchgpipe's blockpartition, DeepSpeed's uniform split.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "pipeline/types.h"

namespace shardplan::pipeline {

// The documented bound on balancing (docs/pipeline-schedules.md §6): layers x stages
// at most this, checked when the input is read. The optimal balance runs up to 64
// O(layers x stages) feasibility tests (about 1.5 s here at the bound); blockpartition
// makes up to 100 000 moves of O(stages) each.
inline constexpr std::int64_t kMaxBalanceWork = 10'000'000;
// A layer's time in ms (per sample or for the whole batch): 1e12 ms is 31 years.
inline constexpr double kMaxLayerMs = 1e12;

// Whether stage `stage` holding layers [begin, end) fits its device. It must be
// monotone in `end` (adding layers never frees memory), which holds because every
// byte count is non-negative.
using StageFits = std::function<bool(int stage, int begin, int end)>;

// What optimal balancing needs: per-layer costs (>= 0), the stage count, and
// which stage ranges fit (empty: all of them).
struct BalanceProblem {
  std::vector<double> costs;
  int stages = 1;
  StageFits fits;
  bool fits_depends_on_stage = false;  // false: fits(j, b, e) is the same for every j
};

// Per-layer costs for `balance_by`: time f+g per sample; size
// trunc(a*(B/chunks) + p*param_scale) (torchgpipe's profile_sizes truncates with
// int()); parameters p; uniform 1.
std::vector<double> layer_costs(const PipelineInput& input);

// Spec §4 optimal: the smallest bottleneck C*, then among partitions whose stages
// all cost <= C*(1+1e-9) the smallest sum of squared stage costs (relative 1e-9
// ties), then the lexicographically smallest balance. Stage cost = prefix[end] -
// prefix[begin] of left-to-right prefix sums. nullopt when no partition fits.
// Bottleneck by bisection over doubles with an O(n N) reachability test, then the
// suffix DP over the transitions within that bottleneck only.
std::optional<std::vector<int>> optimal_balance(const BalanceProblem& problem);

// The same result by the plain O(n N^2) DPs over every transition (the reference
// the fast method is tested against).
std::optional<std::vector<int>> optimal_balance_reference(const BalanceProblem& problem);

// torchgpipe's balance.blockpartition.solve: lengths of the blocks it returns
// (Python slice semantics, so blocks can be empty or overlap: docs/formats/pipeline.md).
struct BlockpartitionResult {
  std::vector<int> balance;
  bool converged = true;  // false after kBlockpartitionMaxMoves moves
};
inline constexpr int kBlockpartitionMaxMoves = 100000;
BlockpartitionResult blockpartition(const std::vector<double>& costs, int partitions);

// DeepSpeed's partition_uniform: floor(N/P) layers each, the first N mod P stages one more.
std::vector<int> uniform_balance(int layers, int stages);

}  // namespace shardplan::pipeline
