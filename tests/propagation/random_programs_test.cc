// Seeded random programs (every op kind family, 1-3 axis meshes, open and closed dims,
// priorities, sub-axes, constraints, dead chains) and invariants that follow from
// Shardy's algorithm, not from our own output:
// - a closed dim of an input sharding never changes (no factor propagation extends a
//   closed dim, §5 `within`, and user-priority restores hidden dims as written);
// - an open dim only grows: its written axes stay a prefix in Shardy's sense (§2: all
//   equal but the last, which may widen, e.g. a:(1)2 to a), as every update is strict;
// - every result is a valid sharding on the mesh (no axis used twice, sub-axes valid);
// - the run is deterministic (same shardings and iterations twice);
// - on programs without dead ops, propagating the result again changes nothing (the
//   last worklist run ends with every op at a fixed point of aggressive propagation).
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "config/config_test_util.h"
#include "propagation/driver.h"
#include "propagation/program_reader.h"
#include "propagation/strategies.h"

namespace {

using namespace shardplan::propagation;

struct RandomProgramText {
  std::string json;
};

class RandomProgramGenerator {
 public:
  RandomProgramGenerator(unsigned seed, bool all_live, bool priorities)
      : rng_(seed), all_live_(all_live), priorities_(priorities) {}

  std::string generate(const std::string& strategy) {
    int num_axes = pick(1, 3);
    const char* names[] = {"a", "b", "c"};
    for (int i = 0; i < num_axes; ++i) axes_.push_back({names[i], pick(0, 1) ? 2 : 4});
    int inputs = pick(1, 3);
    for (int i = 0; i < inputs; ++i) add_tensor({dim(), dim()}, true);
    int num_ops = pick(2, 8);
    for (int i = 0; i < num_ops; ++i) add_op();
    std::ostringstream out;
    out << "{\"mesh\": [";
    for (std::size_t i = 0; i < axes_.size(); ++i)
      out << (i ? ", " : "") << "[\"" << axes_[i].first << "\", " << axes_[i].second << "]";
    out << "],\n \"tensors\": [";
    for (std::size_t t = 0; t < tensors_.size(); ++t) {
      out << (t ? ",\n  " : "\n  ") << "{\"name\": \"t" << t << "\", \"shape\": [";
      for (std::size_t d = 0; d < tensors_[t].shape.size(); ++d) out << (d ? ", " : "") << tensors_[t].shape[d];
      out << "]";
      if (!tensors_[t].sharding.empty()) out << ", \"sharding\": \"" << tensors_[t].sharding << "\"";
      out << "}";
    }
    out << "],\n \"ops\": [";
    for (std::size_t k = 0; k < ops_.size(); ++k) out << (k ? ",\n  " : "\n  ") << ops_[k];
    out << "],\n \"outputs\": [";
    bool first = true;
    for (std::size_t t = 0; t < tensors_.size(); ++t) {
      bool output = all_live_ ? tensors_[t].uses == 0 : (t + 1 == tensors_.size() || pick(0, 4) == 0);
      if (!output) continue;
      out << (first ? "" : ", ") << "\"t" << t << "\"";
      first = false;
    }
    out << "],\n \"options\": {\"strategy\": \"" << strategy << "\"}}\n";
    return out.str();
  }

 private:
  struct GenTensor {
    std::vector<int> shape;
    std::string sharding;
    int uses = 0;
  };

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  int dim() { return 4 << pick(0, 2); }  // 4, 8 or 16

  // A random sharding text: each dim takes unused axes (whole, or a sub-axis piece),
  // is open or closed, and maybe has a priority.
  std::string random_sharding(std::size_t rank) {
    std::vector<bool> used(axes_.size(), false);
    std::string out = "[";
    for (std::size_t d = 0; d < rank; ++d) {
      out += d ? ", {" : "{";
      int count = 0;
      for (std::size_t a = 0; a < axes_.size(); ++a) {
        if (used[a] || pick(0, 2) != 0) continue;
        used[a] = true;
        out += (count++ ? ", " : "") + axes_[a].first;
        if (axes_[a].second == 4 && pick(0, 3) == 0) out += pick(0, 1) ? ":(1)2" : ":(2)2";
      }
      if (pick(0, 1)) out += count ? ", ?" : "?";
      out += "}";
      if (priorities_ && pick(0, 3) == 0) out += "p" + std::to_string(pick(0, 2));
    }
    return out + "]";
  }

  int add_tensor(std::vector<int> shape, bool sharded) {
    GenTensor t;
    t.shape = std::move(shape);
    if (sharded && pick(0, 2) != 0) t.sharding = random_sharding(t.shape.size());
    tensors_.push_back(t);
    return static_cast<int>(tensors_.size()) - 1;
  }

  int any_tensor() {
    int t = pick(0, static_cast<int>(tensors_.size()) - 1);
    return t;
  }

  std::string name(int t) {
    ++tensors_[t].uses;
    return "\"t" + std::to_string(t) + "\"";
  }

  void op(const std::string& kind, const std::vector<int>& operands, int result, const std::string& attributes = "") {
    std::string text = "{\"kind\": \"" + kind + "\", \"operands\": [";
    for (std::size_t i = 0; i < operands.size(); ++i) text += (i ? ", " : "") + name(operands[i]);
    text += "], \"results\": [\"t" + std::to_string(result) + "\"]" + attributes + "}";
    ops_.push_back(text);
  }

  void add_op() {
    int x = any_tensor();
    std::vector<int> shape = tensors_[x].shape;
    switch (pick(0, 8)) {
      case 0:
        op("negate", {x}, add_tensor(shape, pick(0, 3) == 0));
        break;
      case 1: {  // a binary op on two tensors of one shape (x itself when no other fits)
        int y = x;
        for (int tries = 0; tries < 4; ++tries) {
          int c = any_tensor();
          if (tensors_[c].shape == shape) y = c;
        }
        op(pick(0, 1) ? "add" : "multiply", {x, y}, add_tensor(shape, pick(0, 3) == 0));
        break;
      }
      case 2: {
        if (shape.size() != 2) return op("exp", {x}, add_tensor(shape, false));
        op("transpose", {x}, add_tensor({shape[1], shape[0]}, pick(0, 3) == 0), ", \"permutation\": [1, 0]");
        break;
      }
      case 3: {  // x [m, k] times some [k, n]; x^T when none has k rows
        if (shape.size() != 2) return op("abs", {x}, add_tensor(shape, false));
        int y = -1;
        for (std::size_t c = 0; c < tensors_.size(); ++c)
          if (tensors_[c].shape.size() == 2 && tensors_[c].shape[0] == shape[1] && pick(0, 1)) y = static_cast<int>(c);
        if (y < 0) {
          y = add_tensor({shape[1], shape[0]}, false);
          op("transpose", {x}, y, ", \"permutation\": [1, 0]");
        }
        op("matmul", {x, y}, add_tensor({shape[0], tensors_[y].shape[1]}, pick(0, 3) == 0));
        break;
      }
      case 4: {  // reduce one dim, then broadcast it back
        if (shape.size() != 2) return op("tanh", {x}, add_tensor(shape, false));
        int d = pick(0, 1);
        int r = add_tensor({shape[1 - d]}, pick(0, 3) == 0);
        op("reduce", {x}, r, ", \"dimensions\": [" + std::to_string(d) + "]");
        op("broadcast_in_dim", {r}, add_tensor(shape, false),
           ", \"broadcast_dimensions\": [" + std::to_string(1 - d) + "]");
        break;
      }
      case 5: {  // [m, n] -> [m * n / 2, 2] or back to rank 2 from rank 1
        int count = 1;
        for (int s : shape) count *= s;
        op("reshape", {x}, add_tensor({count / 4, 4}, pick(0, 3) == 0));
        break;
      }
      case 6: {
        if (shape.empty()) return;
        std::vector<int> joined = shape;
        joined[0] *= 2;
        op("concatenate", {x, x}, add_tensor(joined, pick(0, 3) == 0), ", \"dimension\": 0");
        break;
      }
      case 7: {  // a sharding constraint (a copy with a written sharding), maybe unused
        int c = add_tensor(shape, false);
        tensors_[c].sharding = random_sharding(shape.size());
        op("copy", {x}, c);
        break;
      }
      default: {  // a dead-looking chain: negate then abs (live only when outputs reach it)
        int n = add_tensor(shape, true);
        op("negate", {x}, n);
        op("abs", {n}, add_tensor(shape, false));
        break;
      }
    }
  }

  std::mt19937 rng_;
  bool all_live_, priorities_;
  std::vector<std::pair<std::string, int>> axes_;
  std::vector<GenTensor> tensors_;
  std::vector<std::string> ops_;
};

std::vector<TensorSharding> run_strategy(const Program& program, std::vector<Iteration>* iterations = nullptr) {
  PropagationDriver driver(program);
  make_strategy(program.options.strategy)->propagate(driver);
  if (iterations) *iterations = driver.state().iterations;
  return driver.state().shardings;
}

const char* const kRandomStrategies[] = {"basic", "aggressive", "op-priority", "user-priority"};

}  // namespace

TEST_CASE("random programs: closed dims stay, open dims grow, results are valid and deterministic", "[propagate]") {
  int programs = 0;
  for (unsigned seed = 1; seed <= 120; ++seed) {
    const char* strategy = kRandomStrategies[seed % 4];
    RandomProgramGenerator generator(seed, false, true);
    std::string text = generator.generate(strategy);
    INFO("seed " << seed << "\n" << text);
    Program program = read_program(shardplan::testing::write_scratch("random.json", text));
    std::vector<Iteration> first_iterations, second_iterations;
    std::vector<TensorSharding> result = run_strategy(program, &first_iterations);
    ++programs;
    for (std::size_t t = 0; t < program.tensors.size(); ++t) {
      const TensorSharding& written = program.tensors[t].sharding;
      const TensorSharding& got = result[t];
      INFO("tensor " << program.tensors[t].name << ": " << sharding_text(got, program.mesh));
      REQUIRE(got.dims.size() == written.dims.size());
      for (std::size_t d = 0; d < written.dims.size(); ++d) {
        if (written.dims[d].closed) {
          CHECK(got.dims[d].closed);
          CHECK(got.dims[d].axes == written.dims[d].axes);
        } else {
          // Shardy's prefix: equal but the last, which may widen (a:(1)2 -> a).
          CHECK(prefix_status(written.dims[d].axes, got.dims[d].axes) != PrefixStatus::kNotPrefix);
        }
      }
      // The printed result reads back as a valid sharding on the same mesh.
      std::vector<std::string> problems;
      auto reread = parse_sharding_text(sharding_text(got, program.mesh));
      REQUIRE(reread);
      CHECK(resolve_sharding(*reread, program.mesh, problems).has_value());
      CHECK(problems.empty());
    }
    CHECK(run_strategy(program, &second_iterations) == result);
    REQUIRE(second_iterations.size() == first_iterations.size());
    for (std::size_t i = 0; i < first_iterations.size(); ++i)
      CHECK(second_iterations[i].changed == first_iterations[i].changed);
  }
  CHECK(programs == 120);
}

TEST_CASE("random programs without dead ops: propagating the result again changes nothing", "[propagate]") {
  for (unsigned seed = 1000; seed < 1080; ++seed) {
    const char* strategy = seed % 2 ? "aggressive" : "op-priority";
    RandomProgramGenerator generator(seed, true, false);
    std::string text = generator.generate(strategy);
    INFO("seed " << seed << "\n" << text);
    Program program = read_program(shardplan::testing::write_scratch("random.json", text));
    std::vector<TensorSharding> result = run_strategy(program);
    Program again = program;
    for (std::size_t t = 0; t < again.tensors.size(); ++t) again.tensors[t].sharding = result[t];
    std::vector<TensorSharding> twice = run_strategy(again);
    for (std::size_t t = 0; t < program.tensors.size(); ++t) {
      INFO("tensor " << program.tensors[t].name);
      CHECK(sharding_text(twice[t], program.mesh) == sharding_text(result[t], program.mesh));
    }
  }
}
