#include "diff/diff_render.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/units.h"
#include "planner/memory_basis.h"

namespace shardplan {

namespace {

using Json = nlohmann::ordered_json;

std::string percent(const Change& c) {
  const double r = c.relative();
  if (r == 0) return "";
  if (std::isinf(r)) return " (new)";
  return fmt::format(" ({:+.2f}%)", r * 100);
}

std::string provenance_text(const PlanDiff& d) {
  const std::string old_v = d.old_version.value_or("unknown"), new_v = d.new_version.value_or("unknown");
  switch (d.inputs) {
    case InputsComparison::kSame:
      if (d.old_version != d.new_version)
        return "same inputs; only the tool version differs (" + old_v + " -> " + new_v + ")";
      return "same inputs, same tool version (" + new_v + ")";
    case InputsComparison::kDifferent:
      return "the inputs differ (sha256 " + d.old_inputs_sha256->substr(0, 12) + " -> " +
             d.new_inputs_sha256->substr(0, 12) + "); tool " +
             (old_v == new_v ? "version " + new_v : "versions " + old_v + " -> " + new_v);
    case InputsComparison::kUnknown:
      break;
  }
  return "unknown whether the inputs differ: " + std::string(d.old_inputs_sha256 ? "NEW" : "OLD") +
         " records no inputs hash";
}

// An input value as the reader wants it: sizes (keys ending in _cap) also in GiB.
std::string input_value_text(const std::string& path, const std::optional<std::string>& value) {
  if (!value) return "(absent)";
  const bool cap = path.size() > 4 && path.find("_cap") != std::string::npos;
  std::int64_t bytes = 0;
  const char* end = value->data() + value->size();
  if (cap && std::from_chars(value->data(), end, bytes).ptr == end && !value->empty())
    return *value + " (" + format_bytes(static_cast<double>(bytes)) + ")";
  return *value;
}

// "topology.hbm_cap: 85899345920 (80.00 GiB) -> 25769803776 (24.00 GiB)".
std::vector<std::string> input_change_lines(const PlanDiff& d) {
  std::vector<std::string> out;
  if (!d.input_changes) return out;
  for (const InputFieldChange& c : *d.input_changes)
    out.push_back(c.path + ": " + input_value_text(c.path, c.old_value) + " -> " +
                  input_value_text(c.path, c.new_value));
  return out;
}

// What the inputs section says when it cannot list fields.
std::string inputs_unlisted_text(const PlanDiff& d) {
  if (d.input_changes || d.inputs != InputsComparison::kDifferent) return "";
  return "(a plan file does not carry its inputs, only their hash: plan it again to list the changed fields)";
}

// "12.47 GiB on rank 3 of 13.60 GiB usable (91.7%)".
std::string peak_text(const std::optional<MemoryFraction>& peak) {
  if (!peak) return "n/a";
  return fmt::format("{:.2f} GiB on rank {} of {:.2f} GiB usable ({:.1f}%)", to_gib(static_cast<double>(peak->used)),
                     peak->rank, to_gib(static_cast<double>(peak->usable)), peak->fraction * 100);
}

// The fullest rank of each memory kind either plan can state, old then new, and the basis.
std::vector<std::string> memory_lines(const PlanDiff& d) {
  std::vector<std::string> out;
  if (d.old_hbm_peak || d.new_hbm_peak) {
    out.push_back("HBM old " + peak_text(d.old_hbm_peak));
    out.push_back("HBM new " + peak_text(d.new_hbm_peak));
  }
  if (d.old_ddr_peak || d.new_ddr_peak) {
    out.push_back("DDR old " + peak_text(d.old_ddr_peak));
    out.push_back("DDR new " + peak_text(d.new_ddr_peak));
  }
  if (!out.empty()) out.push_back(std::string("basis: ") + kMemoryBasisText);
  return out;
}

// A rank in only one plan, named as such.
std::string rank_presence_text(const RankChange& r) {
  if (r.in_old && !r.in_new)
    return fmt::format("removed (NEW has fewer ranks); was {:.4f} ms, {:.2f} GiB HBM, {:.2f} GiB DDR", r.perf.old_value,
                       to_gib(r.hbm.old_value), to_gib(r.ddr.old_value));
  return fmt::format("added (NEW has more ranks): {:.4f} ms, {:.2f} GiB HBM, {:.2f} GiB DDR", r.perf.new_value,
                     to_gib(r.hbm.new_value), to_gib(r.ddr.new_value));
}

std::string bracketed_ranks(const std::vector<int>& ranks) {
  std::string out = "[";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    // Consecutive runs as a-b keep 128-rank row-wise tables short.
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (i ? "," : "") + (j >= i + 2 ? fmt::format("{}-{}", ranks[i], ranks[j]) : std::to_string(ranks[i]));
    if (j >= i + 2) i = j;
  }
  return out + "]";
}

std::string layout_text(const PlanFileTable& t) {
  if (t.shards.empty()) return "no shards";
  const auto& first = t.shards.front();
  bool uniform = true;
  for (const auto& s : t.shards) uniform = uniform && s.sizes == first.sizes;
  const std::string size = first.sizes.size() == 2 ? fmt::format("{}x{}", first.sizes[0], first.sizes[1]) : "?";
  return fmt::format("{} shard{} of {}{}", t.shards.size(), t.shards.size() == 1 ? "" : "s", size,
                     uniform ? "" : " (uneven)");
}

// "old -> new" parts of one changed table.
std::vector<std::string> table_parts(const TableChange& c) {
  std::vector<std::string> parts;
  if (c.kind == TableChangeKind::kAdded) {
    const PlanFileTable& t = *c.new_table;
    parts.push_back(fmt::format("added: {} / {} on {}", to_string(t.sharding_type), to_string(t.compute_kernel),
                                bracketed_ranks(t.ranks)));
    return parts;
  }
  if (c.kind == TableChangeKind::kRemoved) {
    const PlanFileTable& t = *c.old_table;
    parts.push_back(fmt::format("removed: was {} / {} on {}", to_string(t.sharding_type), to_string(t.compute_kernel),
                                bracketed_ranks(t.ranks)));
    return parts;
  }
  const PlanFileTable& o = *c.old_table;
  const PlanFileTable& n = *c.new_table;
  if (c.sharding_type_changed)
    parts.push_back(fmt::format("sharding {} -> {}", to_string(o.sharding_type), to_string(n.sharding_type)));
  if (c.compute_kernel_changed)
    parts.push_back(fmt::format("kernel {} -> {}", to_string(o.compute_kernel), to_string(n.compute_kernel)));
  if (c.ranks_changed) parts.push_back("ranks " + bracketed_ranks(o.ranks) + " -> " + bracketed_ranks(n.ranks));
  if (c.layout_changed) parts.push_back("layout " + layout_text(o) + " -> " + layout_text(n));
  if (c.perf.changed()) parts.push_back(fmt::format("perf {:.4f} -> {:.4f} ms", c.perf.old_value, c.perf.new_value));
  return parts;
}

const char* kind_name(TableChangeKind k) {
  return k == TableChangeKind::kAdded ? "added" : k == TableChangeKind::kRemoved ? "removed" : "changed";
}

int count_kind(const PlanDiff& d, TableChangeKind kind) {
  int n = 0;
  for (const auto& t : d.tables) n += t.kind == kind;
  return n;
}

struct SummaryRow {
  const char* label;
  const Change* change;
  enum { kMs, kGiB, kCount } unit;
};

std::vector<SummaryRow> summary_rows(const PlanDiff& d) {
  return {{"max-rank perf", &d.max_rank_perf, SummaryRow::kMs},
          {"max-rank HBM used", &d.max_rank_hbm, SummaryRow::kGiB},
          {"total HBM shards", &d.total_hbm, SummaryRow::kGiB},
          {"total DDR shards", &d.total_ddr, SummaryRow::kGiB},
          {"tables", &d.num_tables, SummaryRow::kCount},
          {"world size", &d.world_size, SummaryRow::kCount},
          {"proposals tried", &d.num_proposals, SummaryRow::kCount}};
}

std::string value_text(double v, int unit) {
  if (unit == SummaryRow::kMs) return fmt::format("{:.4f} ms", v);
  if (unit == SummaryRow::kGiB) return fmt::format("{:.2f} GiB", to_gib(v));
  return fmt::format("{:.0f}", v);
}

std::string delta_text(const Change& c, int unit) {
  if (!c.changed()) return "=";
  if (unit == SummaryRow::kMs) return fmt::format("{:+.4f} ms{}", c.delta(), percent(c));
  if (unit == SummaryRow::kGiB) return fmt::format("{:+.2f} GiB{}", to_gib(c.delta()), percent(c));
  return fmt::format("{:+.0f}", c.delta());
}

std::string verdict(const GateResult& gate) { return gate.failed ? "FAIL" : "pass"; }

std::string gate_settings_text(const GateSettings& s) {
  std::string out = fmt::format("tolerance {:.2f}%", s.tolerance * 100);
  if (!s.conditions.empty()) {
    out += ", fail on ";
    for (std::size_t i = 0; i < s.conditions.size(); ++i) out += (i ? "," : "") + s.conditions[i].text;
  }
  return out;
}

std::string changed_ranks_heading(const PlanDiff& d, int changed_ranks) {
  return fmt::format("{} of {} changed", changed_ranks, d.ranks.size());
}

std::string render_text(const PlanDiff& d, const GateSettings& settings, const GateResult& gate) {
  std::string out = fmt::format("diff {} -> {}\n", d.old_file, d.new_file);
  out += "inputs  " + provenance_text(d) + "\n";
  for (const std::string& line : input_change_lines(d)) out += "  " + line + "\n";
  if (const std::string unlisted = inputs_unlisted_text(d); !unlisted.empty()) out += "  " + unlisted + "\n";
  out += fmt::format("{:<20}{:>16}{:>16}  {}\n", "summary", "old", "new", "change");
  for (const auto& row : summary_rows(d))
    out += fmt::format("  {:<18}{:>16}{:>16}  {}\n", row.label, value_text(row.change->old_value, row.unit),
                       value_text(row.change->new_value, row.unit), delta_text(*row.change, row.unit));
  const std::vector<std::string> memory = memory_lines(d);
  if (!memory.empty()) {
    out += "memory  " + memory.front() + "\n";
    for (std::size_t i = 1; i < memory.size(); ++i) out += "        " + memory[i] + "\n";
  }
  out +=
      fmt::format("tables  {} changed, {} added, {} removed, {} unchanged\n", count_kind(d, TableChangeKind::kChanged),
                  count_kind(d, TableChangeKind::kAdded), count_kind(d, TableChangeKind::kRemoved),
                  d.tables_in_both - count_kind(d, TableChangeKind::kChanged));
  for (const TableChange& c : d.tables) {
    out += "  " + c.fqn + "\n";
    for (const std::string& part : table_parts(c)) out += "    " + part + "\n";
  }
  int changed_ranks = 0;
  for (const RankChange& r : d.ranks) changed_ranks += r.changed();
  out += "ranks   " + changed_ranks_heading(d, changed_ranks) + "\n";
  if (changed_ranks > 0) {
    out += fmt::format("  {:>5}  {:>27}  {:>26}  {:>26}\n", "rank", "perf ms (delta)", "HBM GiB used (delta)",
                       "DDR GiB used (delta)");
    for (const RankChange& r : d.ranks) {
      if (!r.changed()) continue;
      if (r.in_old != r.in_new) {
        out += fmt::format("  {:>5}  {}\n", r.rank, rank_presence_text(r));
        continue;
      }
      out += fmt::format("  {:>5}  {:>14.4f} ({:+10.4f})  {:>12.2f} ({:+10.2f})  {:>12.2f} ({:+10.2f})\n", r.rank,
                         r.perf.new_value, r.perf.delta(), to_gib(r.hbm.new_value), to_gib(r.hbm.delta()),
                         to_gib(r.ddr.new_value), to_gib(r.ddr.delta()));
    }
  }
  out += "gate    " + verdict(gate) + " (" + gate_settings_text(settings) + ")\n";
  for (const std::string& reason : gate.reasons) out += "  " + reason + "\n";
  return out;
}

// Figures that are counts or bytes stay integers in JSON; ms stay numbers.
Json change_json(const Change& c, bool integer) {
  if (integer) {
    const auto o = static_cast<std::int64_t>(c.old_value), n = static_cast<std::int64_t>(c.new_value);
    return Json{{"old", o}, {"new", n}, {"delta", n - o}};
  }
  return Json{{"old", c.old_value}, {"new", c.new_value}, {"delta", c.delta()}};
}

Json optional_string(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }

Json table_side_json(const std::optional<PlanFileTable>& t) {
  if (!t) return nullptr;
  Json shards = Json::array();
  for (const auto& s : t->shards) shards.push_back(Json{{"rank", s.rank}, {"offsets", s.offsets}, {"sizes", s.sizes}});
  return Json{{"sharding_type", std::string(to_string(t->sharding_type))},
              {"compute_kernel", std::string(to_string(t->compute_kernel))},
              {"ranks", t->ranks},
              {"total_perf", t->total_perf},
              {"shards", shards}};
}

Json peak_json(const std::optional<MemoryFraction>& peak) {
  if (!peak) return nullptr;
  return Json{{"rank", peak->rank}, {"used", peak->used}, {"usable", peak->usable}, {"fraction", peak->fraction}};
}

std::string render_json(const PlanDiff& d, const GateSettings& settings, const GateResult& gate) {
  Json j;
  j["old"] = d.old_file;
  j["new"] = d.new_file;
  j["inputs"] = d.inputs == InputsComparison::kSame        ? "same"
                : d.inputs == InputsComparison::kDifferent ? "different"
                                                           : "unknown";
  j["only_tool_version_differs"] = d.only_tool_version_differs();
  j["changed"] = d.any_change();
  j["versions"] = Json{{"old", optional_string(d.old_version)}, {"new", optional_string(d.new_version)}};
  j["inputs_sha256"] =
      Json{{"old", optional_string(d.old_inputs_sha256)}, {"new", optional_string(d.new_inputs_sha256)}};
  if (d.input_changes) {
    Json fields = Json::array();
    for (const InputFieldChange& c : *d.input_changes)
      fields.push_back(
          Json{{"field", c.path}, {"old", optional_string(c.old_value)}, {"new", optional_string(c.new_value)}});
    j["input_changes"] = std::move(fields);
  } else {
    j["input_changes"] = nullptr;
  }
  Json summary;
  summary["max_rank_perf"] = change_json(d.max_rank_perf, false);
  summary["max_rank_hbm"] = change_json(d.max_rank_hbm, true);
  summary["total_hbm"] = change_json(d.total_hbm, true);
  summary["total_ddr"] = change_json(d.total_ddr, true);
  summary["num_tables"] = change_json(d.num_tables, true);
  summary["world_size"] = change_json(d.world_size, true);
  summary["num_proposals"] = change_json(d.num_proposals, true);
  j["summary"] = std::move(summary);
  j["memory"] = Json{{"basis", kMemoryBasisText},
                     {"hbm_peak", Json{{"old", peak_json(d.old_hbm_peak)}, {"new", peak_json(d.new_hbm_peak)}}},
                     {"ddr_peak", Json{{"old", peak_json(d.old_ddr_peak)}, {"new", peak_json(d.new_ddr_peak)}}}};
  Json tables = Json::array();
  for (const TableChange& c : d.tables)
    tables.push_back(Json{{"table", c.fqn},
                          {"change", kind_name(c.kind)},
                          {"sharding_type_changed", c.sharding_type_changed},
                          {"compute_kernel_changed", c.compute_kernel_changed},
                          {"ranks_changed", c.ranks_changed},
                          {"layout_changed", c.layout_changed},
                          {"old", table_side_json(c.old_table)},
                          {"new", table_side_json(c.new_table)}});
  j["tables"] = std::move(tables);
  Json ranks = Json::array();
  for (const RankChange& r : d.ranks)
    ranks.push_back(Json{{"rank", r.rank},
                         {"change", r.in_old && !r.in_new   ? "removed"
                                    : !r.in_old && r.in_new ? "added"
                                    : r.changed()           ? "changed"
                                                            : "unchanged"},
                         {"perf", change_json(r.perf, false)},
                         {"hbm", change_json(r.hbm, true)},
                         {"ddr", change_json(r.ddr, true)},
                         {"hbm_usable", r.new_hbm_usable},
                         {"ddr_usable", r.new_ddr_usable}});
  j["ranks"] = std::move(ranks);
  Json fail_on = Json::array();
  for (const auto& c : settings.conditions) fail_on.push_back(c.text);
  j["gate"] = Json{{"tolerance", settings.tolerance},
                   {"fail_on", fail_on},
                   {"result", gate.failed ? "fail" : "pass"},
                   {"reasons", gate.reasons}};
  return j.dump(2) + "\n";
}

std::string md_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '[' || c == ']') out += '\\';
    out += c;
  }
  return out;
}

std::string render_markdown(const PlanDiff& d, const GateSettings& settings, const GateResult& gate) {
  std::string out = fmt::format("### shardplan diff: {}\n\n", gate.failed ? "❌ regression" : "✅ no regression");
  out += md_escape(provenance_text(d)) + "\n";
  const std::vector<std::string> inputs = input_change_lines(d);
  if (!inputs.empty()) {
    out += "\n**Inputs changed:**\n";
    for (const std::string& line : inputs) out += "- " + md_escape(line) + "\n";
  }
  if (const std::string unlisted = inputs_unlisted_text(d); !unlisted.empty()) out += "\n" + md_escape(unlisted) + "\n";
  out += "\n| | old | new | change |\n|---|---:|---:|---:|\n";
  for (const auto& row : summary_rows(d))
    out += fmt::format("| {} | {} | {} | {} |\n", row.label, value_text(row.change->old_value, row.unit),
                       value_text(row.change->new_value, row.unit), delta_text(*row.change, row.unit));
  const std::vector<std::string> memory = memory_lines(d);
  if (!memory.empty()) {
    out += "\n**Memory:**\n";
    for (const std::string& line : memory) out += "- " + md_escape(line) + "\n";
  }
  out += fmt::format("\n**Gate: {}** ({})\n", verdict(gate), md_escape(gate_settings_text(settings)));
  for (const std::string& reason : gate.reasons) out += "- " + md_escape(reason) + "\n";
  out += fmt::format("\n**Tables:** {} changed, {} added, {} removed, {} unchanged\n",
                     count_kind(d, TableChangeKind::kChanged), count_kind(d, TableChangeKind::kAdded),
                     count_kind(d, TableChangeKind::kRemoved),
                     d.tables_in_both - count_kind(d, TableChangeKind::kChanged));
  if (!d.tables.empty()) {
    out += "\n| table | change |\n|---|---|\n";
    for (const TableChange& c : d.tables) {
      std::string parts;
      for (const std::string& p : table_parts(c)) parts += (parts.empty() ? "" : "; ") + md_escape(p);
      out += "| `" + c.fqn + "` | " + parts + " |\n";
    }
  }
  int changed_ranks = 0;
  for (const RankChange& r : d.ranks) changed_ranks += r.changed();
  if (changed_ranks > 0) {
    out += fmt::format("\n<details><summary>{} of {} ranks changed</summary>\n\n", changed_ranks, d.ranks.size());
    out +=
        "| rank | perf ms | Δ perf | HBM GiB used | Δ HBM | DDR GiB used | Δ DDR |\n"
        "|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const RankChange& r : d.ranks) {
      if (!r.changed()) continue;
      if (r.in_old != r.in_new) {
        out += fmt::format("| {} | {} | | | | | |\n", r.rank, md_escape(rank_presence_text(r)));
        continue;
      }
      out += fmt::format("| {} | {:.4f} | {:+.4f} | {:.2f} | {:+.2f} | {:.2f} | {:+.2f} |\n", r.rank, r.perf.new_value,
                         r.perf.delta(), to_gib(r.hbm.new_value), to_gib(r.hbm.delta()), to_gib(r.ddr.new_value),
                         to_gib(r.ddr.delta()));
    }
    out += "\n</details>\n";
  }
  return out;
}

}  // namespace

std::string render_diff(const PlanDiff& diff, const GateSettings& settings, const GateResult& gate, DiffFormat format) {
  switch (format) {
    case DiffFormat::kJson:
      return render_json(diff, settings, gate);
    case DiffFormat::kMarkdown:
      return render_markdown(diff, settings, gate);
    case DiffFormat::kText:
      break;
  }
  return render_text(diff, settings, gate);
}

}  // namespace shardplan
