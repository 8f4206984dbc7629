// torchrec's StorageReservation stage: takes HBM/DDR away from every rank for the
// model's dense part and the KJT inputs before the sharded tables are placed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "config/config.h"
#include "planner/types.h"

namespace shardplan {

// The reservation of policy options.policy (named in config/planner_names.h's
// kReservationPolicyNames) with its percentage / parameter_multiplier /
// dense_tensor_estimate.
std::unique_ptr<StorageReservation> make_storage_reservation(const StorageReservationOptions& options);

}  // namespace shardplan
