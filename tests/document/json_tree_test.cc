// The one JSON reader builds the very node tree yaml-cpp builds of the same text
// (types, tags, scalars as written, key order), with positions: the config
// readers then cannot tell which parser read a file. Where yaml-cpp falls short of
// JSON (surrogate pairs, keys over 1 024 characters) it reads what yaml-cpp cannot,
// and it refuses what JSON readers must not take (duplicate keys, bad UTF-8).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "document/document.h"
#include "document/json_tree.h"

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

TEST_CASE("every JSON document keeps the positions yaml-cpp would give", "[config][json]") {
  const std::string json = "{\"a\": [1,\n  {\"b\": \"x\", \"c\": null}], \"d\": true}";
  Document doc = parse_document("t.json", json, Positions::kOptional);
  CHECK(doc.has_positions);
  const YAML::Node yaml = YAML::Load(json);
  // Compared node by node: the list, its entries, a nested key and value, a literal.
  auto same = [](const YAML::Node& a, const YAML::Node& b) {
    return a.Mark().line == b.Mark().line && a.Mark().column == b.Mark().column;
  };
  CHECK(same(doc.root["a"], yaml["a"]));
  CHECK(same(doc.root["a"][0], yaml["a"][0]));
  CHECK(same(doc.root["a"][1], yaml["a"][1]));
  CHECK(same(doc.root["a"][1]["b"], yaml["a"][1]["b"]));
  CHECK(same(doc.root["a"][1]["c"], yaml["a"][1]["c"]));
  CHECK(same(doc.root["d"], yaml["d"]));
  CHECK(doc.root["a"][1]["b"].Mark().line == 1);
  CHECK(doc.root["a"][1]["b"].Mark().column == 8);  // the opening quote of "x"
  // Keys keep theirs too (the readers report unknown keys there).
  auto key = doc.root["a"][1].begin();
  CHECK(key->first.Mark().column == 3);
}

TEST_CASE("the JSON reader takes what yaml-cpp refused", "[config][json]") {
  // A surrogate pair, as Python's json.dumps writes U+1F600.
  YAML::Node root = parse_document("t.json", R"({"name": "\ud83d\ude00"})").root;
  CHECK(root["name"].Scalar() == "\xF0\x9F\x98\x80");
  // A key of 5 000 characters (yaml-cpp stops at 1 024 for a flow key).
  const std::string long_key(5000, 'k');
  root = parse_document("t.json", "{\"" + long_key + "\": 1}").root;
  CHECK(root[long_key].Scalar() == "1");
}

TEST_CASE("the JSON reader refuses duplicate keys, bad UTF-8 and non-finite numbers with positions", "[config][json]") {
  auto message = [](const std::string& text) {
    try {
      parse_document("t.json", text);
    } catch (const InputError& e) {
      return e.format();
    }
    return std::string("accepted");
  };
  CHECK(message("{\"a\": {\"k\": 1,\n \"k\": 2}}") ==
        "t.json:2:2: a.k: duplicate key 'k' (first given at line 1, column 8)");
  CHECK(message("{\"a\": [0, {\"k\": 1, \"k\": 2}]}") ==
        "t.json:1:20: a[1].k: duplicate key 'k' (first given at line 1, column 12)");
  // 0xff is never UTF-8; the message shows it escaped, itself valid UTF-8.
  const std::string bad_utf8 = message("{\"a\": \"x\xff\"}");
  CHECK(bad_utf8.rfind("t.json:1:", 0) == 0);
  CHECK(bad_utf8.find("UTF-8") != std::string::npos);
  CHECK(bad_utf8.find('\xff') == std::string::npos);
  CHECK(message("{\"a\": [1e999]}").find("number overflow parsing '1e999'") != std::string::npos);
  CHECK(message("{\"a\": [1e999]}").rfind("t.json:1:", 0) == 0);
}
