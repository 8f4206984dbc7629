sdy.mesh @mesh = <["a"=4, "b"=2]>
func.func @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a":(2)2}, {"b"}]>}) -> tensor<16x8xf32> {
  %0 = stablehlo.tanh %arg0 : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
