// The shell examples of README.md and of every page under docs/ run as written (like
// ninja's misc/output_test.py): every command of every ```sh block is run against the
// real binary, from a scratch folder of its own per page that sees the repository's
// configs/, examples/, schemas/ and scripts/, with `shardplan` on PATH. A block line
// "$ CMD" is followed by the output the page shows; "..." there stands for any lines.
// Without "..." the output (stdout then stderr) must be exactly the shown lines; with
// it, the shown lines must appear in order. The exit code expected is 1 when the shown
// output says "error: no feasible plan", 2 for other errors, else 0. Blocks that are
// not ```sh (```, ```console, ```yaml, ...) are shown, never run.
// A second test checks that every relative link of those pages names an existing file.
#include <sys/wait.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;

struct Example {
  int line = 0;                      // README line of the command
  std::string command;               // continuation lines joined
  std::vector<std::string> shown;    // output shown after a "$ " command
  bool has_output = false;           // a "$ " command: its output is shown
  std::vector<std::string> heredoc;  // a command ending in <<'EOF': its input lines
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
    // An inline input: the lines up to "EOF" are the command's stdin, not its output.
    const std::string marker = "<<'EOF'";
    if (e.command.size() >= marker.size() &&
        e.command.compare(e.command.size() - marker.size(), marker.size(), marker) == 0) {
      while (i + 1 < lines.size() && lines[i + 1] != "EOF") e.heredoc.push_back(lines[++i]);
      e.heredoc.push_back("EOF");
      ++i;
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

// README.md and every docs/**/*.md, as paths relative to the source tree, sorted.
std::vector<std::string> documentation_pages() {
  std::vector<std::string> pages{"README.md"};
  const fs::path docs = kSourceDir + "/docs";
  if (fs::exists(docs))
    for (const auto& entry : fs::recursive_directory_iterator(docs))
      if (entry.is_regular_file() && entry.path().extension() == ".md")
        pages.push_back(fs::relative(entry.path(), kSourceDir).generic_string());
  std::sort(pages.begin() + 1, pages.end());
  return pages;
}

// Runs every example of one page (a path relative to the source tree) from a fresh
// scratch folder; returns how many ran.
int run_page_examples(const std::string& page) {
  std::string folder = page;
  std::replace(folder.begin(), folder.end(), '/', '_');
  const std::string dir = scratch_prefix() + "examples-" + folder + "/";
  fs::remove_all(dir);
  fs::create_directories(dir + "bin");
  for (const char* sub : {"configs", "examples", "schemas", "scripts"})
    fs::create_directory_symlink(kSourceDir + "/" + sub, dir + sub);
  fs::create_symlink(SHARDPLAN_BINARY, dir + "bin/shardplan");

  int ran = 0;
  for (const Example& e : readme_examples(slurp(kSourceDir + "/" + page))) {
    INFO(page << ":" << e.line << ": " << e.command);
    // The two set-up scripts install and build: the whole suite runs inside one of them.
    if (e.command == "scripts/quickstart.sh" || e.command == "scripts/test.sh") continue;
    const bool ours = e.command.rfind("shardplan ", 0) == 0 || e.command.rfind("python3 scripts/", 0) == 0 ||
                      e.command.rfind("cat configs/", 0) == 0 ||  // an example's input shown before it runs
                      e.command.rfind("cat > ", 0) == 0;          // an inline input written by the page
    CHECK(ours);                                                  // a new kind of example needs a rule here
    if (!ours) continue;
    // A command ending in <<'EOF' reads the block's following lines up to EOF.
    std::string script = e.command + "\n";
    for (const auto& line : e.heredoc) script += line + "\n";
    std::ofstream(dir + "example.sh", std::ios::binary) << script;
    const std::string run = "cd '" + dir + "' && PATH='" + dir + "bin':\"$PATH\" sh example.sh >out.txt 2>err.txt";
    const int status = std::system(run.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const std::string out = slurp(dir + "out.txt"), err = slurp(dir + "err.txt");
    INFO("stdout:\n" << out << "stderr:\n" << err);
    if (code == 3 && e.command.rfind("python3 ", 0) == 0) {
      // The script's "optional package missing" code (jsonschema, torchrec).
      WARN(page << ":" << e.line << ": optional Python package missing: EXAMPLE SKIPPED: " << e.command);
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
  return ran;
}

TEST_CASE("README: every shell example runs as written", "[app][readme]") {
  CHECK(run_page_examples("README.md") >= 8);
}

TEST_CASE("docs: every shell example of every page runs as written", "[app][readme][docs]") {
  const auto pages = documentation_pages();
  REQUIRE(pages.size() > 1);  // docs/ has pages at all
  int ran = 0;
  for (std::size_t i = 1; i < pages.size(); ++i) ran += run_page_examples(pages[i]);
  CHECK(ran >= 20);
}

// The targets of the Markdown links `[text](target)` of `text` that point into the
// repository: no scheme (http:, mailto:), not a bare #anchor; the anchor is dropped.
std::vector<std::pair<int, std::string>> relative_links(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  const std::regex link(R"(\]\(([^)\s]+)\))");
  const auto lines = split_lines(text);
  bool in_block = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) == 0) in_block = !in_block;
    if (in_block) continue;
    for (auto it = std::sregex_iterator(lines[i].begin(), lines[i].end(), link); it != std::sregex_iterator(); ++it) {
      std::string target = (*it)[1];
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0 || target[0] == '#') continue;
      target = target.substr(0, target.find('#'));
      out.emplace_back(static_cast<int>(i) + 1, target);
    }
  }
  return out;
}

TEST_CASE("docs: every relative link of README and docs/ names an existing file", "[app][readme][docs]") {
  // The rule itself: a link with an anchor or a scheme is read as intended.
  const auto sample =
      relative_links("see [a](docs/a.md#x), [b](https://x.org/y) and [c](#here)\n```\n[d](no.md)\n```\n");
  REQUIRE(sample.size() == 1);
  CHECK(sample[0].second == "docs/a.md");

  int links = 0;
  for (const auto& page : documentation_pages()) {
    const fs::path base = fs::path(kSourceDir + "/" + page).parent_path();
    for (const auto& [line, target] : relative_links(slurp(kSourceDir + "/" + page))) {
      INFO(page << ":" << line << ": link to " << target);
      ++links;
      CHECK(fs::exists(base / target));
    }
  }
  CHECK(links >= 20);
}

}  // namespace
}  // namespace shardplan::testing
