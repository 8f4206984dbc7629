// An embedding bag as a one-hot matmul: ids one-hot [32, 1000] (batch on "data", vocab
// on "model") times a row-wise sharded table [1000, 64], then bags of 4 rows summed:
// reshape [32, 64] -> [8, 4, 64] and reduce over the bag dim.
// Derived by hand (user-priority):
// - level 2: embed's batch factor gives data to its result; the vocab factor is a
//   reduction (left alone until level 3, and both operands already agree on model);
//   the reshape puts data on the bags dim (32 = 8 x 4; data's 2 devices fall in the 8);
//   the sum keeps it.
// - embed contracts over model on both sides: an all-reduce over model.
// CHECK: onehot = [{data}, {model}]
// CHECK: table = [{model}, {}]
// CHECK: embed = [{data, ?}, {?}]
// CHECK: bags = [{data, ?}, {?}, {?}]
// CHECK: pooled = [{data, ?}, {?}]
// CHECK-STDOUT: all-reduce over model at embed
module @jit_embedding_bag attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func public @main(%arg0: tensor<32x1000xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>} loc("onehot"), %arg1: tensor<1000x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>} loc("table")) -> (tensor<8x64xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x1000xf32>, tensor<1000x64xf32>) -> tensor<32x64xf32> loc(#loc2)
    %1 = stablehlo.reshape %0 : (tensor<32x64xf32>) -> tensor<8x4x64xf32> loc(#loc3)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc1)
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x4x64xf32>, tensor<f32>) -> tensor<8x64xf32> loc(#loc4)
    return %2 : tensor<8x64xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("embedding_bag.py":7:0)
#loc2 = loc("embed"(#loc1))
#loc3 = loc("bags"(#loc1))
#loc4 = loc("pooled"(#loc1))
