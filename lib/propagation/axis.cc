#include "propagation/axis.h"

#include <algorithm>
#include <tuple>

namespace shardplan::propagation {

int Mesh::find(const std::string& name) const {
  if (indexed_ > axes.size()) {  // axes were replaced by a shorter list: index again
    index_.clear();
    indexed_ = 0;
  }
  for (; indexed_ < axes.size(); ++indexed_) index_.emplace(axes[indexed_].name, static_cast<int>(indexed_));
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

AxisRef sub_axis(const AxisRef& of, std::int64_t pre, std::int64_t size) {
  return AxisRef{of.axis, pre, size, of.total};
}

bool contains(const AxisRef& x, const AxisRef& y) {
  if (x.axis != y.axis) return false;
  if (x.full()) return true;
  if (y.full()) return false;
  return x.pre <= y.pre && y.next() <= x.next();
}

bool is_prefix(const AxisRef& x, const AxisRef& y) { return contains(y, x) && x.pre == y.pre; }

bool overlaps(const AxisRef& x, const AxisRef& y) {
  if (x.axis != y.axis) return false;
  if (x.full() || y.full()) return true;
  return x.pre < y.next() && y.pre < x.next();
}

bool can_coexist(const AxisRef& x, const AxisRef& y) {
  if (x.axis != y.axis) return false;
  if (x.full() || y.full()) return true;
  std::int64_t lo = std::min(x.pre, y.pre), hi = std::max(x.pre, y.pre);
  std::int64_t lo_next = std::min(x.next(), y.next()), hi_next = std::max(x.next(), y.next());
  if (lo_next > hi) return lo_next % hi == 0 && hi % lo == 0 && hi_next % lo_next == 0;
  return hi % lo_next == 0;
}

std::optional<AxisRef> cut(const AxisRef& x, const AxisRef& y) {
  if (x.axis != y.axis) return x;
  if (!can_coexist(x, y)) return std::nullopt;
  if (!overlaps(x, y)) return x;
  if (x.pre >= y.pre) return std::nullopt;
  return sub_axis(x, x.pre, y.pre / x.pre);
}

std::optional<AxisRef> cut_all(std::optional<AxisRef> x, const AxisList& list) {
  for (const AxisRef& y : list) {
    if (!x) return x;
    x = cut(*x, y);
  }
  return x;
}

void append_axis(AxisList& list, const AxisRef& x) {
  if (!list.empty()) {
    AxisRef& last = list.back();
    if (last.axis == x.axis && !last.full() && !x.full() && last.next() == x.pre) {
      last = sub_axis(last, last.pre, last.size * x.size);
      return;
    }
  }
  list.push_back(x);
}

std::int64_t total_size(const AxisList& list) {
  std::int64_t product = 1;
  for (const AxisRef& x : list) product *= x.size;
  return product;
}

PrefixStatus prefix_status(const AxisList& a, const AxisList& b) {
  if (a.empty()) return b.empty() ? PrefixStatus::kEqual : PrefixStatus::kStrictPrefix;
  if (a.size() > b.size()) return PrefixStatus::kNotPrefix;
  std::size_t last = a.size() - 1;
  for (std::size_t t = 0; t < last; ++t)
    if (!(a[t] == b[t])) return PrefixStatus::kNotPrefix;
  if (a.size() == b.size() && a[last] == b[last]) return PrefixStatus::kEqual;
  if (is_prefix(a[last], b[last])) return PrefixStatus::kStrictPrefix;
  return PrefixStatus::kNotPrefix;
}

void sort_by_mesh_order(AxisList& list) {
  std::sort(list.begin(), list.end(), [](const AxisRef& x, const AxisRef& y) {
    return std::tie(x.axis, x.pre, x.size) < std::tie(y.axis, y.pre, y.size);
  });
}

std::string axis_text(const AxisRef& x, const Mesh& mesh) {
  std::string name = x.axis >= 0 && x.axis < static_cast<int>(mesh.axes.size()) ? mesh.axes[x.axis].name : "?";
  if (x.full()) return name;
  return name + ":(" + std::to_string(x.pre) + ")" + std::to_string(x.size);
}

}  // namespace shardplan::propagation
