#include "planner/run.h"

#include <fmt/format.h>
#include <chrono>
#include <exception>
#include <optional>
#include <set>
#include <string>

#include "planner/advice/failure_fixes.h"
#include "planner/advice/torchrec_failures.h"
#include "planner/bounds/capacity_proof.h"
#include "planner/enumerator.h"
#include "planner/exact/prove_plan.h"
#include "planner/partitioners/partitioner_factory.h"
#include "planner/perf_estimator.h"
#include "planner/reservations/storage_reservation.h"
#include "planner/storage_estimator.h"
#include "planner/topology.h"

namespace shardplan {

namespace {

// torchrec's EmbeddingShardingPlanner builds its enumerator with the perf
// estimator first, then the storage estimator; the two read disjoint fields.
struct Estimators {
  EmbeddingPerfEstimator perf;
  EmbeddingStorageEstimator storage;
  std::vector<const ShardEstimator*> list() const { return {&perf, &storage}; }
};

// The refinement stage composed after the partitioner: it improves the planner's
// best plan over the enumerated options.
void refine_plan(PlanRun& run, const PlanRefiner& refiner) {
  if (!run.result.ok() || run.result.plan.empty() || !run.result.reservation) return;
  run.phases.restart();
  RefinementOutcome outcome = refiner.refine(run.result.plan, run.result.perf_rating, run.search_space.enumerated(),
                                             run.result.reservation->reserved);
  run.stopped_by_clock = run.stopped_by_clock || outcome.stopped_by_clock;
  run.phases.mark(outcome.summary);
}

// When the proposal loop placed no proposal, the refinement searches every option
// for a plan (issue 30): found, it replaces the failure; not found, the failure
// says so, with the total-capacity argument that proves none exists when one does.
void search_for_plan(PlanRun& run, const PlanRefiner& refiner) {
  run.phases.restart();
  std::vector<ShardingOption> plan;
  double rating = 0;
  const std::vector<ShardingOption>& options = run.search_space.enumerated();
  const Topology& reserved = run.result.reservation->reserved;
  RefinementOutcome outcome = refiner.search(plan, rating, options, reserved);
  if (outcome.summary.empty()) return;  // this refinement does not search
  run.stopped_by_clock = run.stopped_by_clock || outcome.stopped_by_clock;
  run.phases.mark(outcome.summary);
  if (outcome.improved) {
    run.result.failure.reset();
    run.result.last_proposal.clear();
    run.result.plan = std::move(plan);
    run.result.perf_rating = rating;
    return;
  }
  OptionSearchVerdict verdict;
  verdict.num_options = options.size();
  std::set<std::string> tables;
  for (const auto& option : options) tables.insert(option.fqn());
  verdict.num_tables = tables.size();
  verdict.proof = capacity_proof(options, reserved);
  run.result.failure->option_search = std::move(verdict);
}

}  // namespace

std::vector<ShardingOption> enumerate_and_estimate(const PlanningInput& input, const Topology& topology,
                                                   const Parallelism& parallelism) {
  Estimators estimators;
  return make_enumerator()->enumerate(input, topology, estimators.list(), parallelism);
}

PlanRun run_plan(const PlanningInput& input, const Parallelism& parallelism, ProposalObserver* observer,
                 const ProgressObserver& progress, const PlanStop* stop) {
  PlanRun run;
  auto start = std::chrono::steady_clock::now();
  // Between stages: a stopped run drops what it computed and says only that it stopped.
  const auto stopped_run = [&run, &start] {
    PlanRun out;
    out.topology = std::move(run.topology);
    out.result.stopped = true;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  run.phases.restart();
  run.topology = build_topology(input.topology);
  Estimators estimators;
  std::exception_ptr enumeration_failure;  // any other exception of torchrec's enumerate()
  if (progress) progress(PlanProgress{});  // enumerating
  try {
    run.search_space = SearchSpace(make_enumerator()->enumerate(input, run.topology, estimators.list(), parallelism));
  } catch (const EnumerationError& e) {
    run.enumeration_error = e.what();
  } catch (const std::exception&) {
    enumeration_failure = std::current_exception();
  }
  run.phases.mark(fmt::format("enumerate and estimate ({} options)", run.search_space.size()));
  if (plan_stop_requested(stop)) return stopped_run();
  // torchrec reserves before it enumerates: a failed reservation wins (torchrec_failures.h).
  if (run.enumeration_error || enumeration_failure) {
    if (auto failure = reservation_failure(input, run.topology)) {
      run.enumeration_error.reset();
      run.result.failure = std::move(failure);
    } else if (enumeration_failure) {
      std::rethrow_exception(enumeration_failure);
    }
  }
  if (!run.enumeration_error && !run.result.failure) {
    auto reservation = make_storage_reservation(input.planner.storage_reservation);
    auto real_partitioner = make_partitioner(input.planner.partitioner);
    auto refiner = make_refiner(input.planner.partitioner, parallelism);
    std::optional<MultiHostCrashGuard> guard;
    if (multi_host_crash_possible(run.topology, run.search_space)) guard.emplace(*real_partitioner);
    Partitioner* partitioner = guard ? static_cast<Partitioner*>(&*guard) : real_partitioner.get();
    // Proposers that change an option (offload_scaleup) re-estimate it in place.
    EstimatorContext context{run.topology, input.model, input.planner};
    OptionEstimator estimator = [&estimators, &context](ShardingOption& option) {
      for (const ShardEstimator* e : estimators.list()) e->estimate(option, context);
    };
    EmbeddingShardingPlanner planner(*reservation, make_proposers(input.planner), *partitioner, estimator, parallelism);
    planner.set_observer(observer);
    planner.set_progress_observer(progress);
    // The guard observes every proposal torchrec would partition, also those
    // needing more storage than all devices hold.
    if (guard) planner.set_partition_every_proposal(true);
    planner.set_stop(stop);
    run.result = planner.plan(run.topology, input.model, run.search_space);
    if (run.result.stopped || plan_stop_requested(stop)) return stopped_run();
    if (guard && guard->crashed()) {  // torchrec would have died: no plan, no stats
      run.result.plan.clear();
      run.result.last_proposal.clear();
      run.result.failure = multi_host_crash(run.topology, run.search_space);
    }
    if (run.result.failure && run.result.failure->stage == FailureStage::kPlan)
      describe_fixes(*run.result.failure, input, run.topology, run.result.reservation, run.search_space.enumerated());
    run.phases.append(run.result.phases);
    if (refiner && run.result.failure && run.result.failure->stage == FailureStage::kPlan && run.result.reservation)
      search_for_plan(run, *refiner);  // a plan found there was searched already: no refinement
    else if (refiner)
      refine_plan(run, *refiner);
    if (plan_stop_requested(stop)) return stopped_run();
    if (run.ok() && !run.result.plan.empty()) {
      run.phases.restart();
      run.bound = compute_lower_bound(
          bound_input(run.search_space.enumerated(), run.result.plan, run.result.reservation->reserved), parallelism);
      clamp_to_plan(*run.bound, run.result.perf_rating);
      run.phases.mark("lower bound");
      if (refiner) {  // --partitioner optimizing: the exact search proves or improves the plan (issue 30)
        run.phases.restart();
        const exact::ProofOutcome proof = exact::prove_plan(
            run.result.plan, run.result.perf_rating, run.search_space.enumerated(), run.result.reservation->reserved,
            *run.bound, input.planner.partitioner.time_budget_seconds);
        run.stopped_by_clock = run.stopped_by_clock || proof.stopped_by_clock;
        run.phases.mark(proof.summary);
      }
    }
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

bool torchrec_logs_stats(const PlanRun& run) {
  if (run.enumeration_error) return false;
  if (run.result.failure) {
    const FailureStage stage = run.result.failure->stage;
    // reserve() and Proposer.load() raise, and a crash raises, before the stats.
    return stage == FailureStage::kPlan;
  }
  // Nothing shardable: plan() returns ShardingPlan({}) before any stats.
  return !run.search_space.empty();
}

StatsReport stats_report_of(const PlanRun& run, const PlanningInput& input) {
  StatsInput in;
  in.has_plan = run.ok();
  in.plan = in.has_plan ? &run.result.plan : &run.result.last_proposal;
  in.topology = &run.topology;
  ReservationResult empty;
  in.reservation = run.result.reservation ? &*run.result.reservation : &empty;
  in.batch_size = input.model.batch_size;
  in.num_proposals = run.result.num_proposals;
  in.num_plans = run.result.num_plans;
  in.run_time_seconds = run.seconds;
  in.constraints = &input.model.constraints;
  in.is_inference = input.planner.is_inference;
  return make_stats()->log(in);
}

}  // namespace shardplan
