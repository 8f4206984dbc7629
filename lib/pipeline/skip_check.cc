#include "pipeline/skip_check.h"

#include <algorithm>
#include <set>

namespace shardplan::pipeline {

std::vector<std::string> unmatched_skips(const std::vector<std::string>& layers,
                                         const std::vector<SkipDeclaration>& skips) {
  std::vector<std::string> messages;
  std::set<std::string> stashed, popped;
  auto names_at = [&](const std::string& layer, bool stash) {
    std::vector<std::string> names;
    for (const auto& s : skips)
      if ((stash ? s.stash : s.pop) == layer && std::find(names.begin(), names.end(), s.name) == names.end())
        names.push_back(s.name);
    return names;
  };
  auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const auto& layer : layers) {
    auto stashes = names_at(layer, true);
    auto pops = names_at(layer, false);
    for (const auto& name : stashes)
      if (has(pops, name)) messages.push_back("'" + layer + "' declared '" + name + "' both as stashable and as poppable");
    for (const auto& name : stashes) {
      if (has(pops, name)) continue;
      if (stashed.count(name)) {
        messages.push_back("'" + layer + "' redeclared '" + name + "' as stashable but not isolated by namespace");
        continue;
      }
      stashed.insert(name);
    }
    for (const auto& name : pops) {
      if (has(stashes, name)) continue;
      if (popped.count(name)) {
        messages.push_back("'" + layer + "' redeclared '" + name + "' as poppable but not isolated by namespace");
        continue;
      }
      if (!stashed.count(name)) {
        messages.push_back("'" + layer + "' declared '" + name + "' as poppable but it was not stashed");
        continue;
      }
      popped.insert(name);
    }
  }
  std::set<std::string> reported;
  for (const auto& s : skips)
    if (stashed.count(s.name) && !popped.count(s.name) && reported.insert(s.name).second)
      messages.push_back("no module declared '" + s.name + "' as poppable but stashed");
  // Spec §10.6: a message identical to an earlier one is reported once.
  std::vector<std::string> unique;
  for (const auto& m : messages)
    if (std::find(unique.begin(), unique.end(), m) == unique.end()) unique.push_back(m);
  return unique;
}

}  // namespace shardplan::pipeline
