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

 private:
  struct Digest {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
  };
  std::vector<Digest> digests_;  // per option id
};

}  // namespace shardplan
