#include "sweep/sweep_id.h"

#include <fmt/format.h>

#include <cstdint>

namespace shardplan {

namespace {

class Fnv1a {
 public:
  // Each part is followed by its length, so that ("ab","c") and ("a","bc") differ.
  void add(std::string_view part) {
    for (unsigned char c : part) mix(c);
    for (std::size_t size = part.size(), i = 0; i < 8; ++i, size >>= 8) mix(static_cast<unsigned char>(size & 0xff));
  }
  std::uint64_t value() const { return hash_; }

 private:
  void mix(unsigned char c) {
    hash_ ^= c;
    hash_ *= 0x100000001b3ULL;
  }
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

std::string sweep_id(const std::vector<std::string>& input_files, const SweepGrid& grid, SweepFormat format,
                     bool with_plan_files, std::optional<double> timeout_seconds) {
  Fnv1a hash;
  hash.add("shardplan.sweep/v1");
  hash.add(SHARDPLAN_VERSION);
  for (const auto& file : input_files) hash.add(file);
  hash.add(grid.canonical_text());
  hash.add(name_of(kSweepFormatNames, format));
  hash.add(with_plan_files ? "plans" : "");
  // Rows planned under another limit are not the same sweep's: resume and merge refuse them.
  if (timeout_seconds) hash.add(fmt::format("timeout={}", *timeout_seconds));
  return fmt::format("{:016x}", hash.value());
}

}  // namespace shardplan
