func.func @main(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<1xi32>) -> tensor<2x3x4x5xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %empty_transposed = tensor.empty() : tensor<2x4x5x3xf32>
  %transposed = linalg.transpose ins(%arg0 : tensor<2x3x4x5xf32>) outs(%empty_transposed : tensor<2x4x5x3xf32>) permutation = [0, 2, 3, 1]
  %empty = tensor.empty() : tensor<2x4x5x3xf32>
  %collapsed = tensor.collapse_shape %arg1 [] : tensor<1xi32> into tensor<i32>
  %mask = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed, %collapsed : tensor<2x4x5x3xf32>, tensor<i32>) outs(%empty : tensor<2x4x5x3xf32>) {
  ^bb0(%in: f32, %in_0: i32, %out: f32):
    %11 = linalg.index 3 : index
    %12 = arith.index_cast %in_0 : i32 to index
    %13 = arith.cmpi ult, %11, %12 : index
    %14 = arith.select %13, %in, %cst : f32
    linalg.yield %14 : f32
  } -> tensor<2x4x5x3xf32>
  %empty_transposed_0 = tensor.empty() : tensor<2x3x4x5xf32>
  %transposed_0 = linalg.transpose ins(%mask : tensor<2x4x5x3xf32>) outs(%empty_transposed_0 : tensor<2x3x4x5xf32>) permutation = [0, 3, 1, 2]
  return %transposed_0 : tensor<2x3x4x5xf32>
}
