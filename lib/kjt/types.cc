#include "kjt/types.h"

#include <limits>
#include <stdexcept>

#include "common/error.h"

namespace shardplan::kjt {

std::int64_t element_bytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::kInt32:
      return 4;
    case Dtype::kInt64:
      return 8;
    case Dtype::kFloat16:
      return 2;
    case Dtype::kBfloat16:
      return 2;
    case Dtype::kFloat32:
      return 4;
    case Dtype::kFloat64:
      return 8;
  }
  return 0;
}

bool is_integer(Dtype dtype) { return dtype == Dtype::kInt32 || dtype == Dtype::kInt64; }

namespace {
std::uint32_t checked_offset(std::size_t offset) {
  if (offset > std::numeric_limits<std::uint32_t>::max())
    // Offsets are 32-bit to halve the memory of 10^7-value inputs; a larger input is refused.
    throw InputError(SourcePos{}, "inputs", "more than 4 GiB of values or weights on one rank (shardplan's limit)");
  return static_cast<std::uint32_t>(offset);
}
}  // namespace

void TokenList::push_back(std::string_view json_token) {
  if (borrowed_) own();
  if (!ends_.empty()) text_.push_back(',');
  text_.append(json_token);
  ends_.push_back(checked_offset(text_.size()));
}

void TokenList::push_back_in_place(std::string_view in_text) {
  if (ends_.empty() && text_.empty()) borrowed_ = in_text.data();
  if (borrowed_ && (ends_.empty() || in_text.data() == borrowed_ + ends_.back() + 1)) {
    ends_.push_back(checked_offset(static_cast<std::size_t>(in_text.data() + in_text.size() - borrowed_)));
    return;
  }
  push_back(in_text);
}

void TokenList::own() {
  text_.assign(borrowed_, ends_.empty() ? 0 : ends_.back());
  borrowed_ = nullptr;
}

std::string_view TokenList::run(std::size_t first, std::size_t last) const {
  if (first >= last) return {};
  std::size_t begin = first == 0 ? 0 : ends_[first - 1] + 1;  // skip the ',' before token `first`
  return std::string_view(data() + begin, ends_[last - 1] - begin);
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
