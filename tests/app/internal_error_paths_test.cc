// Every exception that reaches main as something other than InputError is printed
// "internal error" and exits 3 (ExitCode::kInternal). This test reads lib/ and app/
// and lists every throw that is not an InputError; each must be one of the reviewed
// ones below, which the loader's checks make unreachable (a real bug if reached).
// A new throw fails the test until it is made an InputError / planning outcome or
// added here with the reason it cannot happen on validated input.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Allowed {
  const char* type;
  const char* message_start;  // the first string literal of the throw, enough to tell it apart
  const char* why_unreachable;
};

const Allowed kAllowed[] = {
    // Caught where they are thrown, or mapped to a planning outcome (exit 1).
    {"EnumerationError", "", "caught by run_plan and enumerate: 'no sharding option', exit 1"},
    {"ShardLayoutError", "", "caught in enumerate_options and re-thrown as EnumerationError"},
    {"PropagationDidNotConverge", "", "caught by the propagate command: exit 1 with the iteration count"},
    {"OutOfMemoryError", "", "std::bad_alloc with its stage: main prints it, exit 4 (common/out_of_memory.h)"},
    {"std::bad_alloc", "", "the new-handler's, as operator new's own: main prints it, exit 4 (common/out_of_memory.h)"},
    {"std::logic_error", "pipeline schedule deadlocks", "a bug only: every schedule's task order is acyclic"},
    {"std::logic_error", "AtomicFileWriter::",
     "a bug only: its one user (app/output.cc) writes the pieces, then commits once; a failed write throws"},
    // Invariants the loader guarantees.
    {"std::logic_error", "unknown sharding type", "every ShardingType is handled in the switch above it"},
    {"std::runtime_error", "table '", "num_poolings / batch_sizes lengths are checked by the model reader"},
    {"std::runtime_error", "no kernel bandwidth exists", "the enumerator offers only kernels the device supports"},
    {"std::invalid_argument", "unknown storage reservation policy", "the planner reader checks the name"},
    {"std::invalid_argument", "unhandled storage reservation policy", "every policy is handled in the switch"},
    {"std::invalid_argument", "unknown proposer", "the planner reader and --proposers check the name"},
    {"std::invalid_argument", "unhandled proposer", "every proposer is handled in the switch"},
    {"std::invalid_argument", "table ", "num_poolings length is checked by the model reader"},
    {"std::domain_error", "division by zero", "tables have positive rows and columns (model reader)"},
    {"std::overflow_error", "operands too large", "config/limits.h bounds storage x shard elements below 2^127"},
    {"std::out_of_range", "shard ",
     "ShardList::at past the end: a bug only, like std::vector::at (lib reads index < size)"},
};

bool allowed(const std::string& type, const std::string& message) {
  for (const auto& a : kAllowed)
    if (type == a.type && message.rfind(a.message_start, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("every throw that can reach main as an internal error is a reviewed one", "[bad-input]") {
  const std::regex throw_expr(R"(throw\s+([A-Za-z_:]+)\s*\(\s*(?:\"([^\"]*))?)");
  std::set<std::string> unreviewed;
  int throws_seen = 0;
  for (const char* dir : {"lib", "app"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SHARDPLAN_SOURCE_DIR) / dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cc" && ext != ".h") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string source = text.str();
      for (std::sregex_iterator it(source.begin(), source.end(), throw_expr), end; it != end; ++it) {
        ++throws_seen;
        const std::string type = (*it)[1];
        if (type == "InputError") continue;  // exit 2 with a position
        if (!allowed(type, (*it)[2]))
          unreviewed.insert(fs::relative(entry.path(), SHARDPLAN_SOURCE_DIR).string() + ": throw " + type + "(\"" +
                            std::string((*it)[2]) + "...");
      }
    }
  }
  CHECK(throws_seen > 0);  // the scan found the sources
  for (const auto& u : unreviewed) UNSCOPED_INFO(u);
  CHECK(unreviewed.empty());
}

TEST_CASE("std::sto* conversions, which throw on bad text, are not used on input", "[bad-input]") {
  const std::regex sto(R"(std::sto(i|l|ll|ul|ull|f|d|ld)\s*\()");
  std::set<std::string> found;
  for (const char* dir : {"lib", "app"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SHARDPLAN_SOURCE_DIR) / dir)) {
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string source = text.str();
      if (std::regex_search(source, sto)) found.insert(entry.path().filename().string());
    }
  CHECK(found == std::set<std::string>{});
}
