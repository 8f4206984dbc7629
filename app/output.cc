#include "output.h"

#include <iostream>

#include "common/atomic_write.h"

namespace shardplan::app {

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  write_file_atomically(path, text);
}

}  // namespace shardplan::app
