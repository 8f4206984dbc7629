#include "pipeline/skip_check.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace shardplan::pipeline {

// Linear in layers + skips: each skip is filed under its stash and pop layer once,
// and every membership test is a hash lookup.
std::vector<std::string> unmatched_skips(const std::vector<std::string>& layers,
                                         const std::vector<SkipDeclaration>& skips) {
  // Per layer name: the distinct skip names it stashes / pops, in `skips` order.
  std::unordered_map<std::string_view, std::vector<std::string_view>> stash_at, pop_at;
  {
    std::unordered_set<std::string> filed;  // "s\0layer\0name" / "p\0layer\0name"
    for (const auto& s : skips) {
      if (filed.insert(std::string("s") + '\0' + s.stash + '\0' + s.name).second) stash_at[s.stash].push_back(s.name);
      if (filed.insert(std::string("p") + '\0' + s.pop + '\0' + s.name).second) pop_at[s.pop].push_back(s.name);
    }
  }
  static const std::vector<std::string_view> kNoNames;
  auto names = [](const auto& map, const std::string& layer) -> const std::vector<std::string_view>& {
    auto it = map.find(layer);
    return it == map.end() ? kNoNames : it->second;
  };
  std::vector<std::string> messages;
  std::unordered_set<std::string> reported;  // spec §10.6: a message identical to an earlier one once
  auto say = [&](std::string m) {
    if (reported.insert(m).second) messages.push_back(std::move(m));
  };
  std::unordered_set<std::string_view> stashed, popped;
  for (const auto& layer : layers) {
    const auto& stashes = names(stash_at, layer);
    const auto& pops = names(pop_at, layer);
    std::unordered_set<std::string_view> stash_set(stashes.begin(), stashes.end());
    std::unordered_set<std::string_view> pop_set(pops.begin(), pops.end());
    const std::string quoted = "'" + layer + "'";
    for (auto name : stashes)
      if (pop_set.count(name)) say(quoted + " declared '" + std::string(name) + "' both as stashable and as poppable");
    for (auto name : stashes) {
      if (pop_set.count(name)) continue;
      if (!stashed.insert(name).second)
        say(quoted + " redeclared '" + std::string(name) + "' as stashable but not isolated by namespace");
    }
    for (auto name : pops) {
      if (stash_set.count(name)) continue;
      if (popped.count(name)) {
        say(quoted + " redeclared '" + std::string(name) + "' as poppable but not isolated by namespace");
        continue;
      }
      if (!stashed.count(name)) {
        say(quoted + " declared '" + std::string(name) + "' as poppable but it was not stashed");
        continue;
      }
      popped.insert(name);
    }
  }
  for (const auto& s : skips)
    if (stashed.count(s.name) && !popped.count(s.name))
      say("no module declared '" + s.name + "' as poppable but stashed");
  return messages;
}

}  // namespace shardplan::pipeline
