#include "propagation/sharding.h"

#include <cctype>
#include <charconv>

namespace shardplan::propagation {

TensorSharding open_sharding(std::size_t rank) {
  TensorSharding sharding;
  sharding.dims.resize(rank);
  return sharding;
}

std::string WrittenAxis::text() const {
  if (!pre) return name;
  return name + ":(" + std::to_string(*pre) + ")" + std::to_string(*size);
}

namespace {

// A small recursive-descent reader over the sharding text.
class ShardingLexer {
 public:
  explicit ShardingLexer(std::string_view text) : text_(text) {}

  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool eat(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skip_space();
    return at_ < text_.size() && text_[at_] == c;
  }
  bool eat_word(std::string_view word) {
    skip_space();
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }
  bool done() {
    skip_space();
    return at_ == text_.size();
  }
  std::optional<std::int64_t> number() {
    skip_space();
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text_.data() + at_, text_.data() + text_.size(), value);
    if (ec != std::errc() || end == text_.data() + at_) return std::nullopt;
    at_ = static_cast<std::size_t>(end - text_.data());
    return value;
  }
  // A bare axis name or one in double quotes.
  std::optional<std::string> name() {
    skip_space();
    if (eat('"')) {
      std::size_t close = text_.find('"', at_);
      if (close == std::string_view::npos || close == at_) return std::nullopt;
      std::string out(text_.substr(at_, close - at_));
      at_ = close + 1;
      return out;
    }
    std::size_t start = at_;
    while (at_ < text_.size()) {
      unsigned char c = static_cast<unsigned char>(text_[at_]);
      if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.')) break;
      ++at_;
    }
    if (at_ == start) return std::nullopt;
    return std::string(text_.substr(start, at_ - start));
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

std::optional<WrittenAxis> parse_axis(ShardingLexer& lex) {
  WrittenAxis axis;
  auto name = lex.name();
  if (!name) return std::nullopt;
  axis.name = *name;
  if (lex.eat(':')) {
    if (!lex.eat('(')) return std::nullopt;
    axis.pre = lex.number();
    if (!axis.pre || !lex.eat(')')) return std::nullopt;
    axis.size = lex.number();
    if (!axis.size) return std::nullopt;
  }
  return axis;
}

// `{}`, `{a, b}`, `{a, ?}`, `{?}`, each optionally followed by `p<N>`.
std::optional<WrittenDim> parse_dim(ShardingLexer& lex) {
  WrittenDim dim;
  if (!lex.eat('{')) return std::nullopt;
  if (!lex.eat('}')) {
    while (true) {
      if (lex.eat('?')) {
        dim.open = true;
        if (!lex.eat('}')) return std::nullopt;
        break;
      }
      auto axis = parse_axis(lex);
      if (!axis) return std::nullopt;
      dim.axes.push_back(*axis);
      if (lex.eat('}')) break;
      if (!lex.eat(',')) return std::nullopt;
    }
  }
  if (lex.peek('p')) {
    lex.eat('p');
    auto priority = lex.number();
    if (!priority || *priority < 0) return std::nullopt;
    dim.priority = *priority;
  }
  return dim;
}

bool parse_replicated(ShardingLexer& lex, WrittenSharding& out) {
  if (!lex.eat_word("replicated") || !lex.eat('=') || !lex.eat('{')) return false;
  if (lex.eat('}')) return true;
  while (true) {
    auto axis = parse_axis(lex);
    if (!axis) return false;
    out.replicated.push_back(*axis);
    if (lex.eat('}')) return true;
    if (!lex.eat(',')) return false;
  }
}

}  // namespace

std::optional<WrittenSharding> parse_sharding_text(std::string_view text) {
  ShardingLexer lex(text);
  WrittenSharding out;
  if (!lex.eat('[')) return std::nullopt;
  if (!lex.eat(']')) {
    while (true) {
      auto dim = parse_dim(lex);
      if (!dim) return std::nullopt;
      out.dims.push_back(std::move(*dim));
      if (lex.eat(']')) break;
      if (!lex.eat(',')) return std::nullopt;
    }
  }
  if (lex.eat(',') && !parse_replicated(lex, out)) return std::nullopt;
  if (!lex.done()) return std::nullopt;
  return out;
}

namespace {

// One written axis resolved, or the problem with it.
std::optional<AxisRef> resolve_axis(const WrittenAxis& written, const Mesh& mesh, std::vector<std::string>& problems) {
  int index = mesh.find(written.name);
  if (index < 0) {
    problems.push_back("unknown mesh axis '" + written.name + "'");
    return std::nullopt;
  }
  std::int64_t total = mesh.axes[index].size;
  AxisRef axis{index, 1, total, total};
  if (written.pre) {
    std::int64_t pre = *written.pre, size = *written.size;
    std::int64_t next = 0;  // pre * size; a product past 2^63 cannot divide the axis size
    if (pre < 1 || size <= 1 || __builtin_mul_overflow(pre, size, &next) || total % next != 0) {
      problems.push_back("invalid sub-axis " + written.text());
      return std::nullopt;
    }
    axis = AxisRef{index, pre, size, total};
  }
  return axis;
}

// Shardy's verifier: two consecutive pieces of one axis must be written merged.
void check_adjacent(const AxisList& axes, const Mesh& mesh, std::vector<std::string>& problems) {
  for (std::size_t i = 1; i < axes.size(); ++i) {
    const AxisRef& a = axes[i - 1];
    const AxisRef& b = axes[i];
    if (a.axis == b.axis && !a.full() && !b.full() && a.next() == b.pre)
      problems.push_back("sub-axes " + axis_text(a, mesh) + " and " + axis_text(b, mesh) +
                         " are adjacent and must be merged");
  }
}

}  // namespace

std::optional<TensorSharding> resolve_sharding(const WrittenSharding& written, const Mesh& mesh,
                                               std::vector<std::string>& problems) {
  std::size_t before = problems.size();
  TensorSharding out;
  AxisList all;  // every axis of the sharding, for the overlap check
  for (const WrittenDim& wd : written.dims) {
    DimSharding dim;
    dim.closed = !wd.open;
    dim.priority = wd.priority;
    for (const WrittenAxis& wa : wd.axes)
      if (auto axis = resolve_axis(wa, mesh, problems)) dim.axes.push_back(*axis);
    out.dims.push_back(std::move(dim));
  }
  for (const WrittenAxis& wa : written.replicated)
    if (auto axis = resolve_axis(wa, mesh, problems)) out.replicated.push_back(*axis);
  if (problems.size() != before) return std::nullopt;

  for (const DimSharding& dim : out.dims) all.insert(all.end(), dim.axes.begin(), dim.axes.end());
  all.insert(all.end(), out.replicated.begin(), out.replicated.end());
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (overlaps(all[i], all[j])) {
        problems.push_back("axis " + axis_text(all[i], mesh) + " overlaps another axis of the same sharding");
        break;
      }
  for (const DimSharding& dim : out.dims) check_adjacent(dim.axes, mesh, problems);
  check_adjacent(out.replicated, mesh, problems);
  AxisList sorted = out.replicated;
  sort_by_mesh_order(sorted);
  if (!(sorted == out.replicated)) problems.push_back("replicated axes must be sorted by mesh order");
  if (problems.size() != before) return std::nullopt;
  return out;
}

std::string sharding_text(const TensorSharding& sharding, const Mesh& mesh, bool with_priorities) {
  std::string out = "[";
  for (std::size_t d = 0; d < sharding.dims.size(); ++d) {
    const DimSharding& dim = sharding.dims[d];
    if (d) out += ", ";
    out += "{";
    for (std::size_t i = 0; i < dim.axes.size(); ++i) out += (i ? ", " : "") + axis_text(dim.axes[i], mesh);
    if (!dim.closed) out += dim.axes.empty() ? "?" : ", ?";
    out += "}";
    if (with_priorities && dim.priority > 0) out += "p" + std::to_string(dim.priority);
  }
  out += "]";
  if (!sharding.replicated.empty()) {
    out += ", replicated={";
    for (std::size_t i = 0; i < sharding.replicated.size(); ++i)
      out += (i ? ", " : "") + axis_text(sharding.replicated[i], mesh);
    out += "}";
  }
  return out;
}

}  // namespace shardplan::propagation
