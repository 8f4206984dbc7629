#include "document/limits.h"

#include <fmt/format.h>

namespace shardplan {

std::string past_limit_message(std::int64_t max, const std::string& found) {
  return "expected at most " + std::to_string(max) + " (shardplan's limit), found " + found;
}

template <class Node>
std::optional<std::int64_t> read_integer(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node,
                                         const std::string& path, const IntegerRule& rule) {
  return at_most(reader, node, path, reader.integer(node, path, rule.range), rule.max);
}
template std::optional<std::int64_t> read_integer(NodeReader&, const YAML::Node&, const std::string&,
                                                  const IntegerRule&);
template std::optional<std::int64_t> read_integer(JsonNodeReader&, const JsonNode&, const std::string&,
                                                  const IntegerRule&);

std::optional<std::string> integer_problem(const IntegerRule& rule, std::int64_t value) {
  if (rule.range == Range::kPositive && value <= 0)
    return "expected a positive integer, found " + std::to_string(value);
  if (rule.range == Range::kNonNegative && value < 0)
    return "expected a non-negative integer, found " + std::to_string(value);
  if (value > rule.max) return past_limit_message(rule.max, std::to_string(value));
  return std::nullopt;
}

template <class Node>
std::optional<std::int64_t> at_most(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node,
                                    const std::string& path, std::optional<std::int64_t> value, std::int64_t max) {
  if (!value || *value <= max) return value;
  reader.report(node, path, past_limit_message(max, std::to_string(*value)));
  return std::nullopt;
}
template std::optional<std::int64_t> at_most(NodeReader&, const YAML::Node&, const std::string&,
                                             std::optional<std::int64_t>, std::int64_t);
template std::optional<std::int64_t> at_most(JsonNodeReader&, const JsonNode&, const std::string&,
                                             std::optional<std::int64_t>, std::int64_t);

template <class Node>
std::optional<double> at_most(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node,
                              const std::string& path, std::optional<double> value, double max) {
  if (!value || *value <= max) return value;
  reader.report(node, path,
                "expected at most " + fmt::format("{}", max) + " (shardplan's limit), found " + node.Scalar());
  return std::nullopt;
}

template <class Node>
bool check_list_length(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& list, const std::string& path,
                       std::int64_t max) {
  if (!list.IsSequence() || static_cast<std::int64_t>(list.size()) <= max) return true;
  reader.report(
      list, path,
      "expected at most " + std::to_string(max) + " entries (shardplan's limit), found " + std::to_string(list.size()));
  return false;
}

template std::optional<double> at_most(NodeReader&, const YAML::Node&, const std::string&, std::optional<double>,
                                       double);
template std::optional<double> at_most(JsonNodeReader&, const JsonNode&, const std::string&, std::optional<double>,
                                       double);
template bool check_list_length(NodeReader&, const YAML::Node&, const std::string&, std::int64_t);
template bool check_list_length(JsonNodeReader&, const JsonNode&, const std::string&, std::int64_t);

}  // namespace shardplan
