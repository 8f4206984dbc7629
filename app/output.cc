#include "output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace shardplan::app
