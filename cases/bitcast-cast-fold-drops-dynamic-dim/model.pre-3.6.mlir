// bitcast-cast-fold-drops-dynamic-dim (iree-org/iree PR #21997).
//
// A tensor.cast that erases two static dims (4x3x6xi8 -> ?x?x6xi8) feeding an
// iree_tensor_ext.bitcast to ?x?x3xi16 with both dynamic sizes attached.
// The canonicalization BitCastOfTensorCastStaticInfo folds the cast into the
// bitcast (bitcast the static 4x3x6 tensor, cast the 4x3x3 result back). Before
// #21997 it forgot to advance its index over the result's dynamic dims, so the
// rebuilt bitcast kept one dynamic result dim but attached no size for it:
//   error: 'iree_tensor_ext.bitcast' op value set has 1 dynamic dimensions
//   but only 0 dimension values are attached
// Spelling: flow.tensor.bitcast for releases before 3.6.0 (same program as
// model.mlir, which uses iree_tensor_ext.bitcast).
func.func @main(%arg0: tensor<4x3x6xi8>) -> tensor<?x?x3xi16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tensor.cast %arg0 : tensor<4x3x6xi8> to tensor<?x?x6xi8>
  %d0 = tensor.dim %0, %c0 : tensor<?x?x6xi8>
  %d1 = tensor.dim %0, %c1 : tensor<?x?x6xi8>
  %1 = flow.tensor.bitcast %0 : tensor<?x?x6xi8>{%d0, %d1} -> tensor<?x?x3xi16>{%d0, %d1}
  return %1 : tensor<?x?x3xi16>
}
