#include "sweep/sweep_fields.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "common/units.h"
#include "config/planner_names.h"

namespace shardplan {

SweepValueKind value_kind_of(SweepField field) {
  switch (field) {
    case SweepField::kWorldSize:
    case SweepField::kLocalWorldSize:
    case SweepField::kBatchSize:
    case SweepField::kGreedyThreshold:
      return SweepValueKind::kInteger;
    case SweepField::kReservationPercentage:
      return SweepValueKind::kNumber;
    case SweepField::kHbmCap:
    case SweepField::kDdrCap:
      return SweepValueKind::kSize;
    case SweepField::kProposers:
      return SweepValueKind::kNameList;
    case SweepField::kPartitioner:
    case SweepField::kStorageReservation:
    case SweepField::kSortBy:
      return SweepValueKind::kName;
  }
  return SweepValueKind::kName;
}

namespace {

std::string found(std::string_view text) { return "found '" + std::string(text) + "'"; }

std::optional<SweepValue> parse_integer(std::string_view text, std::string* error) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, code] = std::from_chars(text.data(), end, value);
  if (text.empty() || code != std::errc() || ptr != end) {
    *error = "expected an integer, " + found(text);
    return std::nullopt;
  }
  return SweepValue{std::to_string(value), static_cast<double>(value), value};
}

// A ratio as the --reservation-percentage flag takes it ("15%" or "0.15"; a bare
// number above 1, inf and nan refused with parse_ratio's words).
std::optional<SweepValue> parse_sweep_ratio(std::string_view text, std::string* error) {
  std::string why;
  const auto value = parse_ratio(text, &why);
  if (!value) {
    *error = why;
    return std::nullopt;
  }
  return SweepValue{std::string(text), *value, std::nullopt};
}

std::optional<SweepValue> parse_size(std::string_view text, std::string* error) {
  std::string why;
  auto bytes = parse_size_flag(text, &why);
  if (!bytes && why.rfind(kSizeNeedsUnit, 0) == 0) {
    *error = why;
    return std::nullopt;
  }
  if (!bytes) {
    // parse_size_bytes says why only when it is more than "not a size" (an unknown unit, too large).
    const bool says_more = !why.empty() && why.rfind("expected", 0) != 0;
    *error = "expected a size such as '80 GiB', " + found(text) + (says_more ? " (" + why + ")" : "");
    return std::nullopt;
  }
  return SweepValue{std::string(text), static_cast<double>(*bytes), std::nullopt};
}

template <typename Enum, std::size_t N>
bool known_name(const NameTable<Enum, N>& table, std::string_view what, std::string_view text, std::string* error) {
  if (parse_name(table, text)) return true;
  *error = unknown_name_message(what, text, names_of(table));
  return false;
}

std::optional<SweepValue> parse_proposers(std::string_view text, std::string* error) {
  std::size_t start = 0;
  while (true) {
    const std::size_t plus = std::min(text.find('+', start), text.size());
    const std::string_view name = text.substr(start, plus - start);
    if (name.empty()) {
      *error = "expected proposer names joined by '+', " + found(text);
      return std::nullopt;
    }
    if (!known_name(kProposerNames, "proposer", name, error)) return std::nullopt;
    if (plus == text.size()) break;
    start = plus + 1;
  }
  return SweepValue{std::string(text), std::nullopt, std::nullopt};
}

}  // namespace

std::optional<SweepValue> parse_sweep_value(SweepField field, std::string_view text, std::string* error) {
  switch (field) {
    case SweepField::kWorldSize:
    case SweepField::kLocalWorldSize:
    case SweepField::kBatchSize:
      return parse_integer(text, error);
    case SweepField::kGreedyThreshold: {
      auto value = parse_integer(text, error);
      // PlannerOverrides holds an int, as the --greedy-threshold flag does.
      if (value && *value->integer > std::numeric_limits<int>::max()) {
        *error = "expected at most " + std::to_string(std::numeric_limits<int>::max()) + ", " + found(text);
        return std::nullopt;
      }
      return value;
    }
    case SweepField::kReservationPercentage:
      return parse_sweep_ratio(text, error);
    case SweepField::kHbmCap:
    case SweepField::kDdrCap:
      return parse_size(text, error);
    case SweepField::kProposers:
      return parse_proposers(text, error);
    case SweepField::kPartitioner:
      if (!known_name(kPartitionerNames, "partitioner", text, error)) return std::nullopt;
      break;
    case SweepField::kStorageReservation:
      if (!known_name(kReservationPolicyNames, "storage reservation", text, error)) return std::nullopt;
      break;
    case SweepField::kSortBy:
      if (!known_name(kGreedySortByNames, "sort_by", text, error)) return std::nullopt;
      break;
  }
  return SweepValue{std::string(text), std::nullopt, std::nullopt};
}

void set_override(PlannerOverrides& o, SweepField field, const SweepValue& value) {
  const auto integer = [&value] { return value.integer.value_or(0); };
  switch (field) {
    case SweepField::kWorldSize:
      o.world_size = integer();
      break;
    case SweepField::kLocalWorldSize:
      o.local_world_size = integer();
      break;
    case SweepField::kHbmCap:
      o.hbm_cap = value.text;
      break;
    case SweepField::kDdrCap:
      o.ddr_cap = value.text;
      break;
    case SweepField::kBatchSize:
      o.batch_size = integer();
      break;
    case SweepField::kPartitioner:
      o.partitioner = value.text;
      break;
    case SweepField::kProposers: {
      std::string names = value.text;
      for (char& c : names)
        if (c == '+') c = ',';
      o.proposers = names;
      break;
    }
    case SweepField::kStorageReservation:
      o.storage_reservation = value.text;
      break;
    case SweepField::kReservationPercentage:
      o.reservation_percentage = value.number;
      break;
    case SweepField::kSortBy:
      o.sort_by = value.text;
      break;
    case SweepField::kGreedyThreshold:
      o.greedy_threshold = static_cast<int>(std::max<std::int64_t>(integer(), std::numeric_limits<int>::min()));
      break;
  }
}

}  // namespace shardplan
