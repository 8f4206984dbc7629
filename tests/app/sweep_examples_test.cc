// The shipped job-array examples work as written: examples/slurm/sweep.sbatch run
// as Slurm would run it (SLURM_ARRAY_TASK_ID per slice, then `merge`), and the
// Kubernetes Indexed Job's commands run with JOB_COMPLETION_INDEX, each merge
// giving exactly the bytes of a single `shardplan sweep` run.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;
const std::string kCase = kSourceDir + "/configs/quickstart.json";
const std::string kGridFile = kSourceDir + "/configs/sweep/quickstart-grid.yaml";

std::string fresh_dir(const std::string& name) {
  const std::string dir = scratch_prefix() + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs `script` with bash, shardplan on PATH; returns its exit status.
int run_bash(const std::string& script) {
  const std::string bin = fs::path(SHARDPLAN_BINARY).parent_path().string();
  const std::string command = "PATH='" + bin + "':\"$PATH\" bash -c '" + script + "'";
  return std::system(command.c_str());
}

std::string single_run() {
  const RunResult r = run_shardplan("sweep --config " + kCase + " --sweep " + kGridFile);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

TEST_CASE("sweep examples: the Slurm array script's slices merge into a single run's bytes", "[app][sweep][shard]") {
  const std::string out = fresh_dir("slurm-out");
  const std::string env = "export N=3 CONFIG=" + kCase + " GRID=" + kGridFile + " OUT=" + out + "; ";
  const std::string script = kSourceDir + "/examples/slurm/sweep.sbatch";
  std::string slices;
  for (int k = 0; k < 3; ++k) slices += "SLURM_ARRAY_TASK_ID=" + std::to_string(k) + " bash " + script + " & ";
  REQUIRE(run_bash(env + slices + "wait") == 0);
  REQUIRE(run_bash(env + "bash " + script + " merge") == 0);
  CHECK(slurp(out + "/sweep.jsonl") == single_run());
  // Without the array's task id the script refuses to run a slice.
  CHECK(run_bash(env + "unset SLURM_ARRAY_TASK_ID; bash " + script + " 2>/dev/null") != 0);
}

TEST_CASE("sweep examples: the Kubernetes Indexed Job's pods and merge job give a single run's bytes",
          "[app][sweep][shard]") {
  const YAML::Node job = YAML::LoadFile(kSourceDir + "/examples/kubernetes/sweep-job.yaml");
  const YAML::Node merge = YAML::LoadFile(kSourceDir + "/examples/kubernetes/sweep-merge-job.yaml");
  REQUIRE(job["spec"]["completionMode"].as<std::string>() == "Indexed");
  const int n = job["spec"]["completions"].as<int>();
  CHECK(job["spec"]["parallelism"].as<int>() == n);
  const std::string inputs = fresh_dir("k8s-inputs");
  const std::string results = fresh_dir("k8s-results");
  fs::copy_file(kCase, inputs + "/case.json");
  fs::copy_file(kGridFile, inputs + "/grid.yaml");
  // The container's command, with the volumes' mount paths pointing at scratch folders.
  auto command_of = [&](const YAML::Node& manifest) {
    std::string text = manifest["spec"]["template"]["spec"]["containers"][0]["args"][0].as<std::string>();
    for (const auto& [mount, dir] :
         {std::pair<std::string, std::string>{"/inputs/", inputs + "/"}, {"/results/", results + "/"}})
      for (std::size_t at; (at = text.find(mount)) != std::string::npos;) text.replace(at, mount.size(), dir);
    return text;
  };
  const std::string pod = command_of(job);
  CHECK(pod.find("/" + std::to_string(n) + "\"") != std::string::npos);  // --shard "$JOB_COMPLETION_INDEX/N"
  for (int index = 0; index < n; ++index) {
    const std::string sh = "JOB_COMPLETION_INDEX=" + std::to_string(index) + " sh -c '\\''" + pod + "'\\''";
    INFO(sh);
    REQUIRE(run_bash(sh) == 0);
  }
  REQUIRE(run_bash(command_of(merge)) == 0);
  CHECK(slurp(results + "/sweep.jsonl") == single_run());
}

}  // namespace
}  // namespace shardplan::testing
