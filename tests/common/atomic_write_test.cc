// Output files: a regular file is replaced whole, but a device or pipe given as
// the output (-o /dev/null, a FIFO) is written in place, never replaced by a
// file, and a symlink keeps pointing where it pointed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "common/atomic_write.h"
#include "common/error.h"
#include "config/config_test_util.h"
#include "support/run_binary.h"

using namespace shardplan;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(testing::scratch_prefix()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("output: a regular file is replaced and no temporary file is left", "[output]") {
  const fs::path dir = fresh_dir("atomic_regular");
  const fs::path file = dir / "plan.json";
  write_file_atomically(file.string(), "old");
  write_file_atomically(file.string(), "new content");
  CHECK(testing::slurp(file.string()) == "new content");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("output: a FIFO is written in place and stays a FIFO", "[output]") {
  const fs::path dir = fresh_dir("atomic_fifo");
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The read end is opened first (non-blocking), so the writer's open does not
  // wait and a broken writer that replaces the FIFO leaves it empty, not hung.
  const int read_end = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(read_end >= 0);
  write_file_atomically(fifo.string(), "through the pipe");
  std::string received;
  char buffer[256];
  for (ssize_t n; (n = ::read(read_end, buffer, sizeof buffer)) > 0;) received.append(buffer, static_cast<std::size_t>(n));
  ::close(read_end);
  CHECK(received == "through the pipe");
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("output: a symlink to a file keeps being a symlink", "[output]") {
  const fs::path dir = fresh_dir("atomic_symlink");
  const fs::path target = dir / "real.json";
  const fs::path link = dir / "link.json";
  write_file_atomically(target.string(), "before");
  fs::create_symlink(target, link);
  write_file_atomically(link.string(), "after");
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(testing::slurp(target.string()) == "after");
}

TEST_CASE("output: a directory is refused with a clear message", "[output]") {
  const fs::path dir = fresh_dir("atomic_dir");
  try {
    write_file_atomically(dir.string(), "x");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("is a directory") != std::string::npos);
  }
  CHECK(fs::is_directory(dir));
}
