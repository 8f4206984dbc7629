#include <catch2/catch.hpp>

#include "common/units.h"

using namespace shardplan;

TEST_CASE("sizes: integers and 1024-based unit strings", "[config]") {
  CHECK(parse_size_bytes("4096") == 4096);
  CHECK(parse_size_bytes("80 GiB") == 80 * kGiB);
  CHECK(parse_size_bytes("80GB") == 80 * kGiB);  // GB is 1024-based, as torchrec
  CHECK(parse_size_bytes("512MiB") == 512 * kMiB);
  CHECK(parse_size_bytes("512 MB") == 512 * kMiB);
  CHECK(parse_size_bytes("1.5 TB") == 3 * kTiB / 2);
  CHECK(parse_size_bytes("1 KB") == 1024);
  CHECK(parse_size_bytes("100 B") == 100);
  // 0.3 KiB = 307.2 bytes: truncated like torchrec's int().
  CHECK(parse_size_bytes("0.3 KiB") == 307);
  std::string error;
  CHECK_FALSE(parse_size_bytes("80 GBs", &error));
  CHECK(error == "unknown size unit 'GBs' (use B, KiB, MiB, GiB, TiB or KB, MB, GB, TB)");
  CHECK_FALSE(parse_size_bytes("lots", &error));
  CHECK(error == "expected a size such as 4096 or \"80 GiB\"");
  CHECK_FALSE(parse_size_bytes("9000000 TiB", &error));  // 9e6 * 2^40 > 2^63
  CHECK(error == "size too large (more than 2^63 bytes)");
}

TEST_CASE("bandwidths: bytes/ms numbers and per-second unit strings", "[config]") {
  // torchrec: HBM_MEM_BW = 897 * 1024 * 1024 * 1024 / 1000 bytes/ms.
  CHECK(parse_bandwidth_bytes_per_ms("897 GB/s") == 897.0 * 1024 * 1024 * 1024 / 1000);
  CHECK(parse_bandwidth_bytes_per_ms("12.5 GB/s") == 12.5 * 1024 * 1024 * 1024 / 1000);
  CHECK(parse_bandwidth_bytes_per_ms("512 MiB/s") == 512.0 * 1024 * 1024 / 1000);
  CHECK(parse_bandwidth_bytes_per_ms("1 KB/s") == 1.024);
  CHECK(parse_bandwidth_bytes_per_ms("1000") == 1000.0);  // already bytes/ms
  std::string error;
  CHECK_FALSE(parse_bandwidth_bytes_per_ms("897 GB", &error));
  CHECK(error == "unknown bandwidth unit 'GB' (use B/s, KB/s, MB/s, GB/s, TB/s or KiB/s..TiB/s)");
  CHECK_FALSE(parse_bandwidth_bytes_per_ms("fast", &error));
}

TEST_CASE("format_bytes renders 1024-based units", "[config]") {
  CHECK(format_bytes(80.0 * kGiB) == "80.00 GiB");
  CHECK(format_bytes(1536) == "1.50 KiB");
  CHECK(format_bytes(12) == "12.00 B");
}
