// Runs every expectation file in tests/propagation/ (Shardy's lit-test habit):
// many small programs separated by `// -----`, each run through the real binary
// and checked against the `// CHECK...` lines written above or below it.
//
//   // RUN: --strategy basic          extra arguments (%dump = a fresh dump directory)
//   // INPUT: yaml                    the program is YAML or MLIR (default JSON; .mlir files: MLIR)
//   // CHECK: z = [{a, ?}, {?}]       tensor z's sharding in the result
//   // CHECK-OUTPUT: 0 = [{a}, {?}]   output_shardings entry with index 0
//   // CHECK-ITERATIONS: after_propagation: [z]; ...   every iteration, in order
//   // CHECK-RULE: dot0 = ([i, k], [k, j])->([i, j]) {i=8, j=8, k=8} reduction={k}
//   // CHECK-EXIT: 2                  exit code (default 0)
//   // CHECK-ERROR: case.json:3:5: tensor 'x': ...   the stderr lines, in order, exactly
//   // CHECK-STDOUT: text             a line the standard output must contain
//   // CHECK-DUMP: 01.after_user_priority_0.json x2 = [{?}, {}], replicated={a}
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace {

using shardplan::testing::run_shardplan;
using shardplan::testing::scratch_prefix;
using shardplan::testing::slurp;
using shardplan::testing::write_scratch;

struct Case {
  std::string file;
  int line = 0;  // where the case starts in its file
  std::string program;
  std::string args;
  std::string extension = "json";
  std::vector<std::pair<std::string, std::string>> tensors, outputs, rules;
  std::vector<std::string> iterations, errors, stdout_lines;
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> dumps;
  bool check_iterations = false;
  int exit_code = 0;
};

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

// "name = value" -> (name, value).
std::pair<std::string, std::string> split_assignment(const std::string& text) {
  std::size_t eq = text.find(" = ");
  if (eq == std::string::npos) return {trim(text), ""};
  return {trim(text.substr(0, eq)), trim(text.substr(eq + 3))};
}

bool directive(const std::string& line, const std::string& name, std::string& rest) {
  std::string prefix = "// " + name + ":";
  if (line.rfind(prefix, 0) != 0) return false;
  rest = trim(line.substr(prefix.size()));
  return true;
}

std::vector<Case> read_cases(const std::string& path) {
  std::vector<Case> cases;
  std::ifstream in(path);
  std::string line;
  Case current;
  int number = 0;
  auto finish = [&] {
    if (trim(current.program).empty() && current.errors.empty()) return;
    cases.push_back(current);
  };
  current.file = std::filesystem::path(path).filename().string();
  current.line = 1;
  bool mlir = std::filesystem::path(path).extension() == ".mlir";  // configs/propagate/*.mlir
  if (mlir) current.extension = "mlir";
  while (std::getline(in, line)) {
    ++number;
    std::string rest;
    if (trim(line) == "// -----") {
      finish();
      current = Case{};
      current.file = std::filesystem::path(path).filename().string();
      if (mlir) current.extension = "mlir";
      current.line = number + 1;
    } else if (directive(line, "RUN", rest)) {
      current.args += " " + rest;
    } else if (directive(line, "INPUT", rest)) {
      current.extension = rest;
    } else if (directive(line, "CHECK", rest)) {
      current.tensors.push_back(split_assignment(rest));
    } else if (directive(line, "CHECK-OUTPUT", rest)) {
      current.outputs.push_back(split_assignment(rest));
    } else if (directive(line, "CHECK-RULE", rest)) {
      current.rules.push_back(split_assignment(rest));
    } else if (directive(line, "CHECK-ITERATIONS", rest)) {
      current.check_iterations = true;
      std::stringstream parts(rest);
      std::string part;
      while (std::getline(parts, part, ';'))
        if (!trim(part).empty()) current.iterations.push_back(trim(part));
    } else if (directive(line, "CHECK-EXIT", rest)) {
      current.exit_code = std::stoi(rest);
    } else if (directive(line, "CHECK-ERROR", rest)) {
      current.errors.push_back(rest);
    } else if (directive(line, "CHECK-STDOUT", rest)) {
      current.stdout_lines.push_back(rest);
    } else if (directive(line, "CHECK-DUMP", rest)) {
      std::size_t space = rest.find(' ');
      current.dumps.push_back({rest.substr(0, space), split_assignment(rest.substr(space + 1))});
    } else if (line.rfind("//", 0) == 0) {
      // a comment explaining the case
    } else if (!current.program.empty() || !trim(line).empty()) {  // leading blank lines do not count
      current.program += line + "\n";
    }
  }
  finish();
  return cases;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  std::string line;
  while (std::getline(s, line)) out.push_back(line);
  return out;
}

// Every mismatch between what the case expects and what the binary did.
std::vector<std::string> run_case(const Case& c) {
  std::vector<std::string> problems;
  std::string input = write_scratch("case." + c.extension, c.program);
  std::string dump_dir = scratch_prefix() + "dump";
  std::filesystem::remove_all(dump_dir);
  std::string args = replace_all(c.args, "%dump", "'" + dump_dir + "'");
  auto r = run_shardplan("propagate --input '" + input + "'" + args);
  if (r.exit_code != c.exit_code)
    problems.push_back("exit code: expected " + std::to_string(c.exit_code) + ", got " + std::to_string(r.exit_code) +
                       "\nstderr:\n" + r.err);
  std::vector<std::string> err = lines_of(replace_all(r.err, scratch_prefix(), ""));
  if (!c.errors.empty() || c.exit_code != 0) {
    std::vector<std::string> expected;
    for (const auto& e : c.errors) expected.push_back("error: " + e);
    if (err != expected) {
      std::string text = "stderr: expected\n";
      for (const auto& e : expected) text += "  " + e + "\n";
      text += "got\n";
      for (const auto& e : err) text += "  " + e + "\n";
      problems.push_back(text);
    }
  }
  for (const auto& want : c.stdout_lines)
    if (r.out.find(want) == std::string::npos) problems.push_back("stdout lacks '" + want + "':\n" + r.out);
  if (c.exit_code != 0 || r.exit_code != 0) return problems;
  bool needs_json = !c.tensors.empty() || !c.outputs.empty() || !c.rules.empty() || c.check_iterations;
  nlohmann::json result;
  if (needs_json) {
    try {
      result = nlohmann::json::parse(r.out);
    } catch (const std::exception& e) {
      problems.push_back(std::string("output is not JSON: ") + e.what() + "\n" + r.out);
      return problems;
    }
  }
  auto find_in = [](const nlohmann::json& list, const char* key, const nlohmann::json& value,
                    const char* field) -> std::string {
    if (!list.is_array()) return "<missing>";
    for (const auto& entry : list)
      if (entry.value(key, nlohmann::json()) == value) return entry.value(field, std::string("<missing>"));
    return "<missing>";
  };
  for (const auto& [name, want] : c.tensors) {
    std::string got = find_in(result["shardings"], "name", name, "sharding");
    if (got != want)
      problems.push_back("tensor '" + name + "': expected " + want + "\n" + std::string(8 + name.size(), ' ') +
                         "   got " + got);
  }
  for (const auto& [index, want] : c.outputs) {
    std::string got = find_in(result["output_shardings"], "index", std::stoi(index), "sharding");
    if (got != want) problems.push_back("output " + index + ": expected " + want + ", got " + got);
  }
  for (const auto& [op, want] : c.rules) {
    std::string got = find_in(result["sharding_rules"], "op", op, "rule");
    if (got != want) problems.push_back("rule of op '" + op + "':\n  expected " + want + "\n       got " + got);
  }
  if (c.check_iterations) {
    std::vector<std::string> got;
    for (const auto& it : result["iterations"]) {
      std::string text = it["label"].get<std::string>() + ": [";
      bool first = true;
      for (const auto& name : it["changed"]) {
        text += (first ? "" : ", ") + name.get<std::string>();
        first = false;
      }
      got.push_back(text + "]");
    }
    if (got != c.iterations) {
      std::string text = "iterations: expected\n";
      for (const auto& i : c.iterations) text += "  " + i + "\n";
      text += "got\n";
      for (const auto& i : got) text += "  " + i + "\n";
      problems.push_back(text);
    }
  }
  for (const auto& [file, check] : c.dumps) {
    std::string content = slurp(dump_dir + "/" + file);
    if (content.empty()) {
      problems.push_back("dump " + file + " was not written");
      continue;
    }
    auto dump = nlohmann::json::parse(content);
    std::string got = find_in(dump["tensors"], "name", check.first, "sharding");
    if (got != check.second)
      problems.push_back("dump " + file + ", tensor '" + check.first + "': expected " + check.second + ", got " + got);
  }
  return problems;
}

}  // namespace

TEST_CASE("propagate expectation files", "[propagate]") {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SHARDPLAN_SOURCE_DIR) + "/tests/propagation"))
    if (entry.path().extension() == ".txt") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  // The JAX-style example modules carry their expected shardings as CHECK lines too.
  std::vector<std::string> modules;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SHARDPLAN_SOURCE_DIR) + "/configs/propagate"))
    if (entry.path().extension() == ".mlir") modules.push_back(entry.path().string());
  std::sort(modules.begin(), modules.end());
  CHECK(modules.size() >= 6);
  files.insert(files.end(), modules.begin(), modules.end());
  int total = 0;
  for (const auto& file : files) {
    for (const Case& c : read_cases(file)) {
      ++total;
      for (const auto& problem : run_case(c))
        FAIL_CHECK(c.file << ":" << c.line << "\nprogram (" << c.extension << ", args:" << c.args << "):\n"
                          << c.program << problem);
    }
  }
  CHECK(total > 0);
}
