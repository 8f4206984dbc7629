#include "planner/reservations/fixed_percentage.h"

#include "planner/reservations/reservation_math.h"

namespace shardplan {

ReservationOutcome FixedPercentageStorageReservation::reserve(const Topology& topology,
                                                              const ModelConfig& /*model*/) const {
  ReservationOutcome out;
  out.result.policy = ReservationPolicy::kFixedPercentage;
  out.result.percentage = percentage_;
  out.result.reserved = topology;
  reservation::reserve_percentage(out.result.reserved, percentage_);
  return out;
}

}  // namespace shardplan
