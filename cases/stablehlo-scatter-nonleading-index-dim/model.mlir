// stablehlo-scatter-nonleading-index-dim (iree-org/iree#24082, fixed by #24081).
//
// A StableHLO scatter that writes one [2, 3] slice into row `idx` of dim 1 of a
// [2, 5, 3] operand (torch index_copy_(dim=1) as exported through JAX):
// scatter_dims_to_operand_dims = [1] names a non-leading operand dim.
// From 3.1.0 to 3.11.0 the lowering to iree_linalg_ext.scatter assumed the
// indexed dims lead and produced an invalid op:
//   'iree_linalg_ext.scatter' op dimension map is invalid.
// #24081 (3.12.0) transposes the operand/updates to the canonical form first.
// Written for this suite after the issue's reproducer (same dimension numbers).
func.func @main(%operand: tensor<2x5x3xf32>, %idx: tensor<1x1xi32>, %upd: tensor<2x1x3xf32>) -> tensor<2x5x3xf32> {
  %0 = "stablehlo.scatter"(%operand, %idx, %upd) ({
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    stablehlo.return %new : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [0, 2],
      inserted_window_dims = [1],
      scatter_dims_to_operand_dims = [1],
      index_vector_dim = 1>
  } : (tensor<2x5x3xf32>, tensor<1x1xi32>, tensor<2x1x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}
