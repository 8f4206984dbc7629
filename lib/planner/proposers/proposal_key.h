// De-duplication of proposals as torchrec's planner does it: a proposal's key is
// the multiset of its options' hashes, and an option's hash covers its fqn,
// sharding type, kernel, shards (sizes, offsets, estimates) and cache params.
// Options with the same content have one id in the SearchSpace, so hashing ids
// hashes contents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// Order-independent 128-bit digest of a proposal's option ids. Two proposals get
// the same key when they hold the same options, like torchrec's
// tuple(sorted(map(hash, proposal))); a false match needs a 128-bit collision.
struct ProposalKey {
  std::uint64_t sum_a = 0;
  std::uint64_t sum_b = 0;
  std::size_t count = 0;
  friend bool operator==(const ProposalKey&, const ProposalKey&) = default;
};

struct ProposalKeyHash {
  std::size_t operator()(const ProposalKey& k) const { return k.sum_a ^ (k.sum_b * 0x9e3779b97f4a7c15ULL) ^ k.count; }
};

// Computes proposal keys over one search space in O(1) per option (the digests of
// every id are computed once; the space must not grow afterwards).
class ProposalKeyer {
 public:
  explicit ProposalKeyer(const SearchSpace& space);
  ProposalKey key(const Proposal& proposal) const;

  struct Digest {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
  };
  const Digest& digest(OptionId id) const { return digests_[id]; }

 private:
  std::vector<Digest> digests_;  // per option id
};

// The key and the total storage (torchrec's sum over the proposal's options, as the
// planner compares it with all devices' capacity) of proposals that follow one
// another. A proposer's next proposal differs from its last one in a table or two,
// so only the options that changed are taken out and put in: integer sums (the key's
// wrap around; storage in bytes never comes near 2^63), the same values as summing
// the whole proposal afresh, in far less time for thousands of tables.
class ProposalTally {
 public:
  ProposalTally(const ProposalKeyer& keyer, const SearchSpace& space) : keyer_(keyer), space_(space) {}
  // Makes key() and total_storage() those of `proposal`.
  void update(const Proposal& proposal);
  // Makes them those of the last proposal with table `table` on `option` (after an update()).
  void change(std::size_t table, OptionId option) {
    OptionId& was = last_[table];
    add(was, true);
    add(option, false);
    was = option;
  }
  const ProposalKey& key() const { return key_; }
  Storage total_storage() const { return {static_cast<std::int64_t>(hbm_), static_cast<std::int64_t>(ddr_)}; }

 private:
  void add(OptionId id, bool take_out);

  const ProposalKeyer& keyer_;
  const SearchSpace& space_;
  Proposal last_;
  ProposalKey key_;
  std::uint64_t hbm_ = 0;  // modulo 2^64, like the key's sums
  std::uint64_t ddr_ = 0;
};

}  // namespace shardplan
