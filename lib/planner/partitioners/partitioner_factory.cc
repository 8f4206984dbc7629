#include "planner/partitioners/partitioner_factory.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"
#include "config/planner_names.h"

namespace shardplan {

// The loader validates names against config/planner_names.h; these guards keep
// that list and this table (and the two sort_by tables) from drifting apart.
template <typename Entries, typename Names>
constexpr bool same_names(const Entries& entries, const Names& names) {
  if (entries.size() != names.size()) return false;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].name != names[i].name) return false;
  return true;
}
static_assert(same_names(kPartitioners, kPartitionerNames),
              "kPartitioners and config's kPartitionerNames disagree");
static_assert(same_names(kSortByNames, kGreedySortByNames),
              "kSortByNames and config's kGreedySortByNames disagree");

std::vector<std::string> partitioner_names() {
  std::vector<std::string> names;
  for (const auto& entry : kPartitioners) names.emplace_back(entry.name);
  return names;
}

std::unique_ptr<Partitioner> make_partitioner(const PartitionerOptions& options) {
  for (const auto& entry : kPartitioners)
    if (entry.name == options.type) return entry.factory(options);
  std::string message = fmt::format("unknown partitioner '{}'", options.type);
  const std::string suggestion = closest_name(options.type, partitioner_names());
  if (!suggestion.empty()) message += fmt::format(", did you mean '{}'?", suggestion);
  throw InputError({}, "partitioner.type", message);
}

}  // namespace shardplan
