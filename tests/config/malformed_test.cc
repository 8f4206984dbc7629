// Broken, truncated, binary, deeply nested and overflowing inputs: the loader
// reports InputError with a position and never crashes or throws anything else.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "config/config_test_util.h"
#include "config/loader.h"
#include "support/golden.h"
#include "support/run_binary.h"

using namespace shardplan;
using shardplan::testing::problems_of;
using shardplan::testing::slurp;
using shardplan::testing::write_scratch;

using Lines = std::vector<std::string>;

namespace {

// Validates `text` as `file`; a problem other than InputError fails the test.
void expect_no_crash(const std::string& file, const std::string& text) {
  try {
    (void)validate_text(file, text, std::nullopt);
  } catch (const InputError& e) {
    CHECK(!e.diagnostics().empty());
  } catch (const std::exception& e) {
    FAIL_CHECK(file << ": unexpected " << typeid(e).name() << ": " << e.what());
  }
}

}  // namespace

TEST_CASE("malformed JSON reports the parser's position and message", "[config]") {
  std::string path = write_scratch("malformed.json", "{\n  \"world_size\": 8,\n  \"x\": [1, 2,\n}\n");
  CHECK(problems_of([&] { load_topology(path); }) ==
        Lines{"malformed.json:4:1: invalid JSON: syntax error while parsing value - unexpected '}'; expected '[', "
              "'{', or a literal"});
  // A trailing comma is fine in YAML flow style but not in JSON: the JSON pass catches it.
  std::string trailing = write_scratch("trailing.json", "{\"world_size\": 8,}");
  CHECK(problems_of([&] { load_topology(trailing); }) ==
        Lines{"trailing.json:1:18: invalid JSON: syntax error while parsing object key - unexpected '}'; expected "
              "string literal"});
}

TEST_CASE("malformed YAML reports the parser's position and message", "[config]") {
  std::string path = write_scratch("malformed.yaml", "world_size: 8\nfoo: [1, 2\nbar: 3\n");
  CHECK(problems_of([&] { load_topology(path); }) ==
        Lines{"malformed.yaml:3:4: invalid YAML: end of sequence flow not found"});
  std::string bad_indent = write_scratch("indent.yaml", "world_size: 8\n  hbm_cap: 1\n local: 2\n");
  CHECK(problems_of([&] { load_topology(bad_indent); }).size() == 1);
}

TEST_CASE("missing, unreadable and empty files get a clear message", "[config]") {
  CHECK(problems_of([&] { load_case("/nonexistent/dir/case.json"); }) ==
        Lines{"/nonexistent/dir/case.json: cannot open the file (missing or not readable)"});
  std::string dir = shardplan::testing::scratch_prefix() + "a_directory.yaml";
  std::filesystem::create_directories(dir);
  CHECK(problems_of([&] { load_model(dir); }) == Lines{"a_directory.yaml: is a directory, expected an input file"});
  CHECK(problems_of([&] { load_model(write_scratch("empty.yaml", "")); }) ==
        Lines{"empty.yaml: the file is empty; expected a mapping of keys"});
  CHECK(problems_of([&] { load_model(write_scratch("comments.yaml", "# nothing\n")); }) ==
        Lines{"comments.yaml: the file is empty; expected a mapping of keys"});
}

TEST_CASE("huge numbers are reported, not wrapped", "[config]") {
  CHECK(problems_of([&] { load_topology(write_scratch("huge.json", "{\"world_size\": 1e400}")); }) ==
        Lines{"huge.json:1:20: invalid JSON: number overflow parsing '1e400'"});
  CHECK(problems_of([&] {
          load_topology(write_scratch("huge.yaml",
                                      "world_size: 99999999999999999999999\nhbm_cap: 1e400\nhbm_mem_bw: 1e400\n"
                                      "ddr_cap: 99999999 TiB\n"));
        }) == Lines{"huge.yaml:1:13: world_size: integer out of range (beyond 64 bits), found "
                    "'99999999999999999999999'",
                    "huge.yaml:2:10: hbm_cap: integer out of range, found '1e400'",
                    "huge.yaml:3:13: hbm_mem_bw: number out of range, found '1e400'",
                    "huge.yaml:4:10: ddr_cap: size too large (more than 2^63 bytes), found '99999999 TiB'"});
  // 2^63 exactly is one past int64's maximum.
  CHECK(problems_of([&] { load_topology(write_scratch("big.json", "{\"world_size\": 9223372036854775808}")); }) ==
        Lines{"big.json:1:16: world_size: integer out of range (beyond 64 bits), found '9223372036854775808'"});
}

TEST_CASE("deep nesting is refused before it reaches a recursive parser", "[config]") {
  CHECK(problems_of([&] { load_model(write_scratch("deep.yaml", std::string(10000, '['))); }) ==
        Lines{"deep.yaml:1:65: nesting deeper than 64 levels"});
  CHECK(problems_of([&] { load_model(write_scratch("deep.json", std::string(10000, '{'))); }) ==
        Lines{"deep.json:1:65: nesting deeper than 64 levels"});
  // Block nesting by indentation: yaml-cpp's own depth guard, turned into InputError.
  std::string block;
  for (int i = 0; i < 3000; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  auto problems = problems_of([&] { load_model(write_scratch("deep_block.yaml", block)); });
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("invalid YAML: nesting too deep") != std::string::npos);
  // Brackets inside strings and comments do not count.
  std::string quoted = "name: \"" + std::string(200, '[') + "\"  # " + std::string(200, '{') + "\nmodules: 1\n";
  CHECK(problems_of([&] { load_model(write_scratch("quoted.yaml", quoted)); }) ==
        Lines{"quoted.yaml:2:10: modules: expected a list of modules, found '1'"});
}

TEST_CASE("truncated case files never crash the loader", "[config]") {
  auto dir = shardplan::testing::cases_dir();
  if (!dir) return;
  auto cases = shardplan::testing::golden_cases(true);
  REQUIRE(!cases.empty());
  for (const auto& c : cases) {
    std::string text = slurp(c.case_path);
    // About 40 cut points per file, as JSON and (the same bytes) as YAML.
    std::size_t step = std::max<std::size_t>(1, text.size() / 40);
    for (std::size_t cut = 0; cut < text.size(); cut += step) {
      std::string part = text.substr(0, cut);
      expect_no_crash(c.name + ".json", part);
      expect_no_crash(c.name + ".yaml", part);
    }
  }
}

TEST_CASE("random bytes never crash the loader", "[config]") {
  std::mt19937 rng(20240521);  // fixed seed: the same garbage on every run
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 400);
  for (int i = 0; i < 300; ++i) {
    std::string text(static_cast<std::size_t>(length(rng)), '\0');
    for (char& ch : text) ch = static_cast<char>(byte(rng));
    expect_no_crash("garbage.json", text);
    expect_no_crash("garbage.yaml", text);
  }
  // Printable garbage made of YAML's own punctuation reaches deeper into the parser.
  const std::string alphabet = "[]{}:,-?&*!|>'\"#%@` \n\tab1.";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (int i = 0; i < 300; ++i) {
    std::string text(static_cast<std::size_t>(length(rng)), ' ');
    for (char& ch : text) ch = alphabet[pick(rng)];
    expect_no_crash("punct.yaml", text);
  }
}
