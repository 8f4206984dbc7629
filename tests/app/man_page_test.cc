// The manual page (`shardplan help --man`, written beside the binary by the build as
// shardplan.1 and installed by `cmake --install`) describes every command of the
// command table, and every command has its page in docs/commands/ and an example in
// README. The table is read from app/commands.cc's source rows here, not
// from the binary, so a page generated from a shorter list would fail.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

// The names of app/commands.cc's table rows: lines `{"name", "description", ...`.
std::vector<std::string> command_table_names() {
  const std::string source = slurp(kSourceDir + "/app/commands.cc");
  const std::regex row(R"re(^\s*\{"([a-z0-9]+)",\s*")re");
  std::vector<std::string> names;
  for (const auto& line : split_lines(source)) {
    std::smatch m;
    if (std::regex_search(line, m, row)) names.push_back(m[1]);
  }
  return names;
}

TEST_CASE("man page: every command of the table has its section, options and example", "[app][man]") {
  const auto names = command_table_names();
  REQUIRE(names.size() >= 10);  // the table's rows were found at all
  const RunResult r = run_shardplan("help --man");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.rfind(".TH SHARDPLAN 1 ", 0) == 0);
  CHECK(r.out.find("\"shardplan " SHARDPLAN_VERSION "\"") != std::string::npos);
  const auto lines = split_lines(r.out);
  for (const auto& name : names) {
    INFO("command " << name);
    CHECK(std::find(lines.begin(), lines.end(), ".SS " + name) != lines.end());
    // Its own --help text is in the page, usage line included.
    CHECK(r.out.find("Usage: shardplan " + name + " [OPTIONS]") != std::string::npos);
  }
  // No line of text starts a roff request by accident: every line starting with '.'
  // is one of the requests the page uses.
  const std::regex request(R"(^\.(TH|SH|SS|PP|nf|fi|TP|B|I|br)( .*)?$)");
  for (const auto& line : lines) {
    INFO(line);
    if (!line.empty() && line[0] == '.') CHECK(std::regex_match(line, request));
  }
}

TEST_CASE("man page: the build writes it beside the binary, the same as help --man", "[app][man]") {
  const std::string page = std::filesystem::path(SHARDPLAN_BINARY).parent_path().string() + "/shardplan.1";
  REQUIRE(std::filesystem::exists(page));
  CHECK(slurp(page) == run_shardplan("help --man").out);
}

TEST_CASE("docs: every command of the table has its page and a README example", "[app][man][docs]") {
  const auto names = command_table_names();
  REQUIRE(names.size() >= 10);
  const std::string readme = slurp(kSourceDir + "/README.md");
  for (const auto& name : names) {
    INFO("command " << name);
    CHECK(std::filesystem::exists(kSourceDir + "/docs/commands/" + name + ".md"));
    // An example line: the command at the start of a line, run as is or with its output.
    const bool example = readme.find("\nshardplan " + name + " ") != std::string::npos ||
                         readme.find("\n$ shardplan " + name + " ") != std::string::npos;
    CHECK(example);
  }
}

}  // namespace
}  // namespace shardplan::testing
