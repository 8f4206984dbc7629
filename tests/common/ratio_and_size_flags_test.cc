// Ratios ("5%" or "0.05") and command-line sizes (a unit required): every refusal
// with its whole message.
#include <catch2/catch.hpp>

#include "common/units.h"

namespace shardplan {
namespace {

std::string ratio_error(const std::string& text) {
  std::string error;
  CHECK_FALSE(parse_ratio(text, &error));
  return error;
}

TEST_CASE("ratios: a percentage or a fraction", "[units][ratio]") {
  CHECK(parse_ratio("5%") == 0.05);
  CHECK(parse_ratio("0.05") == 0.05);
  CHECK(parse_ratio(" 90 % ") == 0.9);
  CHECK(parse_ratio("150%") == 1.5);  // explicit: past 100% is allowed where it means something
  CHECK(parse_ratio("1") == 1.0);     // 1 is 100% either way
  CHECK(parse_ratio("0") == 0.0);
  CHECK(parse_ratio("0%") == 0.0);
}

TEST_CASE("ratios: ambiguous, infinite, negative and malformed ones are refused", "[units][ratio]") {
  CHECK(ratio_error("5") == "a ratio above 1 is ambiguous, found '5': did you mean 5%? (write 5% or 0.05)");
  CHECK(ratio_error("90") == "a ratio above 1 is ambiguous, found '90': did you mean 90%? (write 5% or 0.05)");
  CHECK(ratio_error("1.5") == "a ratio above 1 is ambiguous, found '1.5': did you mean 1.5%? (write 5% or 0.05)");
  for (const char* text : {"inf", "nan", "-inf", "inf%", "nan%", "1e999", "", "%", "five", "5%%", "0.05x"})
    CHECK(ratio_error(text) == "expected a finite ratio such as 5% or 0.05, found '" + std::string(text) + "'");
  CHECK(ratio_error("-0.1") == "expected a ratio of 0 or more, such as 5% or 0.05, found '-0.1'");
  CHECK(ratio_error("-5%") == "expected a ratio of 0 or more, such as 5% or 0.05, found '-5%'");
}

TEST_CASE("command-line sizes need a unit; GB is read as GiB", "[units][size]") {
  CHECK(parse_size_flag("80GiB") == 80 * kGiB);
  CHECK(parse_size_flag("80 GB") == 80 * kGiB);  // torchrec's habit, stated in --help
  CHECK(parse_size_flag("100 B") == 100);        // bytes, when meant, are written so
  std::string error;
  CHECK_FALSE(parse_size_flag("80", &error));
  CHECK(error ==
        "a size needs a unit, found '80': did you mean '80GiB'? (KB/MB/GB/TB are read as KiB/MiB/GiB/TiB "
        "(1024-based, as torchrec's constants are))");
  CHECK_FALSE(parse_size_flag("16.5", &error));
  CHECK(error.rfind("a size needs a unit, found '16.5': did you mean '16.5GiB'?", 0) == 0);
  CHECK_FALSE(parse_size_flag("80 GBs", &error));
  CHECK(error == "unknown size unit 'GBs' (use B, KiB, MiB, GiB, TiB or KB, MB, GB, TB)");
  // Not a number, inf, nan or negative: the flag's words, with a unit in the example.
  for (const char* text : {"lots", "inf", "nan", "infGiB", ""}) {
    INFO(text);
    CHECK_FALSE(parse_size_flag(text, &error));
    CHECK(error == "expected a size such as '80 GiB', found '" + std::string(text) + "'");
  }
  for (const char* text : {"-5GiB", "-1", "-0 B"}) {
    INFO(text);
    CHECK_FALSE(parse_size_flag(text, &error));
    CHECK(error == "expected a size of 0 or more such as '80 GiB', found '" + std::string(text) + "'");
  }
  // Files keep torchrec's bare byte counts.
  CHECK(parse_size_bytes("85899345920") == 80 * kGiB);
}

}  // namespace
}  // namespace shardplan
