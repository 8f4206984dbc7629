// `--suggest`: plans the input under many (devices, chunks, schedule) choices,
// ranks those that fit by step time and says why the others lose
// (docs/pipeline-schedules.md §7).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/planner.h"
#include "pipeline/types.h"

namespace shardplan::pipeline {

// One tried configuration and what came of it.
struct Candidate {
  int devices = 0;
  int chunks = 1;
  ScheduleKind schedule = ScheduleKind::kGpipe;
  int virtual_stages = 1;
  int micro_batches = 0;
  bool fits = false;
  std::string rejection;  // why it does not fit ("" when it does)
  double step_time_ms = 0;
  double bubble_fraction = 0;
  std::int64_t peak_bytes = 0;  // the largest device peak
};

struct Suggestions {
  std::vector<Candidate> ranked;    // every fitting candidate, best first
  std::vector<Candidate> rejected;  // in the order tried
};

// Tries stage counts 1..8, then powers of two, and devices.count (all <= layers), chunks among the powers of
// two up to the batch size plus the input's own, and every schedule (interleaved
// with 2 virtual stages where Megatron-LM's grouping allows); an explicit balance
// is dropped. Ranked by step time, then fewer devices, schedule order, fewer chunks.
Suggestions suggest(const PipelineInput& input);

// The best `shown` candidates as a table, then why the others lose.
std::string render_suggestions(const Suggestions& suggestions, const PipelineInput& input, int shown = 5);

}  // namespace shardplan::pipeline
