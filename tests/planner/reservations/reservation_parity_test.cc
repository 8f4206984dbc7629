// Storage reservation parity: for every golden case, the reserved per-rank
// capacities and the dense/KJT figures equal torchrec's.
#include <catch2/catch.hpp>
#include <sstream>

#include "config/loader.h"
#include "planner/planner_parity_support.h"
#include "planner/reservations/storage_reservation.h"

namespace shardplan::testing {
namespace {

std::string compare_reservation(const GoldenCase& c) {
  nlohmann::json golden = load_golden(c);
  PlanningInput input = load_case(c.case_path);
  Topology topology = topology_from_golden(golden.at("topology"));
  auto reservation = make_storage_reservation(input.planner.storage_reservation);
  ReservationOutcome out = reservation->reserve(topology, input.model);
  std::ostringstream diff;
  const auto& reserved = golden.at("reserved");
  if (reserved.is_null()) {
    if (out.ok) diff << "torchrec's reservation failed, ours succeeded";
    return diff.str();
  }
  if (!out.ok) return "ours failed (" + out.message + "), torchrec reserved";
  const auto& gr = golden.at("reservation");
  const std::string policy(out.result.policy ? torchrec_name_of(kReservationPolicyNames, *out.result.policy) : "");
  if (gr.at("policy").get<std::string>() != policy)
    return "policy: " + gr.at("policy").get<std::string>() + " != " + policy;
  if (gr.contains("dense_storage")) {
    Storage dense{gr["dense_storage"]["hbm"].get<std::int64_t>(), gr["dense_storage"]["ddr"].get<std::int64_t>()};
    Storage kjt{gr["kjt_storage"]["hbm"].get<std::int64_t>(), gr["kjt_storage"]["ddr"].get<std::int64_t>()};
    if (dense != out.result.dense_storage)
      diff << "dense_storage: torchrec (" << dense.hbm << ", " << dense.ddr << ") != ours ("
           << out.result.dense_storage.hbm << ", " << out.result.dense_storage.ddr << ")";
    else if (kjt != out.result.kjt_storage)
      diff << "kjt_storage: torchrec (" << kjt.hbm << ", " << kjt.ddr << ") != ours (" << out.result.kjt_storage.hbm
           << ", " << out.result.kjt_storage.ddr << ")";
    if (!diff.str().empty()) return diff.str();
  }
  if (reserved.size() != out.result.reserved.devices.size())
    return "ranks: " + std::to_string(reserved.size()) + " != " + std::to_string(out.result.reserved.devices.size());
  for (std::size_t r = 0; r < reserved.size(); ++r) {
    Storage want{reserved[r]["hbm"].get<std::int64_t>(), reserved[r]["ddr"].get<std::int64_t>()};
    Storage got = out.result.reserved.devices[r].storage;
    if (want != got) {
      diff << "rank " << r << ": torchrec (" << want.hbm << ", " << want.ddr << ") != ours (" << got.hbm << ", "
           << got.ddr << ")";
      return diff.str();
    }
  }
  return "";
}

TEST_CASE("storage reservations match torchrec on every golden case", "[planner][reservation]") {
  check_every_case(golden_cases(), "reservation parity", compare_reservation);
}

}  // namespace
}  // namespace shardplan::testing
