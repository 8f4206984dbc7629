#include "planner_output/explained_memory.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/units.h"
#include "planner_output/storage_words.h"

namespace shardplan {

namespace {

// At most this many ranks are listed one per line; `show` lists them all.
constexpr std::size_t kExplainedMemoryRankLines = 8;

// "0.05/13.60 (0.4%)": GiB used / usable and the fraction; "n/a" for the fraction
// where the rank has no capacity of that kind (HBM on a cpu topology).
std::string explained_use_text(const MemoryUse& use) {
  const auto fraction = use.fraction();
  return fmt::format("{:.2f}/{:.2f} ({})", to_gib(static_cast<double>(use.used)),
                     to_gib(static_cast<double>(use.capacity)),
                     fraction ? fmt::format("{:.1f}%", *fraction * 100) : std::string("n/a"));
}

nlohmann::json explained_peak_json(const std::optional<MemoryPeakRank>& peak) {
  if (!peak) return nullptr;
  return nlohmann::json{
      {"rank", peak->rank}, {"used", peak->use.used}, {"usable", peak->use.capacity}, {"fraction", peak->fraction}};
}

}  // namespace

std::vector<int> explained_table_ranks(const std::vector<TableExplanation>& tables) {
  std::vector<int> ranks;
  for (const TableExplanation& t : tables)
    for (const ExplainedOption& e : t.options)
      if (e.verdict == OptionVerdict::kChosen)
        for (const Shard& s : e.option.shards)
          if (s.rank) ranks.push_back(*s.rank);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::string explained_memory_text(const std::vector<TableExplanation>& tables, const std::vector<RankMemory>& memory) {
  std::string out;
  std::vector<int> ranks = explained_table_ranks(tables);
  std::erase_if(ranks, [&](int r) { return r < 0 || static_cast<std::size_t>(r) >= memory.size(); });
  if (!ranks.empty()) {
    std::vector<std::string> names;
    for (const TableExplanation& t : tables) names.push_back(t.fqn);
    out += fmt::format("memory of the rank{} holding {} (GiB used/usable):\n", ranks.size() == 1 ? "" : "s",
                       join_text(names, ", "));
    for (std::size_t i = 0; i < ranks.size() && i < kExplainedMemoryRankLines; ++i) {
      const RankMemory& m = memory[static_cast<std::size_t>(ranks[i])];
      out += fmt::format("  rank {:<4}  HBM {:<22}  DDR {}\n", ranks[i], explained_use_text(m.hbm),
                         explained_use_text(m.ddr));
    }
    if (ranks.size() > kExplainedMemoryRankLines)
      out += fmt::format("  ... and {} more ranks (`shardplan show` lists every rank)\n",
                         ranks.size() - kExplainedMemoryRankLines);
  }
  // The plan's fullest rank of each kind: the plan summary's and `show`'s line.
  for (const bool hbm : {true, false})
    if (const auto peak = peak_memory_fraction(memory, hbm))
      out += fmt::format("{:<8}max {:.2f} GiB on rank {} of {:.2f} GiB usable ({:.1f}%)\n", hbm ? "HBM" : "DDR",
                         to_gib(static_cast<double>(peak->use.used)), peak->rank,
                         to_gib(static_cast<double>(peak->use.capacity)), peak->fraction * 100);
  if (!out.empty()) out += "memory  " + std::string(kMemoryBasisText) + "\n";
  return out;
}

nlohmann::json explained_memory_json(const std::vector<TableExplanation>& tables,
                                     const std::vector<RankMemory>& memory) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const int r : explained_table_ranks(tables)) {
    if (r < 0 || static_cast<std::size_t>(r) >= memory.size()) continue;
    const RankMemory& m = memory[static_cast<std::size_t>(r)];
    ranks.push_back(nlohmann::json{{"rank", r},
                                   {"hbm_used", m.hbm.used},
                                   {"hbm_usable", m.hbm.capacity},
                                   {"ddr_used", m.ddr.used},
                                   {"ddr_usable", m.ddr.capacity}});
  }
  return nlohmann::json{{"basis", kMemoryBasisText},
                        {"hbm_peak", explained_peak_json(peak_memory_fraction(memory, true))},
                        {"ddr_peak", explained_peak_json(peak_memory_fraction(memory, false))},
                        {"ranks", std::move(ranks)}};
}

}  // namespace shardplan
