// torchrec's StorageReservation stage: takes HBM/DDR away from every rank for the
// model's dense part and the KJT inputs before the sharded tables are placed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "config/config.h"
#include "planner/types.h"

namespace shardplan {

// A reservation's answer: the reserved topology, or why none exists (torchrec
// raises PlannerError INSUFFICIENT_STORAGE when HBM goes negative).
struct ReservationOutcome {
  bool ok = true;
  ReservationResult result;  // filled also on failure (dense/kjt figures)
  PlannerErrorType error_type = PlannerErrorType::kInsufficientStorage;
  std::string message;
};

// torchrec's StorageReservation: given the full topology and the model, returns
// the capacities left per rank for the sharded tables. Must not mutate its inputs.
class StorageReservation {
 public:
  virtual ~StorageReservation() = default;
  virtual ReservationOutcome reserve(const Topology& topology, const ModelConfig& model) const = 0;
};

// The reservation of policy options.policy (named in config/planner_names.h's
// kReservationPolicyNames) with its percentage / parameter_multiplier /
// dense_tensor_estimate.
std::unique_ptr<StorageReservation> make_storage_reservation(const StorageReservationOptions& options);

}  // namespace shardplan
