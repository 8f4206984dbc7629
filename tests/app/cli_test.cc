// Runs the real shardplan binary: exit codes, stdout and stderr of validate,
// --help and --version.
#include <sys/wait.h>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace {

using Result = shardplan::testing::RunResult;
using shardplan::testing::kSourceDir;

Result run(const std::string& args) { return shardplan::testing::run_shardplan(args); }

}  // namespace

TEST_CASE("validate: valid files print ok with their kind and exit 0", "[config][app]") {
  Result r = run("validate " + kSourceDir + "/configs/topology-1x8-80g.yaml " + kSourceDir +
                 "/configs/planner-default.yaml " + kSourceDir + "/configs/quickstart.json");
  CHECK(r.exit_code == 0);
  CHECK(r.out == kSourceDir + "/configs/topology-1x8-80g.yaml: ok (topology)\n" + kSourceDir +
                     "/configs/planner-default.yaml: ok (planner)\n" + kSourceDir +
                     "/configs/quickstart.json: ok (case)\n");
  CHECK(r.err.empty());
}

TEST_CASE("validate: every problem of every file on stderr, exit 2", "[config][app]") {
  std::string bad = shardplan::testing::write_scratch("cli_bad.yaml", "world_size: 0\nhbm_cap: lots\n");
  std::string good = shardplan::testing::write_scratch("cli_good.yaml", "world_size: 2\n");
  Result r = run("validate " + bad + " " + good + " /nonexistent.yaml");
  CHECK(r.exit_code == 2);
  CHECK(r.out == good + ": ok (topology)\n");
  CHECK(r.err == "error: " + bad + ":1:13: world_size: expected a positive integer, found 0\n" + "error: " + bad +
                     ":2:10: hbm_cap: expected a size such as 4096 or \"80 GiB\", found 'lots'\n" +
                     "error: /nonexistent.yaml: cannot open the file (missing or not readable)\n");
}

TEST_CASE("validate --kind forces the kind and rejects unknown kinds", "[config][app]") {
  std::string topo = shardplan::testing::write_scratch("cli_topo.yaml", "world_size: 2\n");
  Result forced = run("validate --kind topology " + topo);
  CHECK(forced.exit_code == 0);
  Result bad_kind = run("validate --kind topolgy " + topo);
  CHECK(bad_kind.exit_code == 2);
  CHECK(bad_kind.err == "error: --kind: unknown kind 'topolgy', did you mean 'topology'?\n");
}

TEST_CASE("cli: help, version, usage errors and unknown commands", "[config][app]") {
  Result help = run("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("validate") != std::string::npos);
  CHECK(help.out.find("Examples:") != std::string::npos);
  Result validate_help = run("validate --help");
  CHECK(validate_help.exit_code == 0);
  CHECK(validate_help.out.find("shardplan validate --kind planner") != std::string::npos);
  Result version = run("--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out == std::string("shardplan ") + SHARDPLAN_VERSION + "\n");
  Result typo = run("valdate x.yaml");
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.rfind("error: unknown command 'valdate', did you mean 'validate'?\n", 0) == 0);
  Result none = run("");
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("\nUsage: shardplan [OPTIONS] SUBCOMMAND\n") != std::string::npos);
  Result no_files = run("validate");
  CHECK(no_files.exit_code == 2);
  CHECK(no_files.err.find("terminate") == std::string::npos);
}
