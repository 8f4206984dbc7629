// The resolved Topology: torchrec's defaults for capacities and bandwidths.
#include <catch2/catch.hpp>

#include "planner/constants.h"
#include "planner/topology.h"

namespace shardplan {

TEST_CASE("topology defaults are torchrec's", "[enumerator][topology]") {
  TopologyConfig config;
  config.world_size = 4;
  const Topology t = build_topology(config);
  CHECK(t.world_size == 4);
  CHECK(t.local_world_size == 4);  // defaults to world_size
  REQUIRE(t.devices.size() == 4);
  // 32 GiB HBM, 128 GiB DDR per device.
  CHECK(t.devices[3].storage == Storage{34359738368, 137438953472});
  CHECK(t.devices[3].rank == 3);
  // 897 GB/s with GB = 1024^3, per ms.
  CHECK(t.hbm_mem_bw == 897.0 * 1073741824 / 1000);
  CHECK(t.inter_host_bw == 12.5 * 1073741824 / 1000);
  CHECK(t.bwd_compute_multiplier == 2.0);
  CHECK_FALSE(t.has_custom_hbm_cap);
}

TEST_CASE("zero caps mean the default; cpu has no HBM", "[enumerator][topology]") {
  TopologyConfig config;
  config.world_size = 2;
  config.hbm_cap = 0;
  config.ddr_cap = 0;
  config.local_world_size = 0;
  Topology t = build_topology(config);
  CHECK(t.devices[0].storage == Storage{kHbmCapBytes, kDdrCapBytes});
  CHECK(t.local_world_size == 2);

  config.compute_device = ComputeDevice::kCpu;
  config.hbm_cap = std::int64_t{1} << 30;  // ignored on cpu
  t = build_topology(config);
  CHECK(t.devices[1].storage == Storage{0, kDdrCapBytes});
}

TEST_CASE("custom per-rank capacities replace the uniform ones", "[enumerator][topology]") {
  TopologyConfig config;
  config.world_size = 2;
  config.local_world_size = 1;
  config.hbm_cap = 100;
  config.custom_hbm_cap = std::vector<std::int64_t>{10, 20};
  const Topology t = build_topology(config);
  CHECK(t.num_hosts() == 2);
  CHECK(t.has_custom_hbm_cap);
  CHECK_FALSE(t.has_custom_ddr_cap);
  CHECK(t.devices[0].storage.hbm == 10);
  CHECK(t.devices[1].storage.hbm == 20);
  CHECK(t.devices[1].storage.ddr == kDdrCapBytes);
}

}  // namespace shardplan
