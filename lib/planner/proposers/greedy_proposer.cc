#include "planner/proposers/greedy_proposer.h"

#include <algorithm>

#include "planner/proposers/proposer_util.h"

namespace shardplan {

std::optional<std::string> GreedyProposer::load(const std::vector<ShardingOption>& search_space,
                                                const OptionEstimator* /*estimator*/) {
  by_table_ = proposer_util::group_by_fqn(search_space);
  storage_keys_.assign(by_table_.size(), {});
  for (std::size_t t = 0; t < by_table_.size(); ++t) {
    proposer_util::sort_by_score(by_table_[t], use_depth_);
    // Precomputed once so that each feedback is O(tables), not O(shards).
    for (const auto* option : by_table_[t]) {
      StorageKey key{0, 0, 0, 0};
      bool first = true;
      for (const auto& shard : option->shards) {
        Storage s = shard.storage.value_or(Storage{});
        key[0] = first ? s.hbm : std::max(key[0], s.hbm);
        key[1] += s.hbm;
        key[2] = first ? s.ddr : std::max(key[2], s.ddr);
        key[3] += s.ddr;
        first = false;
      }
      storage_keys_[t].push_back(key);
    }
  }
  current_.assign(by_table_.size(), 0);
  done_ = by_table_.empty();
  // torchrec keeps the threshold bookkeeping across load() calls; one load per plan here.
  have_best_ = false;
  num_inferior_perf_ = 0;
  return std::nullopt;
}

std::optional<Proposal> GreedyProposer::propose() {
  if (done_) return std::nullopt;
  Proposal proposal(by_table_.size());
  for (std::size_t t = 0; t < by_table_.size(); ++t) proposal[t] = by_table_[t][current_[t]];
  return proposal;
}

void GreedyProposer::feedback(const ProposerFeedback& feedback) {
  // torchrec tests `threshold and perf_rating` for truthiness: a rating of 0 is skipped.
  if (threshold_ && feedback.perf_rating && *feedback.perf_rating != 0) {
    ++num_inferior_perf_;
    if (!have_best_ || *feedback.perf_rating < best_perf_rating_) {
      best_perf_rating_ = *feedback.perf_rating;
      have_best_ = true;
      num_inferior_perf_ = 0;
    }
    if (num_inferior_perf_ > *threshold_) {
      done_ = true;
      return;
    }
  }
  if (auto t = table_to_advance(current_))
    ++current_[*t];
  else
    done_ = true;
}

std::optional<std::size_t> GreedyProposer::table_to_advance(const std::vector<std::size_t>& current) const {
  // Strictly larger than the running maximum, starting from all zeros: the first
  // table wins ties and a table using no storage is never advanced.
  std::optional<std::size_t> largest;
  StorageKey largest_key{0, 0, 0, 0};
  for (std::size_t t = 0; t < by_table_.size(); ++t) {
    if (current[t] + 1 >= by_table_[t].size()) continue;
    const StorageKey& key = storage_keys_[t][current[t]];
    if (key > largest_key) {
      largest = t;
      largest_key = key;
    }
  }
  return largest;
}

std::vector<Proposal> GreedyProposer::lookahead(std::size_t n) const {
  std::vector<Proposal> out;
  if (done_) return out;
  std::vector<std::size_t> current = current_;
  while (out.size() < n) {
    Proposal proposal(by_table_.size());
    for (std::size_t t = 0; t < by_table_.size(); ++t) proposal[t] = by_table_[t][current[t]];
    out.push_back(std::move(proposal));
    auto t = table_to_advance(current);
    if (!t) break;
    ++current[*t];
  }
  return out;
}

}  // namespace shardplan
