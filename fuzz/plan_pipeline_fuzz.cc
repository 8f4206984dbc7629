// libFuzzer target: the whole plan pipeline (load a one-file case, enumerate,
// reserve, propose, partition, render the stats and the plan file) on small
// inputs. Inputs past the size bounds below are skipped: they are the loader
// targets' business, and the planner's run time grows with them by design.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/error.h"
#include "config/loader.h"
#include "fuzz_input.h"
#include "planner/run.h"
#include "planner_output/run_outputs.h"

namespace {

constexpr std::int64_t kMaxWorldSize = 16;
constexpr std::size_t kMaxTables = 8;
constexpr std::int64_t kMaxEmbeddingDim = 1024;

bool small_enough(const shardplan::PlanningInput& input) {
  if (input.topology.world_size > kMaxWorldSize) return false;
  std::size_t tables = 0;
  for (const auto& module : input.model.modules) {
    tables += module.tables.size();
    for (const auto& table : module.tables)
      if (table.embedding_dim > kMaxEmbeddingDim) return false;
  }
  return tables <= kMaxTables;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = shardplan::fuzz::split_input(data, size);
  // load_case reads a file: one scratch file per fuzzing process, its extension
  // picking the syntax as for a user's file.
  const std::string file =
      "/tmp/shardplan-fuzz-" + std::to_string(::getpid()) + input.file.substr(input.file.rfind('.'));
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(input.text.data(), static_cast<std::streamsize>(input.text.size()));
  }
  try {
    const shardplan::PlanningInput planning = shardplan::load_case(file);
    if (!small_enough(planning)) return 0;
    const shardplan::PlanRun run = shardplan::run_plan(planning);
    (void)shardplan::render_run_outputs(run, planning, shardplan::StatsFormat::kText);
    (void)shardplan::render_run_outputs(run, planning, shardplan::StatsFormat::kJson);
    (void)shardplan::render_run_outputs(run, planning, shardplan::StatsFormat::kSummary);
  } catch (const shardplan::InputError&) {
    // Bad input, reported with positions: expected.
  }
  std::remove(file.c_str());
  return 0;
}
