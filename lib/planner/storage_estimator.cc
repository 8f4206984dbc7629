#include "planner/storage_estimator.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>

#include "planner/constants.h"
#include "planner/shards/shard_io_sizes.h"

namespace shardplan {

namespace {

int bit_length(unsigned __int128 x) {
  int n = 0;
  while (x != 0) {
    ++n;
    x >>= 1;
  }
  return n;
}

std::int64_t ceil_to_int(double x) { return static_cast<std::int64_t>(std::ceil(x)); }

std::int64_t product(std::span<const std::int64_t> v) {
  std::int64_t p = 1;
  for (auto x : v) p *= x;
  return p;
}

// torchrec's DATA_TYPE_NUM_BITS.
int data_type_num_bits(DataType t) {
  switch (t) {
    case DataType::kFp32:
      return 32;
    case DataType::kFp16:
    case DataType::kBf16:
      return 16;
    case DataType::kInt8:
      return 8;
    case DataType::kInt4:
      return 4;
    case DataType::kInt2:
      return 2;
  }
  return 32;
}

bool is_uvm_kernel(ComputeKernel k) { return k == ComputeKernel::kFusedUvm || k == ComputeKernel::kFusedUvmCaching; }
bool is_quant_kernel(ComputeKernel k) {
  return k == ComputeKernel::kQuant || k == ComputeKernel::kQuantUvm || k == ComputeKernel::kQuantUvmCaching;
}
bool is_quant_uvm_kernel(ComputeKernel k) {
  return k == ComputeKernel::kQuantUvm || k == ComputeKernel::kQuantUvmCaching;
}
// torchrec's _is_table_cached: these kernels keep a share of the table in HBM.
bool is_table_cached(ComputeKernel k) {
  return k == ComputeKernel::kFusedUvmCaching || k == ComputeKernel::kQuantUvmCaching || k == ComputeKernel::kKeyValue;
}

// The sharder's storage_usage: where the whole table lives. Quantized kernels
// (BaseQuantEmbeddingSharder) add 4 bytes per row for the row scale/bias.
Storage table_storage_usage(const ShardStorageRequest& r) {
  std::int64_t bytes = product(r.tensor_shape) * r.tensor_element_size;
  Storage s;
  if (is_quant_kernel(r.compute_kernel)) {
    bytes += r.tensor_shape.at(0) * 4;
    if (is_quant_uvm_kernel(r.compute_kernel) || r.compute_device != ComputeDevice::kCuda)
      s.ddr = bytes;  // quant on mtia is kept in DDR, like cpu
    else
      s.hbm = bytes;
    return s;
  }
  if (is_uvm_kernel(r.compute_kernel) || r.compute_device == ComputeDevice::kCpu)
    s.ddr = bytes;
  else
    s.hbm = bytes;
  return s;
}

// torchrec's _calculate_storage_specific_sizes: each shard's share of `storage`
// (data_parallel shards hold it all), plus the cache's aux state (4 B per row and
// 16 B per cached row) when `clf` is set. The optimizer term is 0: its multiplier
// needs the parameter's _optimizer_classes, which plain planning never sets.
std::vector<std::int64_t> storage_specific_sizes(std::int64_t storage, const ShardStorageRequest& r,
                                                 std::optional<double> clf) {
  const std::int64_t table_elements = product(r.tensor_shape);
  std::vector<std::int64_t> out;
  out.reserve(r.shard_sizes.size());
  for (const auto& size : r.shard_sizes) {
    std::int64_t tensor_size = storage;
    if (r.sharding_type != ShardingType::kDataParallel) {
      // storage * prod(size) can pass 2^63; Python divides the exact product.
      const __int128 numerator = static_cast<__int128>(storage) * product(size);
      tensor_size = ceil_to_int(python_int_true_divide(numerator, table_elements));
    }
    const std::int64_t optimizer_size = 0;
    const std::int64_t cache_aux_size = clf ? ceil_to_int(static_cast<double>(size.at(0)) * (4 + *clf * 16)) : 0;
    out.push_back(r.is_inference ? tensor_size : cache_aux_size + tensor_size + optimizer_size);
  }
  return out;
}

}  // namespace

double python_int_true_divide(__int128 numerator, __int128 denominator) {
  if (denominator == 0) throw std::domain_error("division by zero");
  const bool negative = (numerator < 0) != (denominator < 0);
  unsigned __int128 n =
      numerator < 0 ? -static_cast<unsigned __int128>(numerator) : static_cast<unsigned __int128>(numerator);
  unsigned __int128 d =
      denominator < 0 ? -static_cast<unsigned __int128>(denominator) : static_cast<unsigned __int128>(denominator);
  if (n == 0) return negative ? -0.0 : 0.0;
  constexpr unsigned __int128 kExact = static_cast<unsigned __int128>(1) << 53;
  double result;
  if (n <= kExact && d <= kExact) {
    // Both convert exactly, and IEEE division is correctly rounded.
    result = static_cast<double>(n) / static_cast<double>(d);
  } else {
    // Scale so the integer quotient has 55 or 56 bits, then round it to 53 bits
    // half-to-even using the dropped bits and the remainder as sticky bit.
    const int shift = 55 - (bit_length(n) - bit_length(d));
    if (shift >= 0) {
      if (bit_length(n) + shift > 127) throw std::overflow_error("operands too large");
      n <<= shift;
    } else {
      d <<= -shift;
    }
    unsigned __int128 q = n / d;
    const bool sticky = (n % d) != 0;
    const int extra = bit_length(q) - 53;
    const unsigned __int128 low = q & ((static_cast<unsigned __int128>(1) << extra) - 1);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (extra - 1);
    q >>= extra;
    if (low > half || (low == half && (sticky || (q & 1) != 0))) ++q;
    result = std::ldexp(static_cast<double>(q), extra - shift);
  }
  return negative ? -result : result;
}

std::vector<Storage> calculate_shard_storages(const ShardStorageRequest& r) {
  ShardIoRequest io_request;
  io_request.sharding_type = r.sharding_type;
  io_request.batch_sizes = r.batch_sizes;
  io_request.world_size = r.world_size;
  io_request.local_world_size = r.local_world_size;
  io_request.input_lengths = r.input_lengths;
  io_request.emb_dim = r.tensor_shape.at(1);
  io_request.shard_sizes = r.shard_sizes;
  io_request.input_data_type_size = r.input_data_type_size;
  io_request.output_data_type_size = r.output_data_type_size;
  io_request.num_poolings = r.num_poolings;
  io_request.is_pooled = r.is_pooled;
  const ShardIoSizes io = calculate_shard_io_sizes(io_request);

  const Storage table = table_storage_usage(r);
  std::int64_t hbm_storage = table.hbm;
  const std::int64_t ddr_storage = table.ddr;
  const bool cached = is_table_cached(r.compute_kernel);
  if (cached) {
    // Python's round(): nearest, ties to even (nearbyint in the default mode).
    hbm_storage = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(ddr_storage) * r.caching_ratio));
  }

  std::vector<std::int64_t> hbm_specific =
      storage_specific_sizes(hbm_storage, r, cached ? std::optional<double>(r.caching_ratio) : std::nullopt);
  std::vector<std::int64_t> ddr_specific = storage_specific_sizes(ddr_storage, r, std::nullopt);

  if (r.compute_kernel == ComputeKernel::kKeyValue) {
    // Without key_value_params torchrec caps the HBM cache at max_l1_cache_size = 0
    // MiB, and keeps nothing in DDR (the backing store is SSD).
    const std::int64_t max_l1_cache_bytes = 0;
    const std::int64_t kv_cache_bytes =
        ceil_to_int(static_cast<double>(r.tensor_shape.at(0)) * r.kv_cache_load_factor *
                    static_cast<double>(r.tensor_element_size) * static_cast<double>(r.tensor_shape.at(1)));
    std::fill(hbm_specific.begin(), hbm_specific.end(), std::min(max_l1_cache_bytes, kv_cache_bytes));
    std::fill(ddr_specific.begin(), ddr_specific.end(), 0);
  }

  // torchrec zips the lists, so the shortest one bounds the result (table-wise
  // IO sizes have one entry).
  const std::size_t n =
      std::min({hbm_specific.size(), io.input_bytes.size(), io.output_bytes.size(), ddr_specific.size()});
  const bool has_hbm = r.compute_device == ComputeDevice::kCuda || r.compute_device == ComputeDevice::kMtia;
  std::vector<Storage> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Pipeline-agnostic IO cost (PipelineType.NONE): input + output, 0 in inference.
    const std::int64_t io_bytes = r.is_inference ? 0 : io.input_bytes[i] + io.output_bytes[i];
    Storage s;
    s.hbm = has_hbm ? hbm_specific[i] + io_bytes : 0;
    s.ddr = r.compute_device == ComputeDevice::kCpu && !r.is_inference
                ? io.input_bytes[i] + io.output_bytes[i] + ddr_specific[i]
                : ddr_specific[i];
    out.push_back(s);
  }
  return out;
}

namespace {

// storage_request without the shard sizes, which the caller fills.
ShardStorageRequest request_without_shards(const ShardingOption& option, const EstimatorContext& context) {
  ShardStorageRequest r;
  r.sharding_type = option.sharding_type;
  r.compute_kernel = option.compute_kernel;
  r.compute_device = context.topology.compute_device;
  r.tensor_shape = option.tensor_shape;
  r.tensor_element_size = option.tensor_element_size;
  r.world_size = context.topology.world_size;
  r.local_world_size = context.topology.local_world_size;
  r.input_lengths = option.input_lengths;
  r.is_pooled = option.is_pooled;
  r.is_inference = context.planner.is_inference;
  r.input_data_type_size = kBigintDtypeBytes;
  r.kv_cache_load_factor = kKvCachingRatio;

  const std::size_t num_inputs = option.input_lengths.size();
  const ParameterConstraintsConfig* c = context.constraints(option.name);
  // Empty lists count as unset, as in torchrec's truthiness tests.
  if (c && c->num_poolings && !c->num_poolings->empty())
    r.num_poolings = *c->num_poolings;
  else
    r.num_poolings.assign(num_inputs, kNumPoolings);
  if (r.num_poolings.size() != num_inputs)
    throw std::invalid_argument("table " + option.name + ": " + std::to_string(r.num_poolings.size()) +
                                " num_poolings for " + std::to_string(num_inputs) +
                                " pooling_factors (torchrec asserts they match)");
  if (c && c->batch_sizes && !c->batch_sizes->empty())
    r.batch_sizes = *c->batch_sizes;
  else
    r.batch_sizes.assign(num_inputs, option.batch_size);

  // A load factor of 0 or none falls back to the default ratio (torchrec's `or`).
  const std::optional<double> clf = option.cache_load_factor();
  r.caching_ratio = clf.value_or(0) != 0 ? *clf : kUvmCachingRatio;

  r.output_data_type_size =
      option.output_dtype ? data_type_num_bits(*option.output_dtype) / 8.0 : option.tensor_element_size;
  return r;
}

}  // namespace

ShardStorageRequest storage_request(const ShardingOption& option, const EstimatorContext& context) {
  ShardStorageRequest r = request_without_shards(option, context);
  for (const auto& shard : option.shards) r.shard_sizes.push_back(shard.size);
  return r;
}

void EmbeddingStorageEstimator::estimate(ShardingOption& option, const EstimatorContext& context) const {
  // Every per-shard figure is a function of the shard's size alone, and a table's
  // shards have few distinct sizes (row-wise: at most three), so each distinct
  // size is costed once and set on every run of that size.
  ShardStorageRequest request = request_without_shards(option, context);
  std::vector<std::size_t> size_index(option.shards.runs().size());
  for (std::size_t i = 0; i < option.shards.runs().size(); ++i) {
    const auto& size = option.shards.runs()[i].size;
    std::size_t j = 0;
    while (j < request.shard_sizes.size() && request.shard_sizes[j] != size) ++j;
    if (j == request.shard_sizes.size()) request.shard_sizes.push_back(size);
    size_index[i] = j;
  }
  const std::vector<Storage> storages = calculate_shard_storages(request);
  std::size_t run_index = 0;
  option.shards.with_run_values([&](ShardRun& run) {
    if (size_index[run_index] < storages.size()) run.storage = storages[size_index[run_index]];
    ++run_index;
  });
}

}  // namespace shardplan
