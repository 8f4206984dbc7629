#include "planner_output/explanation_output.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/units.h"
#include "planner_output/options_json.h"
#include "planner_output/storage_words.h"

namespace shardplan {

namespace {

std::string explained_option_name(const ShardingOption& o) {
  return fmt::format("{}/{}", name_of(kShardingTypeNames, o.sharding_type),
                     name_of(kComputeKernelNames, o.compute_kernel));
}

struct LargestShard {
  Storage storage;
  double perf = 0;
};

LargestShard largest_shard(const ShardingOption& o) {
  LargestShard out;
  for (const auto& s : o.shards) {
    out.storage = std::max(out.storage, s.storage.value_or(Storage{}));
    out.perf = std::max(out.perf, s.perf.value_or(Perf{}).total());
  }
  return out;
}

std::vector<int> ranks_of(const ShardingOption& o) {
  std::vector<int> ranks;
  for (const auto& s : o.shards)
    if (s.rank) ranks.push_back(*s.rank);
  return ranks;
}

// The best rating of a placed proposal that gave the table another option than `chosen`.
std::optional<double> best_other_rating(const TableExplanation& t, const ExplainedOption* chosen,
                                        std::string* which = nullptr) {
  std::optional<double> best;
  for (const auto& e : t.options) {
    if (&e == chosen || !e.counts.best_rating) continue;
    if (!best || *e.counts.best_rating < *best) {
      best = e.counts.best_rating;
      if (which) *which = explained_option_name(e.option);
    }
  }
  return best;
}

const ExplainedOption* chosen_of(const TableExplanation& t) {
  for (const auto& e : t.options)
    if (e.verdict == OptionVerdict::kChosen) return &e;
  return nullptr;
}

std::string percent(double part, double whole) { return whole > 0 ? fmt::format("{:+.1f}%", 100 * part / whole) : ""; }

// "0-7" for 0, 1, ..., 7; consecutive runs shortened, at most 8 items shown.
std::string rank_runs(const std::vector<int>& ranks) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    items.push_back(j > i + 1 ? fmt::format("{}-{}", ranks[i], ranks[j])
                    : j == i  ? std::to_string(ranks[i])
                              : fmt::format("{}, {}", ranks[i], ranks[j]));
    i = j + 1;
  }
  if (items.size() <= 8) return join_text(items, ", ");
  return join_text(std::vector<std::string>(items.begin(), items.begin() + 8), ", ") +
         fmt::format(", ... ({} shards)", ranks.size());
}

// Why one option won or lost, in words (each line within 100 columns for names up
// to 36 characters, the longest sharding type / kernel pair).
std::string reason_text(const TableExplanation& t, const ExplainedOption& e) {
  const int n = e.counts.proposals;
  switch (e.verdict) {
    case OptionVerdict::kChosen: {
      const auto ranks = ranks_of(e.option);
      std::string out = fmt::format("CHOSEN, on rank{} {}", ranks.size() > 1 ? "s" : "", rank_runs(ranks));
      std::string runner_up;
      const auto other = best_other_rating(t, &e, &runner_up);
      if (other && t.plan_rating && *other == *t.plan_rating)
        out += fmt::format("\n      tied with {}; the earlier proposal won", runner_up);
      else if (other && t.plan_rating)
        out += fmt::format("\n      won by {:.6g} ms ({}) over the next best, {}", *other - *t.plan_rating,
                           percent(*other - *t.plan_rating, *t.plan_rating), runner_up);
      else
        out += "\n      no proposal with another option of this table was placed";
      return out;
    }
    case OptionVerdict::kRatedWorse: {
      const double best = *e.counts.best_rating;
      std::string out = fmt::format("rated worse: best with it {:.6g} ms", best);
      if (t.plan_rating)
        out += best == *t.plan_rating ? " (tied, an earlier proposal won)"
                                      : fmt::format(" ({:+.6g} ms, {})", best - *t.plan_rating,
                                                    percent(best - *t.plan_rating, *t.plan_rating));
      return out + fmt::format("; placed {}/{}", e.counts.placed, n);
    }
    case OptionVerdict::kDidNotFit:
      if (e.exceeds_every_rank)
        return fmt::format("did not fit on any rank (largest free rank {})",
                           storage_text(t.largest_rank_free, largest_shard(e.option).storage));
      return fmt::format("did not fit on any rank: none of the {} proposal{} with it could be placed", n,
                         n == 1 ? "" : "s");
    case OptionVerdict::kExcluded:
      return "excluded by a constraint: " + join_text(e.excluded_by, " and ") +
             (e.exceeds_every_rank ? "; fits no rank either" : "");
    case OptionVerdict::kNeverProposed:
      return "never proposed";
  }
  return "";
}

}  // namespace

std::string explanations_to_text(const std::vector<TableExplanation>& tables) {
  std::string out;
  for (const auto& t : tables) {
    if (!out.empty()) out += "\n";
    const ShardingOption* any = t.options.empty() ? nullptr : &t.options.front().option;
    out += fmt::format("table {}", t.fqn);
    if (any && any->tensor_shape.size() == 2)
      out += fmt::format(" ({} x {})", any->tensor_shape[0], any->tensor_shape[1]);
    out += fmt::format(": {} options; ", t.options.size());
    out += t.plan_rating ? fmt::format("plan rating {:.6g} ms (max-rank perf)\n", *t.plan_rating)
                         : std::string("no feasible plan\n");
    for (const auto& e : t.options) {
      const LargestShard largest = largest_shard(e.option);
      const Storage total = e.option.total_storage();
      out += fmt::format("  {:<36}{:>3} shard{}  perf {:.6g} ms, largest shard {:.6g} ms\n",
                         explained_option_name(e.option), e.option.num_shards(), e.option.num_shards() == 1 ? " " : "s",
                         e.option.total_perf(), largest.perf);
      out += fmt::format("      total {}; largest shard {}\n", storage_text(total, total),
                         storage_text(largest.storage, total));
      out += "      " + reason_text(t, e) + "\n";
    }
  }
  return out;
}

nlohmann::json explanations_to_json(const std::vector<TableExplanation>& tables) {
  nlohmann::json list = nlohmann::json::array();
  std::optional<double> plan_rating;
  for (const auto& t : tables) {
    plan_rating = t.plan_rating;
    const ExplainedOption* chosen = chosen_of(t);
    nlohmann::json options = nlohmann::json::array();
    for (const auto& e : t.options) {
      nlohmann::json j = option_to_json(e.option);
      j["verdict"] = std::string(name_of(kOptionVerdictNames, e.verdict));
      j["reason"] = reason_text(t, e);
      j["excluded_by"] = e.excluded_by;
      j["proposals"] = e.counts.proposals;
      j["placed"] = e.counts.placed;
      j["best_rating"] = e.counts.best_rating ? nlohmann::json(*e.counts.best_rating) : nlohmann::json(nullptr);
      j["exceeds_every_rank"] = e.exceeds_every_rank;
      options.push_back(std::move(j));
    }
    nlohmann::json table = {
        {"fqn", t.fqn}, {"largest_rank_free", storage_to_json(t.largest_rank_free)}, {"options", std::move(options)}};
    if (chosen) {
      table["chosen"] = {{"sharding_type", name_of(kShardingTypeNames, chosen->option.sharding_type)},
                         {"compute_kernel", name_of(kComputeKernelNames, chosen->option.compute_kernel)},
                         {"ranks", ranks_of(chosen->option)}};
      auto other = best_other_rating(t, chosen);
      table["margin"] = other && t.plan_rating ? nlohmann::json(*other - *t.plan_rating) : nlohmann::json(nullptr);
    } else {
      table["chosen"] = nullptr;
      table["margin"] = nullptr;
    }
    list.push_back(std::move(table));
  }
  return nlohmann::json{{"schema", "shardplan.explain/v1"},
                        {"plan_rating", plan_rating ? nlohmann::json(*plan_rating) : nlohmann::json(nullptr)},
                        {"tables", std::move(list)}};
}

}  // namespace shardplan
