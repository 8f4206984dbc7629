#include "common/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace shardplan {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "1.5 TB" into the number 1.5 and the unit "TB"; nullopt when the text
// does not start with a finite, non-negative decimal number.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  text = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  return std::make_pair(value, trim(std::string_view(end, text.data() + text.size() - end)));
}

// Bytes per unit, 1024-based for both spellings; 0 for an unknown unit.
double unit_bytes(std::string_view unit) {
  std::string u = lower(unit);
  if (u.empty() || u == "b") return 1;
  if (u == "kb" || u == "kib" || u == "k") return static_cast<double>(kKiB);
  if (u == "mb" || u == "mib" || u == "m") return static_cast<double>(kMiB);
  if (u == "gb" || u == "gib" || u == "g") return static_cast<double>(kGiB);
  if (u == "tb" || u == "tib" || u == "t") return static_cast<double>(kTiB);
  return 0;
}

void set(std::string* error, std::string message) {
  if (error) *error = std::move(message);
}

}  // namespace

std::optional<std::int64_t> parse_size_bytes(std::string_view text, std::string* error) {
  auto parts = split_number(text);
  if (!parts) {
    set(error, "expected a size such as 4096 or \"80 GiB\"");
    return std::nullopt;
  }
  double per_unit = unit_bytes(parts->second);
  if (per_unit == 0) {
    set(error, "unknown size unit '" + std::string(parts->second) + "' (use B, KiB, MiB, GiB, TiB or KB, MB, GB, TB)");
    return std::nullopt;
  }
  double bytes = std::floor(parts->first * per_unit);
  // 2^63 itself is not representable; anything at or above it overflows int64.
  if (!(bytes < 9223372036854775808.0 && bytes >= -9223372036854775808.0)) {
    set(error, "size too large (more than 2^63 bytes)");
    return std::nullopt;
  }
  return static_cast<std::int64_t>(bytes);
}

std::optional<std::int64_t> parse_size_flag(std::string_view text, std::string* error) {
  auto parts = split_number(text);
  // Not a number (inf and nan included), or a negative one: a flag's words, with the
  // unit the flag needs (parse_size_bytes would suggest a bare byte count).
  if (!parts) {
    set(error, "expected a size such as '80 GiB', found '" + std::string(trim(text)) + "'");
    return std::nullopt;
  }
  if (std::signbit(parts->first)) {
    set(error, "expected a size of 0 or more such as '80 GiB', found '" + std::string(trim(text)) + "'");
    return std::nullopt;
  }
  if (parts->second.empty()) {
    const std::string number(trim(text));
    set(error,
        "a size needs a unit, found '" + number + "': did you mean '" + number + "GiB'? (" + kSizeUnitsNote + ")");
    return std::nullopt;
  }
  return parse_size_bytes(text, error);
}

std::optional<double> parse_ratio(std::string_view text, std::string* error) {
  const std::string_view trimmed = trim(text);
  const bool percent = !trimmed.empty() && trimmed.back() == '%';
  const std::string_view number_text = percent ? trim(trimmed.substr(0, trimmed.size() - 1)) : trimmed;
  double value = 0;
  auto [end, ec] = std::from_chars(number_text.data(), number_text.data() + number_text.size(), value);
  if (number_text.empty() || ec != std::errc() || end != number_text.data() + number_text.size() ||
      !std::isfinite(value)) {
    set(error, "expected a finite ratio such as 5% or 0.05, found '" + std::string(trimmed) + "'");
    return std::nullopt;
  }
  if (value < 0) {
    set(error, "expected a ratio of 0 or more, such as 5% or 0.05, found '" + std::string(trimmed) + "'");
    return std::nullopt;
  }
  if (!percent && value > 1) {
    set(error, "a ratio above 1 is ambiguous, found '" + std::string(trimmed) + "': did you mean " +
                   std::string(number_text) + "%? (write 5% or 0.05)");
    return std::nullopt;
  }
  return percent ? value / 100 : value;
}

std::optional<double> parse_bandwidth_bytes_per_ms(std::string_view text, std::string* error) {
  auto parts = split_number(text);
  if (!parts) {
    set(error, "expected a bandwidth such as \"897 GB/s\" or a number in bytes/ms");
    return std::nullopt;
  }
  std::string_view unit = parts->second;
  if (unit.empty()) return parts->first;  // already bytes/ms
  std::string u = lower(unit);
  if (u.size() < 3 || u.substr(u.size() - 2) != "/s") {
    set(error, "unknown bandwidth unit '" + std::string(unit) + "' (use B/s, KB/s, MB/s, GB/s, TB/s or KiB/s..TiB/s)");
    return std::nullopt;
  }
  double per_unit = unit_bytes(unit.substr(0, unit.size() - 2));
  if (per_unit == 0) {
    set(error, "unknown bandwidth unit '" + std::string(unit) + "' (use B/s, KB/s, MB/s, GB/s, TB/s or KiB/s..TiB/s)");
    return std::nullopt;
  }
  // per second -> per millisecond, as torchrec's HBM_MEM_BW = 897 * 1024**3 / 1000.
  return parts->first * per_unit / 1000.0;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (std::fabs(bytes) >= 1024.0 && i < 4) {
    bytes /= 1024.0;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", bytes, units[i]);
  return buf;
}

}  // namespace shardplan
