#include "config/config_test_util.h"

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "common/error.h"

namespace shardplan::testing {

namespace fs = std::filesystem;

namespace {
// One scratch directory per test process, removed when the process ends.
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("shardplan-config-tests-" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};
}  // namespace

std::string scratch_prefix() {
  static const ScratchDir dir;
  return dir.path.string() + "/";
}

std::string write_scratch(const std::string& name, const std::string& content) {
  std::string path = scratch_prefix() + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::vector<std::string> problems_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const InputError& e) {
    std::vector<std::string> out;
    const std::string prefix = scratch_prefix();
    for (const auto& d : e.diagnostics()) {
      std::string line = d.format();
      if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
      out.push_back(line);
    }
    return out;
  }
  return {};
}

}  // namespace shardplan::testing
