// Running out of memory is neither bad input nor a bug: the model needs more memory
// than the machine (or its ulimit) gives. Reported with the stage it happened in
// and what bounds the work, exit code 4 (ExitCode::kOutOfMemory).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace shardplan {

// std::bad_alloc, caught where the stage is known and re-thrown with it.
class OutOfMemoryError : public std::runtime_error {
 public:
  // `stage` in words, e.g. "enumerating sharding options".
  explicit OutOfMemoryError(std::string stage) : std::runtime_error("out of memory"), stage_(std::move(stage)) {}
  const std::string& stage() const { return stage_; }

 private:
  std::string stage_;
};

// The lines main prints: "error: out of memory while <stage>: ..." with the
// memory limit in force and the options that bound the work (ends in a newline).
std::string out_of_memory_message(const std::string& stage);

// Keeps `bytes` of address space aside (not touched, so not resident) for the way
// out of an out-of-memory error: the first allocation that fails gives them back,
// then throws std::bad_alloc as it would have. The destructors that run while that
// exception unwinds allocate too (nlohmann's json frees a tree through a vector of
// its children; throwing from a destructor is std::terminate), and so does the
// message; without the reserve a run that should exit 4 could abort. For a
// process of our own (main): a library must not install a new-handler.
void keep_memory_for_out_of_memory_exit(std::size_t bytes);

}  // namespace shardplan
