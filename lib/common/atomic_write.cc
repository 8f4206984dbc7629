#include "common/atomic_write.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.h"

namespace shardplan {

namespace {

// A device, pipe or socket (/dev/null, /dev/stdout, a FIFO) is written in place:
// renaming a temporary file over it would replace the device node itself.
void write_in_place(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(SourcePos{path, 0, 0}, "", std::string("cannot write output: ") + std::strerror(errno));
  out << content;
  out.flush();
  if (!out) throw InputError(SourcePos{path, 0, 0}, "", "writing the output failed");
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);  // follows symlinks
  if (!ec && fs::exists(status) && !fs::is_regular_file(status)) {
    if (fs::is_directory(status)) throw InputError(SourcePos{path, 0, 0}, "", "is a directory, expected a file to write");
    write_in_place(path, content);
    return;
  }
  // A symlink to a file keeps being a symlink: the file it points to is replaced.
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(path, ec))) target = fs::weakly_canonical(target, ec);
  if (ec) target = path;
  fs::path temp = target;
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
  ec.clear();
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw InputError(SourcePos{path, 0, 0}, "", "cannot replace output file: " + ec.message());
  }
}

}  // namespace shardplan
