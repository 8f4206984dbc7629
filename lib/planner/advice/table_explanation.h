// Why a table got the sharding option it got (`shardplan explain`): every option
// of the table, the allowed ones with the verdicts of the proposals that contained
// them, and the ones its constraints removed.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/names.h"
#include "config/config.h"
#include "planner/planner.h"
#include "planner/search_space.h"

namespace shardplan {

// What became of one sharding option of a table.
enum class OptionVerdict { kChosen, kRatedWorse, kDidNotFit, kExcluded, kNeverProposed };

inline constexpr NameTable<OptionVerdict, 5> kOptionVerdictNames{{
    {OptionVerdict::kChosen, "chosen", "the option of the final plan"},
    {OptionVerdict::kRatedWorse, "rated_worse", "placed in proposals that were rated worse than the plan"},
    {OptionVerdict::kDidNotFit, "did_not_fit", "no proposal containing it could be placed on the ranks"},
    {OptionVerdict::kExcluded, "excluded", "removed by the table's constraints"},
    {OptionVerdict::kNeverProposed, "never_proposed", "no proposer proposed it"},
}};

// Per search-space option, the verdicts of the evaluated proposals containing it.
// Plug into run_plan; read after it with counts(run.search_space).
class OptionVerdictRecorder : public ProposalObserver {
 public:
  struct Counts {
    int proposals = 0;                  // evaluated proposals containing the option
    int placed = 0;                     // of those, placed
    std::optional<double> best_rating;  // the best rating of a placed one
  };
  void on_verdict(const Proposal& proposal, std::optional<double> rating) override;
  // The counts of `option` (an element of the search space run_plan planned over).
  Counts counts(OptionId id) const;

 private:
  std::unordered_map<OptionId, Counts> counts_;
};

// One option of the explained table and what became of it.
struct ExplainedOption {
  ShardingOption option;  // the chosen one with the plan's shard ranks
  OptionVerdict verdict = OptionVerdict::kNeverProposed;
  std::vector<std::string> excluded_by;  // kExcluded: the constraint keys
  OptionVerdictRecorder::Counts counts;
  bool exceeds_every_rank = false;  // its largest shard fits no rank's free storage
};

// Every option of one table: the allowed ones in enumeration order, then the
// ones constraints removed.
struct TableExplanation {
  std::string fqn;
  std::vector<ExplainedOption> options;
  std::optional<double> plan_rating;  // the plan's perf rating; unset when no plan exists
  Storage largest_rank_free;          // component-wise max of the reserved capacities
};

// The fqns of the tables in `search_space`, in enumeration order.
std::vector<std::string> table_fqns(const std::vector<ShardingOption>& search_space);

// Explains table `fqn` (one of table_fqns(run.search_space)) of a run made with
// `recorder` as its observer.
// What explain_table reads of a planning run (planner/run.h's PlanRun holds it all).
struct ExplainedRun {
  const PlanResult& result;
  const SearchSpace& search_space;  // the options planned over
  const Topology& topology;         // before reservation
  bool planned = false;             // a plan was found (PlanRun::ok())
};

TableExplanation explain_table(const ExplainedRun& run, const PlanningInput& input,
                               const OptionVerdictRecorder& recorder, const std::string& fqn);

}  // namespace shardplan
