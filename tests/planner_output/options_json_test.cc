// enumerate's output is written in pieces, without the document: the pieces
// together must be, byte for byte, what the document's dump(2) wrote before
// (JSON), and what the one-string table renderer wrote before (text). The
// options here are random, with the values that printing gets wrong first:
// NaN, infinities, -0.0, subnormals, any bit pattern; names with quotes,
// backslashes, control bytes and UTF-8; empty lists.
#include <fmt/format.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/names.h"
#include "planner_output/options_json.h"

namespace shardplan {
namespace {

class RandomOptions {
 public:
  explicit RandomOptions(std::uint64_t seed) : rng_(seed) {}

  std::vector<ShardingOption> options(int count) {
    std::vector<ShardingOption> out;
    for (int i = 0; i < count; ++i) out.push_back(option());
    return out;
  }

  ShardingOption option() {
    ShardingOption o;
    o.name = name();
    o.path = name();
    o.sharding_type = kShardingTypeNames[below(kShardingTypeNames.size())].value;
    o.compute_kernel = kComputeKernelNames[below(kComputeKernelNames.size())].value;
    o.partition_by = kPartitionByNames[below(kPartitionByNames.size())].value;
    if (below(2)) {
      o.cache_params = CacheParams{};
      if (below(3)) o.cache_params->load_factor = odd_double();
    }
    o.is_pooled = below(2) == 1;
    o.is_weighted = below(2) == 1;
    for (std::size_t n = below(4); n > 0; --n) o.input_lengths.push_back(odd_double());
    for (std::size_t n = below(3); n > 0; --n) o.tensor_shape.push_back(odd_int());
    o.tensor_element_size = static_cast<int>(below(9));
    // Runs of equal shards (as the enumerator makes them) and single odd ones.
    for (std::size_t runs = below(4); runs > 0; --runs) {
      Shard shard;
      shard.size = {odd_int(), odd_int()};
      shard.offset = {static_cast<std::int64_t>(below(1000)), static_cast<std::int64_t>(below(1000))};
      if (below(4)) shard.perf = Perf{odd_double(), odd_double(), odd_double(), odd_double(), odd_double()};
      if (below(4)) shard.storage = Storage{odd_storage(), odd_storage()};
      const bool ranked = below(3) > 0;
      const std::int64_t rank_step = static_cast<std::int64_t>(below(3));
      const auto offset_step = static_cast<std::int64_t>(1 + below(1000));
      for (std::size_t k = 0, count = 1 + below(6); k < count; ++k) {
        if (ranked) shard.rank = static_cast<int>(k * rank_step);
        o.shards.push_back(shard);
        // A fixed step, so that the shards form runs; small, as offsets are (the odd
        // sizes near the int64 limits would overflow the runs' offset arithmetic).
        shard.offset[0] += offset_step;
      }
    }
    return o;
  }

 private:
  std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  double odd_double() {
    static const double kOdd[] = {0.0,
                                  -0.0,
                                  0.1,
                                  1.0 / 3.0,
                                  2.0,
                                  1e-5,
                                  1e21,
                                  -123456789.125,
                                  5e-324,
                                  std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::quiet_NaN(),
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity()};
    switch (below(3)) {
      case 0:
        return kOdd[below(std::size(kOdd))];
      case 1:
        return std::bit_cast<double>(static_cast<std::uint64_t>(rng_()));  // any bits: NaNs, subnormals
      default:
        return std::uniform_real_distribution<double>(0, 1000)(rng_);
    }
  }

  std::int64_t odd_int() {
    static const std::int64_t kOdd[] = {
        0, -1, 1, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), 4096};
    return below(2) ? kOdd[below(std::size(kOdd))] : static_cast<std::int64_t>(rng_() >> below(64));
  }

  // Storage that an option's total (up to 6 shards x 4 runs) cannot overflow: the
  // totals are sums of products, and a signed overflow there is undefined.
  std::int64_t odd_storage() {
    static const std::int64_t kOdd[] = {0, 1, 4096, (std::int64_t{1} << 40) - 1};
    return below(2) ? kOdd[below(std::size(kOdd))] : static_cast<std::int64_t>(rng_() >> (24 + below(40)));
  }

  std::string name() {
    static const std::string kOdd[] = {
        "",     "t_0",           "q\"uote", "back\\slash", "tab\tnew\nline\x01", "caf\u00e9 \u2603 \U0001F600",
        "\x7f", "slash/and.dots"};
    std::string out = kOdd[below(std::size(kOdd))];
    if (below(5) == 0) out += std::string(300 + below(300), 'x');  // longer than every column
    return out;
  }

  std::mt19937_64 rng_;
};

// What enumerate wrote before the pieces: the document, dumped.
std::string document_dump(const std::vector<ShardingOption>& options) {
  return options_to_json(options).dump(2) + "\n";
}

// What `enumerate --format text` wrote before the pieces: the table as one string.
std::string table_as_one_string(const std::vector<ShardingOption>& options) {
  const auto gib = [](std::int64_t bytes) {
    return fmt::format("{:.3f}", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  };
  std::string out = fmt::format("{:<40} {:<18} {:<18} {:>6} {:>12} {:>10} {:>10}\n", "table", "sharding_type",
                                "compute_kernel", "shards", "perf (ms)", "HBM (GiB)", "DDR (GiB)");
  for (const auto& o : options) {
    Storage total = o.total_storage();
    out += fmt::format("{:<40} {:<18} {:<18} {:>6} {:>12.6f} {:>10} {:>10}\n", o.fqn(), to_string(o.sharding_type),
                       to_string(o.compute_kernel), o.num_shards(), o.total_perf(), gib(total.hbm), gib(total.ddr));
    for (std::size_t i = 0; i < o.shards.size(); ++i) {
      const Shard s = o.shards[i];
      Perf p = s.perf.value_or(Perf{});
      Storage st = s.storage.value_or(Storage{});
      out += fmt::format(
          "    shard {:>4}  offsets [{}, {}]  sizes [{}, {}]  fwd {:.6f}/{:.6f}  bwd {:.6f}/{:.6f}  "
          "prefetch {:.6f}  hbm {}  ddr {}\n",
          i, s.offset.at(0), s.offset.at(1), s.size.at(0), s.size.at(1), p.fwd_compute, p.fwd_comms, p.bwd_compute,
          p.bwd_comms, p.prefetch_compute, st.hbm, st.ddr);
    }
  }
  return out;
}

struct Pieces {
  std::vector<std::string> pieces;
  std::string joined() const {
    std::string out;
    for (const auto& piece : pieces) out += piece;
    return out;
  }
  std::size_t largest() const {
    std::size_t most = 0;
    for (const auto& piece : pieces) most = std::max(most, piece.size());
    return most;
  }
};

template <typename Write>
Pieces pieces_of(Write write, const std::vector<ShardingOption>& options, std::size_t piece_bytes) {
  Pieces out;
  write(
      options, [&out](std::string_view piece) { out.pieces.emplace_back(piece); }, piece_bytes);
  return out;
}

const auto kWriteJson = [](const std::vector<ShardingOption>& o, const TextPieceSink& emit, std::size_t bytes) {
  write_options_json(o, emit, bytes);
};
const auto kWriteText = [](const std::vector<ShardingOption>& o, const TextPieceSink& emit, std::size_t bytes) {
  write_options_text(o, emit, bytes);
};

TEST_CASE("enumerate output in pieces: the JSON is the document's dump, byte for byte", "[output][enumerate]") {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const std::vector<ShardingOption> options = RandomOptions(seed).options(static_cast<int>(seed % 7));
    const std::string expected = document_dump(options);
    for (std::size_t piece_bytes : {std::size_t{1}, std::size_t{100}, kOptionsPieceBytes}) {
      INFO("seed " << seed << ", pieces of " << piece_bytes << " bytes");
      const Pieces got = pieces_of(kWriteJson, options, piece_bytes);
      CHECK(got.joined() == expected);
      for (const auto& piece : got.pieces) CHECK(!piece.empty());
    }
  }
}

TEST_CASE("enumerate output in pieces: the text is the one-string table, byte for byte", "[output][enumerate]") {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const std::vector<ShardingOption> options = RandomOptions(seed).options(static_cast<int>(seed % 7));
    const std::string expected = table_as_one_string(options);
    CHECK(options_to_text(options) == expected);
    for (std::size_t piece_bytes : {std::size_t{1}, std::size_t{100}}) {
      INFO("seed " << seed << ", pieces of " << piece_bytes << " bytes");
      CHECK(pieces_of(kWriteText, options, piece_bytes).joined() == expected);
    }
  }
}

TEST_CASE("enumerate output in pieces: no options at all", "[output][enumerate]") {
  const std::vector<ShardingOption> none;
  CHECK(pieces_of(kWriteJson, none, kOptionsPieceBytes).joined() == document_dump(none));
  CHECK(pieces_of(kWriteJson, none, kOptionsPieceBytes).joined() ==
        "{\n  \"num_options\": 0,\n  \"options\": [],\n  \"schema\": \"shardplan.enumerate/v1\"\n}\n");
  CHECK(pieces_of(kWriteText, none, 1).joined() == table_as_one_string(none));
}

TEST_CASE("enumerate output in pieces: a piece is bounded, not the whole output", "[output][enumerate]") {
  // One option of 2 000 shards: its JSON is some 600 kB. With pieces of 4 kB, no
  // piece may hold more than a piece and one shard's text.
  ShardingOption o = RandomOptions(7).option();
  o.shards.clear();
  for (int k = 0; k < 2000; ++k)
    o.shards.push_back(Shard{{10, 4}, {10 * k, 0}, Storage{40, 0}, Perf{0.1, 0.2, 0.3, 0.4, 0.5}, k});
  const std::vector<ShardingOption> options{o};
  const std::string whole = document_dump(options);
  REQUIRE(whole.size() > 500'000);
  const Pieces json = pieces_of(kWriteJson, options, 4096);
  CHECK(json.joined() == whole);
  CHECK(json.largest() < 4096 + 1024);
  CHECK(json.pieces.size() > whole.size() / (4096 + 1024));
  const Pieces text = pieces_of(kWriteText, options, 4096);
  CHECK(text.joined() == table_as_one_string(options));
  CHECK(text.largest() < 4096 + 1024);
}

TEST_CASE("enumerate output in pieces: a name nlohmann refuses throws before the first piece", "[output][enumerate]") {
  std::vector<ShardingOption> options = RandomOptions(3).options(3);
  options.back().name = "bad\xff utf-8";
  CHECK_THROWS_AS(document_dump(options), nlohmann::json::exception);
  std::size_t pieces = 0;
  CHECK_THROWS_AS(write_options_json(
                      options, [&pieces](std::string_view) { ++pieces; }, 1),
                  nlohmann::json::exception);
  CHECK(pieces == 0);
}

}  // namespace
}  // namespace shardplan
