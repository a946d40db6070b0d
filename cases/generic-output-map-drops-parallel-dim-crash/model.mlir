// The output map (d0, d2, d3) leaves out the parallel dim d1: every d1 writes the same
// output element. The input is constant along d1 (the reference draws it so), so the
// result is x[d0, 0, d2] broadcast along d3 whichever write lands last.
func.func @main(%x : tensor<2x3x4xf32>) -> tensor<2x4x5xf32> {
  %init = tensor.empty() : tensor<2x4x5xf32>
  %0 = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x3x4xf32>) outs(%init : tensor<2x4x5xf32>) {
    ^bb0(%in : f32, %out : f32):
      linalg.yield %in : f32
  } -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}
