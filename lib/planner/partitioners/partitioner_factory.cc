#include "planner/partitioners/partitioner_factory.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/names.h"

namespace shardplan {

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
