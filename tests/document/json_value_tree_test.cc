// The compact JSON tree (json_value_tree.h) holds what the yaml-cpp tree of the
// same text holds: the same values, tags, scalars as written, key order and
// positions, and the same first error for a text that is not JSON. Checked on
// random documents and on random damage to them, against build_json_tree.
#include <catch2/catch.hpp>
#include <random>

#include "common/error.h"
#include "document/document.h"
#include "document/json_tree.h"
#include "document/node_reader.h"

using namespace shardplan;

namespace {

// "" when `compact` reads as `yaml` does, else the path of the first difference.
std::string compact_difference(const YAML::Node& yaml, const JsonNode& compact, const std::string& path) {
  if (yaml.IsDefined() != compact.IsDefined()) return path + ": defined";
  if (yaml.IsNull() != compact.IsNull() || yaml.IsScalar() != compact.IsScalar() || yaml.IsMap() != compact.IsMap() ||
      yaml.IsSequence() != compact.IsSequence())
    return path + ": kind";
  if (yaml.Tag() != compact.Tag()) return path + ": tag '" + yaml.Tag() + "' vs '" + std::string(compact.Tag()) + "'";
  if (yaml.Scalar() != compact.Scalar()) return path + ": '" + yaml.Scalar() + "' vs '" + compact.Scalar() + "'";
  if (yaml.Mark().line != compact.Mark().line || yaml.Mark().column != compact.Mark().column)
    return path + ": position " + std::to_string(yaml.Mark().line) + ":" + std::to_string(yaml.Mark().column) + " vs " +
           std::to_string(compact.Mark().line) + ":" + std::to_string(compact.Mark().column);
  if (yaml.size() != compact.size()) return path + ": size";
  if (yaml.IsSequence()) {
    for (std::size_t i = 0; i < yaml.size(); ++i)
      if (auto d = compact_difference(yaml[i], compact[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    if (compact[yaml.size()].IsDefined()) return path + ": an entry past the end";
  } else if (yaml.IsMap()) {
    auto j = compact.begin();
    for (auto i = yaml.begin(); i != yaml.end(); ++i, ++j) {
      if (j == compact.end()) return path + ": fewer keys";
      if (auto d = compact_difference(i->first, j->first, path + " key"); !d.empty()) return d;
      const std::string child = path + "." + i->first.Scalar();
      if (auto d = compact_difference(i->second, j->second, child); !d.empty()) return d;
      // Lookup by key finds the same value.
      if (auto d = compact_difference(i->second, compact[i->first.Scalar()], child + " (by key)"); !d.empty()) return d;
    }
    if (j != compact.end()) return path + ": more keys";
    if (compact["no such key"].IsDefined()) return path + ": a key that is not there";
  }
  return "";
}

// A random JSON text: objects, arrays, every kind of scalar (escapes, negative
// zero, exponents, large integers), random blanks and newlines between tokens.
class RandomJsonText {
 public:
  explicit RandomJsonText(std::uint32_t seed) : rng_(seed) {}

  std::string document() {
    std::string out;
    blank(out);
    value(out, 0);
    blank(out);
    return out;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  void blank(std::string& out) {
    static const char* kBlanks[] = {"", " ", "\n", "  ", "\n    ", "\t", " \n "};
    out += kBlanks[pick(7)];
  }
  std::string string_literal() {
    static const char* kPieces[] = {"a", "table", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "é", " ", "[",
                                    "{", "\\/",   "0",    "x.y",  ":",   ","};
    std::string out = "\"";
    for (int n = pick(5); n > 0; --n) out += kPieces[pick(16)];
    return out + "\"";
  }
  void value(std::string& out, int depth) {
    const int kind = depth >= 5 ? 2 + pick(6) : pick(8);
    switch (kind) {
      case 0:
      case 1: {
        const bool object = kind == 0;
        out += object ? "{" : "[";
        const int n = pick(5);
        for (int i = 0; i < n; ++i) {
          if (i) out += ",";
          blank(out);
          if (object) {
            out += "\"k" + std::to_string(i) + (pick(2) ? "" : "_" + std::to_string(pick(100))) + "\"";
            blank(out);
            out += ":";
            blank(out);
          }
          value(out, depth + 1);
          blank(out);
        }
        out += object ? "}" : "]";
        return;
      }
      case 2: {
        static const char* kNumbers[] = {
            "0",   "-0",    "7",    "-3",  "18446744073709551615", "-9223372036854775808", "0.5",
            "1e3", "-2.50", "1E-7", "3.0", "123456789012345678901"};
        out += kNumbers[pick(12)];
        return;
      }
      case 3:
        out += std::to_string(pick(1000000));
        return;
      case 4: {
        static const char* kLiterals[] = {"true", "false", "null"};
        out += kLiterals[pick(3)];
        return;
      }
      default:
        out += string_literal();
        return;
    }
  }

  std::mt19937 rng_;
};

// The error either parse gives `text` as t.json (formatted), or "" when it reads.
std::string yaml_tree_error(const std::string& text) {
  try {
    parse_document("t.json", text);
  } catch (const InputError& e) {
    return e.format();
  }
  return "";
}
std::string compact_tree_error(const std::string& text) {
  try {
    parse_json_document("t.json", text);
  } catch (const InputError& e) {
    return e.format();
  }
  return "";
}

}  // namespace

TEST_CASE("compact JSON tree: random documents read as yaml-cpp's tree of them", "[document][json_value_tree]") {
  for (std::uint32_t seed = 1; seed <= 400; ++seed) {
    const std::string text = RandomJsonText(seed).document();
    INFO("seed " << seed << ": " << text);
    YAML::Node yaml;
    JsonValueTree compact;
    REQUIRE_FALSE(build_json_tree(text, yaml));
    REQUIRE_FALSE(build_json_value_tree(text, compact));
    CHECK(compact_difference(yaml, compact.root(), "$") == "");
  }
}

TEST_CASE("compact JSON tree: positions are the first byte of each value and key", "[document][json_value_tree]") {
  // Worked out by hand: line 2 is `  {"b": "x", "c": null}], "d": -1.5}`.
  const std::string text = "{\"a\": [1,\n  {\"b\": \"x\", \"c\": null}], \"d\": -1.5}";
  const JsonDocument doc = parse_json_document("t.json", text);
  const JsonNode root = doc.root();
  CHECK(root.Mark().line == 0);
  CHECK(root.Mark().column == 0);
  CHECK(root["a"].Mark().column == 6);     // [
  CHECK(root["a"][0].Mark().column == 7);  // 1
  CHECK(root["a"][1].Mark().line == 1);    // the { on line 2
  CHECK(root["a"][1].Mark().column == 2);
  CHECK(root["a"][1]["b"].Mark().column == 8);   // the opening quote of "x"
  CHECK(root["a"][1]["c"].Mark().column == 18);  // null
  CHECK(root["d"].Mark().line == 1);
  CHECK(root["d"].Mark().column == 31);  // -1.5, after `}], "d": ` (columns 22 to 30)
  CHECK(root["d"].Scalar() == "-1.5");
  CHECK(root["d"].Tag() == "?");
  CHECK(root["a"][1]["b"].Tag() == "!");
  CHECK(root["a"][1]["c"].IsNull());
  CHECK(root["a"][1]["c"].Tag() == "");
  auto key = root["a"][1].begin();
  CHECK(key->first.Scalar() == "b");
  CHECK(key->first.Mark().column == 3);  // the key's opening quote
  // A missing key and an index past the end are undefined, as yaml-cpp's are.
  CHECK_FALSE(root["z"].IsDefined());
  CHECK_FALSE(root["a"][2].IsDefined());
  CHECK_FALSE(root["a"]["x"].IsDefined());
  CHECK(root["a"][1].size() == 2);
}

TEST_CASE("compact JSON tree: damaged documents fail with the yaml-cpp tree's message", "[document][json_value_tree]") {
  // Each random document damaged at a random byte: a byte removed, one of the
  // JSON's own bytes put in, or a key repeated. Whatever the first problem is
  // (syntax, a duplicate key, an empty file), both trees report it the same.
  std::mt19937 rng(7);
  int failures = 0;
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    std::string text = RandomJsonText(seed).document();
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(rng);
    static const std::string kInserted = "{}[],:\"\\0-e.tn \n\x01\xff";
    switch (seed % 3) {
      case 0:
        text.erase(at, 1);
        break;
      case 1:
        text.insert(at, 1, kInserted[rng() % kInserted.size()]);
        break;
      default:
        if (auto key = text.find("\"k0\""); key != std::string::npos) text.insert(key, "\"k0\": 0, ");
        break;
    }
    INFO("seed " << seed << ": " << text);
    const std::string expected = yaml_tree_error(text);
    CHECK(compact_tree_error(text) == expected);
    failures += expected.empty() ? 0 : 1;
  }
  CHECK(failures > 100);  // the damage mostly breaks the text: the comparison is of errors
}

TEST_CASE("compact JSON tree: the document limits are the yaml-cpp tree's", "[document][json_value_tree]") {
  // Nesting past kMaxJsonDepth, a NUL byte, an empty text, null at the top, a
  // duplicate key: the same message at the same position.
  const std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  const std::string just_deep_enough = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  for (const std::string& text : {deep, std::string("{\"a\": 1}\0", 9), std::string(""), std::string("null"),
                                  std::string("{\"a\": {\"k\": 1,\n \"k\": 2}}")}) {
    INFO(text);
    const std::string expected = yaml_tree_error(text);
    CHECK_FALSE(expected.empty());
    CHECK(compact_tree_error(text) == expected);
  }
  CHECK(compact_tree_error(just_deep_enough) == "");
  // One value past kMaxDocumentNodes: refused at that value, before any tree is built.
  std::string many = "[";
  for (std::int64_t i = 0; i < kMaxDocumentNodes; ++i) many += "0,";
  many += "0]";
  const std::string past_limit = yaml_tree_error(many);
  CHECK(past_limit == "t.json:1:" + std::to_string(2 * kMaxDocumentNodes - 1) + ": the file holds more than " +
                          std::to_string(kMaxDocumentNodes) + " JSON values (shardplan's limit)");
  CHECK(compact_tree_error(many) == past_limit);
  CHECK(compact_tree_error(deep) == "t.json:1:" + std::to_string(kMaxJsonDepth + 1) + ": nesting deeper than " +
                                        std::to_string(kMaxJsonDepth) + " levels");
}

TEST_CASE("compact JSON tree: the node reader reads it as it reads yaml-cpp's", "[document][json_value_tree]") {
  // Each read's diagnostics, field by field, from both trees of one text.
  const std::string text =
      "{\"n\": 5, \"neg\": -2, \"f\": 2.5, \"s\": \"x\", \"e\": \"\", \"b\": true, \"z\": null,\n"
      " \"l\": [1, \"2\", 3.5], \"m\": {\"k\": 1, \"kk\": 2}, \"big\": 99999999999999999999, \"size\": \"80 GiB\"}";
  const Document yaml_doc = parse_document("t.json", text);
  const JsonDocument compact_doc = parse_json_document("t.json", text);
  const YAML::Node& yaml_root = yaml_doc.root;
  NodeReader a("t.json");
  JsonNodeReader b("t.json");
  const JsonNode compact_root = compact_doc.root();
  const std::vector<std::string> keys{"n", "neg", "f", "s", "e", "b", "z", "l", "m", "big", "size", "absent"};
  for (const std::string& key : keys) {
    const YAML::Node ya = a.field(yaml_root, "", key, true);
    const JsonNode cb = b.field(compact_root, "", key, true);
    CHECK(a.integer(ya, key, Range::kPositive) == b.integer(cb, key, Range::kPositive));
    CHECK(a.number(ya, key, Range::kNonNegative) == b.number(cb, key, Range::kNonNegative));
    CHECK(a.boolean(ya, key) == b.boolean(cb, key));
    CHECK(a.string(ya, key) == b.string(cb, key));
    CHECK(a.size_bytes(ya, key) == b.size_bytes(cb, key));
    CHECK(NodeReader::describe(ya) == JsonNodeReader::describe(cb));
  }
  a.check_keys(yaml_root["m"], "m", {"k"});
  b.check_keys(compact_root["m"], "m", {"k"});
  REQUIRE(a.diagnostics().size() == b.diagnostics().size());
  REQUIRE(a.diagnostics().size() > 20);
  for (std::size_t i = 0; i < a.diagnostics().size(); ++i) {
    const Diagnostic& x = a.diagnostics()[i];
    const Diagnostic& y = b.diagnostics()[i];
    CHECK(x.format() == y.format());
  }
}
