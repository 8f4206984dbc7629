#include "planner_flags.h"

#include "common/units.h"
#include "config/planner_names.h"

namespace shardplan::app {

void add_planner_overrides(CLI::App& sub, PlannerOverrides& o) {
  sub.add_option("--partitioner", o.partitioner, "partitioner: " + joined_names(kPartitionerNames, " | "))
      ->type_name("NAME");
  std::string default_proposers;
  for (const ProposerKind kind : PlannerOptions{}.proposers)
    default_proposers += (default_proposers.empty() ? "" : ",") + std::string(to_string(kind));
  sub.add_option("--proposers", o.proposers, "comma-separated proposers, in order (default " + default_proposers + ")")
      ->type_name("A,B");
  sub.add_option("--storage-reservation", o.storage_reservation,
                 "storage reservation: " + joined_names(kReservationPolicyNames, " | "))
      ->type_name("NAME");
  sub.add_option("--reservation-percentage", o.reservation_percentage, "share of HBM reserved: 15% or 0.15 (default)")
      ->type_name("RATIO");
  sub.add_option("--sort-by", o.sort_by, "greedy partitioner order: " + joined_names(kGreedySortByNames, " | "))
      ->type_name("KEY");
  sub.add_option("--greedy-threshold", o.greedy_threshold,
                 "stop greedy proposers after N proposals no better than the best (default: never)")
      ->type_name("N");
  sub.add_option("--time-budget", o.time_budget,
                 "optimizing partitioner: wall-clock cap of its search in seconds (default 2; the search normally "
                 "ends earlier on a work budget fixed by the model size, so the plan does not depend on the machine)")
      ->type_name("SECONDS");
  sub.add_option("--batch-size", o.batch_size, "per-rank batch size")->type_name("N");
  sub.add_option("--world-size", o.world_size, "number of ranks")->type_name("N");
  sub.add_option("--local-world-size", o.local_world_size, "ranks per host")->type_name("N");
  sub.add_option("--hbm-cap", o.hbm_cap, std::string("HBM per rank with a unit, e.g. '80GiB'; ") + kSizeUnitsNote)
      ->type_name("SIZE");
  sub.add_option("--ddr-cap", o.ddr_cap, "DDR per rank with a unit, e.g. '512GiB'")->type_name("SIZE");
}

}  // namespace shardplan::app
