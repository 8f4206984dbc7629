// "-" as an input file name: the input is read from stdin.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"

namespace shardplan::app {

// What messages call an input read from stdin.
inline constexpr const char* kStdinName = "<stdin>";

// The whole of stdin. Throws InputError when it cannot be read.
std::string read_stdin();

// Stdin copied into a scratch file (for loaders that take a path); the file is
// removed with this object. Its extension is .json when the text starts with '{',
// else .yaml, so the loader picks the right parser.
class StdinFile {
 public:
  StdinFile();
  ~StdinFile();
  StdinFile(const StdinFile&) = delete;
  StdinFile& operator=(const StdinFile&) = delete;

  // The scratch file's path.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `load`; an InputError it throws is thrown again with `scratch_path` replaced
// by kStdinName in every message's file name.
template <typename Load>
auto with_stdin_name(const std::string& scratch_path, Load load) -> decltype(load()) {
  try {
    return load();
  } catch (const InputError& e) {
    std::vector<Diagnostic> renamed = e.diagnostics();
    for (Diagnostic& d : renamed)
      if (d.pos.file == scratch_path) d.pos.file = kStdinName;
    throw InputError(std::move(renamed));
  }
}


}  // namespace shardplan::app
