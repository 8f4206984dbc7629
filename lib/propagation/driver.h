// The worklist driver (docs/formats/propagate.md): visits ops until no sharding
// changes, mirroring MLIR's greedy rewriter with top-down order as Shardy runs it.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "propagation/factor_propagation.h"
#include "propagation/program.h"
#include "propagation/sharding_rule.h"

namespace shardplan::propagation {

// Visits one program allows before giving up (exit 1).
inline constexpr long kMaxOpVisits = 1'000'000;

// Thrown when a worklist run exceeds kMaxOpVisits.
class PropagationDidNotConverge : public std::runtime_error {
 public:
  PropagationDidNotConverge() : std::runtime_error("propagation did not converge") {}
};

// What last set a tensor's sharding (for `--format text`).
struct Setter {
  enum class Kind { kInput, kOp, kOutput } kind = Kind::kInput;
  int index = -1;      // op index or outputs index
  int iteration = -1;  // index into PropagationState::iterations
};

// One reported round: its label and the tensors whose sharding it changed (declaration order).
struct Iteration {
  std::string label;
  std::vector<int> changed;
};

// The working shardings and what happened to them.
struct PropagationState {
  std::vector<TensorSharding> shardings;                        // per tensor
  std::vector<std::optional<TensorSharding>> output_shardings;  // per outputs entry
  std::vector<Setter> set_by;                                   // per tensor
  std::vector<Iteration> iterations;
};

// Fills the direction of every factor of op `op` (rule given) for one run.
using DirectionPolicy = std::function<void(int op, const ShardingRule& rule, std::vector<Direction>& out)>;
// Every factor BOTH.
void all_directions_both(int op, const ShardingRule& rule, std::vector<Direction>& out);

class PropagationDriver {
 public:
  // Builds every op's rule and counts uses on the whole program (nothing erased yet).
  // A worklist run gives up after `max_visits` op visits (the spec's guard; tests lower it).
  explicit PropagationDriver(const Program& program, long max_visits = kMaxOpVisits);

  const Program& program() const { return program_; }
  PropagationState& state() { return state_; }
  const PropagationState& state() const { return state_; }
  // The rule of op `k` (nullopt: a zero-element reshape, never visited).
  const std::optional<ShardingRule>& rule(int k) const { return rules_[k]; }
  // Op `k` was erased as dead when a worklist run popped it (§13.2); it stays gone.
  bool erased(int k) const { return erased_[k] != 0; }
  // Tensor `t` is the result of an erased op (it keeps printing its input sharding).
  bool erased_tensor(int t) const {
    int k = program_.tensors[t].defined_by;
    return k >= 0 && erased_[k];
  }
  // Occurrences of tensor `t` as an operand of an op not erased, or in `outputs`.
  int use_count(int t) const { return use_counts_[t]; }
  // One worklist run (§7) with `factor_propagation` and `directions`.
  void run_worklist(const FactorPropagation& factor_propagation, const DirectionPolicy& directions);
  // Syncs every output sharding with its tensor through the identity rule (§12.3), BOTH ways.
  void sync_outputs(const FactorPropagation& factor_propagation);

  // Starts a reported round: remembers the shardings to list what it changes.
  void begin_iteration(std::string label);
  // Ends it: records the changed tensors and calls the iteration observer (dumps).
  void end_iteration();
  // Called after each end_iteration() with the index of the iteration just recorded.
  std::function<void(int iteration)> on_iteration_end;

 private:
  // Visits op `k` (or an output sync): returns the slots whose sharding changed, in update order.
  const std::vector<int>& visit(const ShardingRule& rule, const std::vector<TensorSharding*>& slots,
                                const std::vector<Direction>& directions, bool elementwise, bool conservative,
                                const FactorPropagation& factor_propagation);
  // Op `k`'s result has no use and the op is pure (not a pinned copy, §13.1).
  bool dead(int k) const;
  // Erases dead op `k` and queues the producers of its operands as MLIR's driver does (§13.2).
  void erase(int k, std::vector<int>& stack, std::vector<char>& in_stack);

  const Program& program_;
  long max_visits_;
  PropagationState state_;
  std::vector<std::optional<ShardingRule>> rules_;
  std::vector<std::optional<ShardingRule>> output_rules_;
  std::vector<char> erased_;             // per op
  std::vector<char> pinned_;             // per op: a copy whose result has a written sharding
  std::vector<std::vector<int>> users_;  // per tensor: ops using it, ascending, once each (erased too)
  std::vector<int> use_counts_;          // per tensor: operand slots of ops not erased + outputs entries
  std::vector<int> distinct_users_;      // per tensor: ops not erased using it, each once
  std::vector<char> in_outputs_;         // per tensor: listed in `outputs`
  std::vector<TensorSharding> iteration_start_;
  int current_iteration_ = -1;
  // Scratch space reused by every visit.
  Projection projection_;
  std::vector<const TensorSharding*> before_;
  std::vector<TensorSharding> after_;
  std::vector<int> changed_slots_;
  std::vector<TensorSharding*> slots_;
  std::vector<Direction> directions_;
};

}  // namespace shardplan::propagation
