#include "pipeline/suggest.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "common/units.h"
#include "pipeline/partition.h"
#include "pipeline/schedule.h"

namespace shardplan::pipeline {

namespace {

constexpr int kSuggestVirtualStages = 2;

int micro_batch_count(int batch_size, int chunks) {
  const int per_chunk = (batch_size + chunks - 1) / chunks;
  return (batch_size + per_chunk - 1) / per_chunk;
}

std::string schedule_label(const Candidate& c) {
  std::string name(name_of(kScheduleKindNames, c.schedule));
  if (multi_stage_schedule(c.schedule) && !v_shaped_schedule(c.schedule))
    name += " v" + std::to_string(c.virtual_stages);
  return name;
}

std::string describe(const Candidate& c) {
  return fmt::format("{} device{}, {}, chunks {}", c.devices, c.devices == 1 ? "" : "s", schedule_label(c), c.chunks);
}

Candidate evaluate(const PipelineInput& base, int devices, int chunks, ScheduleKind schedule, int virtual_stages) {
  PipelineInput input = base;
  input.options.balance.reset();
  input.options.stages = devices;
  input.options.chunks = chunks;
  input.options.schedule = schedule;
  input.options.virtual_stages = virtual_stages;
  Candidate c;
  c.devices = devices;
  c.chunks = chunks;
  c.schedule = schedule;
  c.virtual_stages = virtual_stages;
  c.micro_batches = micro_batch_count(base.batch_size, chunks);
  PlanResult result = plan_pipeline(input);
  if (!result.plan) {
    c.rejection = result.failure->message;
    return c;
  }
  const PipelinePlan& plan = *result.plan;
  c.step_time_ms = plan.step_time_ms;
  c.bubble_fraction = plan.bubble_fraction;
  if (multi_stage_schedule(plan.schedule))
    for (const auto& d : plan.device_plans) c.peak_bytes = std::max(c.peak_bytes, d.memory.peak);
  else
    for (const auto& s : plan.stages) c.peak_bytes = std::max(c.peak_bytes, s.memory.peak);
  auto errors = fit_errors(plan);
  c.fits = errors.empty();
  if (!c.fits) c.rejection = errors.front();
  return c;
}

}  // namespace

Suggestions suggest(const PipelineInput& input) {
  Suggestions out;
  const int layers = static_cast<int>(input.layers.size());
  std::set<int> chunk_choices{input.options.chunks};
  for (int c = 1; c <= input.batch_size; c *= 2) chunk_choices.insert(c);
  // Every device count up to 8, then powers of two and all the devices: a sweep
  // over 64 devices x 7 chunk counts x 3 schedules would balance ~1300 times.
  std::set<int> device_choices;
  const int max_devices = std::min(input.device_count, layers);
  for (int p = 1; p <= max_devices; p = p < 8 ? p + 1 : p * 2) device_choices.insert(p);
  if (max_devices >= 1) device_choices.insert(max_devices);
  std::vector<Candidate> fitting;
  for (int devices : device_choices)
    for (int chunks : chunk_choices) {
      if (chunks > input.batch_size && chunks != input.options.chunks) continue;
      const int m = micro_batch_count(input.batch_size, chunks);
      std::vector<std::pair<ScheduleKind, int>> schedules{{ScheduleKind::kGpipe, 1}, {ScheduleKind::kOneFOneB, 1}};
      // Every multi-stage schedule with two stages per device, where torch accepts the
      // micro-batch count (schedule_refusal) and there are layers for 2p stages.
      if (devices > 1 && layers >= kSuggestVirtualStages * devices)
        for (ScheduleKind s : {ScheduleKind::kInterleaved, ScheduleKind::kInterleavedZeroBubble, ScheduleKind::kZbv,
                               ScheduleKind::kDualPipeV})
          if (!schedule_refusal(s, m, devices, kSuggestVirtualStages)) schedules.emplace_back(s, kSuggestVirtualStages);
      for (auto [schedule, v] : schedules) {
        // Within the input's own balancing bound (partition.h), as the reader checks it.
        if (input.options.balance_by != BalanceBy::kUniform &&
            static_cast<std::int64_t>(layers) * devices * v > kMaxBalanceWork)
          continue;
        // And within the suggestion's schedule bound (schedule.h): the candidates are
        // simulated whole, and more micro-batches than this change the bubble little.
        if (static_cast<std::int64_t>(m) * devices * v > kMaxSuggestScheduleSteps) continue;
        Candidate c = evaluate(input, devices, chunks, schedule, v);
        (c.fits ? fitting : out.rejected).push_back(c);
      }
    }
  auto key = [](const Candidate& c) {
    return std::tuple(c.step_time_ms, c.devices, static_cast<int>(c.schedule), c.chunks);
  };
  std::stable_sort(fitting.begin(), fitting.end(),
                   [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); });
  out.ranked = std::move(fitting);
  return out;
}

std::string render_suggestions(const Suggestions& suggestions, const PipelineInput& input, int shown) {
  const std::size_t tried = suggestions.ranked.size() + suggestions.rejected.size();
  std::string out = fmt::format(
      "{} layers, batch {}, up to {} devices{}: {} plans tried, {} fit\n", input.layers.size(), input.batch_size,
      input.device_count, input.memory_bytes ? " of " + format_bytes(static_cast<double>(*input.memory_bytes)) : "",
      tried, suggestions.ranked.size());
  if (suggestions.ranked.empty()) {
    out += "no plan fits";
  } else {
    out += fmt::format("{:>4}  {:>7}  {:<26} {:>6}  {:>13}  {:>12}  {:>7}  {:>12}\n", "rank", "devices", "schedule",
                       "chunks", "micro-batches", "step ms", "bubble", "peak memory");
    const Candidate& best = suggestions.ranked.front();
    for (std::size_t r = 0; r < suggestions.ranked.size() && static_cast<int>(r) < shown; ++r) {
      const Candidate& c = suggestions.ranked[r];
      out += fmt::format("{:>4}  {:>7}  {:<26} {:>6}  {:>13}  {:>12.4f}  {:>6.1f}%  {:>12}\n", r + 1, c.devices,
                         schedule_label(c), c.chunks, c.micro_batches, c.step_time_ms, 100 * c.bubble_fraction,
                         format_bytes(static_cast<double>(c.peak_bytes)));
    }
    out += "why the others lose:\n";
    // The best of each schedule that did not make the table: how much slower, and its bubble.
    for (const auto& entry : kScheduleKindNames) {
      auto it = std::find_if(suggestions.ranked.begin(), suggestions.ranked.end(),
                             [&](const Candidate& c) { return c.schedule == entry.value; });
      if (it == suggestions.ranked.end() || it - suggestions.ranked.begin() < shown) continue;
      out += fmt::format("  best {}: {}: {:.4f} ms ({:+.1f}% step), bubble {:.1f}% vs {:.1f}%\n", entry.name,
                         describe(*it), it->step_time_ms,
                         best.step_time_ms > 0 ? 100 * (it->step_time_ms / best.step_time_ms - 1) : 0.0,
                         100 * it->bubble_fraction, 100 * best.bubble_fraction);
    }
    if (static_cast<int>(suggestions.ranked.size()) > shown)
      out += fmt::format("  {} more plans fit but are slower (longer bubble or fewer devices)\n",
                         suggestions.ranked.size() - shown);
  }
  if (!suggestions.rejected.empty()) {
    out += fmt::format("  {} plans do not fit", suggestions.rejected.size());
    // The one that would use the most devices and the fewest chunks shows the limit best.
    out += fmt::format(", e.g. {}: {}\n", describe(suggestions.rejected.back()), suggestions.rejected.back().rejection);
    // Memory failures say "no partition ... fits" or "... needs N bytes"; anything
    // else (blockpartition's failures) could not be balanced at all.
    std::map<int, std::pair<int, int>> by_schedule;  // schedule -> (over memory, not balanced)
    for (const auto& c : suggestions.rejected) {
      bool memory =
          c.rejection.find(" fits in ") != std::string::npos || c.rejection.find(" needs ") != std::string::npos;
      auto& counts = by_schedule[static_cast<int>(c.schedule)];
      ++(memory ? counts.first : counts.second);
    }
    for (const auto& entry : kScheduleKindNames)
      if (auto it = by_schedule.find(static_cast<int>(entry.value)); it != by_schedule.end()) {
        out += fmt::format("    {}: {} over memory", entry.name, it->second.first);
        if (it->second.second > 0) out += fmt::format(", {} not balanced", it->second.second);
        out += "\n";
      }
  }
  return out;
}

}  // namespace shardplan::pipeline
