// libFuzzer target: the sweep's file readers. The text is written to a scratch
// file and read as a grid file (--sweep), as a slice (`sweep merge`) and as the
// output an interrupted run left (--resume).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "common/error.h"
#include "fuzz_input.h"
#include "sweep/sweep_files.h"
#include "sweep/sweep_grid.h"

namespace {

// One scratch directory per process; each input's file is removed after it.
const std::string& scratch_path(const std::string& extension) {
  static std::string dir = [] {
    char pattern[] = "/tmp/shardplan-sweep-fuzz-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    if (!made) std::abort();
    std::string path = made;
    return path;
  }();
  static std::string yaml = dir + "/grid.yaml", json = dir + "/grid.json";
  return extension == ".json" ? json : yaml;
}

void write(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = shardplan::fuzz::split_input(data, size);
  const std::string& path = scratch_path(input.file.substr(input.file.rfind('.')));
  write(path, input.text);
  try {
    shardplan::read_sweep_grid(path, {});
  } catch (const shardplan::InputError&) {
  }
  try {
    shardplan::merge_sweep_slices({path});
  } catch (const shardplan::InputError&) {
  }
  try {
    shardplan::read_sweep_resume(path, shardplan::SweepFormat::kJsonl, "", "0123456789abcdef", {0, 1, 2});
  } catch (const shardplan::InputError&) {
  }
  std::remove(path.c_str());
  return 0;
}
