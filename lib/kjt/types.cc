#include "kjt/types.h"

#include <limits>
#include <stdexcept>

namespace shardplan::kjt {

std::int64_t element_bytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::kInt32: return 4;
    case Dtype::kInt64: return 8;
    case Dtype::kFloat16: return 2;
    case Dtype::kBfloat16: return 2;
    case Dtype::kFloat32: return 4;
    case Dtype::kFloat64: return 8;
  }
  return 0;
}

bool is_integer(Dtype dtype) { return dtype == Dtype::kInt32 || dtype == Dtype::kInt64; }

void TokenList::push_back(std::string_view json_token) {
  if (!ends_.empty()) text_.push_back(',');
  text_.append(json_token);
  if (text_.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("more than 4 GiB of values or weights on one rank");
  ends_.push_back(static_cast<std::uint32_t>(text_.size()));
}

std::string_view TokenList::run(std::size_t first, std::size_t last) const {
  if (first >= last) return {};
  std::size_t begin = first == 0 ? 0 : ends_[first - 1] + 1;  // skip the ',' before token `first`
  return std::string_view(text_).substr(begin, ends_[last - 1] - begin);
}

void TokenList::reserve(std::size_t tokens, std::size_t bytes) {
  ends_.reserve(tokens);
  text_.reserve(bytes);
}

std::int64_t Collective::bytes(std::size_t source, std::size_t destination) const {
  return elements[source][destination] * element_bytes(dtype);
}

std::int64_t Collective::total_bytes() const {
  std::int64_t total = 0;
  for (const auto& row : elements)
    for (std::int64_t e : row) total += e;
  return total * element_bytes(dtype);
}

std::int64_t Collective::cross_rank_bytes() const {
  std::int64_t diagonal = 0;
  for (std::size_t s = 0; s < elements.size(); ++s) diagonal += elements[s][s];
  return total_bytes() - diagonal * element_bytes(dtype);
}

}  // namespace shardplan::kjt
