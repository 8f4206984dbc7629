// Proposers on small hand-built search spaces.
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <random>
#include <set>

#include <fmt/format.h>

#include "planner/proposal_steps.h"
#include "planner/proposers/greedy_proposer.h"
#include "planner/proposers/grid_search_proposer.h"
#include "planner/proposers/offload_scaleup_proposer.h"
#include "planner/proposers/proposal_key.h"
#include "planner/proposers/uniform_proposer.h"
#include "planner/search_space.h"

namespace shardplan {
namespace {

// An option of table `name` with one shard per entry of `perfs` (fwd_compute only)
// and `hbm` bytes per shard.
ShardingOption option(const std::string& name, ShardingType type, ComputeKernel kernel, std::vector<double> perfs,
                      std::int64_t hbm) {
  ShardingOption o;
  o.path = "ebc";
  o.name = name;
  o.sharding_type = type;
  o.compute_kernel = kernel;
  for (double p : perfs) {
    Shard s;
    s.size = {10, 4};
    s.offset = {0, 0};
    s.perf = Perf{p, 0, 0, 0, 0};
    s.storage = Storage{hbm, 0};
    o.shards.push_back(s);
  }
  return o;
}

std::vector<std::string> drain(Proposer& p, const SearchSpace& space, std::size_t limit = 100) {
  std::vector<std::string> out;
  while (auto proposal = p.propose()) {
    std::string s;
    for (OptionId id : *proposal) s += space[id].name + ":" + std::string(to_string(space[id].sharding_type)) + " ";
    out.push_back(s);
    p.feedback({true, &*proposal, 1.0, nullptr});
    if (out.size() > limit) break;
  }
  return out;
}

constexpr auto TW = ShardingType::kTableWise;
constexpr auto RW = ShardingType::kRowWise;
constexpr auto DP = ShardingType::kDataParallel;
constexpr auto kFused = ComputeKernel::kFused;

TEST_CASE("grid search: product in itertools order, options sorted by max shard perf", "[planner][proposer]") {
  // a: RW max perf 1 sorts before TW perf 2; b: TW only.
  std::vector<ShardingOption> options{option("a", TW, kFused, {2}, 10), option("b", TW, kFused, {1}, 10),
                                      option("a", RW, kFused, {1, 1}, 10), option("b", RW, kFused, {3, 0}, 10)};
  GridSearchProposer grid;
  SearchSpace space(std::move(options));
  grid.load(space, nullptr);
  CHECK(drain(grid, space) == std::vector<std::string>{"a:row_wise b:table_wise ", "a:row_wise b:row_wise ",
                                                       "a:table_wise b:table_wise ", "a:table_wise b:row_wise "});
}

TEST_CASE("grid search proposes nothing past max_proposals", "[planner][proposer]") {
  std::vector<ShardingOption> options;
  for (int t = 0; t < 3; ++t)
    for (int k = 0; k < 10; ++k) options.push_back(option(fmt::format("t{}", t), TW, kFused, {double(k)}, 1));
  GridSearchProposer at_cap(1000);
  SearchSpace space(std::move(options));
  at_cap.load(space, nullptr);
  CHECK(at_cap.num_scheduled() == 1000);
  CHECK(drain(at_cap, space, 2000).size() == 1000);
  GridSearchProposer past_cap(999);
  past_cap.load(space, nullptr);
  CHECK_FALSE(past_cap.propose().has_value());
}

TEST_CASE("greedy advances the table with the largest (max hbm, sum hbm, max ddr, sum ddr)", "[planner][proposer]") {
  // a: TW(perf 1, hbm 100) then RW(perf 2, 2 shards x 60 -> max 60); b: TW(perf 1, hbm 100), RW(perf 5, 2 x 10).
  // Start (a:TW, b:TW): both keys (100,100,0,0): tie -> first table a advances.
  // Then a is at its last option; b advances. Then nothing left.
  std::vector<ShardingOption> options{option("a", TW, kFused, {1}, 100), option("a", RW, kFused, {2, 2}, 60),
                                      option("b", TW, kFused, {1}, 100), option("b", RW, kFused, {5, 5}, 10)};
  GreedyProposer greedy(true);
  SearchSpace space(std::move(options));
  greedy.load(space, nullptr);
  CHECK(drain(greedy, space) ==
        std::vector<std::string>{"a:table_wise b:table_wise ", "a:row_wise b:table_wise ", "a:row_wise b:row_wise "});
}

TEST_CASE("greedy_sum sorts by summed shard perf", "[planner][proposer]") {
  // RW: max 2, sum 4; TW: 3. use_depth picks RW first, use_depth=false picks TW first.
  std::vector<ShardingOption> options{option("a", TW, kFused, {3}, 1), option("a", RW, kFused, {2, 2}, 1)};
  GreedyProposer depth(true), sum(false);
  SearchSpace space(std::move(options));
  depth.load(space, nullptr);
  sum.load(space, nullptr);
  CHECK(drain(depth, space).front() == "a:row_wise ");
  CHECK(drain(sum, space).front() == "a:table_wise ");
}

TEST_CASE("greedy with a threshold stops after consecutive inferior ratings", "[planner][proposer]") {
  std::vector<ShardingOption> options;
  for (int k = 0; k < 10; ++k) options.push_back(option("a", TW, kFused, {double(k)}, 100 - k));
  GreedyProposer greedy(true, 2);
  SearchSpace space(std::move(options));
  greedy.load(space, nullptr);
  // ratings 5, 6, 7, 8: best 5, then 3 inferior ones > threshold 2 -> stop after the 4th.
  int proposals = 0;
  double rating = 5;
  while (auto p = greedy.propose()) {
    ++proposals;
    greedy.feedback({true, &*p, rating++, nullptr});
  }
  CHECK(proposals == 4);
}

TEST_CASE("uniform: one proposal per sharding type offered for every table", "[planner][proposer]") {
  std::vector<ShardingOption> options{option("a", TW, kFused, {2}, 1), option("a", DP, ComputeKernel::kDense, {1}, 1),
                                      option("b", TW, kFused, {1}, 1), option("b", RW, kFused, {1, 1}, 1),
                                      option("a", RW, kFused, {4, 4}, 1)};
  UniformProposer uniform;
  SearchSpace space(std::move(options));
  uniform.load(space, nullptr);
  // DP lacks b: skipped. Types in order of first appearance (TW, then RW); within
  // a type, tables in order of first appearance of that type (RW: b before a).
  CHECK(drain(uniform, space) == std::vector<std::string>{"a:table_wise b:table_wise ", "b:row_wise a:row_wise "});
}

TEST_CASE("offload scaleup: first fused_uvm_caching option by perf, one proposal", "[planner][proposer]") {
  std::vector<ShardingOption> options{option("a", TW, kFused, {1}, 100),
                                      option("a", TW, ComputeKernel::kFusedUvmCaching, {3}, 20),
                                      option("a", RW, ComputeKernel::kFusedUvmCaching, {2, 2}, 20)};
  for (auto& o : options) o.cache_params = CacheParams{0.2, {}, {}, {}, {}};
  EmbeddingOffloadScaleupProposer offload;
  OptionEstimator estimator = [](ShardingOption&) {};
  SearchSpace space(std::move(options));
  REQUIRE_FALSE(offload.load(space, &estimator).has_value());
  CHECK(drain(offload, space) == std::vector<std::string>{"a:row_wise "});
}

TEST_CASE("offload scaleup refuses a caching option without cache_params", "[planner][proposer]") {
  std::vector<ShardingOption> options{option("a", TW, ComputeKernel::kFusedUvmCaching, {1}, 100)};
  EmbeddingOffloadScaleupProposer offload;
  OptionEstimator estimator = [](ShardingOption&) {};
  SearchSpace space(std::move(options));
  CHECK(offload.load(space, &estimator).has_value());
}

TEST_CASE("offload scaleup promotes a table whose all-HBM form is smaller", "[planner][proposer]") {
  std::vector<ShardingOption> options{option("a", TW, ComputeKernel::kFusedUvmCaching, {1}, 100)};
  options[0].cache_params = CacheParams{0.9, {}, {}, {}, {}};
  // The estimator gives the fused form 50 bytes, less than the cached form's 100.
  OptionEstimator estimator = [](ShardingOption& o) {
    if (o.compute_kernel == ComputeKernel::kFused) o.shards.update(0, [](Shard& s) { s.storage = Storage{50, 0}; });
  };
  EmbeddingOffloadScaleupProposer offload;
  SearchSpace space(std::move(options));
  offload.load(space, &estimator);
  auto p = offload.propose();
  REQUIRE(p);
  // The promoted option joins the space with a new id; the enumerated one is unchanged.
  CHECK((*p)[0] == 1);
  CHECK(space[(*p)[0]].compute_kernel == ComputeKernel::kFused);
  CHECK_FALSE(space[(*p)[0]].cache_params->load_factor.has_value());
  CHECK(space[0].compute_kernel == ComputeKernel::kFusedUvmCaching);
}

TEST_CASE("proposal keys ignore order; a derived copy with the same content is the same option",
          "[planner][proposer]") {
  SearchSpace space(std::vector<ShardingOption>{option("a", TW, kFused, {1}, 1), option("b", TW, kFused, {1}, 1),
                                                option("b", RW, kFused, {1, 1}, 1)});
  ShardingOption copy_of_a = space[0];
  const OptionId same_as_a = space.add(copy_of_a);
  copy_of_a.compute_kernel = ComputeKernel::kFusedUvm;
  const OptionId changed_a = space.add(copy_of_a);
  const ProposalKeyer keyer(space);
  CHECK(same_as_a == 0);
  CHECK(changed_a == 3);
  CHECK(keyer.key({0, 1}) == keyer.key({1, 0}));
  CHECK(keyer.key({0, 1}) == keyer.key({same_as_a, 1}));
  CHECK_FALSE(keyer.key({0, 1}) == keyer.key({0, 2}));
  CHECK_FALSE(keyer.key({0, 1}) == keyer.key({changed_a, 1}));
}

// ProposalTally keeps a proposal's key and total storage by taking out and putting
// in only the options that changed since the last proposal (issue 28: summing
// 5 000 tables afresh per proposal, three times, was most of an infeasible model's
// time). Checked here against the plain sums on random sequences of proposals:
// one-table steps like the greedy proposers', jumps that change many tables, and
// proposals of another length.
SearchSpace tally_test_space(std::mt19937_64& rng, int tables, int options_per_table) {
  std::vector<ShardingOption> options;
  for (int t = 0; t < tables; ++t) {
    for (int k = 0; k < options_per_table; ++k) {
      ShardingOption o;
      o.name = "t" + std::to_string(t);
      o.path = "m";
      o.table_index = t;
      o.tensor_shape = {100, 8};
      o.sharding_type = k % 2 ? ShardingType::kRowWise : ShardingType::kTableWise;
      o.compute_kernel = k % 3 ? ComputeKernel::kFused : ComputeKernel::kFusedUvmCaching;
      for (int s = 0; s < 1 + k % 3; ++s) {
        Shard shard;
        // Some storages near 2^40 so that sums carry; negative never.
        shard.storage =
            Storage{static_cast<std::int64_t>(rng() % (1ULL << 40)), static_cast<std::int64_t>(rng() % 1000)};
        Perf p;
        p.fwd_compute = static_cast<double>(k);
        shard.perf = p;
        shard.size = {100, 8};
        o.shards.push_back(shard);
      }
      options.push_back(std::move(o));
    }
  }
  return SearchSpace(std::move(options));
}

TEST_CASE("ProposalTally equals the key and total storage summed afresh", "[planner][proposer]") {
  std::mt19937_64 rng(2828);
  SearchSpace space = tally_test_space(rng, 40, 6);
  REQUIRE(space.size() >= 40);
  const ProposalKeyer keyer(space);
  ProposalTally tally(keyer, space);
  const auto pick = [&] { return static_cast<OptionId>(rng() % space.size()); };
  Proposal proposal(40);
  for (OptionId& id : proposal) id = pick();
  int steps = 0, jumps = 0, resized = 0;
  for (int round = 0; round < 2000; ++round) {
    const auto kind = rng() % 10;
    if (kind < 7) {  // one table moves on
      proposal[rng() % proposal.size()] = pick();
      ++steps;
    } else if (kind < 9) {  // many change, some back to what they were
      for (OptionId& id : proposal)
        if (rng() % 2) id = pick();
      ++jumps;
    } else {  // another proposer, another length
      proposal.resize(1 + rng() % 60);
      for (OptionId& id : proposal) id = pick();
      ++resized;
    }
    tally.update(proposal);
    Storage want;
    for (OptionId id : proposal) want += space.total_storage(id);
    REQUIRE(tally.key() == keyer.key(proposal));
    REQUIRE(tally.total_storage() == want);
  }
  CHECK(steps > 1000);
  CHECK(jumps > 200);
  CHECK(resized > 100);
}

// The planner evaluates a proposer's lookahead ahead of the loop and takes a verdict
// only for the proposal with the same key; a lookahead that drifted from what
// propose() returns would only cost time, so nothing else would catch it. Each
// proposer's steps, replayed, are checked here against what it then proposes, from
// several points of its run, with the tally's keys alongside. Returns how many
// proposals the proposer made in all.
std::size_t check_lookahead_replays(const std::function<std::unique_ptr<Proposer>()>& make, SearchSpace& space,
                                    std::size_t every, std::size_t n) {
  const ProposalKeyer keyer(space);
  const auto feedback = [](Proposer& p, const Proposal& proposal, std::size_t k) {
    // Verdicts of every kind; none changes these proposers' sequences.
    p.feedback({k % 3 != 0, &proposal, k % 3 != 0 ? std::optional<double>(1.0 + static_cast<double>(k)) : std::nullopt,
                nullptr});
  };
  std::size_t total = 0;
  for (std::size_t start = 0;; start += every) {
    std::unique_ptr<Proposer> proposer = make();
    REQUIRE_FALSE(proposer->load(space, nullptr));
    std::size_t k = 0;
    auto next = proposer->propose();
    for (; next && k < start; next = proposer->propose(), ++k) feedback(*proposer, *next, k);
    if (!next) return total;
    ProposalSteps steps;
    proposer->lookahead(n, steps);
    ProposalTally tally(keyer, space);
    Proposal replayed;
    std::size_t i = 0;
    for (; next && i < n; next = proposer->propose(), ++i, ++k) {
      REQUIRE(i < steps.size());  // it said it knows n proposals, or all that are left
      if (i == 0) {
        replayed = steps.first();
        tally.update(replayed);
      } else {
        steps.advance(replayed, i - 1, i);
        for (auto* c = steps.changes_begin(i); c != steps.changes_end(i); ++c) tally.change(c->table, c->option);
      }
      REQUIRE(replayed == *next);
      REQUIRE(tally.key() == keyer.key(*next));
      feedback(*proposer, *next, k);
    }
    CHECK(i == steps.size());  // and no more than it proposes
    for (; next; next = proposer->propose(), ++k) feedback(*proposer, *next, k);
    total = k;
  }
}

TEST_CASE("lookahead steps replay what propose() returns next", "[planner][proposer]") {
  std::mt19937_64 rng(3737);
  for (bool use_depth : {true, false}) {
    SearchSpace space = tally_test_space(rng, 30, 6);
    const std::size_t proposed =
        check_lookahead_replays([&] { return std::make_unique<GreedyProposer>(use_depth); }, space, 17, 23);
    CHECK(proposed > 100);  // 30 tables walked down 6 options each
  }
  // Odometer steps that carry over several digits included (5 options a table).
  SearchSpace small = tally_test_space(rng, 4, 5);
  CHECK(check_lookahead_replays([] { return std::make_unique<GridSearchProposer>(); }, small, 37, 60) == 625);
  CHECK(check_lookahead_replays([] { return std::make_unique<UniformProposer>(); }, small, 1, 10) == 2);
  UniformProposer uniform;
  REQUIRE_FALSE(uniform.load(small, nullptr));
  ProposalSteps none;
  uniform.lookahead(0, none);
  CHECK(none.size() == 0);
}

}  // namespace
}  // namespace shardplan
