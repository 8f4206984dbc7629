// torchrec's EmbeddingShardingPlanner.plan: reserve storage, then for each
// proposer propose -> partition -> rate -> feedback, keeping the best plan.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/phase_times.h"
#include "config/config.h"
#include "planner/parallelism.h"
#include "planner/perf_model.h"
#include "planner/progress.h"
#include "planner/proposers/proposer.h"
#include "planner/rank_load.h"
#include "planner/reservations/storage_reservation.h"
#include "planner/types.h"

namespace shardplan {

// One table that cannot be placed whatever its option: its smallest option (by
// total storage as (hbm, ddr)) and that option's largest shard.
struct TableShortfall {
  std::string fqn;
  Storage smallest_option;
  Storage largest_shard;
};

// Where planning stopped without a plan.
// kCrash: an input on which torchrec's planner dies with an exception of
// Python's own (see planner/torchrec_failures.h); shardplan reports it instead.
enum class FailureStage { kReservation, kProposer, kPlan, kCrash };

inline constexpr NameTable<FailureStage, 4> kFailureStageNames{{
    {FailureStage::kReservation, "reservation", "the storage reservation left no room"},
    {FailureStage::kProposer, "proposer", "a proposer refused the search space"},
    {FailureStage::kPlan, "plan", "no proposal could be placed"},
    {FailureStage::kCrash, "crash", "torchrec's planner would crash on this input"},
}};

// Why no plan exists, as data (lib/output/failure_text.h renders it). error_type
// follows torchrec: INSUFFICIENT_STORAGE when the smallest proposal seen does not
// fit in the reserved global storage (or when the reservation itself leaves
// negative HBM), STRICT_CONSTRAINTS otherwise; kOther for a proposer that refused
// the search space.
struct PlanFailure {
  PlannerErrorType error_type = PlannerErrorType::kOther;
  FailureStage stage = FailureStage::kPlan;
  std::string stage_reason;          // kReservation / kProposer / kCrash: that stage's own reason
  std::string last_partition_error;  // kPlan: the partitioner's reason for the last proposal tried
  Storage lowest_storage;            // smallest proposal total seen (torchrec's lowest_storage)
  Storage global_available;          // sum of the reserved capacities
  Storage largest_rank_free;         // component-wise max of reserved per-rank capacities
  std::vector<TableShortfall> tables;  // tables none of whose options fit a rank
};

// The planner's answer; exactly one of `plan` (non-empty or empty search space)
// and `failure` is meaningful.
struct PlanResult {
  std::optional<ReservationResult> reservation;  // unset when the reservation failed
  std::vector<ShardingOption> plan;  // best proposal in proposal order, shard ranks set
  // When no proposal fits: the last one tried, every shard at rank -1 (what
  // torchrec hands EmbeddingStats in that case).
  std::vector<ShardingOption> last_proposal;
  double perf_rating = 0;
  int num_proposals = 0;
  int num_plans = 0;
  std::optional<PlanFailure> failure;
  PhaseTimes phases;  // reservation / proposer set-up / proposal loop / result
  bool ok() const { return !failure.has_value(); }
};

// torchrec's EmbeddingShardingPlanner with every stage supplied by the caller.
class EmbeddingShardingPlanner {
 public:
  // `estimator` re-estimates options a proposer modifies (may be empty);
  // `parallelism` says which threads the planner may use (none by default).
  EmbeddingShardingPlanner(const StorageReservation& reservation,
                           std::vector<std::unique_ptr<Proposer>> proposers,
                           Partitioner& partitioner, OptionEstimator estimator = {},
                           Parallelism parallelism = {});

  // Plans the model on `topology` (before reservation) over `search_space` (the
  // enumerated options with estimates, enumeration order). Never throws for "no plan".
  PlanResult plan(const Topology& topology, const ModelConfig& model,
                  const std::vector<ShardingOption>& search_space);

  // `progress` hears of each proposer started and each proposal tried (none by default).
  void set_progress_observer(ProgressObserver progress) { progress_ = std::move(progress); }

 private:
  const StorageReservation& reservation_;
  std::vector<std::unique_ptr<Proposer>> proposers_;
  Partitioner& partitioner_;
  // Loads the proposers and prepares the partitioner and perf model; the first
  // proposer's load error in proposer order, if any.
  std::optional<std::string> load_stages(const std::vector<ShardingOption>& search_space);

  OptionEstimator estimator_;
  Parallelism parallelism_;
  NoopPerfModel perf_model_;
  ProgressObserver progress_;
};

// The proposers named in options.proposers, in order.
std::vector<std::unique_ptr<Proposer>> make_proposers(const PlannerOptions& options,
                                                      const ProposerOptions& proposer_options = {});

}  // namespace shardplan
