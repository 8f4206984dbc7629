// De-duplication of proposals as torchrec's planner does it: a proposal's key is
// the multiset of its options' hashes, and an option's hash covers its fqn,
// sharding type, kernel, shards (sizes, offsets, estimates) and cache params.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// Order-independent 128-bit digest of a proposal's option identities. Two
// proposals get the same key when they hold the same options (by content), like
// torchrec's tuple(sorted(map(hash, proposal))); a false match needs a 128-bit
// collision.
struct ProposalKey {
  std::uint64_t sum_a = 0;
  std::uint64_t sum_b = 0;
  std::size_t count = 0;
  friend bool operator==(const ProposalKey&, const ProposalKey&) = default;
};

struct ProposalKeyHash {
  std::size_t operator()(const ProposalKey& k) const { return k.sum_a ^ (k.sum_b * 0x9e3779b97f4a7c15ULL) ^ k.count; }
};

// Computes proposal keys for options of one search space in O(1) per option;
// options outside it (copies made by a proposer) are matched by content.
class ProposalKeyer {
 public:
  explicit ProposalKeyer(const std::vector<ShardingOption>& search_space);
  ProposalKey key(const Proposal& proposal);

 private:
  struct Digest {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
  };
  static Digest digest(std::uint64_t identity);
  std::uint64_t identity(const ShardingOption* option);
  const std::vector<ShardingOption>& space_;
  std::vector<Digest> space_digests_;  // per search-space option, computed once
  // (fqn, sharding type, kernel) -> search-space index, built on first foreign option.
  std::map<std::tuple<std::string, ShardingType, ComputeKernel>, std::size_t> by_name_;
  std::vector<ShardingOption> foreign_;  // distinct foreign contents seen so far
};

// True when two options would hash alike in torchrec (same content).
bool same_option_content(const ShardingOption& a, const ShardingOption& b);

}  // namespace shardplan
