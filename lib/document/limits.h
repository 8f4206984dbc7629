// Bounds on any input document, whatever it holds (a planner input, an a2a or
// pipeline input, a propagation program, a plan file): its size, its nesting and
// its node count, so that a small file can make shardplan neither work nor
// allocate without bound; and the integer and list-length checks every reader
// applies with its own limits. The planner's own limits are config/limits.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include <yaml-cpp/yaml.h>

#include "document/node_reader.h"

namespace shardplan {

// An input file larger than this is refused before parsing (a 10 000-table model is ~3 MiB).
inline constexpr std::int64_t kMaxInputFileBytes = std::int64_t{64} << 20;
// Deeper nesting of [ and { than this is refused (YAML before parsing, JSON while
// parsing): no real input needs it and it keeps recursive code far from the stack limit.
inline constexpr int kMaxNestingDepth = 64;
inline constexpr int kMaxJsonDepth = kMaxNestingDepth;
// YAML nodes (or JSON values) in one file, counting each alias (*name) as the nodes it stands for.
inline constexpr std::int64_t kMaxDocumentNodes = 4'000'000;
// Diagnostics printed for one run; the rest are counted ("... and N more").
inline constexpr std::size_t kMaxDiagnosticsPrinted = 50;

// `value` when it is at most `max`; otherwise reports "expected at most <max>
// (shardplan's limit), found <value>" at `node` and returns nullopt.
// (For both trees: `Node` is YAML::Node or JsonNode.)
template <class Node>
std::optional<std::int64_t> at_most(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node,
                                    const std::string& path, std::optional<std::int64_t> value, std::int64_t max);
// The same for a number.
template <class Node>
std::optional<double> at_most(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node,
                              const std::string& path, std::optional<double> value, double max);

// False (and reported) when `list` is a sequence of more than `max` entries.
template <class Node>
bool check_list_length(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& list, const std::string& path,
                       std::int64_t max);

// An integer's range rule: its sign and shardplan's limit.
struct IntegerRule {
  Range range;       // the sign rule (NodeReader's Range)
  std::int64_t max;  // shardplan's limit
};
// Reads an integer at `node` under `rule`; reports and returns nullopt when it breaks it.
template <class Node>
std::optional<std::int64_t> read_integer(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node,
                                         const std::string& path, const IntegerRule& rule);
// What is wrong with `value` under `rule` ("expected a positive integer, found 0",
// or the limit message), or nullopt when it keeps it.
std::optional<std::string> integer_problem(const IntegerRule& rule, std::int64_t value);

// The message for a value past a limit: "expected at most 65536 (shardplan's limit), found 10000000".
std::string past_limit_message(std::int64_t max, const std::string& found);

}  // namespace shardplan
