// The command line as a newcomer meets it, through the real binary: misspelled flags,
// -V, `help [COMMAND]`, a bare call, the flags each command offers, number messages in
// our own words, "-" for stdin, and completion scripts built from the command table.
// Messages are compared as whole lines.
#include <catch2/catch.hpp>
#include <string>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

const std::string kUsageHint = "Run 'shardplan --help' (or 'shardplan COMMAND --help') for usage.\n";

bool has_line(const std::string& text, const std::string& line) {
  for (const auto& l : split_lines(text))
    if (l == line) return true;
  return false;
}

bool mentions(const std::string& text, const std::string& word) { return text.find(word) != std::string::npos; }

TEST_CASE("cli: a misspelled flag name gets the closest flag of its command", "[app][cli]") {
  RunResult typo = run_shardplan("plan --config " + kQuickstartConfig + " --partitoner greedy");
  CHECK(typo.exit_code == 2);
  CHECK(typo.err == "error: --partitoner: unknown flag of 'shardplan plan', did you mean '--partitioner'?\n");
  CHECK(typo.out.empty());
  RunResult with_value = run_shardplan("enumerate --config " + kQuickstartConfig + " --fromat=text");
  CHECK(with_value.err == "error: --fromat: unknown flag of 'shardplan enumerate', did you mean '--format'?\n");
  RunResult far = run_shardplan("validate --zzzzzz " + kQuickstartConfig);
  CHECK(far.err ==
        "error: --zzzzzz: unknown flag of 'shardplan validate'; run 'shardplan validate --help' for its flags\n");
  RunResult top = run_shardplan("-q");
  CHECK(top.exit_code == 2);
  CHECK(top.err == "error: -q: unknown flag of 'shardplan'; run 'shardplan --help' for its flags\n");
  // A negative number is a value, not a flag: the command's own check answers.
  RunResult negative = run_shardplan("plan --config " + kQuickstartConfig + " --threads -1");
  CHECK(negative.err == "error: --threads: expected 0 or more, found -1\n");
}

TEST_CASE("cli: -V prints the version like --version", "[app][cli]") {
  RunResult v = run_shardplan("-V");
  CHECK(v.exit_code == 0);
  CHECK(v.out == std::string("shardplan ") + SHARDPLAN_VERSION + "\n");
}

TEST_CASE("cli: help [COMMAND] prints what --help prints", "[app][cli]") {
  RunResult help = run_shardplan("help");
  CHECK(help.exit_code == 0);
  CHECK(help.out == run_shardplan("--help").out);
  RunResult plan = run_shardplan("help plan");
  CHECK(plan.exit_code == 0);
  CHECK(plan.out == run_shardplan("plan --help").out);
  CHECK(has_line(plan.out, "Usage: shardplan plan [OPTIONS]"));
  RunResult unknown = run_shardplan("help plam");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "error: help: unknown command 'plam', did you mean 'plan'?\n");
}

TEST_CASE("cli: a bare call prints the usage and the commands on stderr, exit 2", "[app][cli]") {
  RunResult bare = run_shardplan("");
  CHECK(bare.exit_code == 2);
  CHECK(bare.out.empty());
  CHECK(bare.err == run_shardplan("--help").out);
  CHECK(has_line(bare.err, "Usage: shardplan [OPTIONS] SUBCOMMAND"));
  CHECK(!mentions(bare.err, "A subcommand is required"));
}

TEST_CASE("cli: enumerate offers only the flags it uses", "[app][cli]") {
  const std::string enumerate = run_shardplan("enumerate --help").out;
  const std::string plan = run_shardplan("plan --help").out;
  for (const char* flag : {"--partitioner", "--proposers", "--storage-reservation", "--reservation-percentage",
                           "--sort-by", "--greedy-threshold", "--time-budget"}) {
    INFO(flag);
    CHECK(!mentions(enumerate, flag));
    CHECK(mentions(plan, flag));
  }
  for (const char* flag : {"--batch-size", "--world-size", "--hbm-cap", "--format"}) CHECK(mentions(enumerate, flag));
  RunResult refused = run_shardplan("enumerate --config " + kQuickstartConfig + " --partitioner greedy");
  CHECK(refused.exit_code == 2);
  CHECK(
      refused.err ==
      "error: --partitioner: unknown flag of 'shardplan enumerate'; run 'shardplan enumerate --help' for its flags\n");
}

TEST_CASE("cli: numbers are checked in the project's words", "[app][cli]") {
  RunResult word = run_shardplan("plan --config " + kQuickstartConfig + " --reservation-percentage abc");
  CHECK(word.exit_code == 2);
  CHECK(word.err ==
        "error: --reservation-percentage: expected a finite ratio such as 5% or 0.05, found 'abc'\n" + kUsageHint);
  RunResult fraction = run_shardplan("plan --config " + kQuickstartConfig + " --batch-size 1.5");
  CHECK(fraction.exit_code == 2);
  CHECK(fraction.err == "error: --batch-size: expected an integer, found '1.5'\n" + kUsageHint);
  RunResult threshold = run_shardplan("plan --config " + kQuickstartConfig + " --greedy-threshold x");
  CHECK(threshold.err == "error: --greedy-threshold: expected an integer, found 'x'\n" + kUsageHint);
  // Still accepted: the forms that were right before.
  CHECK(run_shardplan("plan --config " + kQuickstartConfig +
                      " --reservation-percentage 0.2 --batch-size 64 --stats none -o /dev/null")
            .exit_code == 0);
}

TEST_CASE("cli: - reads an input from stdin", "[app][cli]") {
  RunResult from_file = run_shardplan("plan --config " + kQuickstartConfig + " --stats none");
  RunResult from_stdin = run_shardplan_with_stdin("plan --config - --stats none", kQuickstartConfig);
  CHECK(from_stdin.exit_code == 0);
  CHECK(from_stdin.out == from_file.out);
  CHECK(!from_stdin.out.empty());

  const std::string bad_topology = write_scratch("stdin_topology.yaml", "world_size: 0\n");
  RunResult bad = run_shardplan_with_stdin(
      "plan --model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology - --stats none", bad_topology);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "error: <stdin>:1:13: world_size: expected a positive integer, found 0\n");

  RunResult validated = run_shardplan_with_stdin("validate -", kQuickstartConfig);
  CHECK(validated.exit_code == 0);
  CHECK(validated.out == "<stdin>: ok (case)\n");

  RunResult two = run_shardplan("plan --model - --topology -");
  CHECK(two.exit_code == 2);
  CHECK(two.err == "error: only one input can be read from stdin ('-'); name the others as files\n");
}

TEST_CASE("cli: completion scripts list every command and each command's own flags", "[app][cli]") {
  RunResult bash = run_shardplan("completion bash");
  REQUIRE(bash.exit_code == 0);
  const std::string script = write_scratch("completion.bash", bash.out);
  // Complete as bash would, in a child bash: COMP_WORDS are the words typed so far.
  auto complete = [&script](const std::string& words, int current) {
    const std::string out = scratch_prefix() + "completion.out";
    const std::string command = "bash -c 'source " + script + "; COMP_WORDS=(" + words +
                                "); COMP_CWORD=" + std::to_string(current) +
                                "; _shardplan; echo \"${COMPREPLY[*]}\"' >" + out + " 2>&1";
    REQUIRE(std::system(command.c_str()) == 0);
    return slurp(out);
  };
  CHECK(complete("shardplan val", 1) == "validate\n");
  CHECK(complete("shardplan plan --partit", 2) == "--partitioner\n");
  CHECK(complete("shardplan enumerate --partit", 2) == "\n");
  CHECK(complete("shardplan enumerate --form", 2) == "--format\n");
  CHECK(complete("shardplan comp", 1) == "completion\n");

  RunResult zsh = run_shardplan("completion zsh");
  REQUIRE(zsh.exit_code == 0);
  CHECK(has_line(zsh.out, "compdef _shardplan shardplan"));
  bool lists_commands = false;  // other commands may join the table: look for ours
  for (const auto& line : split_lines(zsh.out))
    lists_commands = lists_commands || (line.rfind("    compadd -- plan enumerate validate ", 0) == 0 &&
                                        mentions(line, " help completion ") && mentions(line, " --version"));
  CHECK(lists_commands);
  std::string plan_flags, enumerate_flags;
  for (const auto& line : split_lines(zsh.out)) {
    if (line.rfind("    plan) flags=(", 0) == 0) plan_flags = line;
    if (line.rfind("    enumerate) flags=(", 0) == 0) enumerate_flags = line;
  }
  CHECK(mentions(plan_flags, " --partitioner "));
  CHECK(mentions(plan_flags, " --timings) ;;"));
  CHECK(!mentions(plan_flags, " --format "));
  CHECK(mentions(enumerate_flags, " --format "));
  CHECK(!mentions(enumerate_flags, " --partitioner "));
  RunResult fish = run_shardplan("completion fish");
  CHECK(fish.exit_code == 2);
  CHECK(fish.err == "error: completion: expected bash or zsh, found 'fish'\n");
}

}  // namespace
}  // namespace shardplan::testing
