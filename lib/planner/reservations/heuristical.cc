#include "planner/reservations/heuristical.h"

#include <fmt/format.h>

#include "planner/reservations/reservation_math.h"

namespace shardplan {

namespace {
// torchrec: "2 pipelined batches each with 10 internal copies".
constexpr std::int64_t kKjtCopies = 20;
}  // namespace

ReservationOutcome HeuristicalStorageReservation::reserve(const Topology& topology, const ModelConfig& model) const {
  ReservationOutcome out;
  ReservationResult& r = out.result;
  r.policy = ReservationPolicy::kHeuristical;
  r.percentage = percentage_;
  r.parameter_multiplier = parameter_multiplier_;
  r.reserved = topology;
  // torchrec's order: percentage first, then dense, then KJT.
  reservation::reserve_percentage(r.reserved, percentage_);
  r.dense_storage = reservation::reserve_per_rank(
      r.reserved, reservation::dense_tensor_bytes(model, parameter_multiplier_, dense_tensor_estimate_));
  r.kjt_storage = reservation::reserve_per_rank(r.reserved, reservation::kjt_bytes(model, kKjtCopies));
  // torchrec checks rank 0 only.
  if (!r.reserved.devices.empty() && r.reserved.devices[0].storage.hbm < 0) {
    out.ok = false;
    out.error_type = PlannerErrorType::kInsufficientStorage;
    out.message = fmt::format(
        "the reserved topology has negative hbm ({} bytes) after reserving {}% of hbm, "
        "{} bytes for the dense part and {} bytes for kjt inputs per rank",
        r.reserved.devices[0].storage.hbm, percentage_ * 100, r.dense_storage.hbm, r.kjt_storage.hbm);
  }
  return out;
}

}  // namespace shardplan
