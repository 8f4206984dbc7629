#include "common/out_of_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include <fmt/format.h>

namespace shardplan {

namespace {

// The limit the allocation ran into: the address-space limit when one is set
// (ulimit -v, a container's), else the machine's RAM.
std::string memory_limit_text() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    return fmt::format("address space limit: {} MiB, ulimit -v", limit.rlim_cur >> 20);
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0)
    return fmt::format("RAM: {} MiB",
                       (static_cast<unsigned long long>(pages) * static_cast<unsigned long long>(page_size)) >> 20);
  return "the memory available";
}

std::atomic<void*> g_out_of_memory_reserve{nullptr};

// operator new calls this when malloc fails; it does not retry: the reserve is for
// unwinding and reporting, not for going on.
void release_reserve_and_fail() {
  if (void* reserve = g_out_of_memory_reserve.exchange(nullptr)) std::free(reserve);
  throw std::bad_alloc();
}

}  // namespace

void keep_memory_for_out_of_memory_exit(std::size_t bytes) {
  void* reserve = std::malloc(bytes);  // may fail under a tight limit: then no reserve
  if (void* old = g_out_of_memory_reserve.exchange(reserve)) std::free(old);
  std::set_new_handler(release_reserve_and_fail);
}

std::string out_of_memory_message(const std::string& stage) {
  return fmt::format(
      "error: out of memory while {}: the model needs more memory than available ({})\n"
      "Possible fixes:\n"
      "  1) bound the planner's work: fewer proposers (--proposers greedy), an early stop for greedy\n"
      "     (--greedy-threshold N), fewer ranks (--world-size) or fewer sharding options (constraints)\n"
      "  2) run where more memory is available\n",
      stage, memory_limit_text());
}

}  // namespace shardplan
