// narrow-int-index-mask-vulkan-all-masked
//
// From IREE's own lit test @propagate_to_gather_like_ops
// (GlobalOptimization/test/propagate_linalg_transpose.mlir, v3.9.0), run end to end
// by the iree-lit-differ sweep: vulkan disagreed with cpu-O0 and cpu-O3. Reduced here
// to the mask alone: a position compare against an i16 scalar broadcast into a
// linalg.generic and cast to index. cpu keeps the first `bound` columns; vulkan masks
// every position (an i8 bound does the same, an i32 bound is right).
func.func @main(%x: tensor<2x3xf32>, %bound: tensor<1xi16>) -> tensor<2x3xf32> {
  %neg_inf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<2x3xf32>
  %scalar = tensor.collapse_shape %bound [] : tensor<1xi16> into tensor<i16>
  %masked = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %scalar : tensor<2x3xf32>, tensor<i16>) outs(%empty : tensor<2x3xf32>) {
  ^bb0(%in: f32, %b: i16, %out: f32):
    %col = linalg.index 1 : index
    %limit = arith.index_cast %b : i16 to index
    %keep = arith.cmpi ult, %col, %limit : index
    %v = arith.select %keep, %in, %neg_inf : f32
    linalg.yield %v : f32
  } -> tensor<2x3xf32>
  return %masked : tensor<2x3xf32>
}
