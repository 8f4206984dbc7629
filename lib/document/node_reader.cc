#include "document/node_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "common/units.h"
#include "common/utf8.h"

#include <fmt/format.h>

namespace shardplan {

std::string join_key(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string join_index(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

namespace {

// yaml-cpp tags quoted scalars "!" and plain ones "?".
template <class Node>
bool is_quoted(const Node& node) {
  return node.IsScalar() && node.Tag() == "!";
}

template <class Node>
bool is_plain_null(const Node& node) {
  return node.IsNull();
}

// What a missing key gives: yaml-cpp's default Node is a defined null, so ask for
// an undefined one; a default JsonNode is undefined.
template <class Node>
Node undefined_node() {
  if constexpr (std::is_same_v<Node, YAML::Node>)
    return YAML::Node(YAML::NodeType::Undefined);
  else
    return Node();
}

std::string range_phrase(Range range, std::string_view noun) {
  switch (range) {
    case Range::kPositive:
      return "a positive " + std::string(noun);
    case Range::kNonNegative:
      return "a non-negative " + std::string(noun);
    case Range::kAny:
      break;
  }
  return (noun == "integer" ? "an " : "a ") + std::string(noun);
}

}  // namespace

template <class Node>
std::string BasicNodeReader<Node>::describe(const Node& node) {
  if (!node.IsDefined()) return "nothing";
  if (node.IsNull()) return "null";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  std::string text = node.Scalar();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return is_quoted(node) ? "\"" + text + "\"" : "'" + text + "'";
}

template <class Node>
SourcePos BasicNodeReader<Node>::pos(const Node& node) const {
  if (!node.IsDefined()) return SourcePos{file_, 0, 0};
  const auto mark = node.Mark();
  if (mark.is_null()) return SourcePos{file_, 0, 0};
  return SourcePos{file_, mark.line + 1, mark.column + 1};
}

template <class Node>
void BasicNodeReader<Node>::report(const Node& at, const std::string& path, std::string message) {
  report(pos(at), path, std::move(message));
}

template <class Node>
void BasicNodeReader<Node>::report(SourcePos at, const std::string& path, std::string message) {
  diagnostics_.push_back(Diagnostic{std::move(at), path, std::move(message)});
}

template <class Node>
void BasicNodeReader<Node>::throw_if_any() const {
  if (diagnostics_.empty()) return;
  std::vector<Diagnostic> sorted = diagnostics_;
  if (order_ == DiagnosticOrder::kPosition)
    std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::tie(a.pos.line, a.pos.col) < std::tie(b.pos.line, b.pos.col);
    });
  throw InputError(std::move(sorted));
}

template <class Node>
bool BasicNodeReader<Node>::expect_map(const Node& node, const std::string& path) {
  if (node.IsMap()) return true;
  report(node, path, "expected a mapping, found " + describe(node));
  return false;
}

template <class Node>
void BasicNodeReader<Node>::check_keys(const Node& map, const std::string& path,
                                       const std::vector<std::string>& known) {
  // The names so far and their lines: a list while short (most mappings have a
  // few keys), then a hash map (a module of thousands of tables).
  constexpr std::size_t kFewKeys = 32;
  std::vector<std::pair<std::string, int>> few;
  std::unordered_map<std::string, int> many;
  auto first_line = [&](const std::string& name) -> std::optional<int> {
    if (many.empty()) {
      for (const auto& [seen, line] : few)
        if (seen == name) return line;
      return std::nullopt;
    }
    if (auto found = many.find(name); found != many.end()) return found->second;
    return std::nullopt;
  };
  auto remember = [&](const std::string& name, int line) {
    if (many.empty() && few.size() < kFewKeys) {
      few.emplace_back(name, line);
      return;
    }
    for (auto& [seen, at] : few) many.emplace(std::move(seen), at);
    few.clear();
    many.emplace(name, line);
  };
  for (auto it = map.begin(); it != map.end(); ++it) {
    const Node key = it->first;
    if (!key.IsScalar()) {
      report(key, path, "expected a key name, found " + describe(key));
      continue;
    }
    const std::string name = key.Scalar();
    if (auto line = first_line(name)) {
      report(key, join_key(path, name),
             "duplicate key '" + name + "' (first given at line " + std::to_string(*line) + ")");
      continue;
    }
    const auto mark = key.Mark();
    remember(name, mark.is_null() ? 0 : mark.line + 1);
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    report(key, join_key(path, name), unknown_name_message("key", name, known, "known keys"));
  }
}

template <class Node>
Node BasicNodeReader<Node>::field(const Node& map, const std::string& path, std::string_view key, bool required) {
  if constexpr (std::is_same_v<Node, JsonNode>) {
    // The compact tree's keys are text side by side: a scan is cheaper than an index.
    if (map.IsMap())
      for (auto it = map.begin(); it != map.end(); ++it)
        if (it->first.scalar_view() == key) return it->second;
  } else if (map.IsMap()) {
    if (!index_.map || !index_.map->is(map)) {
      // emplace, not assignment: assigning one YAML::Node to another rewrites the
      // node it referred to.
      index_.map.emplace(map);
      index_.entries.clear();
      for (auto it = map.begin(); it != map.end(); ++it)
        if (it->first.IsScalar()) index_.entries.emplace_back(it->first.Scalar(), it->second);
    }
    for (const auto& [name, value] : index_.entries)
      if (name == key) return value;  // the first of duplicate keys, as a scan finds
  }
  if (required) report(map, path, "missing required key '" + std::string(key) + "'");
  return undefined_node<Node>();
}

template <class Node>
std::optional<std::int64_t> BasicNodeReader<Node>::integer(const Node& node, const std::string& path, Range range) {
  std::string expected = "expected " + range_phrase(range, "integer");
  if (!node.IsScalar() || is_quoted(node)) {
    report(node, path, expected + ", found " + describe(node));
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) {
    report(node, path, "integer out of range (beyond 64 bits), found " + describe(node));
    return std::nullopt;
  }
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    // 1e7 or 2048.0 are integers written as numbers; take them when exact.
    double as_double = 0;
    auto [dend, dec] = std::from_chars(digits.data(), digits.data() + digits.size(), as_double);
    if (dec == std::errc() && dend == digits.data() + digits.size() && std::isfinite(as_double) &&
        std::floor(as_double) == as_double && std::fabs(as_double) <= 9007199254740992.0) {
      value = static_cast<std::int64_t>(as_double);
    } else if (dec == std::errc::result_out_of_range || (dec == std::errc() && dend == digits.data() + digits.size() &&
                                                         std::fabs(as_double) > 9007199254740992.0)) {
      report(node, path, "integer out of range, found " + describe(node));
      return std::nullopt;
    } else {
      report(node, path, expected + ", found " + describe(node));
      return std::nullopt;
    }
  }
  if ((range == Range::kPositive && value <= 0) || (range == Range::kNonNegative && value < 0)) {
    report(node, path, expected + ", found " + std::to_string(value));
    return std::nullopt;
  }
  return value;
}

template <class Node>
std::optional<double> BasicNodeReader<Node>::number(const Node& node, const std::string& path, Range range) {
  std::string expected = "expected " + range_phrase(range, "number");
  if (!node.IsScalar() || is_quoted(node)) {
    report(node, path, expected + ", found " + describe(node));
    return std::nullopt;
  }
  const std::string scalar_text = node.Scalar();
  std::string_view text = scalar_text;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    report(node, path, "number out of range, found " + describe(node));
    return std::nullopt;
  }
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    report(node, path, expected + ", found " + describe(node));
    return std::nullopt;
  }
  if ((range == Range::kPositive && value <= 0) || (range == Range::kNonNegative && value < 0)) {
    report(node, path, expected + ", found " + node.Scalar());
    return std::nullopt;
  }
  return value;
}

template <class Node>
std::optional<bool> BasicNodeReader<Node>::boolean(const Node& node, const std::string& path) {
  if (node.IsScalar() && !is_quoted(node)) {
    std::string text = node.Scalar();
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text == "true") return true;
    if (text == "false") return false;
  }
  report(node, path, "expected true or false, found " + describe(node));
  return std::nullopt;
}

template <class Node>
std::optional<std::string> BasicNodeReader<Node>::string(const Node& node, const std::string& path, bool non_empty) {
  if (!node.IsScalar() || (is_plain_null(node))) {
    report(node, path, "expected a string, found " + describe(node));
    return std::nullopt;
  }
  if (non_empty && node.Scalar().empty()) {
    report(node, path, "expected a non-empty string");
    return std::nullopt;
  }
  // Names reach the JSON output, which is UTF-8: refused here rather than escaped.
  if (auto bad = first_invalid_utf8(node.Scalar())) {
    report(node, path,
           "expected UTF-8 text, found the byte 0x" +
               fmt::format("{:02X}", static_cast<unsigned char>(node.Scalar()[*bad])) + " at byte " +
               std::to_string(*bad + 1) + " of the string");
    return std::nullopt;
  }
  return node.Scalar();
}

template <class Node>
std::optional<std::int64_t> BasicNodeReader<Node>::size_bytes(const Node& node, const std::string& path) {
  if (node.IsScalar() && !is_quoted(node) && !node.IsNull()) {
    // A bare number is bytes; try the integer reading first for its exact messages.
    const std::string scalar_text = node.Scalar();
    std::string_view text = scalar_text;
    if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text.back())) || text.back() == '.')) {
      auto value = integer(node, path, Range::kNonNegative);
      return value;
    }
  }
  if (!node.IsScalar() || node.IsNull()) {
    report(node, path, "expected a size (bytes, or a string like \"80 GiB\"), found " + describe(node));
    return std::nullopt;
  }
  std::string error;
  auto value = parse_size_bytes(node.Scalar(), &error);
  if (!value) {
    report(node, path, error + ", found " + describe(node));
    return std::nullopt;
  }
  if (*value < 0) {
    report(node, path, "expected a non-negative size, found " + describe(node));
    return std::nullopt;
  }
  return value;
}

template <class Node>
std::optional<double> BasicNodeReader<Node>::bandwidth(const Node& node, const std::string& path) {
  if (!node.IsScalar() || node.IsNull()) {
    report(node, path, "expected a bandwidth (bytes/ms, or a string like \"897 GB/s\"), found " + describe(node));
    return std::nullopt;
  }
  if (!is_quoted(node)) {
    const std::string scalar_text = node.Scalar();
    std::string_view text = scalar_text;
    if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text.back())) || text.back() == '.'))
      return number(node, path, Range::kPositive);
  }
  std::string error;
  auto value = parse_bandwidth_bytes_per_ms(node.Scalar(), &error);
  if (!value) {
    report(node, path, error + ", found " + describe(node));
    return std::nullopt;
  }
  if (*value <= 0) {
    report(node, path, "expected a positive bandwidth, found " + describe(node));
    return std::nullopt;
  }
  return value;
}

template <class Node>
std::optional<std::string> BasicNodeReader<Node>::one_of(const Node& node, const std::string& path,
                                                         std::string_view what, const std::vector<std::string>& names) {
  auto text = string(node, path, false);
  if (!text) return std::nullopt;
  if (std::find(names.begin(), names.end(), *text) != names.end()) return text;
  report(node, path, unknown_name_message(what, *text, names));
  return std::nullopt;
}

template class BasicNodeReader<YAML::Node>;
template class BasicNodeReader<JsonNode>;

}  // namespace shardplan
