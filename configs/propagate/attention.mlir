// One attention head block: scores = q.k^T per (batch, head), a softmax written out
// (exp, a sum over the keys, a broadcast back, a divide), then probs.v. q is sharded on
// batch ("data") and heads ("model"); k, v and every intermediate are unsharded.
// Derived by hand with Shardy's rules (user-priority):
// - levels 0 and 1 move nothing (all element-wise ops see unsharded operands);
// - level 2: scores' batching factors carry data and model to k and to the scores;
//   exp, the sum (its pass factors), the divide and the context dot carry them on;
//   the divide gives them to the broadcast's result, and v takes them from the context.
// The contracting dims stay unsharded: no collective.
// CHECK: q = [{data}, {model}, {}, {}]
// CHECK: k = [{data, ?}, {model, ?}, {?}, {?}]
// CHECK: v = [{data, ?}, {model, ?}, {?}, {?}]
// CHECK: scores = [{data, ?}, {model, ?}, {?}, {?}]
// CHECK: exp = [{data, ?}, {model, ?}, {?}, {?}]
// CHECK: sum = [{data, ?}, {model, ?}, {?}]
// CHECK: sum_wide = [{data, ?}, {model, ?}, {?}, {?}]
// CHECK: probs = [{data, ?}, {model, ?}, {?}, {?}]
// CHECK: context = [{data, ?}, {model, ?}, {?}, {?}]
// CHECK-STDOUT: "collectives": []
module @jit_attention attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<8x4x16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}, {}, {}]>} loc("q"), %arg1: tensor<8x4x16x32xf32> loc("k"), %arg2: tensor<8x4x16x32xf32> loc("v")) -> (tensor<8x4x16x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16x32xf32>, tensor<8x4x16x32xf32>) -> tensor<8x4x16x16xf32> loc(#loc2)
    %1 = stablehlo.exponential %0 : tensor<8x4x16x16xf32> loc(#loc3)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc1)
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [3] : (tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<8x4x16xf32> loc(#loc4)
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<8x4x16xf32>) -> tensor<8x4x16x16xf32> loc(#loc5)
    %4 = stablehlo.divide %1, %3 : tensor<8x4x16x16xf32> loc(#loc6)
    %5 = stablehlo.dot_general %4, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16x16xf32>, tensor<8x4x16x32xf32>) -> tensor<8x4x16x32xf32> loc(#loc7)
    return %5 : tensor<8x4x16x32xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("attention.py":9:0)
#loc2 = loc("scores"(#loc1))
#loc3 = loc("exp"(#loc1))
#loc4 = loc("sum"(#loc1))
#loc5 = loc("sum_wide"(#loc1))
#loc6 = loc("probs"(#loc1))
#loc7 = loc("context"(#loc1))
