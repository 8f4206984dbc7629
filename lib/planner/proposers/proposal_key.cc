#include "planner/proposers/proposal_key.h"

namespace shardplan {

namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

ProposalKeyer::ProposalKeyer(const SearchSpace& space) {
  digests_.reserve(space.size());
  for (std::uint64_t id = 0; id < space.size(); ++id)
    digests_.push_back({splitmix64(id), splitmix64(id ^ 0x5851f42d4c957f2dULL) | 1});
}

ProposalKey ProposalKeyer::key(const Proposal& proposal) const {
  ProposalKey key;
  for (OptionId id : proposal) {
    const Digest& d = digests_[id];
    key.sum_a += d.a;
    key.sum_b += d.b;
  }
  key.count = proposal.size();
  return key;
}

}  // namespace shardplan
