// Random inputs (seeded) through reader, simulation and writer: the spec's
// invariants hold — every value arrives exactly once, at the destination owning its
// key, in source order; element and byte counts equal the sums over the values moved.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kjt/all_to_all.h"
#include "kjt/fast_json_reader.h"
#include "kjt/input_reader.h"
#include "kjt/output_json.h"

namespace {

using nlohmann::json;

struct Generated {
  std::size_t world = 1;
  std::int64_t stagger = 1;
  std::vector<std::int64_t> splits;
  std::size_t num_keys = 0;
  std::vector<std::size_t> batch;                      // B_s
  std::vector<std::vector<std::vector<int>>> lengths;  // [s][k][b]
  bool weighted = false;
  bool splits_protocol = false;
};

// A value names where it came from: source, key, sample and its place in the bag.
std::string value_name(std::size_t s, std::size_t k, std::size_t b, int j) {
  return "s" + std::to_string(s) + "k" + std::to_string(k) + "b" + std::to_string(b) + "j" + std::to_string(j);
}

Generated generate(std::mt19937& rng) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Generated g;
  g.world = static_cast<std::size_t>(uniform(1, 8));
  std::vector<std::int64_t> divisors;
  for (std::size_t d = 1; d <= g.world; ++d)
    if (g.world % d == 0) divisors.push_back(static_cast<std::int64_t>(d));
  g.stagger = divisors[static_cast<std::size_t>(uniform(0, static_cast<int>(divisors.size()) - 1))];
  g.num_keys = static_cast<std::size_t>(uniform(1, 20));
  // Splits: each key goes to a random destination, then counted, so zeros happen.
  g.splits.assign(g.world, 0);
  for (std::size_t k = 0; k < g.num_keys; ++k)
    ++g.splits[static_cast<std::size_t>(uniform(0, static_cast<int>(g.world) - 1))];
  bool variable = uniform(0, 1) == 1;
  std::size_t common = static_cast<std::size_t>(uniform(0, 4));
  for (std::size_t s = 0; s < g.world; ++s) {
    g.batch.push_back(variable ? static_cast<std::size_t>(uniform(0, 4)) : common);
    std::vector<std::vector<int>> per_key(g.num_keys);
    for (auto& row : per_key)
      for (std::size_t b = 0; b < g.batch[s]; ++b) row.push_back(uniform(0, 2) == 0 ? 0 : uniform(0, 3));
    g.lengths.push_back(std::move(per_key));
  }
  g.weighted = uniform(0, 1) == 1;
  g.splits_protocol = uniform(0, 1) == 1;
  return g;
}

std::string input_text(const Generated& g, std::mt19937& rng) {
  json doc;
  doc["splits"] = g.splits;
  doc["stagger"] = g.stagger;
  doc["protocol"] = g.splits_protocol ? "splits_then_tensors" : "lengths_then_values";
  std::vector<std::string> keys;
  for (std::size_t k = 0; k < g.num_keys; ++k) keys.push_back("key" + std::to_string(k));
  json inputs = json::array();
  for (std::size_t s = 0; s < g.world; ++s) {
    json values = json::array(), weights = json::array();
    for (std::size_t k = 0; k < g.num_keys; ++k)
      for (std::size_t b = 0; b < g.batch[s]; ++b)
        for (int j = 0; j < g.lengths[s][k][b]; ++j) {
          values.push_back(value_name(s, k, b, j));
          weights.push_back(static_cast<double>(s) + 0.5);
        }
    json entry{{"rank", s}, {"keys", keys}, {"lengths", g.lengths[s]}, {"values", values}};
    if (g.weighted) entry["weights"] = weights;
    inputs.push_back(entry);
  }
  // Inputs may come in any rank order.
  std::vector<json> shuffled(inputs.begin(), inputs.end());
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  doc["inputs"] = shuffled;
  return doc.dump();
}

std::int64_t sum_row(const json& matrix, std::size_t s) {
  std::int64_t sum = 0;
  for (const auto& e : matrix[s]) sum += e.get<std::int64_t>();
  return sum;
}

std::int64_t sum_column(const json& matrix, std::size_t d) {
  std::int64_t sum = 0;
  for (const auto& row : matrix) sum += row[d].get<std::int64_t>();
  return sum;
}

void check_invariants(const Generated& g, const json& out) {
  const std::size_t world = g.world;
  // The spec's source order, written out independently of the implementation.
  std::vector<std::size_t> order;
  for (std::size_t x = 0; x < world / g.stagger; ++x)
    for (std::size_t y = 0; y < static_cast<std::size_t>(g.stagger); ++y) order.push_back(x + world / g.stagger * y);
  REQUIRE(out["source_order"] == json(order));
  std::size_t stride = 0;
  for (std::size_t b : g.batch) stride += b;

  std::size_t total_values = 0;
  for (std::size_t s = 0; s < world; ++s)
    for (const auto& row : g.lengths[s])
      for (int l : row) total_values += static_cast<std::size_t>(l);

  std::multiset<std::string> arrived;
  std::vector<std::size_t> received_values(world, 0);
  std::size_t key = 0;
  REQUIRE(out["outputs"].size() == world);
  for (std::size_t d = 0; d < world; ++d) {
    const json& o = out["outputs"][d];
    REQUIRE(o["rank"] == d);
    REQUIRE(o["stride"] == stride);
    REQUIRE(o["keys"].size() == static_cast<std::size_t>(g.splits[d]));
    REQUIRE(o["lengths"].size() == static_cast<std::size_t>(g.splits[d]));
    CHECK(o["recat"].is_null() == (g.splits[d] == 0));
    if (g.weighted)
      REQUIRE(o["weights"].size() == o["values"].size());
    else
      CHECK(o["weights"].is_null());
    std::size_t v = 0;  // position in this destination's values
    for (std::size_t i = 0; i < static_cast<std::size_t>(g.splits[d]); ++i, ++key) {
      // Destination d owns the i-th key of its contiguous slice.
      REQUIRE(o["keys"][i] == "key" + std::to_string(key));
      const json& row = o["lengths"][i];
      REQUIRE(row.size() == stride);
      std::size_t t = 0;  // output sample
      for (std::size_t s : order)
        for (std::size_t b = 0; b < g.batch[s]; ++b, ++t) {
          REQUIRE(row[t] == g.lengths[s][key][b]);
          // The bag of (s, key, b) arrives whole, in order, right here.
          for (int j = 0; j < g.lengths[s][key][b]; ++j, ++v) {
            REQUIRE(v < o["values"].size());
            REQUIRE(o["values"][v] == value_name(s, key, b, j));
            if (g.weighted) REQUIRE(o["weights"][v] == static_cast<double>(s) + 0.5);
          }
        }
    }
    REQUIRE(v == o["values"].size());
    received_values[d] = v;
    for (const auto& value : o["values"]) arrived.insert(value.get<std::string>());
  }
  // Exactly once: as many arrivals as values, and no name twice.
  CHECK(arrived.size() == total_values);
  CHECK(std::set<std::string>(arrived.begin(), arrived.end()).size() == total_values);

  // Collectives: counts are sums over what was moved.
  std::map<std::string, json> by_name;
  for (const auto& c : out["collectives"]) by_name[c["name"].get<std::string>()] = c;
  if (world == 1) {
    CHECK(out["collectives"].empty());
    return;
  }
  REQUIRE(by_name.count("lengths"));
  REQUIRE(by_name.count("values"));
  CHECK(by_name.count("weights") == (g.weighted ? 1u : 0u));
  bool batches_differ = std::set<std::size_t>(g.batch.begin(), g.batch.end()).size() > 1;
  CHECK(by_name.count("batch_sizes") == (!g.splits_protocol && batches_differ ? 1u : 0u));
  CHECK(by_name.count("splits") == (g.splits_protocol ? 1u : 0u));
  const json& values = by_name["values"];
  const json& lengths = by_name["lengths"];
  for (std::size_t d = 0; d < world; ++d) {
    CHECK(sum_column(values["elements"], d) == static_cast<std::int64_t>(received_values[d]));
    CHECK(sum_column(lengths["elements"], d) == static_cast<std::int64_t>(g.splits[d] * stride));
  }
  for (std::size_t s = 0; s < world; ++s) {
    std::int64_t sent = 0;
    for (const auto& row : g.lengths[s])
      for (int l : row) sent += l;
    CHECK(sum_row(values["elements"], s) == sent);
    CHECK(sum_row(lengths["elements"], s) == static_cast<std::int64_t>(g.num_keys * g.batch[s]));
  }
  // Default dtypes: values int64 (8 B), lengths int32 (4 B), weights float32 (4 B).
  CHECK(values["total_bytes"] == static_cast<std::int64_t>(total_values * 8));
  CHECK(lengths["total_bytes"] == static_cast<std::int64_t>(g.num_keys * stride * 4));
  if (g.weighted) CHECK(by_name["weights"]["total_bytes"] == static_cast<std::int64_t>(total_values * 4));
  // Per-rank totals are the row and column sums of every byte matrix.
  for (std::size_t r = 0; r < world; ++r) {
    std::int64_t sent = 0, received = 0;
    for (const auto& c : out["collectives"]) {
      sent += sum_row(c["bytes"], r);
      received += sum_column(c["bytes"], r);
    }
    CHECK(out["rank_bytes"][r]["sent_bytes"] == sent);
    CHECK(out["rank_bytes"][r]["received_bytes"] == received);
  }
}

std::string rendered(const std::string& text, shardplan::kjt::ReadPath path) {
  shardplan::kjt::A2aInput input = shardplan::kjt::parse_a2a_input("random.json", text, path);
  std::string out;
  shardplan::kjt::append_output_json(input, shardplan::kjt::simulate(input), out);
  return out;
}

}  // namespace

TEST_CASE("a2a: the fast JSON path and the positioned reader agree on unusual spellings", "[kjt][a2a]") {
  // Escaped strings, -0, 1e0 for an integer, weights written 1, 1.0 and 2.5e-1,
  // whitespace everywhere, keys in another order: the fast path gives up on some of
  // these and must then land on the same result through the positioned reader.
  const char* texts[] = {
      R"({"inputs":[{"values":["a\"b","\u00e9",-0,7],"lengths":[[2],[2]],"keys":["K","L"],"rank":0,"weights":[1,1.0,2.5e-1,-3]}],"splits":[2]})",
      R"( { "splits" : [ 1 , 1 ] , "inputs" : [ { "rank" : 1 , "keys" : [ "A" , "B" ] , "lengths" : [ [ 1e0 ] , [ 0 ] ] , "values" : [ "x" ] } ,
          {"rank":0,"keys":["A","B"],"lengths":[[0],[1]],"values":[12]} ] } )",
      // Compact at first (read in place), then a space and a -0: the list is copied from there on.
      R"({"splits":[1,1],"inputs":[{"rank":0,"keys":["A","B"],"lengths":[[3],[2]],"values":["a","b" ,"c",-0,"d"],
          "weights":[1,2,3, 4,5.0]},{"rank":1,"keys":["A","B"],"lengths":[[1],[1]],"values":[5,6],"weights":[7,8]}]})",
      R"({"splits":[0,2],"stagger":2,"protocol":"splits_then_tensors","dtypes":{"values":"int32"},"inputs":[
          {"rank":0,"keys":["A","B"],"lengths":[[],[]],"values":[],"weights":null},
          {"rank":1,"keys":["A","B"],"lengths":[[1,0,1],[0,0,2]],"values":["p","q","r","s"]}]})",
  };
  for (const char* text : texts) {
    INFO(text);
    std::string fast = rendered(text, shardplan::kjt::ReadPath::kFastWhenPossible);
    CHECK(fast == rendered(text, shardplan::kjt::ReadPath::kPositionedOnly));
    CHECK(!json::parse(fast)["outputs"].empty());
  }
}

TEST_CASE("a2a: the fast path reads escapes itself, and stops where the positioned reader has a say", "[kjt][a2a]") {
  // Escapes, a surrogate pair, -0 and weights past 64 bits are JSON the shared parser
  // reads: the fast path takes them (it used to hand them over) and reads them alike.
  const std::string escaped =
      R"({"splits":[1],"inputs":[{"rank":0,"keys":["\ud83d\ude00"],"lengths":[[5]],)"
      R"("values":["a\"b","\u00e9",-0,7,8],"weights":[1,-0,2.5e-1,99999999999999999999,-9223372036854775809]}]})";
  REQUIRE(shardplan::kjt::read_raw_json_fast(escaped).has_value());
  CHECK(rendered(escaped, shardplan::kjt::ReadPath::kFastWhenPossible) ==
        rendered(escaped, shardplan::kjt::ReadPath::kPositionedOnly));
  // Values are written back as the positioned reader writes them: "-0" as 0, a weight as written.
  const auto raw = shardplan::kjt::read_raw_json_fast(escaped);
  CHECK(raw->inputs[0].values.run(0, 5) == R"("a\"b","é",0,7,8)");
  CHECK(raw->inputs[0].weights->run(0, 5) == "1,-0,2.5e-1,99999999999999999999,-9223372036854775809");
  // Whatever the positioned reader reports or reads another way stops the fast path.
  for (const char* text : {
           R"({"splits":[1],"splits":[1],"inputs":[]})",                                       // duplicate key
           R"({"splitz":[1],"inputs":[]})",                                                    // unknown key
           R"({"splits":[1e0],"inputs":[]})",                                                  // 1e0 for an integer
           R"({"splits":[1],"inputs":[{"rank":0,"keys":[""],"lengths":[[0]],"values":[]}]})",  // empty name
           R"({"splits":[1],"inputs":[{"rank":0,"keys":["a"],"lengths":[[0]]}]})",             // values missing
           R"({"splits":[1],"inputs":[{"rank":0,"keys":["a"],"lengths":[[1]],"values":[true]}]})",
           R"({"splits":[1],"inputs":[{"rank":0,"keys":["a"],"lengths":[[1]],"values":[1],"weights":[1e-999]}]})",
           R"({"splits":[1],"inputs":[{"rank":0,"keys":["\ud800"],"lengths":[[0]],"values":[]}]})",  // lone surrogate
           "{\"splits\":[1],\"inputs\":[{\"rank\":0,\"keys\":[\"a\xff\"],\"lengths\":[[0]],\"values\":[]}]}",
           R"([1])",
       }) {
    INFO(text);
    CHECK_FALSE(shardplan::kjt::read_raw_json_fast(text).has_value());
  }
}

TEST_CASE("a2a property: random inputs keep the spec's invariants", "[kjt][a2a][property]") {
  std::mt19937 rng(20261123);
  for (int trial = 0; trial < 400; ++trial) {
    Generated g = generate(rng);
    std::string text = input_text(g, rng);
    INFO("trial " << trial << ": " << text);
    std::string out = rendered(text, shardplan::kjt::ReadPath::kFastWhenPossible);
    check_invariants(g, json::parse(out));
    // The fast JSON path takes these inputs and reads exactly what the positioned reader reads.
    CHECK(shardplan::kjt::read_raw_json_fast(text).has_value());
    CHECK(out == rendered(text, shardplan::kjt::ReadPath::kPositionedOnly));
  }
}
