// Splitting the hidden dim into heads and back: [8, 16, 512] -> [8, 16, 8, 64] ->
// transpose to [8, 8, 16, 64] -> transpose back -> [8, 16, 512]. The hidden dim is
// sharded on "model" (16 devices) but only 8 heads exist: Shardy's reshape rule splits
// 512 into factors 8 and 64, so model splits into the sub-axes model:(1)8 (the heads)
// and model:(8)2 (the head dim); on the way back they merge into model again.
// Everything is a chain of single-use reshapes and transposes: op-priority level 0 does
// it all.
// CHECK: x = [{data}, {}, {model}]
// CHECK: split = [{data, ?}, {?}, {model:(1)8, ?}, {model:(8)2, ?}]
// CHECK: heads = [{data, ?}, {model:(1)8, ?}, {?}, {model:(8)2, ?}]
// CHECK: unheads = [{data, ?}, {?}, {model:(1)8, ?}, {model:(8)2, ?}]
// CHECK: merged = [{data, ?}, {?}, {model, ?}]
// CHECK-ITERATIONS: after_user_priority_0: [split, heads, unheads, merged]
module @jit_heads attributes {mhlo.num_partitions = 32 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=16]>
  func.func public @main(%arg0: tensor<8x16x512xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}, {"model"}]>} loc("x")) -> (tensor<8x16x512xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<8x16x512xbf16>) -> tensor<8x16x8x64xbf16> loc(#loc2)
    %1 = stablehlo.transpose %0, dims = [0, 2, 1, 3] : (tensor<8x16x8x64xbf16>) -> tensor<8x8x16x64xbf16> loc(#loc3)
    %2 = stablehlo.transpose %1, dims = [0, 2, 1, 3] : (tensor<8x8x16x64xbf16>) -> tensor<8x16x8x64xbf16> loc(#loc4)
    %3 = stablehlo.reshape %2 : (tensor<8x16x8x64xbf16>) -> tensor<8x16x512xbf16> loc(#loc5)
    return %3 : tensor<8x16x512xbf16> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("heads.py":5:0)
#loc2 = loc("split"(#loc1))
#loc3 = loc("heads"(#loc1))
#loc4 = loc("unheads"(#loc1))
#loc5 = loc("merged"(#loc1))
