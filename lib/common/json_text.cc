#include "common/json_text.h"

#include <array>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

namespace shardplan {

void append_json_int(std::string& out, std::int64_t value) {
  std::array<char, 24> buffer{};
  const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
  out.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
}

void append_json_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  // nlohmann's serializer writes a finite double with this very function (Grisu2).
  std::array<char, 64> buffer{};
  const char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
}

void append_json_string(std::string& out, std::string_view text) {
  // Printable ASCII other than the quote and the backslash is written as it is; any
  // other string takes nlohmann's own escaping (and its check of the UTF-8).
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f || c == '"' || c == '\\') {
      out += nlohmann::ordered_json(std::string(text)).dump();
      return;
    }
  }
  out += '"';
  out.append(text);
  out += '"';
}

void append_json_key(std::string& out, int indent, std::string_view key) {
  append_spaces(out, indent);
  append_json_string(out, key);
  out += ": ";
}

void append_reindented_json(std::string& out, std::string_view compact, int indent) {
  int depth = indent;
  out.reserve(out.size() + compact.size() * 2);
  for (std::size_t i = 0; i < compact.size(); ++i) {
    const char c = compact[i];
    switch (c) {
      case '"': {  // a string, copied to its closing quote (escapes included)
        const std::size_t start = i++;
        while (compact[i] != '"') i += compact[i] == '\\' ? 2 : 1;
        out.append(compact.substr(start, i - start + 1));
        break;
      }
      case '{':
      case '[': {
        const char close = c == '{' ? '}' : ']';
        if (i + 1 < compact.size() && compact[i + 1] == close) {  // empty: "{}" and "[]" as they are
          out += c;
          out += close;
          ++i;
          break;
        }
        depth += 2;
        out += c;
        out += '\n';
        append_spaces(out, depth);
        break;
      }
      case '}':
      case ']':
        depth -= 2;
        out += '\n';
        append_spaces(out, depth);
        out += c;
        break;
      case ',':
        out += ",\n";
        append_spaces(out, depth);
        break;
      case ':':
        out += ": ";
        break;
      default:
        out += c;
    }
  }
}

void append_json_int_pair(std::string& out, int indent, std::string_view first_key, std::int64_t first,
                          std::string_view second_key, std::int64_t second) {
  out += "{\n";
  append_json_key(out, indent + 2, first_key);
  append_json_int(out, first);
  out += ",\n";
  append_json_key(out, indent + 2, second_key);
  append_json_int(out, second);
  out += '\n';
  append_spaces(out, indent);
  out += '}';
}

}  // namespace shardplan
