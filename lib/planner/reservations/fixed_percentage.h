// torchrec's FixedPercentageStorageReservation: only a share of HBM is reserved.
#pragma once

#include "planner/reservations/storage_reservation.h"

namespace shardplan {

// Reserves `percentage` of every rank's HBM and nothing else (dense parameters and
// KJT inputs are ignored, as in torchrec).
class FixedPercentageStorageReservation final : public StorageReservation {
 public:
  explicit FixedPercentageStorageReservation(double percentage) : percentage_(percentage) {}
  ReservationOutcome reserve(const Topology& topology, const ModelConfig& model) const override;

 private:
  double percentage_;
};

}  // namespace shardplan
