#include "planner/proposers/proposal_key.h"

#include <algorithm>
#include <cstring>

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

void ProposalTally::add(OptionId id, bool take_out) {
  const ProposalKeyer::Digest& d = keyer_.digest(id);
  const Storage& s = space_.total_storage(id);
  if (take_out) {
    key_.sum_a -= d.a;
    key_.sum_b -= d.b;
    hbm_ -= static_cast<std::uint64_t>(s.hbm);
    ddr_ -= static_cast<std::uint64_t>(s.ddr);
  } else {
    key_.sum_a += d.a;
    key_.sum_b += d.b;
    hbm_ += static_cast<std::uint64_t>(s.hbm);
    ddr_ += static_cast<std::uint64_t>(s.ddr);
  }
}

void ProposalTally::update(const Proposal& proposal) {
  if (proposal.size() != last_.size()) {
    key_ = ProposalKey{};
    hbm_ = ddr_ = 0;
    for (OptionId id : proposal) add(id, false);
    key_.count = proposal.size();
    last_ = proposal;
    return;
  }
  // Blocks that did not change are skipped by memcmp (most of them: one table moved).
  constexpr std::size_t kBlock = 64;
  const std::size_t n = proposal.size();
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t end = std::min(n, begin + kBlock);
    if (std::memcmp(proposal.data() + begin, last_.data() + begin, (end - begin) * sizeof(OptionId)) == 0) continue;
    for (std::size_t i = begin; i < end; ++i) {
      if (proposal[i] == last_[i]) continue;
      add(last_[i], true);
      add(proposal[i], false);
      last_[i] = proposal[i];
    }
  }
}

}  // namespace shardplan
