// The planner options section: proposers, partitioner, storage reservation.
#include "config/known_keys.h"
#include "config/limits.h"
#include "config/planner_names.h"
#include "config/section_readers.h"

namespace shardplan {

namespace {

template <class Node>
void read_partitioner(BasicNodeReader<Node>& r, const Node& node, const std::string& path, PartitionerOptions& out) {
  if (!r.expect_map(node, path)) return;
  r.check_keys(node, path, known_keys("partitioner"));
  with_field(r, node, path, "type", [&](const Node& n, const std::string& p) {
    assign(out.type, r.name(n, p, "partitioner", kPartitionerNames));
  });
  with_field(r, node, path, "sort_by", [&](const Node& n, const std::string& p) {
    assign(out.sort_by, r.name(n, p, "sort_by value", kGreedySortByNames));
  });
  with_field(r, node, path, "balance_modules",
             [&](const Node& n, const std::string& p) { assign(out.balance_modules, r.boolean(n, p)); });
  with_field(r, node, path, "max_search_count", [&](const Node& n, const std::string& p) {
    assign(out.max_search_count, at_most(r, n, p, r.integer(n, p, Range::kPositive), kMaxSearchCount));
  });
  with_field(r, node, path, "tolerance",
             [&](const Node& n, const std::string& p) { assign(out.tolerance, r.number(n, p, Range::kNonNegative)); });
}

template <class Node>
void read_reservation(BasicNodeReader<Node>& r, const Node& node, const std::string& path,
                      StorageReservationOptions& out) {
  if (!r.expect_map(node, path)) return;
  r.check_keys(node, path, known_keys("storage_reservation"));
  with_field(r, node, path, "policy", [&](const Node& n, const std::string& p) {
    assign(out.policy, r.name(n, p, "storage reservation policy", kReservationPolicyNames));
  });
  with_field(r, node, path, "percentage", [&](const Node& n, const std::string& p) {
    auto value = r.number(n, p);
    if (value && !is_reservation_fraction(*value)) {
      r.report(n, p, "expected a fraction in [0, 1], found " + n.Scalar());
      value.reset();
    }
    assign(out.percentage, value);
  });
  with_field(r, node, path, "parameter_multiplier", [&](const Node& n, const std::string& p) {
    assign(out.parameter_multiplier, at_most(r, n, p, r.number(n, p, Range::kNonNegative), kMaxParameterMultiplier));
  });
  with_field(r, node, path, "dense_tensor_estimate", [&](const Node& n, const std::string& p) {
    if (n.IsNull()) return;  // written out as null: "use the estimate from dense.parameters"
    out.dense_tensor_estimate = at_most(r, n, p, r.size_bytes(n, p), kMaxBytes);
  });
}

}  // namespace

template <class Node>
PlannerOptions read_planner(BasicNodeReader<Node>& r, const std::type_identity_t<Node>& node, const std::string& path) {
  PlannerOptions planner;
  if (!r.expect_map(node, path)) return planner;
  r.check_keys(node, path, known_keys("planner"));
  with_field(r, node, path, "proposers", [&](const Node& n, const std::string& p) {
    auto proposers = r.template list<ProposerKind>(
        n, p, false, [&](const Node& e, const std::string& ep) { return r.name(e, ep, "proposer", kProposerNames); });
    // An empty list is "not given": torchrec's EmbeddingShardingPlanner tests
    // `if proposer:` and falls back to its default set.
    if (proposers && !proposers->empty()) planner.proposers = std::move(*proposers);
  });
  with_field(r, node, path, "partitioner",
             [&](const Node& n, const std::string& p) { read_partitioner(r, n, p, planner.partitioner); });
  with_field(r, node, path, "storage_reservation",
             [&](const Node& n, const std::string& p) { read_reservation(r, n, p, planner.storage_reservation); });
  with_field(r, node, path, "is_inference",
             [&](const Node& n, const std::string& p) { assign(planner.is_inference, r.boolean(n, p)); });
  with_field(r, node, path, "greedy_threshold", [&](const Node& n, const std::string& p) {
    if (auto v = read_integer(r, n, p, kGreedyThresholdRule)) planner.greedy_threshold = static_cast<int>(*v);
  });
  return planner;
}

template PlannerOptions read_planner(NodeReader&, const YAML::Node&, const std::string&);
template PlannerOptions read_planner(JsonNodeReader&, const JsonNode&, const std::string&);

}  // namespace shardplan
