#include "planner/reservations/storage_reservation.h"

#include <stdexcept>

#include "config/planner_names.h"

#include "planner/reservations/fixed_percentage.h"
#include "planner/reservations/heuristical.h"
#include "planner/reservations/inference.h"

namespace shardplan {

std::unique_ptr<StorageReservation> make_storage_reservation(const StorageReservationOptions& options) {
  switch (options.policy) {
    case ReservationPolicy::kHeuristical:
      return std::make_unique<HeuristicalStorageReservation>(options.percentage, options.parameter_multiplier,
                                                             options.dense_tensor_estimate);
    case ReservationPolicy::kFixedPercentage:
      return std::make_unique<FixedPercentageStorageReservation>(options.percentage);
    case ReservationPolicy::kInference:
      return std::make_unique<InferenceStorageReservation>(options.percentage, options.dense_tensor_estimate);
  }
  return nullptr;  // unreachable: the switch covers every policy (-Wswitch)
}

}  // namespace shardplan
