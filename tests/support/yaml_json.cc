#include "support/yaml_json.h"

#include <string>

namespace shardplan::testing {

using nlohmann::json;

json yaml_to_json(const YAML::Node& node) {
  if (node.IsMap()) {
    json out = json::object();
    for (auto it = node.begin(); it != node.end(); ++it) out[it->first.Scalar()] = yaml_to_json(it->second);
    return out;
  }
  if (node.IsSequence()) {
    json out = json::array();
    for (const auto& e : node) out.push_back(yaml_to_json(e));
    return out;
  }
  if (node.IsNull()) return nullptr;
  const std::string& s = node.Scalar();
  if (node.Tag() == "!") return s;
  if (s == "true" || s == "false") return s == "true";
  try {
    std::size_t used = 0;
    long long i = std::stoll(s, &used);
    if (used == s.size()) return i;
    double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  return s;
}

}  // namespace shardplan::testing
