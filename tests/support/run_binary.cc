#include "support/run_binary.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "config/config_test_util.h"

namespace shardplan::testing {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

RunResult run_shardplan_with_stdin(const std::string& args, const std::string& stdin_path) {
  std::string out = scratch_prefix() + "run.out";
  std::string err = scratch_prefix() + "run.err";
  std::string command =
      std::string("'") + SHARDPLAN_BINARY + "' " + args + " >'" + out + "' 2>'" + err + "' <'" + stdin_path + "'";
  int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

RunResult run_shardplan(const std::string& args) { return run_shardplan_with_stdin(args, "/dev/null"); }

}  // namespace shardplan::testing
