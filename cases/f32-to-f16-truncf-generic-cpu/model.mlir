func.func @test_trunc_f32_f16() -> (tensor<1xf16>) {
  %input_x = util.unfoldable_constant dense<[0.49990]> : tensor<1xf32>
  %result_empty = tensor.empty() : tensor<1xf16>
  %result = linalg.generic {indexing_maps = [
      affine_map<(d0) -> (d0)>,
      affine_map<(d0) -> (d0)>
    ], iterator_types = ["parallel"]}
    ins(%input_x : tensor<1xf32>) outs(%result_empty : tensor<1xf16>) {
  ^bb0(%x: f32, %out: f16):
    %result = arith.truncf %x : f32 to f16
    linalg.yield %result : f16
  } -> tensor<1xf16>
  return %result : tensor<1xf16>
}
