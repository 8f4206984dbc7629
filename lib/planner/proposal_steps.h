// Proposals a proposer will make next, written as a walk: the current proposal whole,
// then each following one as the tables whose option changed since the one before.
//
// A greedy proposer changes one table per proposal. Handing out 256 proposals of
// 5 000 tables each as whole copies, and comparing each against the last, was most of
// the planner loop's own work when other threads evaluate the proposals (5 000 tables
// x 1 024 ranks, 2 threads); a step here costs what changed.
#pragma once

#include <cstddef>
#include <vector>

#include "planner/types.h"

namespace shardplan {

class ProposalSteps {
 public:
  struct Change {
    std::size_t table;  // index into the proposal
    OptionId option;    // the table's new option
  };

  // Proposal 0, whole; forgets anything written before.
  void start(Proposal first) {
    first_ = std::move(first);
    changes_.clear();
    ends_.assign(1, 0);
  }
  // Table `table` of the proposal being written takes `option` (after start()).
  void change(std::size_t table, OptionId option) { changes_.push_back({table, option}); }
  // Ends the proposal being written: it is the previous one with the changes made
  // since the last end_proposal() (or start()).
  void end_proposal() { ends_.push_back(changes_.size()); }
  // Writes `next` as the changes from `previous` (proposal size() - 1, same size).
  void append(const Proposal& previous, const Proposal& next) {
    for (std::size_t t = 0; t < next.size(); ++t)
      if (next[t] != previous[t]) change(t, next[t]);
    end_proposal();
  }

  // Proposals written (0 before start()).
  std::size_t size() const { return ends_.size(); }
  const Proposal& first() const { return first_; }
  // The changes that turn proposal k - 1 into proposal k (k >= 1).
  const Change* changes_begin(std::size_t k) const { return changes_.data() + ends_[k - 1]; }
  const Change* changes_end(std::size_t k) const { return changes_.data() + ends_[k]; }

  // Makes `proposal`, which holds proposal `at`, proposal `to` (at <= to).
  void advance(Proposal& proposal, std::size_t at, std::size_t to) const {
    if (to <= at) return;
    for (std::size_t c = ends_[at]; c < ends_[to]; ++c) proposal[changes_[c].table] = changes_[c].option;
  }

 private:
  Proposal first_;
  std::vector<Change> changes_;
  std::vector<std::size_t> ends_;  // proposal k's changes end at ends_[k] (ends_[0] = 0)
};

}  // namespace shardplan
