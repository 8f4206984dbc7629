// The JSON fast path builds the very node tree yaml-cpp builds of the same text
// (types, tags, scalars as written, key order, duplicate keys): the config
// readers then cannot tell which parser read a file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/document.h"
#include "config/json_tree.h"

using namespace shardplan;

namespace {

// "" when equal, else the path of the first difference and what differs.
std::string difference(const YAML::Node& a, const YAML::Node& b, const std::string& path) {
  if (a.Type() != b.Type()) return path + ": node type";
  if (a.Tag() != b.Tag()) return path + ": tag '" + a.Tag() + "' vs '" + b.Tag() + "'";
  if (a.IsScalar()) return a.Scalar() == b.Scalar() ? "" : path + ": '" + a.Scalar() + "' vs '" + b.Scalar() + "'";
  if (a.size() != b.size()) return path + ": size";
  if (a.IsSequence()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (auto d = difference(a[i], b[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
  } else if (a.IsMap()) {
    auto i = a.begin();
    auto j = b.begin();
    for (; i != a.end(); ++i, ++j) {
      if (auto d = difference(i->first, j->first, path + " key"); !d.empty()) return d;
      if (auto d = difference(i->second, j->second, path + "." + i->first.Scalar()); !d.empty()) return d;
    }
  }
  return "";
}

std::string fast_vs_yaml(const std::string& text) {
  YAML::Node fast;
  auto error = build_json_tree(text, fast);
  if (error) return "syntax error at " + std::to_string(error->offset) + ": " + error->message;
  return difference(YAML::Load(text), fast, "$");
}

}  // namespace

TEST_CASE("the JSON fast path builds yaml-cpp's tree for every kind of value", "[config][json]") {
  CHECK(fast_vs_yaml(R"({"ints": [0, 7, -3, -0, 18446744073709551615, 123456789012345678901234567890],
    "floats": [0.5, 1e3, -2.50, 1E-7, 3.0],
    "literals": [true, false, null],
    "strings": ["", "plain", "1", "true", "null", "quo\"te", "tab\tnew\nline", "\u00e9\u4e2d", "sl\/ash"],
    "empty": {"map": {}, "list": []},
    "dup": {"k": 1, "k": "two"},
    "nested": [[1, [2, [3]]], {"a": {"b": {"c": null}}}]})") == "");
}

TEST_CASE("the JSON fast path matches yaml-cpp on the example configs", "[config][json]") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SHARDPLAN_SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    INFO(entry.path().filename().string());
    CHECK(fast_vs_yaml(text.str()) == "");
    ++files;
  }
  CHECK(files > 0);
}

TEST_CASE("the JSON fast path reports the syntax error the checker reports", "[config][json]") {
  for (const std::string text : {R"({"a": [1, 2,]})", R"({"a" 1})", "{\"a\": tru}", R"({"a": "unterminated)"}) {
    INFO(text);
    YAML::Node root;
    auto built = build_json_tree(text, root);
    auto checked = check_json(text);
    REQUIRE(built);
    REQUIRE(checked);
    CHECK(built->offset == checked->offset);
    CHECK(built->message == checked->message);
  }
}

TEST_CASE("a document read without positions says so, and JSON only", "[config][json]") {
  const std::string json = R"({"world_size": 8})";
  CHECK_FALSE(parse_document("t.json", json, Positions::kOptional).has_positions);
  CHECK(parse_document("t.json", json, Positions::kNeeded).has_positions);
  CHECK(parse_document("t.yaml", "world_size: 8\n", Positions::kOptional).has_positions);
  // Positions, where kept, are the parser's.
  Document doc = parse_document("t.json", "{\n  \"world_size\": 8}", Positions::kNeeded);
  CHECK(doc.root["world_size"].Mark().line == 1);
}
