#include "common/python_set_order.h"

#include <optional>
#include <utility>

namespace shardplan {

namespace {

std::uint64_t rotl(std::uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

struct SipState {
  std::uint64_t v0 = 0x736f6d6570736575ULL;
  std::uint64_t v1 = 0x646f72616e646f6dULL;
  std::uint64_t v2 = 0x6c7967656e657261ULL;
  std::uint64_t v3 = 0x7465646279746573ULL;
  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
  void absorb(std::uint64_t m) {
    v3 ^= m;
    round();  // SipHash-1-3: one compression round
    v0 ^= m;
  }
};

// A CPython set of strings: open addressing with 9 linear probes then perturbation,
// resized to 4x the used count once 3/5 full (Objects/setobject.c).
class PySet {
 public:
  PySet() : slots_(8) {}
  explicit PySet(const std::vector<std::string>& items) : PySet() {
    for (const auto& item : items) add(item);
  }
  void add(const std::string& key) {
    if (!insert(key, python_str_hash(key))) return;
    ++used_;
    if (used_ * 5 >= mask() * 3) resize(used_ * 4);
  }
  bool contains(const std::string& key) const {
    for (const auto& slot : slots_)
      if (slot && slot->key == key) return true;
    return false;
  }
  std::size_t size() const { return used_; }
  // Keys in slot order: the order Python iterates the set.
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& slot : slots_)
      if (slot) out.push_back(slot->key);
    return out;
  }

 private:
  struct Entry {
    std::string key;
    std::uint64_t hash;
  };
  static constexpr std::size_t kLinearProbes = 9;
  static constexpr int kPerturbShift = 5;

  std::size_t mask() const { return slots_.size() - 1; }

  bool insert(const std::string& key, std::uint64_t hash) {
    std::size_t i = hash & mask();
    std::uint64_t perturb = hash;
    while (true) {
      if (!slots_[i]) {
        slots_[i] = Entry{key, hash};
        return true;
      }
      if (slots_[i]->key == key) return false;
      if (i + kLinearProbes <= mask()) {
        for (std::size_t j = 1; j <= kLinearProbes; ++j) {
          auto& slot = slots_[i + j];
          if (!slot) {
            slot = Entry{key, hash};
            return true;
          }
          if (slot->key == key) return false;
        }
      }
      perturb >>= kPerturbShift;
      i = (i * 5 + 1 + perturb) & mask();
    }
  }

  void resize(std::size_t min_used) {
    std::size_t size = 8;
    while (size <= min_used) size <<= 1;
    auto old = std::move(slots_);
    slots_.assign(size, std::nullopt);
    for (auto& slot : old)
      if (slot) insert(slot->key, slot->hash);
  }

  std::vector<std::optional<Entry>> slots_;
  std::size_t used_ = 0;
};

}  // namespace

std::uint64_t python_str_hash(const std::string& text) {
  if (text.empty()) return 0;  // CPython special-cases the empty string
  SipState s;                  // the key is all zeros under PYTHONHASHSEED=0
  const std::size_t n = text.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t m = 0;
    for (int b = 0; b < 8; ++b) m |= static_cast<std::uint64_t>(static_cast<unsigned char>(text[i + b])) << (8 * b);
    s.absorb(m);
  }
  std::uint64_t last = static_cast<std::uint64_t>(n & 0xff) << 56;
  for (std::size_t b = 0; i + b < n; ++b)
    last |= static_cast<std::uint64_t>(static_cast<unsigned char>(text[i + b])) << (8 * b);
  s.absorb(last);
  s.v2 ^= 0xff;
  for (int r = 0; r < 3; ++r) s.round();
  std::uint64_t h = s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
  // Python reserves -1 as an error marker.
  if (h == ~std::uint64_t{0}) h = ~std::uint64_t{0} - 1;
  return h;
}

const std::vector<std::string>& SetIntersectionMemo::intersection(const std::vector<std::string>& a,
                                                                  const std::vector<std::string>& b) {
  for (const Answered& known : answered_)
    if (known.a == a && known.b == b) return known.answer;
  if (answered_.size() >= 64) answered_.clear();
  answered_.push_back(Answered{a, b, python_set_intersection(a, b)});
  return answered_.back().answer;
}

std::vector<std::string> python_set_intersection(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  PySet left(a);
  PySet right(b);
  // CPython walks the smaller set (the right one on a tie) and adds its members
  // that the other set holds to the result, in walk order.
  const PySet* walk = &right;
  const PySet* other = &left;
  if (right.size() > left.size()) std::swap(walk, other);
  PySet result;
  for (const auto& key : walk->keys())
    if (other->contains(key)) result.add(key);
  return result.keys();
}

}  // namespace shardplan
