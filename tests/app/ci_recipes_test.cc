// docs/ci.md's GitHub Actions and GitLab CI recipes, run as written: the shell steps
// after the install step (GitHub) and the `script:` lines (GitLab), in order, in a
// real git repository whose base branch and pull-request branch hold two configs,
// with the shardplan just built on PATH. Checks the job's exit code (0 pass, 1
// regression, 2 bad input) and the Markdown that reaches the job summary.
#include <sys/wait.h>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;

// The ```yaml blocks of docs/ci.md, in order.
std::vector<std::vector<std::string>> ci_yaml_blocks() {
  std::vector<std::vector<std::string>> blocks;
  bool in_yaml = false;
  for (const std::string& line : split_lines(slurp(kSourceDir + "/docs/ci.md"))) {
    if (line.rfind("```", 0) == 0 && !in_yaml && line == "```yaml") {
      in_yaml = true;
      blocks.emplace_back();
    } else if (line == "```" && in_yaml) {
      in_yaml = false;
    } else if (in_yaml) {
      blocks.back().push_back(line);
    }
  }
  return blocks;
}

std::size_t indent_of(const std::string& line) { return line.find_first_not_of(' '); }

// GitHub: the `run:` scripts of the steps after the one named "Install shardplan"
// (the steps up to it put shardplan on PATH, which the test does with its own build).
std::vector<std::string> github_run_steps(const std::vector<std::string>& yaml) {
  std::vector<std::string> steps;
  bool after_install = false, in_install = false, in_run = false;
  std::size_t run_indent = 0;
  for (const std::string& line : yaml) {
    const std::size_t indent = line.empty() ? std::string::npos : indent_of(line);
    if (in_run) {
      if (line.empty() || (indent != std::string::npos && indent > run_indent)) {
        steps.back() += (line.empty() ? "" : line.substr(run_indent + 2)) + "\n";
        continue;
      }
      in_run = false;
    }
    if (line.rfind("      - ", 0) == 0) {  // a step starts: those after the install step count
      if (in_install) after_install = true;
      in_install = line.find("name: Install shardplan") != std::string::npos;
    }
    if (!after_install || indent == std::string::npos) continue;
    const std::string body = line.substr(indent);
    if (body.rfind("run: |", 0) == 0) {
      steps.emplace_back();
      in_run = true;
      run_indent = indent;
    } else if (body.rfind("run: ", 0) == 0) {
      steps.push_back(body.substr(5) + "\n");
    }
  }
  return steps;
}

// GitLab: the `script:` lines of the job, one shell command each.
std::vector<std::string> gitlab_script_lines(const std::vector<std::string>& yaml) {
  std::vector<std::string> lines;
  bool in_script = false;
  for (const std::string& line : yaml) {
    if (line == "  script:") {
      in_script = true;
      continue;
    }
    if (!in_script) continue;
    if (line.rfind("    - ", 0) != 0) break;
    lines.push_back(line.substr(6));
  }
  return lines;
}

int exit_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// A git repository with `origin` holding main (the quickstart config) and a checkout
// of branch pr whose config is `pr_config`, fetched as a CI checkout would be.
std::string make_repo(const std::string& name, const std::string& pr_config) {
  const std::string dir = scratch_prefix() + name + "/";
  fs::remove_all(dir);
  fs::create_directories(dir + "work/shardplan");
  fs::copy_file(kQuickstartConfig, dir + "work/shardplan/config.json");
  std::ofstream(dir + "setup.sh") << "set -e\n"
                                     "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t "
                                     "GIT_COMMITTER_EMAIL=t@t\n"
                                     "git init -q --bare -b main origin.git\n"
                                     "cd work\n"
                                     "git init -q -b main\n"
                                     "git add shardplan/config.json && git commit -q -m base\n"
                                     "git remote add origin ../origin.git && git push -q origin main\n"
                                     "git checkout -q -b pr\n"
                                     "cp ../pr-config.json shardplan/config.json\n"
                                     "git commit -q -am pr --allow-empty\n"
                                     "git fetch -q origin\n";
  std::ofstream(dir + "pr-config.json") << pr_config;
  const std::string command = "cd '" + dir + "' && bash setup.sh >setup.log 2>&1";
  REQUIRE(exit_status(std::system(command.c_str())) == 0);
  return dir;
}

// Runs `steps` in the repository's checkout as the CI would: each step in its own
// bash with -e (GitHub's default shell) or all lines in one (GitLab); returns the
// job's exit code: the first failing step's, else 0.
int run_job(const std::string& dir, const std::vector<std::string>& steps, bool one_shell) {
  // SHARDPLAN_CI_BIN_DIR: an installed shardplan instead (tests/package/deb_install_test.sh).
  const char* installed = std::getenv("SHARDPLAN_CI_BIN_DIR");
  const std::string bin_dir = installed ? installed : fs::path(SHARDPLAN_BINARY).parent_path().string();
  std::string env = "export PATH='" + bin_dir + "':\"$PATH\" GITHUB_STEP_SUMMARY='" + dir +
                    "summary.md' GITHUB_BASE_REF=main CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main\n";
  std::vector<std::string> scripts;
  if (one_shell) {
    std::string all;
    for (const std::string& s : steps) all += s + "\n";
    scripts.push_back(all);
  } else {
    scripts = steps;
  }
  for (std::size_t i = 0; i < scripts.size(); ++i) {
    const std::string file = dir + "step" + std::to_string(i) + ".sh";
    std::ofstream(file) << env << "set -eo pipefail\n" << scripts[i];
    const std::string command =
        "cd '" + dir + "work' && bash --noprofile --norc '" + file + "' >>'" + dir + "job.log' 2>&1";
    const int code = exit_status(std::system(command.c_str()));
    if (code != 0) return code;
  }
  return 0;
}

std::string slower_config() {
  std::string config = slurp(kQuickstartConfig);
  const std::string from = "\"batch_size\": 512";
  const auto at = config.find(from);
  REQUIRE(at != std::string::npos);
  return config.replace(at, from.size(), "\"batch_size\": 4096");
}

TEST_CASE("docs/ci.md: the recipes' steps are where the test looks for them", "[app][ci]") {
  const auto blocks = ci_yaml_blocks();
  REQUIRE(blocks.size() == 2);
  const auto github = github_run_steps(blocks[0]);
  REQUIRE(github.size() == 2);  // plan both branches; diff
  CHECK(github[0].find("shardplan plan --config base-tree/") != std::string::npos);
  CHECK(github[1].find("shardplan diff main-plan.json plan.json --format markdown") != std::string::npos);
  const auto gitlab = gitlab_script_lines(blocks[1]);
  REQUIRE(gitlab.size() == 5);
  CHECK(gitlab.back().rfind("shardplan diff main-plan.json plan.json --format markdown", 0) == 0);
  // Nothing swallows an exit code.
  for (const auto& block : blocks)
    for (const auto& line : block) CHECK(line.find("|| true") == std::string::npos);
  for (const char* permission : {"  contents: read", "  pull-requests: write"}) {
    bool found = false;
    for (const auto& line : blocks[0]) found = found || line.rfind(permission, 0) == 0;
    CHECK(found);
  }
}

TEST_CASE("docs/ci.md: the GitHub Actions recipe passes, fails a regression and fails bad input", "[app][ci]") {
  const auto steps = github_run_steps(ci_yaml_blocks().at(0));
  SECTION("unchanged config: exit 0, a passing summary") {
    const std::string dir = make_repo("ci-gh-same", slurp(kQuickstartConfig));
    CHECK(run_job(dir, steps, false) == 0);
    const std::string summary = slurp(dir + "summary.md");
    CHECK(summary.rfind("### shardplan diff: ✅ no regression\n", 0) == 0);
    CHECK(summary == slurp(dir + "work/plan-diff.md"));
    CHECK(summary.find("same inputs, same tool version") != std::string::npos);
  }
  SECTION("a larger batch: exit 1, the regression and the changed input in the summary") {
    const std::string dir = make_repo("ci-gh-slow", slower_config());
    CHECK(run_job(dir, steps, false) == 1);
    const std::string summary = slurp(dir + "summary.md");
    INFO(summary);
    CHECK(summary.rfind("### shardplan diff: ❌ regression\n", 0) == 0);
    CHECK(summary.find("- model.batch\\_size: 512 -> 4096\n") != std::string::npos);
    CHECK(summary.find("- max-rank perf regressed: ") != std::string::npos);
    CHECK(fs::exists(dir + "work/main-plan.json"));  // the artifacts
  }
  SECTION("a config that does not load: exit 2") {
    const std::string dir = make_repo("ci-gh-bad", "{\"model\": ");
    CHECK(run_job(dir, steps, false) == 2);
    CHECK_FALSE(fs::exists(dir + "work/plan.json"));
  }
}

TEST_CASE("docs/ci.md: the GitLab CI recipe passes, fails a regression and fails bad input", "[app][ci]") {
  const auto lines = gitlab_script_lines(ci_yaml_blocks().at(1));
  const std::string same = make_repo("ci-gl-same", slurp(kQuickstartConfig));
  CHECK(run_job(same, lines, true) == 0);
  CHECK(slurp(same + "work/plan-diff.md").rfind("### shardplan diff: ✅ no regression\n", 0) == 0);
  const std::string slow = make_repo("ci-gl-slow", slower_config());
  CHECK(run_job(slow, lines, true) == 1);
  CHECK(slurp(slow + "work/plan-diff.md").rfind("### shardplan diff: ❌ regression\n", 0) == 0);
  const std::string bad = make_repo("ci-gl-bad", "{\"model\": ");
  CHECK(run_job(bad, lines, true) == 2);
}

TEST_CASE("examples/kubernetes: the image installs the package; the jobs' volume claim is defined beside them",
          "[app][ci]") {
  const std::string dir = kSourceDir + "/examples/kubernetes/";
  const std::string dockerfile = slurp(dir + "Dockerfile");
  // The file name scripts/package-deb.sh writes (CPack's DEB-DEFAULT: name_version_arch.deb).
  CHECK(dockerfile.find("COPY shardplan_*.deb /tmp/\n") != std::string::npos);
  CHECK(dockerfile.find("apt-get install -y --no-install-recommends /tmp/shardplan_*.deb") != std::string::npos);
  CHECK(std::regex_search(slurp(kSourceDir + "/cmake/packaging.cmake"),
                          std::regex("CPACK_DEBIAN_FILE_NAME DEB-DEFAULT")));
  const std::string pvc = slurp(dir + "results-pvc.yaml");
  CHECK(pvc.find("kind: PersistentVolumeClaim\n") != std::string::npos);
  CHECK(pvc.find("  name: shardplan-sweep-results\n") != std::string::npos);
  for (const char* job : {"sweep-job.yaml", "sweep-merge-job.yaml"})
    CHECK(slurp(dir + job).find("claimName: shardplan-sweep-results") != std::string::npos);
}

}  // namespace
}  // namespace shardplan::testing
