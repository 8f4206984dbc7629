// `plan`'s progress line, through the real binary: drawn on a terminal (a pseudo-
// terminal here) for a plan that takes over a second, erased before the statistics;
// never with --stats json; nothing at all when stderr is not a terminal.
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

constexpr std::string_view kEraseLine = "\r\x1b[K";

// A model that takes seconds to plan with the default proposers (thousands of
// proposals): 1 000 tables of varied sizes on 8 ranks.
std::string slow_case() {
  nlohmann::json tables = nlohmann::json::array();
  for (int t = 0; t < 1000; ++t) {
    const long rows = 1000 + (static_cast<long>(t) * 7919 % 997) * 1000;
    const int dim = 32 << (t % 4);
    tables.push_back({{"name", "t" + std::to_string(t)}, {"num_embeddings", rows}, {"embedding_dim", dim}});
  }
  nlohmann::json c = {
      {"model",
       {{"name", "progress"}, {"modules", {{{"path", "ebc"}, {"kind", "embedding_bag"}, {"tables", tables}}}}}},
      {"topology", {{"world_size", 8}, {"local_world_size", 8}, {"compute_device", "cuda"}, {"hbm_cap", "80 GiB"}}},
      {"planner", nlohmann::json::object()}};
  return write_scratch("progress-slow.json", c.dump());
}

// Runs shardplan ARGS with stdout and stderr on a pseudo-terminal; returns what the
// terminal received and the exit code.
// `draw_at_once`: the line may be drawn from the start ($SHARDPLAN_PROGRESS_AFTER_MS=0),
// so the test does not depend on how fast the machine plans.
std::pair<std::string, int> run_on_terminal(const std::vector<std::string>& args, bool draw_at_once = false) {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (draw_at_once) ::setenv("SHARDPLAN_PROGRESS_AFTER_MS", "0", 1);
    std::vector<char*> argv{const_cast<char*>(SHARDPLAN_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(SHARDPLAN_BINARY, argv.data());
    ::_exit(127);
  }
  std::string received;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n > 0)
      received.append(buffer, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break;  // EIO once the child closed the terminal
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {received, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

TEST_CASE("a slow plan on a terminal draws a progress line and erases it before the statistics", "[progress]") {
  const std::string input = slow_case();
  const std::string plan = scratch_prefix() + "progress-plan.json";
  const auto [terminal, code] = run_on_terminal({"plan", "--config", input, "--stats", "torchrec", "-o", plan}, true);
  REQUIRE(code == 0);
  const std::size_t first_line = terminal.find("\r\x1b[Kshardplan: ");
  REQUIRE(first_line != std::string::npos);
  CHECK(first_line == 0);  // nothing before the progress line
  // The line names the proposer and what it has tried, in place (no newline).
  const std::size_t stats = terminal.find('#');
  REQUIRE(stats != std::string::npos);
  const std::string progress = terminal.substr(0, stats);
  CHECK(progress.find('\n') == std::string::npos);
  CHECK(progress.find("running proposer ") != std::string::npos);
  CHECK(progress.find(" proposals tried") != std::string::npos);
  // Erased right before the statistics begin.
  CHECK(progress.size() >= kEraseLine.size());
  CHECK(progress.substr(progress.size() - kEraseLine.size()) == kEraseLine);
  CHECK(terminal.find("\x1b[K", stats) == std::string::npos);
  // The plan is the one written without a terminal.
  const std::string quiet_plan = scratch_prefix() + "progress-plan-quiet.json";
  const RunResult quiet = run_shardplan("plan --config '" + input + "' --stats none -o '" + quiet_plan + "'");
  REQUIRE(quiet.exit_code == 0);
  CHECK(slurp(plan) == slurp(quiet_plan));
  // Without a terminal nothing but what was asked for is printed: --stats none, so nothing.
  CHECK(quiet.err.empty());
}

TEST_CASE("JSON statistics (--stats json) on a terminal get no progress line: the output stays JSON", "[progress]") {
  const auto [terminal, code] =
      run_on_terminal({"plan", "--config", slow_case(), "--stats", "json", "-o", "/dev/null"}, true);
  REQUIRE(code == 0);
  CHECK(terminal.find('\r') == terminal.find("\r\n"));  // only the terminal's own line ends
  CHECK(terminal.find("\x1b") == std::string::npos);
  std::string json = terminal;
  for (std::size_t at; (at = json.find('\r')) != std::string::npos;) json.erase(at, 1);
  CHECK_NOTHROW(nlohmann::json::parse(json));
}

TEST_CASE("a plan under a second draws no progress line, even on a terminal", "[progress]") {
  const auto [terminal, code] =
      run_on_terminal({"plan", "--config", std::string(SHARDPLAN_SOURCE_DIR) + "/configs/quickstart.json", "--stats",
                       "none", "-o", "/dev/null"});
  REQUIRE(code == 0);
  CHECK(terminal.empty());
}

}  // namespace
}  // namespace shardplan::testing
