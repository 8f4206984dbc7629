#include "propagation/strategies.h"

#include <algorithm>
#include <set>

#include "propagation/aggressive_factor_propagation.h"
#include "propagation/basic_factor_propagation.h"

namespace shardplan::propagation {

namespace {

const BasicFactorPropagation kBasicFactorPropagation;
const AggressiveFactorPropagation kAggressiveFactorPropagation;

constexpr int kNumOpHeuristics = 5;

bool is_h0_kind(OpKind kind) { return is_elementwise(kind) || kind == OpKind::kReshape || kind == OpKind::kTranspose; }

// Heuristic `level` of docs/formats/propagate.md's table for one factor of op `op`.
Direction heuristic(int level, const PropagationDriver& driver, const Op& op, const ShardingRule& rule, int f) {
  switch (level) {
    case 0: {
      if (!is_h0_kind(op.kind)) return Direction::kNone;
      const Program& program = driver.program();
      for (int t : op.operands)
        if (!program.tensors[t].shape.empty() && driver.use_count(t) > 1) return Direction::kNone;
      return Direction::kBoth;
    }
    case 1:
      return is_h0_kind(op.kind) ? Direction::kBoth : Direction::kNone;
    case 2:
      if (rule.factor_types[f] != FactorType::kPass) return Direction::kNone;
      return op.kind == OpKind::kBroadcastInDim ? Direction::kBackward : Direction::kBoth;
    case 3:
      return op.kind == OpKind::kBroadcastInDim ? Direction::kBackward : Direction::kBoth;
    default:
      return Direction::kBoth;
  }
}

// The union of heuristics 0..level (Shardy's code combines i <= p, its text says i < p).
DirectionPolicy op_priority_directions(const PropagationDriver& driver, int level) {
  return [&driver, level](int k, const ShardingRule& rule, std::vector<Direction>& out) {
    const Op& op = driver.program().ops[k];
    out.assign(rule.num_factors(), Direction::kNone);
    for (int f = 0; f < rule.num_factors(); ++f)
      for (int h = 0; h <= level; ++h) out[f] = direction_union(out[f], heuristic(h, driver, op, rule, f));
  };
}

}  // namespace

void BasicPropagation::propagate_once(PropagationDriver& driver, const DirectionPolicy& directions) const {
  for (const FactorPropagation* factor_propagation : factor_propagations(driver.program().options)) {
    driver.sync_outputs(*factor_propagation);
    driver.run_worklist(*factor_propagation, directions);
    driver.sync_outputs(*factor_propagation);
  }
}

std::vector<const FactorPropagation*> BasicPropagation::factor_propagations(const Options&) const {
  return {&kBasicFactorPropagation};
}

void BasicPropagation::propagate(PropagationDriver& driver) const {
  driver.begin_iteration("after_propagation");
  propagate_once(driver, all_directions_both);
  driver.end_iteration();
}

std::vector<const FactorPropagation*> AggressivePropagation::factor_propagations(const Options& options) const {
  switch (options.factor_propagation) {
    case FactorPropagationKind::kBasic:
      return {&kBasicFactorPropagation};
    case FactorPropagationKind::kBasicThenAggressive:
      return {&kBasicFactorPropagation, &kAggressiveFactorPropagation};
    case FactorPropagationKind::kAggressive:
      break;
  }
  return {&kAggressiveFactorPropagation};
}

void OpPriorityPropagation::propagate_levels(PropagationDriver& driver, bool report_levels) const {
  if (driver.program().options.no_op_priority_propagation) {
    if (report_levels) driver.begin_iteration("after_propagation");
    propagate_once(driver, all_directions_both);
    if (report_levels) driver.end_iteration();
    return;
  }
  for (int level = 0; level < kNumOpHeuristics; ++level) {
    if (report_levels) driver.begin_iteration("after_op_priority_" + std::to_string(level));
    propagate_once(driver, op_priority_directions(driver, level));
    if (report_levels) driver.end_iteration();
  }
}

void OpPriorityPropagation::propagate(PropagationDriver& driver) const { propagate_levels(driver, true); }

namespace {

// The priorities above 0 used anywhere, ascending.
std::vector<std::int64_t> user_priorities(const Program& program) {
  std::set<std::int64_t> found;
  auto scan = [&](const TensorSharding& s) {
    for (const DimSharding& d : s.dims)
      if (d.priority > 0) found.insert(d.priority);
  };
  for (const Tensor& t : program.tensors) scan(t.sharding);
  for (const Output& o : program.outputs)
    if (o.sharding) scan(*o.sharding);
  return {found.begin(), found.end()};
}

// Hides every dim of priority > 0: closed, empty, its axes replicated meanwhile.
void hide_later_priorities(TensorSharding& s) {
  bool moved = false;
  for (DimSharding& d : s.dims) {
    if (d.priority <= 0) continue;
    s.replicated.insert(s.replicated.end(), d.axes.begin(), d.axes.end());
    d.axes.clear();
    d.closed = true;
    moved = true;
  }
  if (moved) sort_by_mesh_order(s.replicated);
}

// Gives the dims of priority `p` back their written sharding.
void restore_priority(TensorSharding& s, const TensorSharding& written, std::int64_t p) {
  for (std::size_t d = 0; d < s.dims.size(); ++d) {
    if (written.dims[d].priority != p) continue;
    s.dims[d] = written.dims[d];
    for (const AxisRef& x : written.dims[d].axes) {
      auto it = std::find(s.replicated.begin(), s.replicated.end(), x);
      if (it != s.replicated.end()) s.replicated.erase(it);
    }
  }
}

}  // namespace

void UserPriorityPropagation::propagate(PropagationDriver& driver) const {
  const Program& program = driver.program();
  PropagationState& state = driver.state();
  for (TensorSharding& s : state.shardings) hide_later_priorities(s);
  for (auto& s : state.output_shardings)
    if (s) hide_later_priorities(*s);
  driver.begin_iteration("after_user_priority_0");
  propagate_levels(driver, false);
  driver.end_iteration();
  for (std::int64_t p : user_priorities(program)) {
    for (std::size_t t = 0; t < state.shardings.size(); ++t)
      restore_priority(state.shardings[t], program.tensors[t].sharding, p);
    for (std::size_t i = 0; i < state.output_shardings.size(); ++i)
      if (state.output_shardings[i]) restore_priority(*state.output_shardings[i], *program.outputs[i].sharding, p);
    driver.begin_iteration("after_user_priority_" + std::to_string(p));
    propagate_levels(driver, false);
    driver.end_iteration();
  }
}

std::unique_ptr<BasicPropagation> make_strategy(Strategy strategy) {
  switch (strategy) {
    case Strategy::kBasic:
      return std::make_unique<BasicPropagation>();
    case Strategy::kAggressive:
      return std::make_unique<AggressivePropagation>();
    case Strategy::kOpPriority:
      return std::make_unique<OpPriorityPropagation>();
    case Strategy::kUserPriority:
      break;
  }
  return std::make_unique<UserPriorityPropagation>();
}

}  // namespace shardplan::propagation
