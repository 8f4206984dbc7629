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
#include "planner/plan_stop.h"
#include "planner/progress.h"
#include "planner/proposers/proposer.h"
#include "planner/rank_load.h"
#include "planner/reservations/storage_reservation.h"
#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// One sharding option of a table that does not fit, as far as fitting goes
// (filled by planner/advice/failure_fixes.h, only when planning failed).
struct OptionFit {
  ShardingType sharding_type = ShardingType::kTableWise;
  ComputeKernel compute_kernel = ComputeKernel::kFused;
  int num_shards = 0;
  Storage largest_shard;
  Storage total;
  std::vector<std::string> excluded_by;  // constraint keys that remove it; empty: allowed
};

// More capacity that would make something fit: the free storage per rank (and in
// all) it lacks, and the flag values that would give it with the same reservation.
struct CapacityFix {
  Storage more_per_rank;                // 0 where that resource is not short
  Storage more_total;                   // 0 where that resource is not short
  std::optional<std::int64_t> hbm_cap;  // --hbm-cap per rank (bytes, whole GiB)
  std::optional<std::int64_t> ddr_cap;  // --ddr-cap per rank (bytes, whole GiB)
  std::optional<int> world_size;        // devices of the current size the total needs
};

// One table that cannot be placed whatever its option: its smallest option (by
// total storage as (hbm, ddr)) and that option's largest shard.
struct TableShortfall {
  std::string fqn;
  Storage smallest_option;
  Storage largest_shard;
  // Filled by planner/advice/failure_fixes.h: the table's constraint keys that narrow its
  // options, the options they remove that would fit the largest free rank, and the
  // allowed option needing the least extra capacity with that capacity.
  std::vector<std::string> constraint_keys;
  std::vector<OptionFit> fitting_if_unconstrained;
  std::optional<OptionFit> nearest;
  CapacityFix fix;
};

// Where planning stopped without a plan.
// kCrash: an input on which torchrec's planner dies with an exception of
// Python's own (see planner/advice/torchrec_failures.h); shardplan reports it instead.
enum class FailureStage { kReservation, kProposer, kPlan, kCrash };

inline constexpr NameTable<FailureStage, 4> kFailureStageNames{{
    {FailureStage::kReservation, "reservation", "the storage reservation left no room"},
    {FailureStage::kProposer, "proposer", "a proposer refused the search space"},
    {FailureStage::kPlan, "plan", "no proposal could be placed"},
    {FailureStage::kCrash, "crash", "torchrec's planner would crash on this input"},
}};

// Why no plan exists, as data (lib/planner_output/failure_text.h renders it). error_type
// follows torchrec: INSUFFICIENT_STORAGE when the smallest proposal seen does not
// fit in the reserved global storage (or when the reservation itself leaves
// negative HBM), STRICT_CONSTRAINTS otherwise; kOther for a proposer that refused
// the search space.
// A proof from total capacity that no choice of options fits: counting a byte of
// HBM as `hbm_weight` and a byte of DDR as `ddr_weight` (both >= 0), every table
// needs at least its cheapest option's weighted storage, and their sum `needed`
// exceeds `available`, the weighted storage of all ranks together.
struct CapacityProof {
  double hbm_weight = 1;
  double ddr_weight = 1;
  double needed = 0;
  double available = 0;
};

// What `--partitioner optimizing` adds to a failure: it searched every option of
// every table for a placement and found none.
struct OptionSearchVerdict {
  std::size_t num_options = 0;
  std::size_t num_tables = 0;
  std::optional<CapacityProof> proof;  // set when total capacity proves no plan exists
};

struct PlanFailure {
  PlannerErrorType error_type = PlannerErrorType::kOther;
  FailureStage stage = FailureStage::kPlan;
  std::string stage_reason;  // kReservation / kProposer / kCrash: that stage's own reason
  // kPlan: the partitioner's reason for the last proposal tried (its option id is
  // one of the planned SearchSpace; lib/planner_output/partition_failure_text.h renders it).
  std::optional<PartitionFailure> last_partition_failure;
  Storage lowest_storage;              // smallest proposal total seen (torchrec's lowest_storage)
  Storage global_available;            // sum of the reserved capacities
  Storage largest_rank_free;           // component-wise max of reserved per-rank capacities
  std::vector<TableShortfall> tables;  // tables none of whose options fit a rank
  // Filled by planner/advice/failure_fixes.h when the smallest proposal exceeds the
  // storage of all ranks together.
  std::optional<CapacityFix> total_fix;
  std::vector<std::string> constrained_tables;       // fqns with sharding_types / compute_kernels constraints
  bool has_fixes = false;                            // failure_fixes.h ran
  std::optional<OptionSearchVerdict> option_search;  // set by the optimizing refinement's search
};

// The planner's answer; exactly one of `plan` (non-empty or empty search space)
// and `failure` is meaningful.
struct PlanResult {
  std::optional<ReservationResult> reservation;  // unset when the reservation failed
  std::vector<ShardingOption> plan;              // best proposal in proposal order, shard ranks set
  // When no proposal fits: the last one tried, every shard at rank -1 (what
  // torchrec hands EmbeddingStats in that case).
  std::vector<ShardingOption> last_proposal;
  double perf_rating = 0;
  int num_proposals = 0;
  int num_plans = 0;
  std::optional<PlanFailure> failure;
  PhaseTimes phases;  // reservation / proposer set-up / proposal loop / result
  // The caller's PlanStop asked to stop before planning ended: no plan and no
  // failure (the search did not finish, so neither is known).
  bool stopped = false;
  bool ok() const { return !failure.has_value() && !stopped; }
};

// Sees every proposal the planner evaluates (not the repeats answered from its
// cache), in proposal order, with its verdict: for explanations (`shardplan
// explain`); planning does not depend on it.
class ProposalObserver {
 public:
  virtual ~ProposalObserver() = default;
  // `rating` is the perf rating when `proposal` was placed, unset when it was not.
  virtual void on_verdict(const Proposal& proposal, std::optional<double> rating) = 0;
};

// torchrec's EmbeddingShardingPlanner with every stage supplied by the caller.
class EmbeddingShardingPlanner {
 public:
  // `estimator` re-estimates options a proposer modifies (may be empty);
  // `parallelism` says which threads the planner may use (none by default).
  EmbeddingShardingPlanner(const StorageReservation& reservation, std::vector<std::unique_ptr<Proposer>> proposers,
                           Partitioner& partitioner, OptionEstimator estimator = {}, Parallelism parallelism = {});

  // Plans the model on `topology` (before reservation) over `space` (the
  // enumerated options with estimates; proposers add the options they derive).
  // Never throws for "no plan".
  PlanResult plan(const Topology& topology, const ModelConfig& model, SearchSpace& space);

  // Reports every evaluated proposal to `observer` (none by default; not owned).
  void set_observer(ProposalObserver* observer) { observer_ = observer; }

  // `progress` hears of each proposer started and each proposal tried (none by default).
  void set_progress_observer(ProgressObserver progress) { progress_ = std::move(progress); }

  // No partitioner can place a proposal needing more storage than all devices
  // hold, so the planner answers those without calling partition() (the default);
  // true: partition() sees them anyway (a partitioner that observes what
  // torchrec would do, planner/advice/torchrec_failures.h).
  void set_partition_every_proposal(bool every) { partition_every_proposal_ = every; }

  // Polls `stop` (not owned; none by default) before each proposal: once it asks,
  // plan() returns a result with `stopped` set.
  void set_stop(const PlanStop* stop) { stop_ = stop; }

 private:
  const StorageReservation& reservation_;
  std::vector<std::unique_ptr<Proposer>> proposers_;
  Partitioner& partitioner_;
  // Loads the proposers one after another (so the ids of derived options do not
  // depend on threads); the first load error in proposer order, if any.
  std::optional<std::string> load_proposers(SearchSpace& space);

  OptionEstimator estimator_;
  Parallelism parallelism_;
  NoopPerfModel perf_model_;
  ProposalObserver* observer_ = nullptr;
  ProgressObserver progress_;
  bool partition_every_proposal_ = false;
  const PlanStop* stop_ = nullptr;
};

// The proposers named in options.proposers, in order.
std::vector<std::unique_ptr<Proposer>> make_proposers(const PlannerOptions& options,
                                                      const ProposerOptions& proposer_options = {});

}  // namespace shardplan
