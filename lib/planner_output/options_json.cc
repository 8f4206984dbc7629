#include "planner_output/options_json.h"

#include <fmt/format.h>

#include <iterator>
#include <optional>
#include <utility>

#include "common/json_text.h"
#include "planner_output/perf_storage_json.h"

namespace shardplan {

// Enumerate's JSON is an nlohmann::json: converting sorts the keys, the order
// this output has always had.
nlohmann::json perf_to_json(const Perf& perf, bool with_total) {
  return nlohmann::json(perf_json(perf, with_total ? PerfTotal::kLast : PerfTotal::kNone));
}

nlohmann::json storage_to_json(const Storage& storage) { return nlohmann::json(storage_json(storage)); }

nlohmann::json option_to_json(const ShardingOption& o) {
  nlohmann::json j = nlohmann::json::object();
  j["fqn"] = o.fqn();
  j["path"] = o.path;
  j["name"] = o.name;
  j["sharding_type"] = std::string(to_string(o.sharding_type));
  j["compute_kernel"] = std::string(to_string(o.compute_kernel));
  j["partition_by"] = std::string(to_string(o.partition_by));
  auto load_factor = o.cache_load_factor();
  j["cache_load_factor"] = load_factor ? nlohmann::json(*load_factor) : nlohmann::json(nullptr);
  j["is_pooled"] = o.is_pooled;
  j["is_weighted"] = o.is_weighted;
  j["input_lengths"] = o.input_lengths;
  j["tensor_shape"] = o.tensor_shape;
  j["tensor_element_size"] = o.tensor_element_size;
  j["num_shards"] = o.num_shards();
  j["total_storage"] = storage_to_json(o.total_storage());
  j["total_perf"] = o.total_perf();
  nlohmann::json shards = nlohmann::json::array();
  for (const auto& s : o.shards) {
    nlohmann::json sj = nlohmann::json::object();
    sj["offsets"] = s.offset;
    sj["sizes"] = s.size;
    sj["perf"] = perf_to_json(s.perf.value_or(Perf{}), false);
    sj["storage"] = storage_to_json(s.storage.value_or(Storage{}));
    if (s.rank) sj["rank"] = *s.rank;
    shards.push_back(std::move(sj));
  }
  j["shards"] = std::move(shards);
  return j;
}

nlohmann::json options_to_json(const std::vector<ShardingOption>& options) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& o : options) list.push_back(option_to_json(o));
  return nlohmann::json{
      {"schema", "shardplan.enumerate/v1"}, {"num_options", options.size()}, {"options", std::move(list)}};
}

namespace {

// Collects text and hands it on in pieces of about `piece_bytes`.
class OptionsPieceBuffer {
 public:
  OptionsPieceBuffer(const TextPieceSink& emit, std::size_t piece_bytes) : emit_(emit), piece_bytes_(piece_bytes) {
    text_.reserve(piece_bytes + piece_bytes / 4);
  }
  std::string& text() { return text_; }
  // Between two values: hands the text on once a piece is full.
  void piece_done_if_full() {
    if (text_.size() >= piece_bytes_) flush();
  }
  void flush() {
    if (text_.empty()) return;
    emit_(text_);
    text_.clear();
  }

 private:
  const TextPieceSink& emit_;
  std::size_t piece_bytes_;
  std::string text_;
};

// A JSON array as dump(2) writes it at `indent` spaces: "[]" when empty, else one
// element a line.
template <typename Values, typename AppendOne>
void append_options_json_array(std::string& out, const Values& values, int indent, AppendOne append_one) {
  if (values.empty()) {
    out += "[]";
    return;
  }
  out += "[\n";
  bool first = true;
  for (const auto& value : values) {
    if (!first) out += ",\n";
    first = false;
    append_spaces(out, indent + 2);
    append_one(out, value);
  }
  out += '\n';
  append_spaces(out, indent);
  out += ']';
}

void append_options_int_array(std::string& out, const auto& values, int indent) {
  append_options_json_array(out, values, indent, [](std::string& o, std::int64_t v) { append_json_int(o, v); });
}

// {"ddr", "hbm"} (sorted keys) at `indent` spaces.
void append_options_storage(std::string& out, const Storage& storage, int indent) {
  append_json_int_pair(out, indent, "ddr", storage.ddr, "hbm", storage.hbm);
}

// A shard's perf without "total", sorted keys, at `indent` spaces.
void append_options_shard_perf(std::string& out, const Perf& perf, int indent) {
  const std::pair<std::string_view, double> parts[] = {{"bwd_comms", perf.bwd_comms},
                                                       {"bwd_compute", perf.bwd_compute},
                                                       {"fwd_comms", perf.fwd_comms},
                                                       {"fwd_compute", perf.fwd_compute},
                                                       {"prefetch_compute", perf.prefetch_compute}};
  out += "{\n";
  for (std::size_t i = 0; i < std::size(parts); ++i) {
    append_json_key(out, indent + 2, parts[i].first);
    append_json_double(out, parts[i].second);
    out += i + 1 < std::size(parts) ? ",\n" : "\n";
  }
  append_spaces(out, indent);
  out += '}';
}

void append_options_string_field(std::string& out, int indent, std::string_view key, std::string_view value) {
  append_json_key(out, indent, key);
  append_json_string(out, value);
  out += ",\n";
}

// One option as the object it is in "options" (at 4 spaces), its shards handed
// on in pieces as they fill. The shards of a run share perf and storage: their
// text is made once per run.
void write_option_json(OptionsPieceBuffer& buffer, const ShardingOption& o) {
  constexpr int kObject = 4;
  constexpr int kKey = kObject + 2;
  constexpr int kShard = kKey + 2;
  constexpr int kShardKey = kShard + 2;
  std::string& out = buffer.text();
  append_spaces(out, kObject);
  out += "{\n";
  append_json_key(out, kKey, "cache_load_factor");
  if (const std::optional<double> load_factor = o.cache_load_factor())
    append_json_double(out, *load_factor);
  else
    out += "null";
  out += ",\n";
  append_options_string_field(out, kKey, "compute_kernel", to_string(o.compute_kernel));
  append_options_string_field(out, kKey, "fqn", o.fqn());
  append_json_key(out, kKey, "input_lengths");
  append_options_json_array(out, o.input_lengths, kKey, [](std::string& t, double v) { append_json_double(t, v); });
  out += ",\n";
  append_json_key(out, kKey, "is_pooled");
  out += o.is_pooled ? "true,\n" : "false,\n";
  append_json_key(out, kKey, "is_weighted");
  out += o.is_weighted ? "true,\n" : "false,\n";
  append_options_string_field(out, kKey, "name", o.name);
  append_json_key(out, kKey, "num_shards");
  append_json_int(out, o.num_shards());
  out += ",\n";
  append_options_string_field(out, kKey, "partition_by", to_string(o.partition_by));
  append_options_string_field(out, kKey, "path", o.path);
  append_options_string_field(out, kKey, "sharding_type", to_string(o.sharding_type));
  append_json_key(out, kKey, "shards");
  if (o.shards.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    std::string perf_text;     // `"perf": {...},\n` of the run's shards
    std::string storage_text;  // `"storage": {...}\n` of the run's shards
    bool first = true;
    for (const ShardRun& run : o.shards.runs()) {
      perf_text.clear();
      append_json_key(perf_text, kShardKey, "perf");
      append_options_shard_perf(perf_text, run.perf.value_or(Perf{}), kShardKey);
      perf_text += ",\n";
      storage_text.clear();
      append_json_key(storage_text, kShardKey, "storage");
      append_options_storage(storage_text, run.storage.value_or(Storage{}), kShardKey);
      storage_text += '\n';
      for (std::int32_t k = 0; k < run.count; ++k) {
        const Shard shard = run.shard(k);
        std::string& text = buffer.text();
        if (!first) text += ",\n";
        first = false;
        append_spaces(text, kShard);
        text += "{\n";
        append_json_key(text, kShardKey, "offsets");
        append_options_int_array(text, shard.offset, kShardKey);
        text += ",\n";
        text += perf_text;
        if (shard.rank) {
          append_json_key(text, kShardKey, "rank");
          append_json_int(text, *shard.rank);
          text += ",\n";
        }
        append_json_key(text, kShardKey, "sizes");
        append_options_int_array(text, shard.size, kShardKey);
        text += ",\n";
        text += storage_text;
        append_spaces(text, kShard);
        text += '}';
        buffer.piece_done_if_full();
      }
    }
    std::string& text = buffer.text();
    text += '\n';
    append_spaces(text, kKey);
    text += ']';
  }
  std::string& tail = buffer.text();
  tail += ",\n";
  append_json_key(tail, kKey, "tensor_element_size");
  append_json_int(tail, o.tensor_element_size);
  tail += ",\n";
  append_json_key(tail, kKey, "tensor_shape");
  append_options_int_array(tail, o.tensor_shape, kKey);
  tail += ",\n";
  append_json_key(tail, kKey, "total_perf");
  append_json_double(tail, o.total_perf());
  tail += ",\n";
  append_json_key(tail, kKey, "total_storage");
  append_options_storage(tail, o.total_storage(), kKey);
  tail += '\n';
  append_spaces(tail, kObject);
  tail += '}';
}

}  // namespace

void write_options_json(const std::vector<ShardingOption>& options, const TextPieceSink& emit,
                        std::size_t piece_bytes) {
  // A string nlohmann refuses throws here, before anything is written.
  std::string checked;
  for (const ShardingOption& o : options) {
    checked.clear();
    append_json_string(checked, o.fqn());
    append_json_string(checked, o.path);
    append_json_string(checked, o.name);
  }
  OptionsPieceBuffer buffer(emit, piece_bytes);
  std::string& head = buffer.text();
  head += "{\n";
  append_json_key(head, 2, "num_options");
  append_json_int(head, static_cast<std::int64_t>(options.size()));
  head += ",\n";
  append_json_key(head, 2, "options");
  if (options.empty()) {
    head += "[]";
  } else {
    head += "[\n";
    for (std::size_t i = 0; i < options.size(); ++i) {
      write_option_json(buffer, options[i]);
      buffer.text() += i + 1 < options.size() ? ",\n" : "\n";
      buffer.piece_done_if_full();
    }
    append_spaces(buffer.text(), 2);
    buffer.text() += ']';
  }
  std::string& tail = buffer.text();
  tail += ",\n";
  append_json_key(tail, 2, "schema");
  append_json_string(tail, "shardplan.enumerate/v1");
  tail += "\n}\n";
  buffer.flush();
}

namespace {
std::string gib_text(std::int64_t bytes) {
  return fmt::format("{:.3f}", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}
}  // namespace

void write_options_text(const std::vector<ShardingOption>& options, const TextPieceSink& emit,
                        std::size_t piece_bytes) {
  OptionsPieceBuffer buffer(emit, piece_bytes);
  fmt::format_to(std::back_inserter(buffer.text()), "{:<40} {:<18} {:<18} {:>6} {:>12} {:>10} {:>10}\n", "table",
                 "sharding_type", "compute_kernel", "shards", "perf (ms)", "HBM (GiB)", "DDR (GiB)");
  for (const auto& o : options) {
    const Storage total = o.total_storage();
    fmt::format_to(std::back_inserter(buffer.text()), "{:<40} {:<18} {:<18} {:>6} {:>12.6f} {:>10} {:>10}\n", o.fqn(),
                   to_string(o.sharding_type), to_string(o.compute_kernel), o.num_shards(), o.total_perf(),
                   gib_text(total.hbm), gib_text(total.ddr));
    std::size_t i = 0;
    for (const Shard s : o.shards) {
      const Perf p = s.perf.value_or(Perf{});
      const Storage st = s.storage.value_or(Storage{});
      fmt::format_to(std::back_inserter(buffer.text()),
                     "    shard {:>4}  offsets [{}, {}]  sizes [{}, {}]  fwd {:.6f}/{:.6f}  bwd {:.6f}/{:.6f}  "
                     "prefetch {:.6f}  hbm {}  ddr {}\n",
                     i++, s.offset.at(0), s.offset.at(1), s.size.at(0), s.size.at(1), p.fwd_compute, p.fwd_comms,
                     p.bwd_compute, p.bwd_comms, p.prefetch_compute, st.hbm, st.ddr);
      buffer.piece_done_if_full();
    }
  }
  buffer.flush();
}

std::string options_to_text(const std::vector<ShardingOption>& options) {
  std::string out;
  write_options_text(options, [&out](std::string_view piece) { out.append(piece); });
  return out;
}

}  // namespace shardplan
