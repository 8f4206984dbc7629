// torchrec's HeuristicalStorageReservation: percentage margin + dense part + KJT inputs.
#pragma once

#include <cstdint>
#include <optional>

#include "planner/reservations/storage_reservation.h"

namespace shardplan {

// Reserves, per rank: `percentage` of HBM, then parameter_multiplier x the dense
// parameter bytes (or dense_tensor_estimate), then 20 copies of the KJT input
// (2 pipelined batches x 10 internal copies). Fails with INSUFFICIENT_STORAGE when
// rank 0's HBM goes negative.
class HeuristicalStorageReservation final : public StorageReservation {
 public:
  HeuristicalStorageReservation(double percentage, double parameter_multiplier,
                                std::optional<std::int64_t> dense_tensor_estimate)
      : percentage_(percentage),
        parameter_multiplier_(parameter_multiplier),
        dense_tensor_estimate_(dense_tensor_estimate) {}
  ReservationOutcome reserve(const Topology& topology, const ModelConfig& model) const override;

 private:
  double percentage_;
  double parameter_multiplier_;
  std::optional<std::int64_t> dense_tensor_estimate_;
};

}  // namespace shardplan
