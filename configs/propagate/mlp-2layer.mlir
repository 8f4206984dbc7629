// A 2-layer MLP, data parallel over "data" and model parallel over "model", in the
// form `jax.jit(mlp).lower(x, w1, b1, w2).as_text()` prints with Shardy (hand-written:
// relu lowers to a private function called with `call`). The CHECK lines below are the
// shardings Shardy's propagation passes give when run on this module as it is, derived
// by hand (user-priority, which is op-priority with every level):
// - a `call` has no sharding rule: nothing flows through it, and relu's body is
//   propagated on its own (its argument is an unsharded input), so it stays unsharded.
// - level 2 (pass factors): layer1 puts data (from x) and model (from w1) on its result;
//   the add spreads both to bias1; bias1 then pulls model back into b1 (a broadcast
//   only propagates backward before level 4). layer2 gives the call's result the data
//   that the output sharding gave to layer2.
// - level 3 (reduction factors too): layer2's contracting factor gives the call's result
//   w2's model. layer2 contracts over model on both sides: an all-reduce over model.
// CHECK: x = [{data}, {}]
// CHECK: w1 = [{}, {model}]
// CHECK: b1 = [{model, ?}]
// CHECK: w2 = [{model}, {}]
// CHECK: layer1 = [{data, ?}, {model, ?}]
// CHECK: bias1 = [{data, ?}, {model, ?}]
// CHECK: add1 = [{data, ?}, {model, ?}]
// CHECK: relu = [{data, ?}, {model, ?}]
// CHECK: layer2 = [{data, ?}, {?}]
// CHECK: relu/%arg0 = [{?}, {?}]
// CHECK: relu/%cst = []
// CHECK: relu_zeros = [{?}, {?}]
// CHECK: relu_max = [{?}, {?}]
// CHECK-OUTPUT: 0 = [{data}, {}]
// CHECK-STDOUT: all-reduce over model at layer2
#loc1 = loc("x")
#loc2 = loc("w1")
#loc3 = loc("b1")
#loc4 = loc("w2")
module @jit_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]>
  func.func public @main(%arg0: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>} loc("x"), %arg1: tensor<64x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>} loc("w1"), %arg2: tensor<256xf32> loc("b1"), %arg3: tensor<256x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>} loc("w2")) -> (tensor<32x64xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x256xf32>) -> tensor<32x256xf32> loc(#loc6)
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<256xf32>) -> tensor<32x256xf32> loc(#loc7)
    %2 = stablehlo.add %0, %1 : tensor<32x256xf32> loc(#loc8)
    %3 = call @relu(%2) : (tensor<32x256xf32>) -> tensor<32x256xf32> loc(#loc9)
    %4 = stablehlo.dot_general %3, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x64xf32>) -> tensor<32x64xf32> loc(#loc10)
    return %4 : tensor<32x64xf32> loc(#loc)
  } loc(#loc)
  func.func private @relu(%arg0: tensor<32x256xf32> loc("relu_in")) -> tensor<32x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc11)
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32> loc(#loc12)
    %1 = stablehlo.maximum %arg0, %0 : tensor<32x256xf32> loc(#loc13)
    return %1 : tensor<32x256xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc5 = loc("mlp.py":12:0)
#loc6 = loc("layer1"(#loc5))
#loc7 = loc("bias1"(#loc5))
#loc8 = loc("add1"(#loc5))
#loc9 = loc("relu"(#loc5))
#loc10 = loc("layer2"(#loc5))
#loc11 = loc("mlp.py":4:0)
#loc12 = loc("relu_zeros"(#loc11))
#loc13 = loc("relu_max"(#loc11))
