// Sizes and bandwidths as users write them ("80 GiB", "897 GB/s") turned into
// torchrec's units: bytes and bytes per millisecond.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardplan {

inline constexpr std::int64_t kKiB = 1024;
inline constexpr std::int64_t kMiB = 1024 * kKiB;
inline constexpr std::int64_t kGiB = 1024 * kMiB;
inline constexpr std::int64_t kTiB = 1024 * kGiB;

// A size: "80 GiB", "80GB", "512MiB", "1.5 TB", "4096", "100 B". KB/MB/GB/TB are
// 1024-based like KiB..TiB, as torchrec's constants are. Fractional bytes are
// truncated (torchrec's int()). On failure returns nullopt and sets *error to why.
std::optional<std::int64_t> parse_size_bytes(std::string_view text, std::string* error = nullptr);

// A size given on the command line (--hbm-cap, --ddr-cap): as parse_size_bytes, but
// a unit is required, because `--hbm-cap 80` read as 80 bytes is never what was
// meant: "a size needs a unit: did you mean '80GiB'? ...". GB is read as GiB.
inline constexpr const char* kSizeNeedsUnit = "a size needs a unit";  // how that error starts
std::optional<std::int64_t> parse_size_flag(std::string_view text, std::string* error = nullptr);

// How GB and GiB are read, for --help and messages.
inline constexpr const char* kSizeUnitsNote =
    "KB/MB/GB/TB are read as KiB/MiB/GiB/TiB (1024-based, as torchrec's constants are)";

// A ratio: "5%" (= 0.05) or "0.05". Refused, with *error set: a bare number above 1
// ("5" is ambiguous between 5% and 500%: "did you mean 5%?"), a negative ratio,
// inf and nan (with or without '%'), and anything else that is not a number.
std::optional<double> parse_ratio(std::string_view text, std::string* error = nullptr);

// A bandwidth: "897 GB/s" = 897 * 1024^3 / 1000 bytes/ms (torchrec writes its
// bandwidth constants this way); also B/s, KB/s, MB/s, TB/s and the KiB/s forms,
// or a bare number meaning bytes/ms. On failure returns nullopt and sets *error.
std::optional<double> parse_bandwidth_bytes_per_ms(std::string_view text, std::string* error = nullptr);

// Bytes as GiB, for tables and summaries that print the unit once.
inline double to_gib(double bytes) { return bytes / static_cast<double>(kGiB); }

// "80 GiB"-style rendering of a byte count for messages (two decimals, 1024-based).
std::string format_bytes(double bytes);

}  // namespace shardplan
