#include "planner_output/storage_words.h"

#include "common/units.h"

namespace shardplan {

std::string bytes_text(std::int64_t bytes) { return format_bytes(static_cast<double>(bytes)); }

std::string storage_text(const Storage& storage, const Storage& relevant) {
  const bool hbm = relevant.hbm != 0 || relevant.ddr == 0;
  const bool ddr = relevant.ddr != 0;
  if (hbm && ddr) return bytes_text(storage.hbm) + " HBM + " + bytes_text(storage.ddr) + " DDR";
  return hbm ? bytes_text(storage.hbm) + " HBM" : bytes_text(storage.ddr) + " DDR";
}

std::string storage_text(const Storage& storage) { return storage_text(storage, storage); }

std::string join_text(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace shardplan
