// Issue 24: the readers added after the planner's (a2a, pipeline, propagate, sweep
// files, plan files) keep the same promises under hostile input. Each test runs
// the real binary and checks exit 2 with a positioned message, or the right output.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/bad_input_support.h"
#include "config/config_test_util.h"
#include "support/run_binary.h"

using shardplan::testing::kQuickstartConfig;
using shardplan::testing::kSourceDir;
using shardplan::testing::run_in_scratch;
using shardplan::testing::scratch_prefix;
using shardplan::testing::slurp;
using shardplan::testing::write_scratch;

namespace {

const std::string kKjt = kSourceDir + "/configs/a2a/kjt.json";
const std::string kPipeline = kSourceDir + "/configs/pipeline/transformer.yaml";
const std::string kProgram = kSourceDir + "/configs/propagate/mlp-2layer.json";

// The example inputs copied into the scratch directory under bare names (words of
// run_in_scratch that end in .json or .yaml are taken as scratch files).
const std::string& scratch_inputs() {
  static const std::string done = [] {
    write_scratch("qs.json", slurp(kQuickstartConfig));
    write_scratch("kjt.json", slurp(kKjt));
    write_scratch("transformer.yaml", slurp(kPipeline));
    write_scratch("mlp.json", slurp(kProgram));
    return std::string("qs.json");
  }();
  return done;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The first stderr line (or "" when there is none).
std::string first_error(const shardplan::testing::BadInputRun& run) {
  return run.errors.empty() ? "" : run.errors.front();
}

// The quickstart plan (planned once) as JSON, for the tests to alter.
const nlohmann::json& quickstart_plan() {
  static const nlohmann::json plan = [] {
    auto run = run_in_scratch("plan --config " + scratch_inputs() + " -o hostile-quickstart-plan.json --stats none");
    REQUIRE(run.exit_code == 0);
    return nlohmann::json::parse(slurp(scratch_prefix() + "hostile-quickstart-plan.json"));
  }();
  return plan;
}

// Writes `plan` as `name` and runs a2a --plan on it against the quickstart model.
shardplan::testing::BadInputRun a2a_plan(const std::string& name, const std::string& text) {
  write_scratch(name, text);
  return run_in_scratch("a2a --plan " + name + " --config " + scratch_inputs());
}

// The module path and name of the first table planned as `type`.
std::pair<std::string, std::string> table_of_type(const nlohmann::json& plan, const std::string& type) {
  for (const auto& [module, tables] : plan["plan"].items())
    for (const auto& [name, table] : tables.items())
      if (table["sharding_type"] == type) return {module, name};
  return {"", ""};
}

}  // namespace

TEST_CASE("hostile: JSON the positioned readers refused is read everywhere", "[hostile]") {
  // A surrogate pair (Python's json.dumps of U+1F600) as a feature name of an a2a input.
  write_scratch(
      "emoji.json",
      R"({"splits": [1], "inputs": [{"rank": 0, "keys": ["\ud83d\ude00"], "lengths": [[1]], "values": [7]}]})");
  auto run = run_in_scratch("a2a --input emoji.json -o emoji-out.json");
  CHECK(run.exit_code == 0);
  const std::string out = slurp(scratch_prefix() + "emoji-out.json");
  // The key comes out as the character it stands for, in either JSON spelling.
  CHECK((contains(out, "\xF0\x9F\x98\x80") || contains(out, "\\ud83d\\ude00")));

  // A table name of 1 500 characters: planned, then shown, diffed and read by a2a --plan.
  nlohmann::json config = nlohmann::json::parse(slurp(kQuickstartConfig));
  const std::string long_name(1500, 'n');
  config["model"]["modules"][0]["tables"][2]["name"] = long_name;
  write_scratch("long-name.json", config.dump(2));
  REQUIRE(run_in_scratch("plan --config long-name.json -o long-plan.json --stats none").exit_code == 0);
  CHECK(run_in_scratch("show long-plan.json -o " + scratch_prefix() + "long-show.txt").exit_code == 0);
  CHECK(contains(slurp(scratch_prefix() + "long-show.txt"), std::string(40, 'n')));
  CHECK(run_in_scratch("diff long-plan.json long-plan.json").exit_code == 0);
  CHECK(run_in_scratch("a2a --plan long-plan.json --config long-name.json -o long-a2a.json").exit_code == 0);
  CHECK(contains(slurp(scratch_prefix() + "long-a2a.json"), long_name));
}

TEST_CASE("hostile: the a2a fast path takes nothing the positioned reader refuses", "[hostile]") {
  // Invalid UTF-8 in a value string: refused at its position, not written back raw.
  write_scratch("bad-utf8.json",
                "{\"splits\": [1], \"inputs\": [{\"rank\": 0, \"keys\": [\"a\"], \"lengths\": [[1]], "
                "\"values\": [\"x\xff\"]}]}");
  auto run = run_in_scratch("a2a --input bad-utf8.json");
  CHECK(run.exit_code == 2);
  CHECK(first_error(run).rfind("error: bad-utf8.json:1:", 0) == 0);
  CHECK(contains(first_error(run), "UTF-8"));
  // An infinite weight.
  write_scratch("inf-weight.json",
                "{\"splits\": [1], \"inputs\": [{\"rank\": 0, \"keys\": [\"a\"], \"lengths\": [[1]], "
                "\"values\": [1], \"weights\": [1e999]}]}");
  run = run_in_scratch("a2a --input inf-weight.json");
  CHECK(run.exit_code == 2);
  CHECK(first_error(run).rfind("error: inf-weight.json:1:", 0) == 0);
  CHECK(contains(first_error(run), "1e999"));
}

TEST_CASE("hostile: every reader refuses a file past 64 MiB before reading it", "[hostile]") {
  for (const std::string& command : {std::string("a2a --input"), std::string("propagate --input"),
                                     std::string("pipeline --input"), std::string("show")}) {
    INFO(command);
    std::string path = write_scratch("huge-input.json", "");
    std::filesystem::resize_file(path, (std::uintmax_t{64} << 20) + 1);  // sparse
    auto run = run_in_scratch(command + " huge-input.json");
    CHECK(run.exit_code == 2);
    CHECK(first_error(run) ==
          "error: huge-input.json: the file has 67108865 bytes; expected at most 67108864 "
          "(shardplan's limit)");
  }
}

TEST_CASE("hostile: a2a --plan bounds the world size and checks the plan against the model", "[hostile]") {
  nlohmann::json plan = quickstart_plan();
  CHECK(a2a_plan("plan-ok.json", plan.dump()).exit_code == 0);

  // Each collective is a world_size x world_size matrix: a2a --plan takes 2048 ranks.
  for (const std::int64_t world : {std::int64_t{1} << 62, std::int64_t{65537}, std::int64_t{2049}}) {
    nlohmann::json big = plan;
    big["topology"]["world_size"] = world;
    auto run = a2a_plan("plan-world.json", big.dump(2));
    CHECK(run.exit_code == 2);
    CHECK(contains(first_error(run), "plan-world.json:"));
    CHECK(contains(first_error(run),
                   "topology.world_size: expected at most 2048 (shardplan's limit), found " + std::to_string(world)));
  }

  // A duplicate key is an error at the second, not "the first one wins".
  std::string text = plan.dump();
  const std::string topology = "\"topology\":{";
  REQUIRE(contains(text, topology));
  text.insert(text.find(topology) + topology.size(), "\"world_size\":4,");
  auto run = a2a_plan("plan-dup.json", text);
  CHECK(run.exit_code == 2);
  CHECK(contains(first_error(run), "topology.world_size: duplicate key 'world_size' (first given at line 1, column"));

  // A table_wise table with 4 shards.
  auto [module, table] = table_of_type(plan, "table_wise");
  REQUIRE(!table.empty());
  nlohmann::json four = plan;
  auto& shards = four["plan"][module][table]["shards"];
  for (int i = 0; i < 3; ++i) shards.push_back(shards[0]);
  run = a2a_plan("plan-tw4.json", four.dump(2));
  CHECK(run.exit_code == 2);
  CHECK(contains(first_error(run), "a table_wise table has exactly 1 shard, found 4"));
  // validate --plan reports the same table at its entry in the plan (the '{' after its name).
  const std::string four_text = four.dump(2);
  const std::string entry = "\"" + table + "\": {";
  REQUIRE(contains(four_text, entry));
  const std::size_t brace = four_text.find(entry) + entry.size() - 1;
  const std::size_t line_start = four_text.rfind('\n', brace) + 1;
  const auto line = std::count(four_text.begin(), four_text.begin() + static_cast<std::ptrdiff_t>(brace), '\n') + 1;
  auto validated = run_in_scratch("validate " + scratch_inputs() + " --plan plan-tw4.json");
  CHECK(validated.exit_code == 2);
  CHECK(first_error(validated).rfind("error: plan-tw4.json:" + std::to_string(line) + ":" +
                                         std::to_string(brace - line_start + 1) + ": " + module + "." + table +
                                         ": shards cover ",
                                     0) == 0);

  // A shard of 2^62 rows in a table of far fewer.
  nlohmann::json huge = plan;
  huge["plan"][module][table]["shards"][0]["sizes"][0] = std::int64_t{1} << 62;
  run = a2a_plan("plan-rows.json", huge.dump(2));
  CHECK(run.exit_code == 2);
  CHECK(contains(first_error(run), ".sizes: the shard [0..0+4611686018427387904)"));
  CHECK(contains(first_error(run), "is outside table '" + table + "'"));
}

TEST_CASE("hostile: show and diff refuse a table listed twice", "[hostile]") {
  nlohmann::json plan = quickstart_plan();
  auto [module, table] = table_of_type(plan, "table_wise");
  REQUIRE(!table.empty());
  // Module "m" table "x.t" and module "m.x" table "t": one table m.x.t, twice.
  nlohmann::json twice = plan;
  nlohmann::json entry = plan["plan"][module][table];
  twice["plan"][module]["x." + table] = entry;
  twice["plan"][module + ".x"][table] = entry;
  write_scratch("plan-twice.json", twice.dump(2));
  for (const std::string& command :
       {std::string("show plan-twice.json"), std::string("diff plan-twice.json plan-twice.json")}) {
    INFO(command);
    auto run = run_in_scratch(command);
    CHECK(run.exit_code == 2);
    bool named = false;
    for (const std::string& line : run.errors)
      named = named || contains(line, "duplicate table '" + module + ".x." + table + "' (first at line ");
    CHECK(named);
  }
  // A duplicate key in a plan is the JSON reader's error.
  std::string text = plan.dump();
  const std::string key = "\"" + table + "\":";
  text.insert(text.find(key), key + "{},");
  write_scratch("plan-dupkey.json", text);
  auto run = run_in_scratch("show plan-dupkey.json");
  CHECK(run.exit_code == 2);
  CHECK(contains(first_error(run), "duplicate key '" + table + "'"));
}

// Two inputs of one command cannot both be stdin: the second would read nothing (or
// the rest of the first) and be blamed as an empty or broken file. Refused before
// either is read, with one message for every command.
// nlohmann's lexer ends its input at a NUL byte: a JSON file with a NUL and junk after
// it read as its part before the NUL, in every reader, fast paths included. The NUL
// is now an error at its position.
TEST_CASE("hostile: a NUL byte in a JSON input is a positioned error in every reader", "[hostile]") {
  write_scratch("nul-plan.json", quickstart_plan().dump(2));
  struct Case {
    std::string source, name, args;
  };
  const std::vector<Case> cases{
      {kSourceDir + "/configs/quickstart.json", "nul-config.json", "plan --stats none -o /dev/null --config "},
      {kKjt, "nul-kjt.json", "a2a --input "},
      {kProgram, "nul-program.json", "propagate --input "},
      {scratch_prefix() + "nul-plan.json", "nul-plan2.json", "show "},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    std::string text = slurp(c.source);
    if (text.back() != '\n') text += '\n';
    const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    text += std::string("\0\"junk\": [", 10);
    const std::string path = write_scratch(c.name, text);
    auto r = shardplan::testing::run_shardplan(c.args + "'" + path + "'");
    CHECK(r.exit_code == 2);
    // The NUL starts the line after the file's last newline.
    CHECK(r.err == "error: " + path + ":" + std::to_string(lines + 1) +
                       ":1: invalid JSON: a NUL byte (JSON text holds none: is this a binary file?)\n");
  }
}

TEST_CASE("hostile: '-' for two inputs of one command is refused first", "[hostile]") {
  const std::string plan = scratch_prefix() + "stdin2-plan.json";
  write_scratch("stdin2-plan.json", quickstart_plan().dump(2));
  const std::string output = scratch_prefix() + "stdin2-out.json";
  for (const std::string args :
       {"diff - -", "a2a --plan - --config -", "a2a --plan - --model -", "validate - -", "validate --plan - -",
        "sweep --config - --sweep -", "plan --model - --topology -", "enumerate --model - --topology -"}) {
    INFO(args);
    write_scratch("stdin2-out.json", "stale");
    auto r = shardplan::testing::run_shardplan_with_stdin(args + " -o '" + output + "'", plan);
    if (args.rfind("validate", 0) == 0) r = shardplan::testing::run_shardplan_with_stdin(args, plan);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("error: only one input can be read from stdin ('-'); name the others as files\n", 0) == 0);
    if (args.rfind("validate", 0) != 0) CHECK_FALSE(std::filesystem::exists(output));
  }
  // One '-' among files is fine.
  CHECK(shardplan::testing::run_shardplan_with_stdin("diff " + plan + " -", plan).exit_code == 0);
}

TEST_CASE("hostile: '-' is stdin for a2a, pipeline, propagate, show and diff", "[hostile]") {
  const std::string plan = scratch_prefix() + "stdin-plan.json";
  write_scratch("stdin-plan.json", quickstart_plan().dump(2));
  struct Case {
    std::string with_file, with_stdin, stdin_path;
  };
  const std::vector<Case> cases{
      {"a2a --input " + kKjt, "a2a --input -", kKjt},
      {"pipeline --input " + kPipeline, "pipeline --input -", kPipeline},
      {"propagate --input " + kProgram, "propagate --input -", kProgram},
      {"show " + plan, "show -", plan},
      {"diff " + plan + " " + plan, "diff " + plan + " -", plan},
  };
  for (const Case& c : cases) {
    INFO(c.with_stdin);
    auto from_file = shardplan::testing::run_shardplan(c.with_file);
    auto from_stdin = shardplan::testing::run_shardplan_with_stdin(c.with_stdin, c.stdin_path);
    CHECK(from_file.exit_code == 0);
    CHECK(from_stdin.exit_code == 0);
    CHECK(!from_file.out.empty());
    // diff's first line names its inputs ("diff OLD -> NEW"): NEW is <stdin> there.
    auto body = [&](const std::string& out) {
      return c.with_stdin.rfind("diff", 0) == 0 ? out.substr(out.find('\n')) : out;
    };
    CHECK(body(from_stdin.out) == body(from_file.out));
  }
  // An MLIR module on stdin whose comments run past the first 256 bytes is still MLIR.
  const std::string mlir = kSourceDir + "/configs/propagate/mlp-2layer.mlir";
  REQUIRE(slurp(mlir).rfind("//", 0) == 0);
  auto from_file = shardplan::testing::run_shardplan("propagate --input " + mlir);
  auto from_stdin = shardplan::testing::run_shardplan_with_stdin("propagate --input -", mlir);
  CHECK(from_stdin.exit_code == 0);
  CHECK(from_stdin.out == from_file.out);
  // sweep takes a case on stdin: the same rows (and the same sweep id: the same bytes).
  auto sweep_file =
      shardplan::testing::run_shardplan("sweep --config " + kQuickstartConfig + " --set world_size=1,2 --no-summary");
  auto sweep_stdin = shardplan::testing::run_shardplan_with_stdin("sweep --config - --set world_size=1,2 --no-summary",
                                                                  kQuickstartConfig);
  CHECK(sweep_stdin.exit_code == 0);
  CHECK(!sweep_file.out.empty());
  CHECK(sweep_stdin.out == sweep_file.out);
  // A problem in stdin is reported at <stdin>'s position.
  write_scratch("stdin-bad.json", "{\"splits\": [1],\n \"inputs\": 7}");
  auto bad = shardplan::testing::run_shardplan_with_stdin("a2a --input -", scratch_prefix() + "stdin-bad.json");
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.err, "error: <stdin>:2:12: inputs: expected a list, found '7'"));
}

TEST_CASE("hostile: a failed run removes an earlier output at -o", "[hostile]") {
  write_scratch("not-an-input.json", "{\"nothing\": 1}");
  const std::string out = scratch_prefix() + "stale-out.txt";
  for (const std::string& command :
       {std::string("a2a --input not-an-input.json"),
        std::string("a2a --plan not-an-input.json --config ") + scratch_inputs(),
        std::string("pipeline --input not-an-input.json"), std::string("propagate --input not-an-input.json"),
        std::string("show not-an-input.json"), std::string("diff not-an-input.json not-an-input.json")}) {
    INFO(command);
    write_scratch("stale-out.txt", "an earlier run's output\n");
    auto run = run_in_scratch(command + " -o " + out);
    CHECK(run.exit_code == 2);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  // The planner's commands and sweep alike (sweep --resume keeps the rows it continues).
  for (const std::string& command : {std::string("enumerate --config not-an-input.json"),
                                     std::string("explain --config not-an-input.json --table t"),
                                     std::string("explain --config ") + scratch_inputs() + " --table no_such_table",
                                     std::string("sweep --config not-an-input.json --set world_size=1"),
                                     std::string("sweep merge not-an-input.json")}) {
    INFO(command);
    write_scratch("stale-out.txt", "an earlier run's output\n");
    auto run = run_in_scratch(command + " -o " + out);
    CHECK(run.exit_code == 2);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  // A device is never removed, and is written in place.
  scratch_inputs();
  CHECK(run_in_scratch("a2a --input kjt.json -o /dev/null").exit_code == 0);
  CHECK(run_in_scratch("a2a --input not-an-input.json -o /dev/null").exit_code == 2);
  CHECK(std::filesystem::exists("/dev/null"));
}

TEST_CASE("hostile: pipeline bounds layer times, so sums of them stay finite", "[hostile]") {
  write_scratch("huge-time.json", R"({"layers": [{"name": "a", "fwd_ms_per_sample": 1e308}, {"name": "b"}],
  "batch_size": 8, "devices": {"count": 2}})");
  auto run = run_in_scratch("pipeline --input huge-time.json");
  CHECK(run.exit_code == 2);
  CHECK(first_error(run) ==
        "error: huge-time.json:1:48: layers[0].fwd_ms_per_sample: expected at most 1e12 (shardplan's limit), found "
        "1e308");
}

TEST_CASE("hostile: sweep writes devices in place and refuses a second writer", "[hostile]") {
  const std::string grid = "--set world_size=1,2";
  auto run = run_in_scratch("sweep --config " + scratch_inputs() + " " + grid + " --no-summary -o /dev/null");
  CHECK(run.exit_code == 0);
  CHECK(run.errors.empty());

  // Another sweep holds the lock on the file: this one is refused and leaves it alone.
  const std::string path = write_scratch("locked.jsonl", "the other sweep's rows\n");
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  run = run_in_scratch("sweep --config " + scratch_inputs() + " " + grid + " -o " + path);
  ::close(fd);
  CHECK(run.exit_code == 2);
  CHECK(first_error(run) == "error: " + path.substr(scratch_prefix().size()) +
                                ": another sweep is writing this file now; wait for it, or give another -o");
  CHECK(slurp(path) == "the other sweep's rows\n");
}

TEST_CASE("hostile: sweep merge and --resume take only whole rows", "[hostile]") {
  auto run = run_in_scratch("sweep --config " + scratch_inputs() + " --set world_size=1,2 -o " + scratch_prefix() +
                            "rows.jsonl");
  REQUIRE(run.exit_code == 0);
  const std::string rows = slurp(scratch_prefix() + "rows.jsonl");
  const std::size_t first_end = rows.find('\n');
  REQUIRE(first_end != std::string::npos);
  const std::string first = rows.substr(0, first_end), rest = rows.substr(first_end + 1);
  // The first row with a key given twice (nlohmann's parse would keep the last).
  const std::string duplicate = first.substr(0, first.size() - 1) + ",\"index\":0}";
  for (const std::string& corrupt :
       {first + std::string("\0junk", 5) + "\n" + rest, first + "\r\n" + rest, duplicate + "\n" + rest}) {
    write_scratch("corrupt.jsonl", corrupt);
    auto merge = run_in_scratch("sweep merge " + scratch_prefix() + "corrupt.jsonl");
    CHECK(merge.exit_code == 2);
    CHECK(contains(first_error(merge), "corrupt.jsonl:1:1: not a complete sweep row"));
    auto resume = run_in_scratch("sweep --config " + scratch_inputs() + " --set world_size=1,2 --resume -o " +
                                 scratch_prefix() + "corrupt.jsonl");
    CHECK(resume.exit_code == 2);
    CHECK(contains(first_error(resume), "corrupt.jsonl:1:1: not a complete jsonl row of a sweep"));
  }
}
