// The topology section: world and host sizes, device, capacities, bandwidths.
#include "config/known_keys.h"
#include "config/limits.h"
#include "config/section_readers.h"

namespace shardplan {

namespace {

// custom.hbm_cap / custom.ddr_cap: one size per rank.
template <class Node>
void read_custom(BasicNodeReader<Node>& r, const Node& node, const std::string& path, TopologyConfig& topology) {
  if (!r.expect_map(node, path)) return;
  r.check_keys(node, path, known_keys("custom"));
  auto read_caps = [&](std::string_view key, std::optional<std::vector<std::int64_t>>& out) {
    with_field(r, node, path, key, [&](const Node& n, const std::string& p) {
      out = r.template list<std::int64_t>(n, p, true, [&](const Node& e, const std::string& ep) {
        return at_most(r, e, ep, r.size_bytes(e, ep), kMaxBytes);
      });
      if (out && topology.world_size > 0 && static_cast<std::int64_t>(out->size()) != topology.world_size) {
        r.report(n, p,
                 "expected " + std::to_string(topology.world_size) + " entries (one per rank, world_size), found " +
                     std::to_string(out->size()));
      }
    });
  };
  read_caps("hbm_cap", topology.custom_hbm_cap);
  read_caps("ddr_cap", topology.custom_ddr_cap);
}

}  // namespace

template <class Node>
TopologyConfig read_topology(BasicNodeReader<Node>& r, const std::type_identity_t<Node>& node,
                             const std::string& path) {
  TopologyConfig topology;
  if (!r.expect_map(node, path)) return topology;
  r.check_keys(node, path, known_keys("topology"));
  if (Node n = r.field(node, path, "world_size", true); n.IsDefined())
    assign(topology.world_size, read_integer(r, n, join_key(path, "world_size"), kWorldSizeRule));
  with_field(r, node, path, "local_world_size", [&](const Node& n, const std::string& p) {
    // torchrec's Topology takes any value: 0 means world_size, and one that does
    // not divide world_size (or exceeds it) gives world_size // local_world_size
    // hosts to the host-based sharding types (partitioners.py
    // GreedyPerfPartitioner._get_host_level_devices); the planner follows that.
    topology.local_world_size = read_integer(r, n, p, kLocalWorldSizeRule);
  });
  with_field(r, node, path, "compute_device", [&](const Node& n, const std::string& p) {
    assign(topology.compute_device, r.name(n, p, "device", kComputeDeviceNames));
  });
  with_field(r, node, path, "hbm_cap", [&](const Node& n, const std::string& p) {
    topology.hbm_cap = at_most(r, n, p, r.size_bytes(n, p), kDeviceBytesRule.max);
  });
  with_field(r, node, path, "ddr_cap", [&](const Node& n, const std::string& p) {
    topology.ddr_cap = at_most(r, n, p, r.size_bytes(n, p), kDeviceBytesRule.max);
  });
  auto read_bw = [&](std::string_view key, std::optional<double>& out) {
    with_field(r, node, path, key, [&](const Node& n, const std::string& p) { out = r.bandwidth(n, p); });
  };
  read_bw("hbm_mem_bw", topology.hbm_mem_bw);
  read_bw("ddr_mem_bw", topology.ddr_mem_bw);
  read_bw("hbm_to_ddr_mem_bw", topology.hbm_to_ddr_mem_bw);
  read_bw("intra_host_bw", topology.intra_host_bw);
  read_bw("inter_host_bw", topology.inter_host_bw);
  auto read_multiplier = [&](std::string_view key, std::optional<double>& out) {
    with_field(r, node, path, key,
               [&](const Node& n, const std::string& p) { out = r.number(n, p, Range::kPositive); });
  };
  read_multiplier("bwd_compute_multiplier", topology.bwd_compute_multiplier);
  read_multiplier("weighted_feature_bwd_compute_multiplier", topology.weighted_feature_bwd_compute_multiplier);
  read_multiplier("uneven_sharding_perf_multiplier", topology.uneven_sharding_perf_multiplier);
  with_field(r, node, path, "custom", [&](const Node& n, const std::string& p) { read_custom(r, n, p, topology); });
  return topology;
}

template TopologyConfig read_topology(NodeReader&, const YAML::Node&, const std::string&);
template TopologyConfig read_topology(JsonNodeReader&, const JsonNode&, const std::string&);

}  // namespace shardplan
