#include "planner_output/run_outputs.h"

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "common/sha256.h"
#include "config/canonical_input.h"
#include "planner/advice/torchrec_failures.h"
#include "planner/run.h"
#include "planner_output/bound_report.h"
#include "planner_output/failure_text.h"
#include "planner_output/plan_json.h"
#include "planner_output/run_summary.h"
#include "planner_output/stats_json.h"
#include "planner_output/stats_text.h"

namespace shardplan {

namespace {

// The plan file text of a successful run, in parts written at the same time and
// joined in order (plan_json.h's plan_text_*): the head (with the inputs' canonical
// text and its hash), the tables in chunks of about equal shard counts, the tail.
// The text is the same whatever the chunks and threads.
class PlanTextParts {
 public:
  PlanTextParts(const PlanRun& run, const PlanningInput& input, std::size_t max_chunks)
      : input_(input), file_(plan_file_input(run, input.model.name, {}, {})), tables_(plan_text_tables(*file_.plan)) {
    // Chunk c holds tables [bounds_[c], bounds_[c + 1]), split by shard count.
    std::size_t total = 0;
    for (const PlanTextTable& t : tables_) total += t.option->shards.size() + 1;
    const std::size_t chunks = std::max<std::size_t>(1, std::min(max_chunks, tables_.size()));
    bounds_.push_back(0);
    std::size_t done = 0;
    for (std::size_t i = 0; i < tables_.size() && bounds_.size() < chunks; ++i) {
      done += tables_[i].option->shards.size() + 1;
      if (done * chunks >= total * bounds_.size()) bounds_.push_back(i + 1);
    }
    bounds_.push_back(tables_.size());
    texts_.resize(bounds_.size() + 1);  // head, the chunks, tail
  }

  std::size_t size() const { return texts_.size(); }

  void render(std::size_t part) {
    if (part == 0) {
      file_.inputs_text = canonical_input_text(input_);
      file_.inputs_sha256 = sha256_hex(file_.inputs_text);
      texts_[0] = plan_text_head(file_);
    } else if (part + 1 == texts_.size()) {
      texts_[part] = plan_text_tail(file_);
    } else {
      const std::size_t begin = bounds_[part - 1], end = bounds_[part];
      std::span<const PlanTextTable> chunk(tables_.data() + begin, end - begin);
      texts_[part].reserve(plan_text_size_estimate_of(chunk));
      append_plan_text_tables(texts_[part], chunk, *file_.topology);
    }
  }

  std::string join() {
    std::size_t size = 0;
    for (const std::string& text : texts_) size += text.size();
    std::string out;
    out.reserve(size);
    for (std::string& text : texts_) {
      out += text;
      std::string().swap(text);
    }
    return out;
  }

 private:
  static std::size_t plan_text_size_estimate_of(std::span<const PlanTextTable> chunk) {
    std::size_t shards = 0;
    for (const PlanTextTable& t : chunk) shards += t.option->shards.size();
    return shards * 520 + chunk.size() * 700;
  }

  const PlanningInput& input_;
  PlanFileInput file_;
  std::vector<PlanTextTable> tables_;
  std::vector<std::size_t> bounds_;
  std::vector<std::string> texts_;
};

// Parts of the plan text per thread: a few, so that the parts even out.
constexpr std::size_t kPlanChunksPerThread = 4;

}  // namespace

RunOutputs render_run_outputs(const PlanRun& run, const PlanningInput& input, StatsFormat stats,
                              const Parallelism& parallelism, const std::string& plan_destination) {
  RunOutputs out;
  if (stats == StatsFormat::kSummary) {
    // Nothing for a failed run: its error text says what the summary would (the
    // failure kind, the proposals tried) and scripts read its first line.
    if (!run.ok()) return out;
    // Our own lines: also for an empty plan, where torchrec logs no statistics.
    const bool has_report = torchrec_logs_stats(run);
    const bool big_plan = run.result.plan.size() >= kParallelMinTables;
    const int threads = big_plan ? parallelism.threads() : 1;
    // Part 0 the summary; the plan's parts after it.
    PlanTextParts plan(run, input, kPlanChunksPerThread * static_cast<std::size_t>(threads));
    parallelism.parallel_for(1 + plan.size(), threads, [&](std::size_t part) {
      if (part > 0) {
        plan.render(part - 1);
        return;
      }
      const StatsReport report = has_report ? stats_report_of(run, input) : StatsReport{};
      out.stats = render_summary_text(summarize_run(run, report, plan_destination));
    });
    out.plan = plan.join();
    return out;
  }
  // Only where torchrec logs EmbeddingStats (not for an empty plan, nor when it raises early).
  const bool want_stats = stats != StatsFormat::kNone && torchrec_logs_stats(run);
  const bool want_plan = run.ok();
  const bool big = run.result.plan.size() >= kParallelMinTables;
  const int threads = want_plan && big ? parallelism.threads() : 1;
  std::optional<PlanTextParts> plan;
  if (want_plan) plan.emplace(run, input, kPlanChunksPerThread * static_cast<std::size_t>(threads));
  // Part 0 the statistics; the plan's parts after it.
  parallelism.parallel_for(1 + (plan ? plan->size() : 0), threads, [&](std::size_t part) {
    if (part > 0) {
      plan->render(part - 1);
      return;
    }
    if (!want_stats) return;
    const StatsReport report = stats_report_of(run, input);
    if (stats == StatsFormat::kText) {
      out.stats = render_stats_text(report);  // torchrec's tables, byte for byte: no bound here
    } else {
      nlohmann::ordered_json json = render_stats_json(report);
      if (run.bound) json["lower_bound"] = bound_json(*run.bound, run.result.perf_rating);
      // JSON only on this stream: a failure goes inside the report, not as text after it.
      if (!run.ok()) json["failure"] = failure_json(run);
      out.stats = json.dump(2) + "\n";
    }
  });
  if (plan) out.plan = plan->join();
  if (stats == StatsFormat::kJson && !want_stats && !run.ok()) {
    // Where torchrec logs no statistics, the failure alone.
    nlohmann::ordered_json report{{"has_plan", false}};
    report["failure"] = failure_json(run);
    out.stats = report.dump(2) + "\n";
  }
  return out;
}

}  // namespace shardplan
