// stablehlo-sort-of-slice-global-write-outside-dispatch (found by the transpose/topk/scatter
// StableHLO sweeps' frontend test, reduced by hand).
//
// A sort of a slice: the slice's copy lands in the sort's dispatch as a linalg.generic
// that writes the output buffer outside the workgroup-distributed loops, and the CPU
// backend's verifier refuses it ("write affecting operations on global resources are
// restricted to workgroup distributed contexts").
func.func @main(%x: tensor<6x10xf32>) -> tensor<6x9xf32> {
  %s = "stablehlo.slice"(%x) {start_indices = array<i64: 0, 1>, limit_indices = array<i64: 6, 10>,
                              strides = array<i64: 1, 1>} : (tensor<6x10xf32>) -> tensor<6x9xf32>
  %r = "stablehlo.sort"(%s) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<6x9xf32>) -> tensor<6x9xf32>
  return %r : tensor<6x9xf32>
}
