// `shardplan a2a --input FILE [--output FILE]`: simulates torchrec's KJTAllToAll
// (spec kjt-all-to-all.md) and prints what every destination rank receives and
// what every collective moves, as JSON.
#include <memory>
#include <string>

#include "commands.h"
#include "common/error.h"
#include "kjt/all_to_all.h"
#include "kjt/input_reader.h"
#include "kjt/output_json.h"
#include "output.h"

namespace shardplan::app {

namespace {

struct A2aOptions {
  std::string input;
  std::string output;
  bool check_only = false;
};

int run(const A2aOptions& options) {
  kjt::A2aInput input = kjt::read_a2a_input(options.input);
  if (options.check_only) return static_cast<int>(ExitCode::kOk);
  kjt::A2aResult result = kjt::simulate(input);
  std::string text;
  kjt::append_output_json(input, result, text);
  input = kjt::A2aInput{};  // every value now lives in `text`: give the input's memory back before writing
  write_output(options.output, text);
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_a2a(CLI::App& sub) {
  auto options = std::make_shared<A2aOptions>();
  sub.add_option("--input,-i", options->input, "the KJT on every source rank and the splits (JSON or YAML)")
      ->required()
      ->type_name("FILE");
  sub.add_option("--output,-o", options->output, "write the result here (atomically) instead of stdout")
      ->type_name("FILE");
  sub.add_flag("--check-only", options->check_only,
               "read and check the input, then stop: no simulation, no output (exit code as usual)");
  sub.footer(
      "Example:\n"
      "  shardplan a2a --input kjt.json -o received.json\n"
      "  where kjt.json holds\n"
      "  {\"splits\": [2, 1], \"inputs\": [\n"
      "    {\"rank\": 0, \"keys\": [\"A\",\"B\",\"C\"], \"lengths\": [[1,0,2],[0,1,1],[1,1,0]],\n"
      "     \"values\": [\"A.V0\",\"A.V1\",\"A.V2\",\"B.V0\",\"B.V1\",\"C.V0\",\"C.V1\"]},\n"
      "    {\"rank\": 1, \"keys\": [\"A\",\"B\",\"C\"], \"lengths\": [[1,1,0],[0,1,2],[1,1,0]],\n"
      "     \"values\": [\"A.V3\",\"A.V4\",\"B.V2\",\"B.V3\",\"B.V4\",\"C.V2\",\"C.V3\"]}]}\n"
      "Optional input keys: feature_layout (instead of splits), stagger, protocol\n"
      "(lengths_then_values | splits_then_tensors), dtypes {lengths, values, weights}, weights per rank.\n"
      "Exit code 0 on success, 2 on bad input (every problem listed as file:line:col: key.path: message).");
  return [options] { return run(*options); };
}

}  // namespace shardplan::app
