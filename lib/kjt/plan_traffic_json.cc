#include "kjt/plan_traffic_json.h"

#include <nlohmann/json.hpp>

#include "common/json_object.h"

namespace shardplan::kjt {

namespace {

using Json = nlohmann::ordered_json;

// Bytes sent and received by one rank, split by where the peer is.
struct RankTraffic {
  double sent = 0, received = 0;
  double cross_host_sent = 0, cross_host_received = 0;
  double intra_host_sent = 0, intra_host_received = 0;  // same host, another rank
};

Json collective_json(const ExpectedCollective& c, std::int64_t local_world_size, std::vector<RankTraffic>& ranks) {
  const double size = static_cast<double>(element_bytes(c.dtype));
  Json bytes = Json::array();
  double total = 0, cross_rank = 0, cross_host = 0;
  for (std::size_t s = 0; s < c.elements.size(); ++s) {
    Json row = Json::array();
    for (std::size_t d = 0; d < c.elements[s].size(); ++d) {
      double b = c.elements[s][d] * size;
      row.push_back(b);
      total += b;
      ranks[s].sent += b;
      ranks[d].received += b;
      if (s == d) continue;
      cross_rank += b;
      bool same_host =
          static_cast<std::int64_t>(s) / local_world_size == static_cast<std::int64_t>(d) / local_world_size;
      if (same_host) {
        ranks[s].intra_host_sent += b;
        ranks[d].intra_host_received += b;
      } else {
        cross_host += b;
        ranks[s].cross_host_sent += b;
        ranks[d].cross_host_received += b;
      }
    }
    bytes.push_back(std::move(row));
  }
  return json_object("phase", c.phase, "name", c.name, "dtype", std::string(name_of(kDtypeNames, c.dtype)), "elements",
                     c.elements, "bytes", std::move(bytes), "total_bytes", total, "cross_rank_bytes", cross_rank,
                     "cross_host_bytes", cross_host, "intra_host_bytes", cross_rank - cross_host);
}

}  // namespace

std::string plan_traffic_json(const PlanTrafficInput& input, const PlanTrafficResult& result) {
  std::vector<RankTraffic> ranks(static_cast<std::size_t>(input.world_size));
  Json groups = Json::array();
  for (const InputDistGroup& g : result.groups) {
    Json collectives = Json::array();
    for (const ExpectedCollective& c : g.collectives)
      collectives.push_back(collective_json(c, input.local_world_size, ranks));
    groups.push_back(json_object("module", g.module_path, "sharding_type",
                                 std::string(name_of(kShardingTypeNames, g.sharding_type)), "feature_layout",
                                 g.feature_layout, "collectives", std::move(collectives)));
  }
  Json rank_bytes = Json::array();
  double total = 0, cross_host = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankTraffic& t = ranks[r];
    total += t.sent;
    cross_host += t.cross_host_sent;
    rank_bytes.push_back(json_object("rank", r, "host", static_cast<std::int64_t>(r) / input.local_world_size,
                                     "sent_bytes", t.sent, "received_bytes", t.received, "intra_host_sent_bytes",
                                     t.intra_host_sent, "intra_host_received_bytes", t.intra_host_received,
                                     "cross_host_sent_bytes", t.cross_host_sent, "cross_host_received_bytes",
                                     t.cross_host_received));
  }
  Json doc = json_object("mode", "plan", "world_size", input.world_size, "local_world_size", input.local_world_size,
                         "batch_size", input.batch_size, "protocol",
                         std::string(name_of(kProtocolNames, input.protocol)), "total_bytes", total, "cross_host_bytes",
                         cross_host, "groups", std::move(groups), "rank_bytes", std::move(rank_bytes));
  return doc.dump() + "\n";
}

}  // namespace shardplan::kjt
