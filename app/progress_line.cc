#include "progress_line.h"

#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "common/stream_write.h"

namespace shardplan::app {

namespace {

// Redraws are 100 ms apart at least, so a loop of thousands of proposals a second
// costs a clock read per proposal.
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
// Carriage return, then "erase to the end of the line" (VT100, every terminal).
constexpr std::string_view kEraseLine = "\r\x1b[K";

}  // namespace

ProgressLine::ProgressLine(int fd, bool draw, std::chrono::milliseconds first_draw_after)
    : fd_(fd), draw_(draw), first_draw_after_(first_draw_after) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::set_stage(std::string stage) {
  stage_ = std::move(stage);
  stage_proposer_ = kNoProposer;
}

void ProgressLine::set_proposer_names(std::vector<std::string> names) { proposer_names_ = std::move(names); }

void ProgressLine::update(const PlanProgress& progress) {
  if (progress.stage == PlanStage::kEnumerating) {
    set_stage("enumerating sharding options");
  } else if (progress.stage == PlanStage::kPreparing) {
    set_stage("reserving storage and loading the proposers");
  } else if (progress.proposer != stage_proposer_) {
    // Rebuilt once per proposer: the text is also what an out-of-memory message names.
    const std::string name = progress.proposer < proposer_names_.size() ? proposer_names_[progress.proposer] : "?";
    stage_ = fmt::format("running proposer {} ({} of {})", name, progress.proposer + 1, progress.num_proposers);
    stage_proposer_ = progress.proposer;
  }
  if (!draw_) return;
  const Clock::time_point now = Clock::now();
  if (now - start_ < first_draw_after_ || (drawn_ && now - last_draw_ < kRedrawEvery)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string line = fmt::format("{}shardplan: {:.0f} s, {}", kEraseLine, elapsed, stage_);
  if (progress.stage == PlanStage::kProposing) {
    line += fmt::format(", {} proposals tried", progress.proposals_tried);
    if (progress.best_perf) line += fmt::format(", best perf {:.4g} ms", *progress.best_perf);
  }
  write_whole(fd_, line);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (!drawn_) return;
  write_whole(fd_, kEraseLine);
  drawn_ = false;
}

bool progress_line_wanted(int fd, bool stats_are_json) { return !stats_are_json && ::isatty(fd) == 1; }

std::chrono::milliseconds progress_first_draw_after() {
  // A plan that ends sooner draws nothing.
  const char* text = std::getenv("SHARDPLAN_PROGRESS_AFTER_MS");
  if (!text || !*text) return std::chrono::seconds(1);
  char* end = nullptr;
  const long ms = std::strtol(text, &end, 10);
  return *end == '\0' && ms >= 0 ? std::chrono::milliseconds(ms) : std::chrono::seconds(1);
}

}  // namespace shardplan::app
