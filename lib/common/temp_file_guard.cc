#include "common/temp_file_guard.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace shardplan {

namespace {

// The one piece of process-wide mutable state in lib/, and why: a signal
// handler can reach nothing else. The handler only reads the published path
// (lock-free atomic pointer to a fixed buffer) and calls async-signal-safe
// functions.
constexpr std::size_t kMaxPathBytes = 4096;
char g_path_buffer[kMaxPathBytes];
std::atomic<const char*> g_published_path{nullptr};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void remove_then_die(int signal_number) {
  if (const char* path = g_published_path.load()) ::unlink(path);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  ::raise(signal_number);
}

// Checked at every guard, not once: a handler set in between (or reset to the
// default, as in a forked child) is respected.
void install_handlers() {
  for (int signal_number : kSignals) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = remove_then_die;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace

TempFileGuard::TempFileGuard(const std::string& path) {
  if (path.size() >= kMaxPathBytes) return;  // too long to guard; error paths still remove it
  install_handlers();
  std::memcpy(g_path_buffer, path.c_str(), path.size() + 1);
  g_published_path.store(g_path_buffer);
}

TempFileGuard::~TempFileGuard() { g_published_path.store(nullptr); }

}  // namespace shardplan
