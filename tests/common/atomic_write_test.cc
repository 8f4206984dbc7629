// Output files: a regular file is replaced whole, but a device or pipe given as
// the output (-o /dev/null, a FIFO) is written in place, never replaced by a
// file, and a symlink keeps pointing where it pointed.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "common/atomic_write.h"
#include "common/error.h"
#include "common/temp_file_guard.h"
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
  for (ssize_t n; (n = ::read(read_end, buffer, sizeof buffer)) > 0;)
    received.append(buffer, static_cast<std::size_t>(n));
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

namespace {

// Runs `body` in a forked child and returns its wait status.
template <typename Body>
int status_of_child(Body body) {
  const pid_t child = ::fork();
  if (child == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

// Runs `write` in a child limited to files of `limit_bytes` (SIGXFSZ ignored, so a
// write past it fails with EFBIG): the exit status is 7 when it threw the output
// error, 8 for another InputError, 9 when it did not throw.
template <typename Write>
int status_of_limited_write(rlim_t limit_bytes, Write write) {
  return status_of_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {
      limit_bytes, limit_bytes
    };
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write();
    } catch (const InputError& e) {
      ::_exit(std::string(e.what()).find("writing the output file failed") != std::string::npos ? 7 : 8);
    }
    ::_exit(9);
  });
}

std::size_t entries_in(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("output: a symlink planted at the temporary name is neither followed nor removed", "[output]") {
  const fs::path dir = fresh_dir("atomic_planted");
  const fs::path file = dir / "plan.json";
  const fs::path victim = dir / "victim";
  write_file_atomically(victim.string(), "keep me");
  // The first name write_file_atomically tries for this process.
  const fs::path planted = dir / ("plan.json.tmp." + std::to_string(::getpid()) + ".0");
  fs::create_symlink(victim, planted);
  write_file_atomically(file.string(), "the plan");
  CHECK(testing::slurp(file.string()) == "the plan");
  CHECK(testing::slurp(victim.string()) == "keep me");
  CHECK(fs::is_symlink(fs::symlink_status(planted)));
  CHECK(entries_in(dir) == 3);  // plan.json, victim, the planted link: no temporary left
}

TEST_CASE("output: a write that fails removes its temporary file", "[output]") {
  const fs::path dir = fresh_dir("atomic_write_fails");
  const fs::path file = dir / "plan.json";
  // A file size limit of 4 bytes makes the write fail with EFBIG half-way.
  const int status = status_of_limited_write(4, [&] { write_file_atomically(file.string(), "more than four bytes"); });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  CHECK(entries_in(dir) == 0);
}

TEST_CASE("output: SIGTERM or SIGINT while the temporary file exists removes it, then ends the process", "[output]") {
  for (int signal_number : {SIGTERM, SIGINT}) {
    const fs::path dir = fresh_dir("atomic_signal");
    const fs::path temp = dir / "plan.json.tmp.1.0";
    write_file_atomically(temp.string(), "partial");
    const int status = status_of_child([&] {
      ::signal(signal_number, SIG_DFL);  // the test runner's own handler would be left alone
      TempFileGuard guard(temp.string());
      ::raise(signal_number);
      ::_exit(5);  // not reached: the signal ends the child
    });
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal_number);
    CHECK_FALSE(fs::exists(temp));
  }
}

TEST_CASE("output in pieces: the pieces make the file, which appears only at commit", "[output]") {
  const fs::path dir = fresh_dir("atomic_pieces");
  const fs::path file = dir / "options.json";
  write_file_atomically(file.string(), "old");
  {
    AtomicFileWriter writer(file.string());
    writer.write("first ");
    writer.write("");
    writer.write("second");
    CHECK(testing::slurp(file.string()) == "old");  // the pieces are in the temporary file
    CHECK(entries_in(dir) == 2);
    writer.commit();
  }
  CHECK(testing::slurp(file.string()) == "first second");
  CHECK(entries_in(dir) == 1);
}

TEST_CASE("output in pieces: abandoned before commit, nothing is left but what was there", "[output]") {
  const fs::path dir = fresh_dir("atomic_pieces_abandoned");
  const fs::path file = dir / "options.json";
  write_file_atomically(file.string(), "old");
  try {
    AtomicFileWriter writer(file.string());
    writer.write("half of it");
    throw std::runtime_error("rendering failed half-way");
  } catch (const std::runtime_error&) {
  }
  CHECK(testing::slurp(file.string()) == "old");
  CHECK(entries_in(dir) == 1);
  {
    AtomicFileWriter writer((dir / "new.json").string());
    writer.write("never committed");
  }
  CHECK(entries_in(dir) == 1);
}

TEST_CASE("output in pieces: a later piece that fails removes the temporary file", "[output]") {
  const fs::path dir = fresh_dir("atomic_pieces_fail");
  const fs::path file = dir / "options.json";
  // The first piece fits the 8-byte file size limit, the second does not.
  const int status = status_of_limited_write(8, [&] {
    AtomicFileWriter writer(file.string());
    writer.write("1234");
    writer.write("56789012");
    writer.commit();
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  CHECK(entries_in(dir) == 0);
}
