// The one error type for bad input and usage. It carries a kind (mapped to an exit
// code) and every diagnostic found, is thrown by loaders and caught once in main.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace shardplan {

// Process exit codes (docs/README.md, "Exit codes").
enum class ExitCode : int {
  kOk = 0,
  kNoFeasiblePlan = 1,  // also: a regression found by `diff`
  kBadInput = 2,        // bad input file or bad command-line usage
  kInternal = 3,        // a bug in shardplan ("internal error"), never the input's fault
  kOutOfMemory = 4,     // the model needs more memory than the machine gives (common/out_of_memory.h)
  kChanged = 5,         // `diff --detailed-exitcode`: the plans differ, nothing failed the gate
};

// A position in an input file; line and col are 1-based, 0 when unknown.
struct SourcePos {
  std::string file;
  int line = 0;
  int col = 0;
};

// One problem found in an input: where, which key, what was expected and found.
struct Diagnostic {
  SourcePos pos;
  std::string key_path;  // e.g. "modules[0].tables[2].num_embeddings"; may be empty
  std::string message;   // e.g. "expected a positive integer, found -5"

  // "file:line:col: key.path: message" (parts that are unknown are left out).
  std::string format() const;
};

// Bad input or usage: exit code 2, every diagnostic printed one per line.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  InputError(SourcePos pos, std::string key_path, std::string message);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // All diagnostics, formatted, one per line (no trailing newline).
  std::string format() const;

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace shardplan
