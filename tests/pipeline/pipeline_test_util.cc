#include "pipeline/pipeline_test_util.h"

#include "config/config_test_util.h"
#include "support/golden.h"

namespace shardplan::testing {

RunResult run_pipeline(const std::string& name, const std::string& content, const std::string& extra_args) {
  std::string path = write_scratch(name, content);
  return run_shardplan("pipeline --input '" + path + "' " + extra_args);
}

namespace {
void compare(const nlohmann::json& expected, const nlohmann::json& actual, const std::string& path, bool subset,
             std::vector<std::string>& out) {
  if (expected.is_number() && actual.is_number()) {
    if (!close_enough(expected.get<double>(), actual.get<double>()))
      out.push_back(path + ": expected " + expected.dump() + ", found " + actual.dump());
    return;
  }
  if (expected.type() != actual.type()) {
    out.push_back(path + ": expected " + expected.dump() + ", found " + actual.dump());
    return;
  }
  if (expected.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key))
        out.push_back(path + "." + key + ": missing");
      else
        compare(value, actual[key], path + "." + key, subset, out);
    }
    if (!subset)
      for (const auto& [key, value] : actual.items())
        if (!expected.contains(key)) out.push_back(path + "." + key + ": not expected");
    return;
  }
  if (expected.is_array()) {
    if (expected.size() != actual.size()) {
      out.push_back(path + ": expected " + std::to_string(expected.size()) + " entries, found " +
                    std::to_string(actual.size()) + ": " + actual.dump());
      return;
    }
    for (std::size_t i = 0; i < expected.size(); ++i)
      compare(expected[i], actual[i], path + "[" + std::to_string(i) + "]", subset, out);
    return;
  }
  if (expected != actual) out.push_back(path + ": expected " + expected.dump() + ", found " + actual.dump());
}
}  // namespace

std::vector<std::string> json_differences(const nlohmann::json& expected, const nlohmann::json& actual, bool subset) {
  std::vector<std::string> out;
  compare(expected, actual, "", subset, out);
  return out;
}

std::vector<std::string> error_lines(const RunResult& r) {
  std::vector<std::string> lines;
  const std::string prefix = scratch_prefix();
  for (std::string line : split_lines(r.err)) {
    for (auto at = line.find(prefix); at != std::string::npos; at = line.find(prefix)) line.erase(at, prefix.size());
    lines.push_back(line);
  }
  return lines;
}

}  // namespace shardplan::testing
