// Tensor shardings in Shardy's text syntax (docs/formats/propagate.md):
// `[{a, ?}, {b:(2)2}p1], replicated={c}` — parsing, checking against a mesh, printing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "propagation/axis.h"

namespace shardplan::propagation {

// The sharding of one tensor dimension: major-to-minor axes, and whether more
// axes may be added (open, printed `?`).
struct DimSharding {
  AxisList axes;
  bool closed = false;
  std::int64_t priority = 0;  // `p<N>`; 0 when absent (Shardy's default priority)

  // Same axes and open/closed state (priorities do not make a sharding differ).
  bool operator==(const DimSharding& other) const { return closed == other.closed && axes == other.axes; }
};

// One sharding per dimension plus the axes the tensor is explicitly replicated on.
struct TensorSharding {
  std::vector<DimSharding> dims;
  AxisList replicated;  // sorted by mesh order

  bool operator==(const TensorSharding& other) const { return dims == other.dims && replicated == other.replicated; }
};

// Every dim open and empty: the sharding of a tensor that has none yet.
TensorSharding open_sharding(std::size_t rank);

// A sharding as written, before its axis names are looked up in a mesh.
struct WrittenAxis {
  std::string name;
  std::optional<std::int64_t> pre, size;  // both set for `name:(pre)size`
  std::string text() const;
};
struct WrittenDim {
  std::vector<WrittenAxis> axes;
  bool open = false;
  std::int64_t priority = 0;
};
struct WrittenSharding {
  std::vector<WrittenDim> dims;
  std::vector<WrittenAxis> replicated;
};

// Parses the text syntax; nullopt when it does not follow it.
std::optional<WrittenSharding> parse_sharding_text(std::string_view text);

// Looks the axes up in `mesh` and checks them (unknown axis, invalid sub-axis,
// overlap, unmerged adjacent sub-axes, replicated order). Every problem is appended
// to `problems` as the spec's message without the "tensor 'x': " prefix; returns
// the sharding only when there was none.
std::optional<TensorSharding> resolve_sharding(const WrittenSharding& written, const Mesh& mesh,
                                               std::vector<std::string>& problems);

// Canonical text: bare names, ", " separators; priorities only when asked (dumps of the input).
std::string sharding_text(const TensorSharding& sharding, const Mesh& mesh, bool with_priorities = false);

}  // namespace shardplan::propagation
