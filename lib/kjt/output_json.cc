#include "kjt/output_json.h"

#include <charconv>

namespace shardplan::kjt {

namespace {

void append_int(std::int64_t value, std::string& out) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, end);
}

template <typename Ints>
void append_int_list(const Ints& values, std::string& out) {
  out += '[';
  bool first = true;
  for (auto v : values) {
    if (!first) out += ',';
    first = false;
    append_int(static_cast<std::int64_t>(v), out);
  }
  out += ']';
}

void append_matrix(const std::vector<std::vector<std::int64_t>>& rows, std::string& out) {
  out += '[';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i) out += ',';
    append_int_list(rows[i], out);
  }
  out += ']';
}

// The values (or weights) destination `d` receives: key-major over its keys, and
// within a key the segment of every source in source order (docs/formats/a2a.md). Each segment
// is one contiguous run of tokens on its source, so it is copied as one slice.
template <typename TokensOf>
void append_moved_tokens(const A2aInput& input, const A2aResult& result, const Destination& d,
                         const std::vector<std::vector<std::size_t>>& key_offsets, TokensOf tokens_of,
                         std::string& out) {
  out += '[';
  bool first = true;
  for (std::size_t k = d.first_key; k < d.first_key + d.num_keys; ++k)
    for (std::size_t s : result.source_order) {
      std::string_view run = tokens_of(input.inputs[s]).run(key_offsets[s][k], key_offsets[s][k + 1]);
      if (run.empty()) continue;
      if (!first) out += ',';
      first = false;
      out.append(run);
    }
  out += ']';
}

// offset_per_key of every source (docs/formats/a2a.md): key k's values are [offsets[k], offsets[k+1]).
std::vector<std::vector<std::size_t>> offsets_per_key(const A2aInput& input) {
  std::vector<std::vector<std::size_t>> out(input.inputs.size());
  for (std::size_t s = 0; s < input.inputs.size(); ++s) {
    out[s].reserve(input.inputs[s].lengths.size() + 1);
    std::size_t offset = 0;
    out[s].push_back(0);
    for (const auto& row : input.inputs[s].lengths) {
      for (std::int64_t l : row) offset += static_cast<std::size_t>(l);
      out[s].push_back(offset);
    }
  }
  return out;
}

void append_destination(const A2aInput& input, const A2aResult& result, const Destination& d,
                        const std::vector<std::vector<std::size_t>>& key_offsets, std::string& out) {
  const std::vector<std::string>& keys = input.inputs.front().keys;
  out += "{\"rank\":";
  append_int(static_cast<std::int64_t>(d.rank), out);
  out += ",\"keys\":[";
  for (std::size_t k = d.first_key; k < d.first_key + d.num_keys; ++k) {
    if (k != d.first_key) out += ',';
    append_json_string(keys[k], out);
  }
  out += "],\"stride\":";
  append_int(d.stride, out);
  out += ",\"stride_per_rank\":";
  append_int_list(result.stride_per_rank, out);
  out += ",\"recat\":";
  if (d.recat)
    append_int_list(*d.recat, out);
  else
    out += "null";
  out += ",\"lengths\":[";
  for (std::size_t k = d.first_key; k < d.first_key + d.num_keys; ++k) {
    if (k != d.first_key) out += ',';
    out += '[';
    bool first = true;
    for (std::size_t s : result.source_order)
      for (std::int64_t l : input.inputs[s].lengths[k]) {
        if (!first) out += ',';
        first = false;
        append_int(l, out);
      }
    out += ']';
  }
  out += "],\"values\":";
  append_moved_tokens(
      input, result, d, key_offsets, [](const SourceKjt& s) -> const TokenList& { return s.values; }, out);
  out += ",\"weights\":";
  if (input.weighted())
    append_moved_tokens(
        input, result, d, key_offsets, [](const SourceKjt& s) -> const TokenList& { return *s.weights; }, out);
  else
    out += "null";
  out += '}';
}

void append_collective(const Collective& c, std::string& out) {
  out += "{\"phase\":";
  append_int(c.phase, out);
  out += ",\"name\":";
  append_json_string(c.name, out);
  out += ",\"dtype\":";
  append_json_string(name_of(kDtypeNames, c.dtype), out);
  out += ",\"elements\":";
  append_matrix(c.elements, out);
  std::vector<std::vector<std::int64_t>> bytes(c.elements.size());
  for (std::size_t s = 0; s < c.elements.size(); ++s)
    for (std::size_t d = 0; d < c.elements[s].size(); ++d) bytes[s].push_back(c.bytes(s, d));
  out += ",\"bytes\":";
  append_matrix(bytes, out);
  out += ",\"total_bytes\":";
  append_int(c.total_bytes(), out);
  out += ",\"cross_rank_bytes\":";
  append_int(c.cross_rank_bytes(), out);
  out += '}';
}

}  // namespace

void append_json_string(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"')
      out += "\\\"";
    else if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
}

// About the size of the document: every token once, a few bytes per length, the
// matrices. Reserving it spares a 100 MB output its doublings and their page faults.
static std::size_t expected_size(const A2aInput& input) {
  std::size_t bytes = 4096 + 64 * input.world_size() * input.world_size();
  for (const SourceKjt& source : input.inputs) {
    bytes += source.values.run(0, source.values.size()).size() + 1;
    if (source.weights) bytes += source.weights->run(0, source.weights->size()).size() + 1;
    for (const auto& row : source.lengths) bytes += 3 * row.size() + 2;
  }
  return bytes;
}

void append_output_json(const A2aInput& input, const A2aResult& result, std::string& out) {
  out.reserve(out.size() + expected_size(input));
  out += "{\"world_size\":";
  append_int(static_cast<std::int64_t>(result.world_size), out);
  out += ",\"stagger\":";
  append_int(result.stagger, out);
  out += ",\"source_order\":";
  append_int_list(result.source_order, out);
  out += ",\"protocol\":";
  append_json_string(name_of(kProtocolNames, result.protocol), out);
  out += ",\n\"outputs\":[\n";
  std::vector<std::vector<std::size_t>> key_offsets = offsets_per_key(input);
  for (std::size_t i = 0; i < result.destinations.size(); ++i) {
    if (i) out += ",\n";
    append_destination(input, result, result.destinations[i], key_offsets, out);
  }
  out += "],\n\"collectives\":[";
  for (std::size_t i = 0; i < result.collectives.size(); ++i) {
    out += i ? ",\n" : "\n";
    append_collective(result.collectives[i], out);
  }
  out += "],\n\"rank_bytes\":[";
  for (std::size_t r = 0; r < result.rank_bytes.size(); ++r) {
    const RankBytes& b = result.rank_bytes[r];
    out += r ? ",\n" : "\n";
    out += "{\"rank\":";
    append_int(static_cast<std::int64_t>(r), out);
    out += ",\"sent_bytes\":";
    append_int(b.sent, out);
    out += ",\"received_bytes\":";
    append_int(b.received, out);
    out += ",\"cross_rank_sent_bytes\":";
    append_int(b.cross_rank_sent, out);
    out += ",\"cross_rank_received_bytes\":";
    append_int(b.cross_rank_received, out);
    out += '}';
  }
  out += "]}\n";
}

}  // namespace shardplan::kjt
