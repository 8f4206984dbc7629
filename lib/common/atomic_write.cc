#include "common/atomic_write.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.h"

namespace shardplan {

void write_file_atomically(const std::string& path, const std::string& content) {
  std::filesystem::path target(path);
  std::filesystem::path temp = target;
  temp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw InputError(SourcePos{path, 0, 0}, "",
                       std::string("cannot write output file: ") + std::strerror(errno));
    }
    out << content;
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      throw InputError(SourcePos{path, 0, 0}, "", "writing the output file failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw InputError(SourcePos{path, 0, 0}, "", "cannot replace output file: " + ec.message());
  }
}

}  // namespace shardplan
