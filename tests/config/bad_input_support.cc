#include "config/bad_input_support.h"

#include <sstream>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace shardplan::testing {

namespace {
std::string strip_scratch(std::string line) {
  const std::string prefix = scratch_prefix();
  for (std::size_t at = line.find(prefix); at != std::string::npos; at = line.find(prefix, at))
    line.erase(at, prefix.size());
  return line;
}
}  // namespace

BadInputRun run_in_scratch(const std::string& args) {
  std::string with_paths;
  std::istringstream words(args);
  // Words naming scratch files (ending in .yaml or .json) get the scratch directory.
  for (std::string word; words >> word;) {
    bool is_file = word.size() > 5 && (word.ends_with(".yaml") || word.ends_with(".json"));
    with_paths += (with_paths.empty() ? "" : " ") + (is_file ? "'" + scratch_prefix() + word + "'" : word);
  }
  RunResult r = run_shardplan(with_paths);
  BadInputRun out{r.exit_code, {}};
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) out.errors.push_back(strip_scratch(line));
  return out;
}

std::string small_topology() {
  write_scratch("small-topology.yaml", "world_size: 2\n");
  return "small-topology.yaml";
}

std::string small_model() {
  write_scratch("small-model.yaml",
                "modules:\n  - path: m\n    tables:\n      - {name: t, num_embeddings: 1000, embedding_dim: 8}\n");
  return "small-model.yaml";
}

}  // namespace shardplan::testing
