#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, (d3 + 3) mod 6)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @main() -> tensor<1x1x1x6xf32> {
    %cst = arith.constant dense<[[[[-1.040800e+00, 9.166000e-01, -1.304200e+00, -1.109700e+00, -1.218800e+00, 1.167600e+00]]]]> : tensor<1x1x1x6xf32>
    %0 = tensor.empty() : tensor<1x1x1x6xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst : tensor<1x1x1x6xf32>) outs(%0 : tensor<1x1x1x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x1x1x6xf32>
    return %1 : tensor<1x1x1x6xf32>
  }
}
