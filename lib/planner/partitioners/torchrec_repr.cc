#include "planner/partitioners/torchrec_repr.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

namespace shardplan {

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // The shortest round-trip digits, then Python's layout rule (float_repr_style
  // 'short'): exponent form when the decimal point lies before -4 or after 16.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const auto e_pos = sci.find('e');
  const int exponent = std::atoi(sci.c_str() + e_pos + 1);
  std::string digits;
  for (std::size_t i = 0; i < e_pos; ++i)
    if (sci[i] != '.') digits += sci[i];
  const int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt
  const int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    std::string mantissa = digits.substr(0, 1);
    if (n > 1) mantissa += "." + digits.substr(1);
    return sign + mantissa + fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
  }
  if (decpt <= 0) return sign + "0." + std::string(-decpt, '0') + digits;
  if (decpt >= n) return sign + digits + std::string(decpt - n, '0') + ".0";
  return sign + digits.substr(0, decpt) + "." + digits.substr(decpt);
}

std::string storage_repr(const Storage& storage) {
  return fmt::format("Storage(hbm={}, ddr={})", storage.hbm, storage.ddr);
}

std::string perf_repr(const Perf& perf) {
  return fmt::format(
      "Perf(fwd_compute={}, fwd_comms={}, bwd_compute={}, bwd_comms={}, prefetch_compute={})",
      python_float_repr(perf.fwd_compute), python_float_repr(perf.fwd_comms),
      python_float_repr(perf.bwd_compute), python_float_repr(perf.bwd_comms),
      python_float_repr(perf.prefetch_compute));
}

namespace {

// Python's repr of a tuple of ints: "(1, 2)", "(1,)", "()".
std::string int_tuple_repr(const std::vector<std::int64_t>& values) {
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  if (values.size() == 1) out += ",";
  return out + ")";
}

}  // namespace

std::string shard_str(const Shard& shard) {
  return fmt::format("Shard size: {}, offset: {}, storage: {}, perf: {}, rank: {}",
                     int_tuple_repr(shard.size), int_tuple_repr(shard.offset),
                     shard.storage ? storage_repr(*shard.storage) : "None",
                     shard.perf ? perf_repr(*shard.perf) : "None",
                     shard.rank ? std::to_string(*shard.rank) : "None");
}

}  // namespace shardplan
