// README's shell examples run as written (like ninja's misc/output_test.py): every
// command of every ```sh block is run against the real binary, from a scratch folder
// that sees the repository's configs/, schemas/ and scripts/, with `shardplan` on PATH.
// A block line "$ CMD" is followed by the output README shows; "..." there stands for
// any lines. Without "..." the output (stdout then stderr) must be exactly the shown
// lines; with it, the shown lines must appear in order. The exit code expected is 1 when
// the shown output says "error: no feasible plan", 2 for other errors, else 0.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;

struct Example {
  int line = 0;                // README line of the command
  std::string command;         // continuation lines joined
  std::vector<std::string> shown;  // output shown after a "$ " command
  bool has_output = false;     // a "$ " command: its output is shown
};

std::vector<Example> readme_examples(const std::string& text) {
  std::vector<Example> out;
  bool in_sh = false;
  bool collecting = false;  // after a "$ " command, up to the block's end
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (!in_sh) {
      in_sh = line == "```sh";
      continue;
    }
    if (line == "```") {
      in_sh = collecting = false;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const bool dollar = line.rfind("$ ", 0) == 0;
    if (!dollar && collecting) {
      out.back().shown.push_back(line);
      continue;
    }
    collecting = dollar;
    Example e;
    e.line = static_cast<int>(i) + 1;
    e.has_output = dollar;
    e.command = dollar ? line.substr(2) : line;
    while (!e.command.empty() && e.command.back() == '\\' && i + 1 < lines.size()) {
      e.command.pop_back();
      e.command += lines[++i];
    }
    out.push_back(e);
  }
  return out;
}

int expected_exit_code(const Example& e) {
  for (const auto& line : e.shown)
    if (line.rfind("error: no feasible plan", 0) == 0) return 1;
  for (const auto& line : e.shown)
    if (line.rfind("error: ", 0) == 0) return 2;
  return 0;
}

// "" when `got` shows what README shows, else what differs.
std::string compare_output(const std::vector<std::string>& shown, const std::vector<std::string>& got) {
  bool elided = false;
  for (const auto& line : shown) elided = elided || line == "...";
  if (!elided) return shown == got ? "" : "output differs from README's";
  std::size_t at = 0;
  for (const auto& line : shown) {
    if (line == "...") continue;
    while (at < got.size() && got[at] != line) ++at;
    if (at == got.size()) return "README's line not in the output (in order): " + line;
    ++at;
  }
  return "";
}

TEST_CASE("README: every shell example runs as written", "[app][readme]") {
  const std::string dir = scratch_prefix() + "readme/";
  fs::remove_all(dir);
  fs::create_directories(dir + "bin");
  for (const char* sub : {"configs", "schemas", "scripts"}) fs::create_directory_symlink(kSourceDir + "/" + sub, dir + sub);
  fs::create_symlink(SHARDPLAN_BINARY, dir + "bin/shardplan");

  int ran = 0;
  for (const Example& e : readme_examples(slurp(kSourceDir + "/README.md"))) {
    INFO("README.md:" << e.line << ": " << e.command);
    // The two set-up scripts install and build: the whole suite runs inside one of them.
    if (e.command == "scripts/quickstart.sh" || e.command == "scripts/test.sh") continue;
    const bool ours = e.command.rfind("shardplan ", 0) == 0 || e.command.rfind("python3 scripts/", 0) == 0 ||
                      e.command.rfind("cat configs/", 0) == 0;  // an example's input shown before it runs
    CHECK(ours);  // a new kind of example needs a rule here
    if (!ours) continue;
    write_scratch("readme/example.sh", e.command + "\n");
    const std::string run = "cd '" + dir + "' && PATH='" + dir + "bin':\"$PATH\" sh example.sh >out.txt 2>err.txt";
    const int status = std::system(run.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const std::string out = slurp(dir + "out.txt"), err = slurp(dir + "err.txt");
    INFO("stdout:\n" << out << "stderr:\n" << err);
    if (code == 3 && e.command.rfind("python3 ", 0) == 0) {
      // The script's "optional package missing" code (jsonschema, torchrec).
      WARN("README.md:" << e.line << ": optional Python package missing: EXAMPLE SKIPPED: " << e.command);
      note_parity_skipped();
      continue;
    }
    ++ran;
    CHECK(code == expected_exit_code(e));
    if (e.has_output) {
      std::vector<std::string> got = split_lines(out);
      for (const auto& line : split_lines(err)) got.push_back(line);
      CHECK(compare_output(e.shown, got) == "");
    }
  }
  CHECK(ran >= 8);
}

}  // namespace
}  // namespace shardplan::testing
