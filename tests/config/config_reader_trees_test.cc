// A JSON model, topology, planner or case file is read from the compact JSON tree
// (document/json_value_tree.h); before, it was read from the yaml-cpp tree that
// parse_document still builds of it (from the same parser events). The readers
// are one template over both trees, so every input, intact or damaged, must read
// the same from either: equal values, or the same messages (file:line:col, key
// path, expected, did-you-mean) in the same order.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "common/error.h"
#include "config/canonical_input.h"
#include "config/config_test_util.h"
#include "config/loader.h"
#include "config/section_readers.h"
#include "document/document.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

using nlohmann::ordered_json;

// A case that sets every key the readers know, so that damage reaches each of them.
ordered_json reader_trees_full_case() {
  return ordered_json::parse(R"({
  "model": {
    "name": "trees", "batch_size": 256,
    "modules": [
      {"path": "sparse.ebc", "kind": "embedding_bag", "tables": [
        {"name": "t_user", "num_embeddings": 100000, "embedding_dim": 64, "data_type": "fp16",
         "feature_names": ["f_user", "f_user2"]},
        {"name": "t_item", "num_embeddings": 5000, "embedding_dim": 32}]},
      {"path": "sparse.ec", "kind": "embedding", "tables": [
        {"name": "t_seq", "num_embeddings": 7000, "embedding_dim": 16}]}
    ],
    "dense": {"parameters": 1000000, "data_type": "fp32"},
    "constraints": {
      "t_user": {"sharding_types": ["table_wise", "row_wise"], "compute_kernels": ["fused", "fused_uvm_caching"],
                 "min_partition": 8, "pooling_factors": [2.0, 3.5], "num_poolings": [1.0, 1.0],
                 "batch_sizes": [256, 128], "is_weighted": true,
                 "cache_params": {"load_factor": 0.2, "algorithm": "lru", "reserved_memory": 1.5,
                                  "precision": "fp16", "prefetch_pipeline": false},
                 "enforce_hbm": true, "stochastic_rounding": false, "bounds_check_mode": "warning",
                 "output_dtype": "fp32", "device_group": "cuda"},
      "t_seq": {"pooling_factors": [4.0]}
    },
    "planner": {"proposers": ["uniform"]}
  },
  "topology": {"world_size": 4, "local_world_size": 2, "compute_device": "cuda", "hbm_cap": "16 GiB",
               "ddr_cap": 68719476736, "hbm_mem_bw": "900 GB/s", "ddr_mem_bw": 51e9, "hbm_to_ddr_mem_bw": 32e9,
               "intra_host_bw": 6e11, "inter_host_bw": 12.5e9, "bwd_compute_multiplier": 2,
               "weighted_feature_bwd_compute_multiplier": 1, "uneven_sharding_perf_multiplier": 1.5,
               "custom": {"hbm_cap": ["16 GiB", "16 GiB", "8 GiB", "8 GiB"], "ddr_cap": [1, 2, 3, 4]}},
  "planner": {"proposers": ["greedy", "grid_search"],
              "partitioner": {"type": "memory_balanced", "sort_by": "perf", "balance_modules": true,
                              "max_search_count": 10, "tolerance": 0.02},
              "storage_reservation": {"policy": "heuristical", "percentage": 0.15, "parameter_multiplier": 6,
                                      "dense_tensor_estimate": null},
              "is_inference": false, "greedy_threshold": 3}
})");
}

// What reading `text` as a case gives: its canonical input text, or the messages.
template <typename Read>
std::string reader_trees_outcome(Read read) {
  try {
    const PlanningInput input = read();
    return "ok " + input.source + "\n" + canonical_input_text(input);
  } catch (const InputError& e) {
    return e.format();
  }
}

// The reading before: parse_document's yaml-cpp tree of the JSON text.
std::string case_from_yaml_tree(const std::string& file, const std::string& text) {
  return reader_trees_outcome([&] {
    const Document doc = parse_document(file, text);
    NodeReader r(doc.file);
    PlanningInput input = read_case(r, doc.root, doc.file);
    r.throw_if_any();
    return input;
  });
}

// The reading now: load_case_text reads JSON into the compact tree.
std::string case_from_compact_tree(const std::string& file, const std::string& text) {
  return reader_trees_outcome([&] { return load_case_text(file, text); });
}

// The JSON pointers of every value in `doc`, the root's included.
void reader_trees_pointers(const ordered_json& doc, const ordered_json::json_pointer& at,
                           std::vector<ordered_json::json_pointer>& out) {
  out.push_back(at);
  if (doc.is_object())
    for (const auto& [key, value] : doc.items()) reader_trees_pointers(value, at / key, out);
  if (doc.is_array())
    for (std::size_t i = 0; i < doc.size(); ++i) reader_trees_pointers(doc[i], at / i, out);
}

// Every damaged variant of `doc`: each value replaced by values of each kind, each
// key removed, each mapping given a misspelt key, and the text cut short or with a
// byte changed (syntax errors).
std::vector<std::string> damaged_texts(const ordered_json& doc) {
  std::vector<ordered_json::json_pointer> pointers;
  reader_trees_pointers(doc, ordered_json::json_pointer(), pointers);
  const ordered_json replacements[] = {ordered_json(-1),
                                       ordered_json(0),
                                       ordered_json("x"),
                                       ordered_json(""),
                                       ordered_json(nullptr),
                                       ordered_json::array({1}),
                                       ordered_json::object(),
                                       ordered_json(2.5),
                                       ordered_json(1e300),
                                       ordered_json(true),
                                       ordered_json(std::int64_t{1} << 62),
                                       ordered_json("16 GiB")};
  std::vector<std::string> out;
  for (const auto& at : pointers) {
    for (const ordered_json& replacement : replacements) {
      ordered_json damaged = doc;
      damaged[at] = replacement;
      out.push_back(damaged.dump(1));
    }
    if (at.empty()) continue;
    ordered_json removed = doc;
    ordered_json& parent = removed[at.parent_pointer()];
    if (parent.is_object())
      parent.erase(at.back());
    else
      parent.erase(std::stoul(at.back()));
    out.push_back(removed.dump(1));
    if (doc[at].is_object() && !doc[at].empty()) {
      ordered_json misspelt = doc;
      const std::string first = doc[at].begin().key();
      misspelt[at][first.substr(0, first.size() - 1) + "z"] = 1;  // one letter off: did you mean
      out.push_back(misspelt.dump(1));
    }
  }
  const std::string text = doc.dump(1);
  for (std::size_t cut = 0; cut < text.size(); cut += 41) out.push_back(text.substr(0, cut));
  std::mt19937 random(20261127);
  const char bytes[] = {'}', ']', ',', ':', '"', 'x', '\n', '{'};
  for (int i = 0; i < 60; ++i) {
    std::string changed = text;
    changed[random() % changed.size()] = bytes[random() % sizeof bytes];
    out.push_back(changed);
  }
  // A key twice in one mapping (nlohmann keeps one, so in the text).
  std::string twice = text;
  const std::string item = "\"name\": \"t_item\"";
  if (const std::size_t at = twice.find(item); at != std::string::npos)
    twice.replace(at, item.size(), item + ", \"name\": \"t_again\"");
  out.push_back(twice);
  return out;
}

}  // namespace

TEST_CASE("JSON config readers: a damaged case reads the same from either tree", "[config][trees]") {
  const std::vector<std::string> texts = damaged_texts(reader_trees_full_case());
  REQUIRE(texts.size() > 800);
  int failed = 0;
  int with_suggestion = 0;
  for (const std::string& text : texts) {
    const std::string before = case_from_yaml_tree("case.json", text);
    INFO(text);
    CHECK(case_from_compact_tree("case.json", text) == before);
    failed += before.rfind("ok ", 0) == 0 ? 0 : 1;
    with_suggestion += before.find("did you mean") != std::string::npos ? 1 : 0;
  }
  // Most damage is refused, with messages of every kind (the comparison is not
  // only between two "ok"s), and the intact case reads as a case.
  CHECK(failed > static_cast<int>(texts.size()) * 3 / 4);
  CHECK(with_suggestion > 20);
  CHECK(case_from_compact_tree("case.json", reader_trees_full_case().dump(1)).rfind("ok case.json\n", 0) == 0);
}

TEST_CASE("JSON config readers: the quickstart case reads the same from either tree", "[config][trees]") {
  const std::string text = slurp(kQuickstartConfig);
  const std::string before = case_from_yaml_tree("quickstart.json", text);
  REQUIRE(before.rfind("ok quickstart.json\n", 0) == 0);
  CHECK(case_from_compact_tree("quickstart.json", text) == before);
}

TEST_CASE("JSON config readers: model, topology and planner files read the same from either tree", "[config][trees]") {
  const ordered_json full = reader_trees_full_case();
  struct Section {
    const char* key;
    std::function<void(const std::string&)> load;  // the loader of such a file (compact tree)
    std::function<void(NodeReader&, const YAML::Node&)> read;
  };
  const Section sections[] = {
      {"model", [](const std::string& p) { (void)load_model(p); },
       [](NodeReader& r, const YAML::Node& n) { (void)read_model(r, n, ""); }},
      {"topology", [](const std::string& p) { (void)load_topology(p); },
       [](NodeReader& r, const YAML::Node& n) { (void)read_topology(r, n, ""); }},
      {"planner", [](const std::string& p) { (void)load_planner(p); },
       [](NodeReader& r, const YAML::Node& n) { (void)read_planner(r, n, ""); }},
  };
  int failed = 0;
  for (const Section& section : sections) {
    const std::string name = std::string("trees-") + section.key + ".json";
    std::vector<std::string> texts = damaged_texts(full[section.key]);
    for (std::size_t i = 0; i < texts.size(); i += 3) {  // every third: the case test covers the rest
      const std::string& text = texts[i];
      const std::string path = write_scratch(name, text);
      const std::vector<std::string> now = problems_of([&] { section.load(path); });
      const std::vector<std::string> before = problems_of([&] {
        const Document doc = parse_document(path, text);
        NodeReader r(doc.file);
        section.read(r, doc.root);
        r.throw_if_any();
      });
      INFO(section.key << ": " << text);
      CHECK(now == before);
      failed += before.empty() ? 0 : 1;
    }
  }
  CHECK(failed > 300);
}

TEST_CASE("JSON config readers: validate recognises a JSON file's kind as before", "[config][trees]") {
  // validate_text reads .json into the compact tree and .yaml into yaml-cpp's; JSON
  // text is YAML too, so the kind (or the message) is the same.
  const ordered_json full = reader_trees_full_case();
  const std::string texts[] = {full.dump(1),
                               full["model"].dump(1),
                               full["topology"].dump(1),
                               full["planner"].dump(1),
                               R"({"tolerance": 1})",
                               R"({"name": "m", "world_size": 2, "proposers": []})",
                               R"({"nothing": 1})",
                               R"([1, 2])",
                               R"({"partitioner": {}, "name": "x"})"};
  auto outcome = [](const std::string& file, const std::string& text) {
    try {
      return std::string(name_of(kInputKindNames, validate_text(file, text, std::nullopt)));
    } catch (const InputError& e) {
      std::string out = e.format();
      for (std::size_t at; (at = out.find(file)) != std::string::npos;) out.replace(at, file.size(), "FILE");
      return out;
    }
  };
  int kinds = 0;
  for (const std::string& text : texts) {
    INFO(text);
    const std::string before = outcome("kind.yaml", text);
    CHECK(outcome("kind.json", text) == before);
    kinds += before.find("FILE") == std::string::npos ? 1 : 0;  // a kind, not a message
  }
  CHECK(kinds >= 4);
}

}  // namespace shardplan::testing
