#include "propagation/driver.h"

#include <algorithm>

namespace shardplan::propagation {

void all_directions_both(int, const ShardingRule& rule, std::vector<Direction>& out) {
  out.assign(rule.num_factors(), Direction::kBoth);
}

PropagationDriver::PropagationDriver(const Program& program, long max_visits)
    : program_(program), max_visits_(max_visits) {
  std::size_t num_tensors = program.tensors.size();
  std::size_t num_ops = program.ops.size();
  state_.shardings.reserve(num_tensors);
  for (const Tensor& t : program.tensors) state_.shardings.push_back(t.sharding);
  state_.set_by.assign(num_tensors, Setter{});
  for (const Output& o : program.outputs) state_.output_shardings.push_back(o.sharding);

  rules_.resize(num_ops);
  std::vector<Shape> operand_shapes;
  for (std::size_t k = 0; k < num_ops; ++k) {
    const Op& op = program.ops[k];
    operand_shapes.clear();
    for (int t : op.operands) operand_shapes.push_back(program.tensors[t].shape);
    rules_[k] = build_sharding_rule(op, operand_shapes, program.tensors[op.results[0]].shape,
                                    program.options.conservative_propagation);
  }
  for (const Output& o : program.outputs)
    output_rules_.push_back(o.sharding ? std::optional<ShardingRule>(identity_rule(program.tensors[o.tensor].shape))
                                       : std::nullopt);

  // Uses on the whole program; ops are erased lazily, when a worklist run pops them (§13.2).
  erased_.assign(num_ops, 0);
  pinned_.assign(num_ops, 0);
  users_.resize(num_tensors);
  use_counts_.assign(num_tensors, 0);
  distinct_users_.assign(num_tensors, 0);
  in_outputs_.assign(num_tensors, 0);
  for (const Output& o : program.outputs) {
    ++use_counts_[o.tensor];
    in_outputs_[o.tensor] = 1;
  }
  for (std::size_t k = 0; k < num_ops; ++k) {
    const Op& op = program.ops[k];
    // A sharding constraint is not pure (§13.1), nor is a call: MLIR never erases either.
    pinned_[k] =
        (op.kind == OpKind::kCopy && program.tensors[op.results[0]].sharding_written) || op.kind == OpKind::kCall;
    for (int t : op.operands) {
      ++use_counts_[t];
      if (users_[t].empty() || users_[t].back() != static_cast<int>(k)) {
        users_[t].push_back(static_cast<int>(k));
        ++distinct_users_[t];
      }
    }
  }
}

bool PropagationDriver::dead(int k) const {
  if (pinned_[k]) return false;
  for (int t : program_.ops[k].results)
    if (use_counts_[t] > 0) return false;
  return true;
}

void PropagationDriver::erase(int k, std::vector<int>& stack, std::vector<char>& in_stack) {
  const Op& op = program_.ops[k];
  // MLIR re-queues the producer of each operand that has at most one other distinct user
  // (the function's return counts as one user), counted while the op still exists.
  for (int t : op.operands) {
    int producer = program_.tensors[t].defined_by;
    if (producer < 0) continue;
    int others = distinct_users_[t] - 1 + (in_outputs_[t] ? 1 : 0);
    if (others > 1 || in_stack[producer]) continue;
    stack.push_back(producer);
    in_stack[producer] = 1;
  }
  erased_[k] = 1;
  for (std::size_t i = 0; i < op.operands.size(); ++i) {
    int t = op.operands[i];
    --use_counts_[t];
    bool first_slot = std::find(op.operands.begin(), op.operands.begin() + static_cast<long>(i), t) ==
                      op.operands.begin() + static_cast<long>(i);
    if (first_slot) --distinct_users_[t];
  }
  // The erased op's results print their input sharding and were set by nobody.
  for (int t : op.results) {
    state_.shardings[t] = program_.tensors[t].sharding;
    state_.set_by[t] = Setter{};
  }
}

const std::vector<int>& PropagationDriver::visit(const ShardingRule& rule, const std::vector<TensorSharding*>& slots,
                                                 const std::vector<Direction>& directions, bool elementwise,
                                                 bool conservative, const FactorPropagation& factor_propagation) {
  changed_slots_.clear();
  before_.assign(slots.begin(), slots.end());
  project(rule, before_, projection_);
  FactorPropagationContext context{rule, directions, conservative, elementwise};
  factor_propagation.propagate(context, projection_);
  // Every slot is compared with the sharding from before the visit (§12.5), so new
  // shardings are built first and written after.
  after_.resize(slots.size());
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (!projection_.tensors[s].updated) continue;
    after_[s] = unproject(rule, projection_, static_cast<int>(s), *slots[s]);
    if (!(after_[s] == *slots[s])) changed_slots_.push_back(static_cast<int>(s));
  }
  for (int s : changed_slots_) *slots[s] = std::move(after_[s]);
  return changed_slots_;
}

void PropagationDriver::run_worklist(const FactorPropagation& factor_propagation, const DirectionPolicy& directions) {
  std::size_t num_ops = program_.ops.size();
  std::vector<int> stack;
  std::vector<char> in_stack(num_ops, 0);
  stack.reserve(num_ops);
  for (std::size_t k = num_ops; k-- > 0;)
    if (!erased_[k]) {
      stack.push_back(static_cast<int>(k));
      in_stack[k] = 1;
    }
  long visits = 0;
  std::vector<int> slot_tensors;
  while (!stack.empty()) {
    int k = stack.back();
    stack.pop_back();
    in_stack[k] = 0;
    if (++visits > max_visits_) throw PropagationDidNotConverge();
    // MLIR's driver tests triviality when it pops an op: a dead one is erased, not visited.
    if (dead(k)) {
      erase(k, stack, in_stack);
      continue;
    }
    if (!rules_[k]) continue;  // no sharding rule: nothing to propagate through
    const Op& op = program_.ops[k];
    const ShardingRule& rule = *rules_[k];
    directions(k, rule, directions_);
    // No factor may move (an op-priority level that excludes this op): nothing can change.
    if (std::all_of(directions_.begin(), directions_.end(), [](Direction d) { return d == Direction::kNone; }))
      continue;
    slots_.clear();
    slot_tensors.clear();
    for (int t : op.operands) slot_tensors.push_back(t);
    for (int t : op.results) slot_tensors.push_back(t);
    for (int t : slot_tensors) slots_.push_back(&state_.shardings[t]);
    const std::vector<int>& changed = visit(rule, slots_, directions_, rule.elementwise,
                                            program_.options.conservative_propagation, factor_propagation);
    for (int s : changed) {
      int t = slot_tensors[s];
      state_.set_by[t] = Setter{Setter::Kind::kOp, k, current_iteration_};
      // MLIR notifies the defining op, then the users; each is pushed on top unless queued.
      auto push = [&](int candidate) {
        if (candidate == k || candidate < 0 || erased_[candidate] || in_stack[candidate]) return;
        stack.push_back(candidate);
        in_stack[candidate] = 1;
      };
      push(program_.tensors[t].defined_by);
      const std::vector<int>& users = users_[t];
      for (auto it = users.rbegin(); it != users.rend(); ++it) push(*it);
    }
  }
}

void PropagationDriver::sync_outputs(const FactorPropagation& factor_propagation) {
  for (std::size_t i = 0; i < program_.outputs.size(); ++i) {
    if (!output_rules_[i]) continue;
    int t = program_.outputs[i].tensor;
    const ShardingRule& rule = *output_rules_[i];
    std::vector<TensorSharding*> slots{&state_.shardings[t], &*state_.output_shardings[i]};
    std::vector<Direction> both(rule.num_factors(), Direction::kBoth);
    // The sync ignores conservative propagation (§13.3): it is not an op visit.
    const std::vector<int>& changed = visit(rule, slots, both, false, false, factor_propagation);
    for (int s : changed)
      if (s == 0) state_.set_by[t] = Setter{Setter::Kind::kOutput, static_cast<int>(i), current_iteration_};
  }
}

void PropagationDriver::begin_iteration(std::string label) {
  state_.iterations.push_back(Iteration{std::move(label), {}});
  current_iteration_ = static_cast<int>(state_.iterations.size()) - 1;
  iteration_start_ = state_.shardings;
}

void PropagationDriver::end_iteration() {
  Iteration& iteration = state_.iterations.back();
  for (std::size_t t = 0; t < state_.shardings.size(); ++t)
    if (!(state_.shardings[t] == iteration_start_[t])) iteration.changed.push_back(static_cast<int>(t));
  if (on_iteration_end) on_iteration_end(current_iteration_);
}

}  // namespace shardplan::propagation
