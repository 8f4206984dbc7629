#include "output.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "common/atomic_write.h"
#include "common/error.h"
#include "common/stream_write.h"

namespace shardplan::app {

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    // Same exit code as an output file that cannot be written.
    if (!write_whole(STDOUT_FILENO, text))
      throw InputError(SourcePos{"stdout", 0, 0}, "", std::string("writing the plan failed: ") + std::strerror(errno));
    return;
  }
  write_file_atomically(path, text);
}

void write_output_in_pieces(const std::string& path,
                            const std::function<void(const std::function<void(std::string_view)>&)>& produce) {
  if (path.empty() || path == "-") {
    produce([](std::string_view piece) {
      if (!write_whole(STDOUT_FILENO, piece))
        throw InputError(SourcePos{"stdout", 0, 0}, "",
                         std::string("writing the plan failed: ") + std::strerror(errno));
    });
    return;
  }
  AtomicFileWriter file(path);
  produce([&file](std::string_view piece) { file.write(piece); });
  file.commit();
}

void check_one_stdin_input(const std::vector<std::string>& inputs) {
  if (std::count(inputs.begin(), inputs.end(), std::string("-")) > 1)
    throw InputError(SourcePos{}, "", "only one input can be read from stdin ('-'); name the others as files");
}

void remove_stale_output(const std::string& path, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  if (path.empty() || path == "-") return;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (ec || !(fs::is_regular_file(status) || fs::is_symlink(status))) return;
  for (const std::string& input : inputs)
    if (!input.empty() && input != "-" && fs::equivalent(input, path, ec)) return;
  fs::remove(path, ec);
}

void print_timings(const PhaseTimes& phases) {
  double total = 0;
  for (const auto& [name, seconds] : phases.phases()) total += seconds;
  std::cerr << "timings (wall):\n";
  for (const auto& [name, seconds] : phases.phases()) std::cerr << fmt::format("  {:>9.4f} s  {}\n", seconds, name);
  std::cerr << fmt::format("  {:>9.4f} s  total\n", total);
}

}  // namespace shardplan::app
