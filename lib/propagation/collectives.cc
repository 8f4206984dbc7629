#include "propagation/collectives.h"

#include <algorithm>

#include "propagation/projection.h"

namespace shardplan::propagation {

namespace {

// The number of leading axes `a` and `b` share.
std::size_t common_prefix_length(const AxisList& a, const AxisList& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

std::string axes_words(const AxisList& axes, const Mesh& mesh) {
  std::string out;
  for (std::size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + axis_name_text(axes[i], mesh);
  return out;
}

}  // namespace

std::string axis_name_text(const AxisRef& axis, const Mesh& mesh) {
  std::string out = mesh.axes[axis.axis].name;
  if (!axis.full()) out += ":(" + std::to_string(axis.pre) + ")" + std::to_string(axis.size);
  return out;
}

std::string collective_kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kReshard:
      return "reshard";
  }
  return "";
}

std::string collective_text(const Collective& c, const Program& program) {
  const std::string& at = program.ops[c.op].name;
  const std::string& tensor = program.tensors[c.tensor].name;
  switch (c.kind) {
    case CollectiveKind::kAllReduce:
      return "all-reduce over " + axes_words(c.axes, program.mesh) + " at " + at + " (partial sums of " + tensor + ")";
    case CollectiveKind::kAllGather:
      return "all-gather of " + tensor + " over " + axes_words(c.axes, program.mesh) + " at " + at;
    case CollectiveKind::kReshard:
      return "reshard of " + tensor + " from {" + axes_words(c.axes, program.mesh) + "} to {" +
             axes_words(c.to_axes, program.mesh) + "} at " + at;
  }
  return "";
}

std::vector<Collective> find_collectives(const PropagationDriver& driver) {
  const Program& program = driver.program();
  const PropagationState& state = driver.state();
  std::vector<Collective> out;
  Projection projection;
  std::vector<const TensorSharding*> shardings;
  for (std::size_t k = 0; k < program.ops.size(); ++k) {
    int op_index = static_cast<int>(k);
    if (driver.erased(op_index) || !driver.rule(op_index)) continue;
    const Op& op = program.ops[k];
    const ShardingRule& rule = *driver.rule(op_index);
    shardings.clear();
    for (int t : op.operands) shardings.push_back(&state.shardings[t]);
    for (int t : op.results) shardings.push_back(&state.shardings[t]);
    project(rule, shardings, projection);
    int num_operands = rule.num_operands;
    for (int f = 0; f < rule.num_factors(); ++f) {
      std::vector<int> operand_slots;
      for (int s = 0; s < num_operands; ++s)
        if (projection.tensors[s].factors[f].present) operand_slots.push_back(s);
      auto axes_of = [&](int s) -> const AxisList& { return projection.tensors[s].factors[f].axes; };
      FactorType type = rule.factor_types[f];
      if (type == FactorType::kReduction) {
        if (operand_slots.empty()) continue;
        // The axes every operand shards the contracted factor on are summed over; an
        // operand sharded further is gathered first.
        AxisList common = axes_of(operand_slots[0]);
        for (int s : operand_slots) common.resize(common_prefix_length(common, axes_of(s)));
        for (int s : operand_slots) {
          const AxisList& axes = axes_of(s);
          if (axes.size() > common.size())
            out.push_back({op_index,
                           CollectiveKind::kAllGather,
                           op.operands[s],
                           AxisList(axes.begin() + static_cast<long>(common.size()), axes.end()),
                           {}});
        }
        if (!common.empty()) out.push_back({op_index, CollectiveKind::kAllReduce, op.results[0], common, {}});
        continue;
      }
      if (type == FactorType::kNeedReplication) {
        for (int s : operand_slots)
          if (!axes_of(s).empty())
            out.push_back({op_index, CollectiveKind::kAllGather, op.operands[s], axes_of(s), {}});
        continue;
      }
      int result_slot = num_operands;  // one result
      if (!projection.tensors[result_slot].factors[f].present) continue;
      const AxisList& target = axes_of(result_slot);
      for (int s : operand_slots) {
        const AxisList& axes = axes_of(s);
        std::size_t shared = common_prefix_length(axes, target);
        if (shared == axes.size()) continue;  // equal, or the op only slices the operand further: local
        if (shared == target.size())
          out.push_back({op_index,
                         CollectiveKind::kAllGather,
                         op.operands[s],
                         AxisList(axes.begin() + static_cast<long>(shared), axes.end()),
                         {}});
        else
          out.push_back({op_index, CollectiveKind::kReshard, op.operands[s], axes, target});
      }
    }
  }
  return out;
}

}  // namespace shardplan::propagation
