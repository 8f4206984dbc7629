#include "planner/proposers/greedy_proposer.h"

#include <algorithm>

#include "planner/proposal_steps.h"
#include "planner/proposers/proposer_util.h"

namespace shardplan {

std::optional<std::string> GreedyProposer::load(SearchSpace& space, const OptionEstimator* /*estimator*/) {
  options_.clear();
  storage_keys_.clear();
  first_.clear();
  for (std::vector<OptionId> table : space.tables()) {
    proposer_util::sort_by_score(space, table, use_depth_);
    first_.push_back(options_.size());
    // Precomputed once so that each step compares keys, not shards.
    for (OptionId option : table) {
      StorageKey key{0, 0, 0, 0};
      bool first = true;
      for (const ShardRun& run : space[option].shards.runs()) {  // equal shards: one step per run
        Storage s = run.storage.value_or(Storage{});
        key[0] = first ? s.hbm : std::max(key[0], s.hbm);
        key[1] += run.count * s.hbm;
        key[2] = first ? s.ddr : std::max(key[2], s.ddr);
        key[3] += run.count * s.ddr;
        first = false;
      }
      options_.push_back(option);
      storage_keys_.push_back(key);
    }
  }
  const std::size_t tables = first_.size();
  first_.push_back(options_.size());
  walk_.current.assign(tables, 0);
  walk_.proposal.resize(tables);
  for (std::size_t t = 0; t < tables; ++t)
    walk_.proposal[t] = first_[t] < first_[t + 1] ? options_[first_[t]] : OptionId{};
  walk_.next.reset(tables);
  for (std::size_t t = 0; t < tables; ++t) walk_.next.set(t, storage_keys_[first_[t]], first_[t] + 1 < first_[t + 1]);
  done_ = tables == 0;
  advanced_.clear();
  advanced_overflow_ = true;  // nothing handed out yet
  // torchrec keeps the threshold bookkeeping across load() calls; one load per plan here.
  have_best_ = false;
  num_inferior_perf_ = 0;
  return std::nullopt;
}

void GreedyProposer::advance(Walk& walk, std::size_t t) const {
  const std::size_t at = first_[t] + ++walk.current[t];
  walk.proposal[t] = options_[at];
  walk.next.set(t, storage_keys_[at], at + 1 < first_[t + 1]);
}

// A copy of the walk's proposal, kept current by advance (one table changes per
// step: rebuilding it from options_ gathered from thousands of places each time).
Proposal GreedyProposer::proposal_of(const Walk& walk) const { return walk.proposal; }

std::optional<Proposal> GreedyProposer::propose() {
  if (done_) return std::nullopt;
  return proposal_of(walk_);
}

bool GreedyProposer::propose_into(Proposal& out, bool out_is_last) {
  if (done_) return false;
  if (out_is_last && !advanced_overflow_ && out.size() == walk_.proposal.size()) {
    for (std::size_t t : advanced_) out[t] = walk_.proposal[t];
  } else {
    out.assign(walk_.proposal.begin(), walk_.proposal.end());
  }
  advanced_.clear();
  advanced_overflow_ = false;
  return true;
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
  // The table whose current option uses the most storage moves on; ties go to
  // the first table, and a table using no storage never moves.
  if (auto t = walk_.next.best()) {
    advance(walk_, *t);
    // Remembered for propose_into; a walk between two calls is patched table by table
    // up to a few tables, else written whole.
    constexpr std::size_t kMaxPatched = 16;
    if (advanced_.size() < kMaxPatched)
      advanced_.push_back(*t);
    else
      advanced_overflow_ = true;
  } else {
    done_ = true;
  }
}

void GreedyProposer::lookahead(std::size_t n, ProposalSteps& out) const {
  out = ProposalSteps{};
  if (done_ || n == 0) return;
  Walk walk = walk_;
  out.start(walk.proposal);
  while (out.size() < n) {
    auto t = walk.next.best();
    if (!t) break;
    advance(walk, *t);
    out.change(*t, walk.proposal[*t]);
    out.end_proposal();
  }
}

}  // namespace shardplan
