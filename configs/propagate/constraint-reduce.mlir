// A bf16 -> f32 convert, a sharding constraint that moves the feature dim onto "model"
// (jax.lax.with_sharding_constraint with P(None, "model")), and a sum over features.
// Derived by hand (user-priority):
// - level 0: the convert (single use) gives x's data to xf; the constraint is a pinned
//   element-wise op: its closed dim 0 refuses data, its model flows back into xf's
//   open dim 1; x's closed dim 1 refuses it.
// - the sum's feature dim is a reduction factor and its batch dim is closed-empty on
//   the constrained value: the result stays unsharded.
// Collectives: the constraint drops data from xf (all-gather), and the sum reduces over
// the model-sharded features (all-reduce).
// CHECK: x = [{data}, {}]
// CHECK: xf = [{data, ?}, {model, ?}]
// CHECK: constrained = [{}, {model}]
// CHECK: total = [{?}]
// CHECK-STDOUT: all-gather of xf over data at constrained
// CHECK-STDOUT: all-reduce over model at total
module @jit_constrained_sum attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<16x128xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>} loc("x")) -> (tensor<16xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<16x128xbf16>) -> tensor<16x128xf32> loc(#loc2)
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"model"}]> : tensor<16x128xf32> loc(#loc3)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc1)
    %2 = stablehlo.reduce(%1 init: %cst) across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
     reducer(%arg1: tensor<f32> loc(#loc1), %arg2: tensor<f32> loc(#loc1))  {
      %3 = stablehlo.add %arg1, %arg2 : tensor<f32> loc(#loc1)
      stablehlo.return %3 : tensor<f32> loc(#loc1)
    } loc(#loc4)
    return %2 : tensor<16xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("constrained.py":4:0)
#loc2 = loc("xf"(#loc1))
#loc3 = loc("constrained"(#loc1))
#loc4 = loc("total"(#loc1))
