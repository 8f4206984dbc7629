// torchrec's InferenceStorageReservation: percentage margin + dense part + one KJT.
#pragma once

#include <cstdint>
#include <optional>

#include "planner/reservations/storage_reservation.h"

namespace shardplan {

// Like the heuristical reservation with multiplier 1 for the dense parameters and
// a single copy of the KJT input; never fails.
class InferenceStorageReservation final : public StorageReservation {
 public:
  InferenceStorageReservation(double percentage, std::optional<std::int64_t> dense_tensor_estimate)
      : percentage_(percentage), dense_tensor_estimate_(dense_tensor_estimate) {}
  ReservationOutcome reserve(const Topology& topology, const ModelConfig& model) const override;

 private:
  double percentage_;
  std::optional<std::int64_t> dense_tensor_estimate_;
};

}  // namespace shardplan
