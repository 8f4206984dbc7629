// Which table GreedyProposer advances next, in O(log tables) per step instead of
// a scan of every table: a tournament tree whose root is the first table (lowest
// index) holding the largest storage key among the tables that can still advance.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace shardplan {

class AdvanceTree {
 public:
  using Key = std::array<std::int64_t, 4>;

  // One leaf per table, none able to advance yet.
  void reset(std::size_t tables) {
    size_ = 1;
    while (size_ < tables) size_ *= 2;
    keys_.assign(tables, Key{});
    open_.assign(tables, 0);
    node_.assign(2 * size_, kNone);
  }
  // Table t now has `key` and can (open) or cannot advance.
  void set(std::size_t t, const Key& key, bool open) {
    keys_[t] = key;
    open_[t] = open ? 1 : 0;
    std::size_t at = size_ + t;
    node_[at] = open ? static_cast<std::int32_t>(t) : kNone;
    for (at /= 2; at >= 1; at /= 2) node_[at] = better(node_[2 * at], node_[2 * at + 1]);
  }
  // torchrec's scan: the first table whose key is strictly larger than every
  // earlier one, starting from all zeros (a table using no storage never wins).
  std::optional<std::size_t> best() const {
    const std::int32_t t = node_.size() > 1 ? node_[1] : kNone;
    if (t == kNone || !(keys_[static_cast<std::size_t>(t)] > Key{})) return std::nullopt;
    return static_cast<std::size_t>(t);
  }

 private:
  static constexpr std::int32_t kNone = -1;
  // The winner of two subtrees: larger key, the left (lower index) on ties.
  std::int32_t better(std::int32_t a, std::int32_t b) const {
    if (a == kNone) return b;
    if (b == kNone) return a;
    return keys_[static_cast<std::size_t>(b)] > keys_[static_cast<std::size_t>(a)] ? b : a;
  }

  std::size_t size_ = 1;
  std::vector<Key> keys_;
  std::vector<char> open_;
  std::vector<std::int32_t> node_;
};

}  // namespace shardplan
