// The balancing algorithms against each other and against brute force: the fast
// optimal balance must equal the plain DP and the exhaustive search of docs/formats/pipeline.md
// (smallest bottleneck, then smallest sum of squares, then lexicographically
// smallest) on random small inputs, with and without memory limits.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "pipeline/partition.h"

namespace shardplan::pipeline {
namespace {

// Every composition of `layers` into `stages` positive parts, in lexicographic order.
void compositions(int layers, int stages, std::vector<int>& prefix,
                  const std::function<void(const std::vector<int>&)>& visit) {
  if (stages == 1) {
    prefix.push_back(layers);
    visit(prefix);
    prefix.pop_back();
    return;
  }
  for (int first = 1; first <= layers - (stages - 1); ++first) {
    prefix.push_back(first);
    compositions(layers - first, stages - 1, prefix, visit);
    prefix.pop_back();
  }
}

// Spec §4 by exhaustion. Costs are small integers here, so every sum is exact and
// "within 1e-9" means equal.
std::optional<std::vector<int>> brute_force(const BalanceProblem& problem) {
  const int layers = static_cast<int>(problem.costs.size());
  struct Candidate {
    std::vector<int> balance;
    double bottleneck, squares;
  };
  std::vector<Candidate> feasible;
  std::vector<int> prefix;
  compositions(layers, problem.stages, prefix, [&](const std::vector<int>& balance) {
    double bottleneck = 0, squares = 0;
    int begin = 0;
    for (int j = 0; j < static_cast<int>(balance.size()); ++j) {
      double cost = 0;
      for (int l = begin; l < begin + balance[j]; ++l) cost += problem.costs[l];
      if (problem.fits && !problem.fits(j, begin, begin + balance[j])) return;
      bottleneck = std::max(bottleneck, cost);
      squares += cost * cost;
      begin += balance[j];
    }
    feasible.push_back({balance, bottleneck, squares});
  });
  if (feasible.empty()) return std::nullopt;
  double best_bottleneck = feasible[0].bottleneck;
  for (const auto& c : feasible) best_bottleneck = std::min(best_bottleneck, c.bottleneck);
  const Candidate* best = nullptr;
  for (const auto& c : feasible) {  // lexicographic order: keep the first of equals
    if (c.bottleneck != best_bottleneck) continue;
    if (!best || c.squares < best->squares) best = &c;
  }
  return best->balance;
}

TEST_CASE("optimal balance: fast = plain DP = brute force on random small inputs", "[pipeline][partition]") {
  std::mt19937 random(20261123);
  int with_memory = 0, infeasible = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int layers = std::uniform_int_distribution<int>(1, 9)(random);
    BalanceProblem problem;
    problem.stages = std::uniform_int_distribution<int>(1, layers)(random);
    // One trial in four has only zero costs (the bottleneck-0 shortcut).
    const int max_cost = trial % 4 == 3 ? 0 : std::uniform_int_distribution<int>(0, 9)(random);
    for (int l = 0; l < layers; ++l) problem.costs.push_back(std::uniform_int_distribution<int>(0, max_cost)(random));
    const int memory_kind = trial % 3;  // none, the same limit for every stage, a limit per stage
    std::vector<int> weight(layers), extra(layers), budget(problem.stages);
    for (int l = 0; l < layers; ++l) {
      weight[l] = std::uniform_int_distribution<int>(0, 5)(random);
      extra[l] = std::uniform_int_distribution<int>(0, 6)(random);  // like in_j: depends on the first layer only
    }
    for (auto& b : budget) b = std::uniform_int_distribution<int>(4, 16)(random);
    if (memory_kind > 0) {
      ++with_memory;
      problem.fits_depends_on_stage = memory_kind == 2;
      problem.fits = [=](int stage, int begin, int end) {
        int used = extra[begin];
        for (int l = begin; l < end; ++l) used += weight[l];
        return used <= (memory_kind == 2 ? budget[stage] : budget[0]);
      };
    }
    auto expected = brute_force(problem);
    if (!expected) ++infeasible;
    INFO("trial " << trial << " layers " << layers << " stages " << problem.stages);
    REQUIRE(optimal_balance_reference(problem) == expected);
    REQUIRE(optimal_balance(problem) == expected);
  }
  // The random inputs did exercise both memory limits and infeasible cases.
  CHECK(with_memory > 500);
  CHECK(infeasible > 20);
}

TEST_CASE("optimal balance: fractional costs agree between the fast method and the plain DP", "[pipeline][partition]") {
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int layers = std::uniform_int_distribution<int>(1, 60)(random);
    BalanceProblem problem;
    problem.stages = std::uniform_int_distribution<int>(1, std::min(layers, 12))(random);
    for (int l = 0; l < layers; ++l) problem.costs.push_back(std::uniform_real_distribution<double>(0, 3)(random));
    INFO("trial " << trial);
    REQUIRE(optimal_balance(problem) == optimal_balance_reference(problem));
  }
}

TEST_CASE("optimal balance: the spec's P2 and P5 partitions from costs alone", "[pipeline][partition]") {
  BalanceProblem p2{{1, 2, 3, 4, 5, 6}, 3, {}, false};
  CHECK(optimal_balance(p2) == std::vector<int>{3, 2, 1});
  BalanceProblem p5{{9, 4, 1, 4}, 2, {}, false};
  CHECK(optimal_balance(p5) == std::vector<int>{1, 3});
}

TEST_CASE("blockpartition reproduces torchgpipe, including its invalid results", "[pipeline][partition]") {
  // P5: weights [1, .375, 0, .375], splits [2, 4]; 1.375 <= 0.375 + 1 stops at once.
  CHECK(blockpartition({9, 4, 1, 4}, 2).balance == std::vector<int>{2, 2});
  // P2 (costs 1..6 into 3).
  CHECK(blockpartition({1, 2, 3, 4, 5, 6}, 3).balance == std::vector<int>{3, 2, 1});
  // Spec §10.1: an empty block.
  BlockpartitionResult empty = blockpartition({1, 5, 2, 1, 1, 3, 4}, 5);
  CHECK(empty.converged);
  CHECK(empty.balance == std::vector<int>{2, 1, 3, 0, 1});
  // Equal costs normalise to zero weights: the initial blocks stand.
  CHECK(blockpartition({2, 2, 2, 2, 2}, 2).balance == std::vector<int>{2, 3});
}

TEST_CASE("size costs are truncated like torch's profile_sizes (docs/formats/pipeline.md)", "[pipeline][partition]") {
  PipelineInput input;
  input.batch_size = 10;
  input.options.chunks = 4;  // latent scale 10 / 4 = 2.5 (real division)
  input.options.param_scale = 1.5;
  input.options.balance_by = BalanceBy::kSize;
  input.layers = {{"a", 3, 3, 0, 0, 0, {}, {}}, {"b", 1, 1, 0, 0, 0, {}, {}}};
  // a: 3 * 2.5 + 3 * 1.5 = 12.0; b: 1 * 2.5 + 1 * 1.5 = 4.0 -> both exact.
  CHECK(layer_costs(input) == std::vector<double>{12, 4});
  input.layers = {{"c", 1, 3, 0, 0, 0, {}, {}}};  // 3 * 2.5 + 1 * 1.5 = 9.0
  input.options.param_scale = 1.25;               // 7.5 + 1.25 = 8.75 -> 8
  CHECK(layer_costs(input) == std::vector<double>{8});
  input.options.balance_by = BalanceBy::kParameters;
  CHECK(layer_costs(input) == std::vector<double>{1});
  input.options.balance_by = BalanceBy::kTime;
  input.layers = {{"d", 0, 0, 0.25, 0.5, 0, {}, {}}};
  CHECK(layer_costs(input) == std::vector<double>{0.75});
}

TEST_CASE("uniform balance is DeepSpeed's partition_uniform: the first N mod P stages get one more",
          "[pipeline][partition]") {
  CHECK(uniform_balance(10, 4) == std::vector<int>{3, 3, 2, 2});
  CHECK(uniform_balance(8, 4) == std::vector<int>{2, 2, 2, 2});
  CHECK(uniform_balance(5, 5) == std::vector<int>{1, 1, 1, 1, 1});
}

}  // namespace
}  // namespace shardplan::pipeline
