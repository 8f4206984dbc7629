// Two feature blocks concatenated along the feature dim, then negated. Shardy's
// concatenate rule makes the joined dim a need-replication factor (no propagation until
// op-priority level 3, and nothing is sharded on it here); the batch dim is a plain
// pass factor: level 2 carries a's data to the concatenation and to b, and the negate
// (a single-use element-wise op) carries it on.
// CHECK: a = [{data}, {}]
// CHECK: b = [{data, ?}, {?}]
// CHECK: joined = [{data, ?}, {?}]
// CHECK: neg = [{data, ?}, {?}]
// CHECK-STDOUT: "collectives": []
module @jit_concat attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4]>
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>} loc("a"), %arg1: tensor<8x48xf32> loc("b")) -> (tensor<8x64xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, dim = 1 : (tensor<8x16xf32>, tensor<8x48xf32>) -> tensor<8x64xf32> loc(#loc2)
    %1 = stablehlo.negate %0 : tensor<8x64xf32> loc(#loc3)
    return %1 : tensor<8x64xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("concat.py":3:0)
#loc2 = loc("joined"(#loc1))
#loc3 = loc("neg"(#loc1))
