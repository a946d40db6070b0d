// stablehlo-dynamic-gather-not-legalized (iree-org/iree#14913).
//
// stablehlo.dynamic_gather: the gather with its slice sizes given as an
// operand (here a constant [1, 2]) instead of an attribute. Rows idx[i] of a
// 4x2 table. Up to 3.12.0 the StableHLO input conversion had no pattern for it:
//   failed to legalize operation 'stablehlo.dynamic_gather' that was explicitly marked illegal
// 3.13.0 compiles it (constant slice sizes) and computes the right rows.
// Written for this suite after the issue's reproducer (same shapes and
// dimension numbers).
func.func @main(%table: tensor<4x2xf32>, %idx: tensor<3xi64>) -> tensor<3x2xf32> {
  %slice_sizes = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %0 = "stablehlo.dynamic_gather"(%table, %idx, %slice_sizes) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0],
                                          start_index_map = [0], index_vector_dim = 1>,
    indices_are_sorted = false} : (tensor<4x2xf32>, tensor<3xi64>, tensor<2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
