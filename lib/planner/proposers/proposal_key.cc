#include "planner/proposers/proposal_key.h"

namespace shardplan {

namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

bool same_cache(const std::optional<CacheParams>& a, const std::optional<CacheParams>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->load_factor == b->load_factor && a->algorithm == b->algorithm &&
         a->reserved_memory == b->reserved_memory && a->precision == b->precision &&
         a->prefetch_pipeline == b->prefetch_pipeline;
}
}  // namespace

bool same_option_content(const ShardingOption& a, const ShardingOption& b) {
  if (a.path != b.path || a.name != b.name || a.sharding_type != b.sharding_type ||
      a.compute_kernel != b.compute_kernel || !same_cache(a.cache_params, b.cache_params) ||
      a.shards.size() != b.shards.size())
    return false;
  for (std::size_t i = 0; i < a.shards.size(); ++i) {
    const Shard& x = a.shards[i];
    const Shard& y = b.shards[i];
    if (x.size != y.size || x.offset != y.offset || x.storage != y.storage || x.rank != y.rank ||
        x.perf != y.perf)
      return false;
  }
  return true;
}

std::uint64_t ProposalKeyer::identity(const ShardingOption* option) {
  const ShardingOption* begin = space_.data();
  if (option >= begin && option < begin + space_.size()) return static_cast<std::uint64_t>(option - begin);
  if (by_name_.empty())
    for (std::size_t i = 0; i < space_.size(); ++i)
      by_name_.emplace(std::make_tuple(space_[i].fqn(), space_[i].sharding_type, space_[i].compute_kernel), i);
  auto it = by_name_.find(std::make_tuple(option->fqn(), option->sharding_type, option->compute_kernel));
  if (it != by_name_.end() && same_option_content(space_[it->second], *option)) return it->second;
  for (std::size_t i = 0; i < foreign_.size(); ++i)
    if (same_option_content(foreign_[i], *option)) return space_.size() + i;
  foreign_.push_back(*option);
  return space_.size() + foreign_.size() - 1;
}

ProposalKeyer::Digest ProposalKeyer::digest(std::uint64_t identity) {
  return {splitmix64(identity), splitmix64(identity ^ 0x5851f42d4c957f2dULL) | 1};
}

ProposalKeyer::ProposalKeyer(const std::vector<ShardingOption>& search_space) : space_(search_space) {
  space_digests_.reserve(search_space.size());
  for (std::size_t i = 0; i < search_space.size(); ++i) space_digests_.push_back(digest(i));
}

ProposalKey ProposalKeyer::key(const Proposal& proposal) {
  ProposalKey key;
  const ShardingOption* begin = space_.data();
  const ShardingOption* end = begin + space_.size();
  for (const ShardingOption* option : proposal) {
    const Digest d = option >= begin && option < end ? space_digests_[static_cast<std::size_t>(option - begin)]
                                                     : digest(identity(option));
    key.sum_a += d.a;
    key.sum_b += d.b;
  }
  key.count = proposal.size();
  return key;
}

}  // namespace shardplan
