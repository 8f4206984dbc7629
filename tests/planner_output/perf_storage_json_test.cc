// One writer of Perf and Storage JSON: its key order, and the two orders kept for
// outputs whose bytes must not change.
#include <catch2/catch.hpp>

#include "planner_output/options_json.h"
#include "planner_output/perf_storage_json.h"

namespace shardplan {
namespace {

TEST_CASE("perf and storage JSON: one key order, total placed as asked", "[output]") {
  const Perf perf{1.0, 2.0, 3.0, 4.0, 0.5};
  CHECK(perf_json(perf).dump() ==
        R"({"fwd_compute":1.0,"fwd_comms":2.0,"bwd_compute":3.0,"bwd_comms":4.0,"prefetch_compute":0.5,"total":10.5})");
  CHECK(perf_json(perf, PerfTotal::kFirst).dump() ==
        R"({"total":10.5,"fwd_compute":1.0,"fwd_comms":2.0,"bwd_compute":3.0,"bwd_comms":4.0,"prefetch_compute":0.5})");
  CHECK(perf_json(perf, PerfTotal::kNone).dump() ==
        R"({"fwd_compute":1.0,"fwd_comms":2.0,"bwd_compute":3.0,"bwd_comms":4.0,"prefetch_compute":0.5})");
  CHECK(storage_json(Storage{7, 9}).dump() == R"({"hbm":7,"ddr":9})");
  // enumerate's objects keep their alphabetical key order.
  CHECK(perf_to_json(perf, true).dump() ==
        R"({"bwd_comms":4.0,"bwd_compute":3.0,"fwd_comms":2.0,"fwd_compute":1.0,"prefetch_compute":0.5,"total":10.5})");
  CHECK(storage_to_json(Storage{7, 9}).dump() == R"({"ddr":9,"hbm":7})");
}

}  // namespace
}  // namespace shardplan
