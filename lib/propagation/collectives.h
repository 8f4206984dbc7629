// Where collectives go (issue 31): for each op, what its operands' propagated shardings
// imply once the op runs with its result's sharding — an all-reduce over the axes that
// shard a contracting or reduced dimension, an all-gather where an operand is sharded
// on more axes than the op's factor sharding keeps (or on a concatenated dimension),
// a reshard where an operand's axes and the result's disagree.
#pragma once

#include <string>
#include <vector>

#include "propagation/driver.h"

namespace shardplan::propagation {

enum class CollectiveKind { kAllReduce, kAllGather, kReshard };

struct Collective {
  int op = 0;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int tensor = 0;    // the result (all-reduce) or the operand that moves
  AxisList axes;     // all-reduce / all-gather: over these; reshard: the operand's axes
  AxisList to_axes;  // reshard: the axes the op needs
};

// Every collective of the final shardings, in op order (ops erased as dead have none).
std::vector<Collective> find_collectives(const PropagationDriver& driver);

// "all-reduce over model at layer2", "all-gather of x over data at concat0", ...
std::string collective_text(const Collective& c, const Program& program);
std::string collective_kind_name(CollectiveKind kind);
// "model", "a:(1)2" (no quotes).
std::string axis_name_text(const AxisRef& axis, const Mesh& mesh);

}  // namespace shardplan::propagation
