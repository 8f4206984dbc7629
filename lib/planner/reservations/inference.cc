#include "planner/reservations/inference.h"

#include "planner/reservations/reservation_math.h"

namespace shardplan {

ReservationOutcome InferenceStorageReservation::reserve(const Topology& topology, const ModelConfig& model) const {
  ReservationOutcome out;
  ReservationResult& r = out.result;
  r.policy = ReservationPolicy::kInference;
  r.percentage = percentage_;
  r.reserved = topology;
  reservation::reserve_percentage(r.reserved, percentage_);
  r.dense_storage =
      reservation::reserve_per_rank(r.reserved, reservation::dense_tensor_bytes(model, 1.0, dense_tensor_estimate_));
  r.kjt_storage = reservation::reserve_per_rank(r.reserved, reservation::kjt_bytes(model, 1));
  return out;
}

}  // namespace shardplan
