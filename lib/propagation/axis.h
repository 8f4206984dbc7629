// Axis algebra (docs/formats/propagate.md): references to whole mesh axes and to
// sub-axes `a:(pre)size`, and the relations Shardy's AxisRefAttr defines on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace shardplan::propagation {

// One named mesh axis.
struct MeshAxis {
  std::string name;
  std::int64_t size = 1;
};

// The ordered named axes of a device mesh.
// Readers only append to `axes`; `find` indexes the axes appended since its last call,
// so a mesh of n axes is read in O(n) lookups, not O(n^2) comparisons.
struct Mesh {
  Mesh() = default;
  Mesh(std::vector<MeshAxis> mesh_axes) : axes(std::move(mesh_axes)) {}  // NOLINT: implicit, like an aggregate
  std::vector<MeshAxis> axes;
  // Index of the first axis called `name`, or -1.
  int find(const std::string& name) const;

 private:
  mutable std::unordered_map<std::string, int> index_;
  mutable std::size_t indexed_ = 0;
};

// A whole axis (pre 1, size = the axis size) or the size-`size` piece of axis
// `axis` after its first `pre` devices. `total` is the whole axis size, kept here
// so that the relations below need no mesh.
struct AxisRef {
  int axis = 0;
  std::int64_t pre = 1;
  std::int64_t size = 1;
  std::int64_t total = 1;

  bool full() const { return pre == 1 && size == total; }
  std::int64_t next() const { return pre * size; }
  bool operator==(const AxisRef& other) const { return axis == other.axis && pre == other.pre && size == other.size; }
};

using AxisList = std::vector<AxisRef>;

// The sub-axis (pre, size) of `of`'s axis; the whole axis when it covers it.
AxisRef sub_axis(const AxisRef& of, std::int64_t pre, std::int64_t size);
// `x` covers `y` (same axis; `x` whole, or both pieces with y inside x).
bool contains(const AxisRef& x, const AxisRef& y);
// `x` is a prefix of `y`: y contains x and both start at the same pre-size.
bool is_prefix(const AxisRef& x, const AxisRef& y);
// `x` and `y` share devices of the same axis.
bool overlaps(const AxisRef& x, const AxisRef& y);
// Two pieces of one axis can be used side by side in one sharding.
bool can_coexist(const AxisRef& x, const AxisRef& y);
// The largest prefix of `x` that does not overlap `y` (nullopt: none).
std::optional<AxisRef> cut(const AxisRef& x, const AxisRef& y);
// `cut` folded over `list`; nullopt is absorbing.
std::optional<AxisRef> cut_all(std::optional<AxisRef> x, const AxisList& list);
// Pushes `x`, merging it into the last element when both are consecutive pieces of one axis.
void append_axis(AxisList& list, const AxisRef& x);
// Product of the sizes of `list`.
std::int64_t total_size(const AxisList& list);

// How list A relates to list B (docs/formats/propagate.md `stat`).
enum class PrefixStatus { kEqual, kStrictPrefix, kNotPrefix };
PrefixStatus prefix_status(const AxisList& a, const AxisList& b);
// `a` is a strict prefix of `b`: `b` adds sharding on top of `a`.
inline bool is_strict_prefix(const AxisList& a, const AxisList& b) {
  return prefix_status(a, b) == PrefixStatus::kStrictPrefix;
}

// Sorts a replicated list by mesh axis order, then pre-size.
void sort_by_mesh_order(AxisList& list);

// "a" or "a:(2)2".
std::string axis_text(const AxisRef& x, const Mesh& mesh);

}  // namespace shardplan::propagation
