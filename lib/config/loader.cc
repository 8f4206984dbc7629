// loader.h: files in, validated typed structs out (or InputError with every problem).
#include "config/loader.h"

#include <algorithm>

#include "config/known_keys.h"
#include "config/section_readers.h"
#include "document/document.h"

namespace shardplan {

namespace {

using Node = YAML::Node;

ModelConfig model_of(const Document& doc, NodeReader& r) { return read_model(r, doc.root, ""); }

PlanningInput case_of(const Document& doc, NodeReader& r) {
  PlanningInput input;
  input.source = doc.file;
  if (!r.expect_map(doc.root, "")) return input;
  r.check_keys(doc.root, "", known_keys("case"));
  if (Node n = r.field(doc.root, "", "model", true); n.IsDefined()) input.model = read_model(r, n, "model");
  if (Node n = r.field(doc.root, "", "topology", true); n.IsDefined()) input.topology = read_topology(r, n, "topology");
  // The case's own planner key wins over a `planner:` inside its model.
  if (Node n = r.field(doc.root, "", "planner"); n.IsDefined())
    input.planner = read_planner(r, n, "planner");
  else if (input.model.planner)
    input.planner = *input.model.planner;
  return input;
}

// The kind whose known top-level keys best match the file's; nullopt when none
// or a tie. A `model` or `topology` key always means a case file.
std::optional<InputKind> detect_kind(const Node& root) {
  if (!root.IsMap()) return std::nullopt;
  std::vector<std::string> keys;
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it->first.IsScalar()) keys.push_back(it->first.Scalar());
  auto has = [&](std::string_view key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
  if (has("model") || has("topology")) return InputKind::kCase;
  if (has("world_size")) return InputKind::kTopology;
  if (has("modules")) return InputKind::kModel;
  const std::pair<InputKind, const char*> kinds[] = {
      {InputKind::kModel, "model"}, {InputKind::kTopology, "topology"}, {InputKind::kPlanner, "planner"}};
  std::optional<InputKind> best;
  int best_count = 0;
  bool tie = false;
  for (const auto& [kind, section] : kinds) {
    int count = 0;
    for (const auto& key : known_keys(section)) count += has(key) ? 1 : 0;
    if (count > best_count) {
      best = kind;
      best_count = count;
      tie = false;
    } else if (count == best_count && count > 0) {
      tie = true;
    }
  }
  if (tie) return std::nullopt;
  return best;
}

InputKind validate_document(const Document& doc, std::optional<InputKind> forced);

}  // namespace

namespace {
// Reads one file with `read` and throws every problem found, or returns the value.
// A JSON file is first read without source positions (fast); only when that
// finds a problem is it read again with them, so messages keep file:line:col.
template <typename Read, typename Parse>
auto load_parsed_with(Parse parse, Read read) {
  auto read_all = [&](const Document& doc) {
    NodeReader r(doc.file);
    auto value = read(doc, r);
    r.throw_if_any();
    return value;
  };
  const Document fast = parse(Positions::kOptional);
  if (fast.has_positions) return read_all(fast);
  try {
    return read_all(fast);
  } catch (const InputError&) {
    // Same problems, now with their positions.
  }
  return read_all(parse(Positions::kNeeded));
}

template <typename Read>
auto load_with(const std::string& path, Read read) {
  return load_parsed_with([&](Positions positions) { return read_document(path, positions); }, read);
}
}  // namespace

ModelConfig load_model(const std::string& path) {
  return load_with(path, [](const Document& doc, NodeReader& r) { return model_of(doc, r); });
}

TopologyConfig load_topology(const std::string& path) {
  return load_with(path, [](const Document& doc, NodeReader& r) { return read_topology(r, doc.root, ""); });
}

PlannerOptions load_planner(const std::string& path) {
  return load_with(path, [](const Document& doc, NodeReader& r) { return read_planner(r, doc.root, ""); });
}

PlanningInput load_case(const std::string& path) {
  return load_with(path, [](const Document& doc, NodeReader& r) { return case_of(doc, r); });
}

PlanningInput load_case_text(const std::string& file, std::string_view text) {
  return load_parsed_with([&](Positions positions) { return parse_document(file, text, positions); },
                          [](const Document& doc, NodeReader& r) { return case_of(doc, r); });
}

PlanningInput load_inputs(const std::string& model_path, const std::string& topology_path,
                          const std::optional<std::string>& planner_path) {
  // Every file is read even when an earlier one has problems, so one run reports all.
  std::vector<Diagnostic> problems;
  PlanningInput input;
  auto collect = [&](auto&& load) {
    try {
      load();
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  };
  collect([&] { input.model = load_model(model_path); });
  collect([&] { input.topology = load_topology(topology_path); });
  if (planner_path)
    collect([&] { input.planner = load_planner(*planner_path); });
  else if (input.model.planner)
    input.planner = *input.model.planner;
  if (!problems.empty()) throw InputError(std::move(problems));
  input.source = model_path + ", " + topology_path + (planner_path ? ", " + *planner_path : "");
  return input;
}

InputKind validate_file(const std::string& path, std::optional<InputKind> forced) {
  return validate_document(read_document(path), forced);
}

InputKind validate_text(const std::string& file, std::string_view text, std::optional<InputKind> forced) {
  return validate_document(parse_document(file, text), forced);
}

namespace {
InputKind validate_document(const Document& doc, std::optional<InputKind> forced) {
  NodeReader r(doc.file);
  std::optional<InputKind> kind = forced ? forced : detect_kind(doc.root);
  if (!kind) {
    if (!doc.root.IsMap())
      throw InputError(r.pos(doc.root), "", "expected a mapping of keys, found " + NodeReader::describe(doc.root));
    throw InputError(r.pos(doc.root), "",
                     "cannot tell what this file holds: expected top-level keys model and topology (case), "
                     "modules (model), world_size (topology) or proposers/partitioner/storage_reservation "
                     "(planner); use --kind to say");
  }
  switch (*kind) {
    case InputKind::kModel:
      (void)model_of(doc, r);
      break;
    case InputKind::kTopology:
      (void)read_topology(r, doc.root, "");
      break;
    case InputKind::kPlanner:
      (void)read_planner(r, doc.root, "");
      break;
    case InputKind::kCase:
      (void)case_of(doc, r);
      break;
  }
  r.throw_if_any();
  return *kind;
}

}  // namespace

}  // namespace shardplan
