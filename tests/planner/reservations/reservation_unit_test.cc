// Hand-worked storage reservations on a tiny model.
#include <catch2/catch.hpp>

#include "common/units.h"  // kGiB
#include "planner/reservations/heuristical.h"
#include "planner/reservations/reservation_math.h"
#include "planner/reservations/storage_reservation.h"

namespace shardplan {
namespace {

Topology two_ranks(ComputeDevice device, std::int64_t hbm, std::int64_t ddr) {
  Topology t;
  t.world_size = 2;
  t.local_world_size = 2;
  t.compute_device = device;
  t.devices = {{0, {hbm, ddr}, {}}, {1, {hbm, ddr}, {}}};
  return t;
}

// One module with table t (1000 x 8 fp32), pooling factors [2.0, 3.0], 1000 dense fp32 params.
ModelConfig tiny_model() {
  ModelConfig m;
  m.batch_size = 512;
  ModuleConfig mod;
  mod.path = "ebc";
  mod.tables.push_back(TableConfig{"t", 1000, 8, DataType::kFp32, {"t"}, {}});
  m.modules.push_back(mod);
  m.dense.parameters = 1000;
  ParameterConstraintsConfig c;
  c.pooling_factors = {2.0, 3.0};
  m.constraints["t"] = c;
  return m;
}

TEST_CASE("heuristical reservation: percentage, then dense x multiplier, then 20 KJT copies",
          "[planner][reservation]") {
  StorageReservationOptions options;  // heuristical, 0.15, multiplier 6
  auto reservation = make_storage_reservation(options);
  ReservationOutcome out = reservation->reserve(two_ranks(ComputeDevice::kCuda, 16 * kGiB, 64 * kGiB), tiny_model());
  REQUIRE(out.ok);
  // dense: round(6 x (1000 x 4 + 8000 x 4)) - round(6 x 8000 x 4) = 24000 bytes
  CHECK(out.result.dense_storage == Storage{24000, 0});
  // kjt: ceil((2 x 512 + 3 x 512) x 8) x 20 = 20480 x 20 = 409600 bytes
  CHECK(out.result.kjt_storage == Storage{409600, 0});
  // hbm: int(0.85 x 17179869184) = 14602888806 (0.85 x 2^34 = 14602888806.4), minus both
  std::int64_t hbm = 14602888806LL - 24000 - 409600;
  for (const auto& device : out.result.reserved.devices) CHECK(device.storage == Storage{hbm, 64 * kGiB});
}

TEST_CASE("dense_tensor_estimate overrides the heuristic unless it is 0", "[planner][reservation]") {
  ModelConfig model = tiny_model();
  CHECK(reservation::dense_tensor_bytes(model, 6.0, std::int64_t{0}) == 24000);
  CHECK(reservation::dense_tensor_bytes(model, 6.0, std::int64_t{777}) == 777);
  CHECK(reservation::dense_tensor_bytes(model, 4.0, std::nullopt) == 16000);
}

TEST_CASE("on cpu the percentage reserves nothing and dense/KJT come out of DDR", "[planner][reservation]") {
  StorageReservationOptions options;
  auto reservation = make_storage_reservation(options);
  ReservationOutcome out = reservation->reserve(two_ranks(ComputeDevice::kCpu, 0, 64 * kGiB), tiny_model());
  REQUIRE(out.ok);
  CHECK(out.result.reserved.devices[1].storage == Storage{0, 64 * kGiB - 24000 - 409600});
}

TEST_CASE("fixed percentage only shrinks HBM; inference uses multiplier 1 and one KJT copy", "[planner][reservation]") {
  StorageReservationOptions fixed;
  fixed.policy = ReservationPolicy::kFixedPercentage;
  fixed.percentage = 0.5;
  auto f = make_storage_reservation(fixed)->reserve(two_ranks(ComputeDevice::kCuda, 1000, 3000), tiny_model());
  CHECK(f.result.reserved.devices[0].storage == Storage{500, 3000});
  CHECK(f.result.policy == ReservationPolicy::kFixedPercentage);

  StorageReservationOptions inference;
  inference.policy = ReservationPolicy::kInference;
  inference.percentage = 0.0;
  auto i = make_storage_reservation(inference)->reserve(two_ranks(ComputeDevice::kCuda, 10'000'000, 0), tiny_model());
  // dense 1000 x 4 = 4000; kjt ceil(2560 x 8) = 20480
  CHECK(i.result.reserved.devices[0].storage == Storage{10'000'000 - 4000 - 20480, 0});
}

TEST_CASE("heuristical reservation fails with INSUFFICIENT_STORAGE when HBM goes negative", "[planner][reservation]") {
  HeuristicalStorageReservation r(0.15, 6.0, std::int64_t{1'000'000});
  ReservationOutcome out = r.reserve(two_ranks(ComputeDevice::kCuda, 1'000'000, 0), tiny_model());
  CHECK_FALSE(out.ok);
  CHECK(out.error_type == PlannerErrorType::kInsufficientStorage);
}

TEST_CASE("every reservation policy of the name table makes the reservation of its torchrec class",
          "[planner][reservation]") {
  for (const auto& entry : kReservationPolicyNames) {
    StorageReservationOptions options;
    options.policy = entry.value;
    ReservationOutcome out =
        make_storage_reservation(options)->reserve(two_ranks(ComputeDevice::kCuda, 10'000'000, 0), tiny_model());
    INFO(entry.name);
    REQUIRE(out.result.policy.has_value());
    CHECK(*out.result.policy == entry.value);
    CHECK(parse_torchrec_name(kReservationPolicyNames, entry.torchrec_name) == entry.value);
  }
}

}  // namespace
}  // namespace shardplan
