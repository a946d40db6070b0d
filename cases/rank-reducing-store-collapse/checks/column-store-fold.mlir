// Input and FileCheck patterns for the [[ir]] check of rank-reducing-store-collapse.
// A collapse_shape (2x? -> ?) feeding a store of one column of a ?x16 binding.
// Folding the collapse into the store must keep the column dimension: the new
// binding is 2x?x16 and the store writes sizes [2, n/2, 1]. The bad fold
// (iree-org/iree#21028, fixed by #21036) produced a 2x? binding with no column
// dimension, so the column was written contiguously.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
    #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
func.func @column_store_of_collapse(%src : tensor<2x?xf16>) {
  %c0 = arith.constant 0 : index
  %rows = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0)
      flags(Indirect) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x16xf16>>{%rows}
  %flat = tensor.collapse_shape %src [[0, 1]] : tensor<2x?xf16> into tensor<?xf16>
  iree_tensor_ext.dispatch.tensor.store %flat, %out, offsets = [0, 3], sizes = [%rows, 1], strides = [1, 1]
      : tensor<?xf16> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x16xf16>>{%rows}
  return
}
// CHECK-LABEL: func.func @column_store_of_collapse
//       CHECK:   hal.interface.binding.subspan
//  CHECK-SAME:     !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2x?x16xf16>>
//   CHECK-NOT:     tensor.collapse_shape
//       CHECK:   iree_tensor_ext.dispatch.tensor.store
//  CHECK-SAME:     offsets = [0, 0, 3], sizes = [2, %{{.+}}, 1], strides = [1, 1, 1]
//  CHECK-SAME:     -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<2x?x16xf16>>
