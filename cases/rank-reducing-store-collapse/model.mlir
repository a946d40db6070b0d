// rank-reducing-store-collapse (iree-org/iree#21028, fixed by #21036).
//
// One dispatch, written out by hand: it doubles a 2xN tensor, collapses it to
// 2N and stores that vector into column 3 of a (2N)x32 tensor with a
// rank-reducing iree_tensor_ext.dispatch.tensor.store (sizes [2N, 1]). The
// other 31 columns keep the values of %d (the result is tied to it).
//
// In 3.4.0 and 3.5.0, iree-codegen-propagate-reshapes-by-expansion folds the
// collapse_shape into the store but forgets the dropped column dimension: the
// binding becomes 2xN and the 2N values land contiguously at the start of the
// buffer (row 0 and the start of row 1), instead of down column 3.
//
// Spelling: iree_tensor_ext.dispatch.tensor.* (3.4.0 and newer); see
// model.pre-3.4.mlir for the flow.dispatch.tensor.* spelling.
func.func @main(%x: tensor<2x?xf32>, %d: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<2x?xf32>
  %rows = tensor.dim %d, %c0 : tensor<?x32xf32>
  %r = flow.dispatch.workgroups(%x, %d, %n, %rows)
      : (tensor<2x?xf32>{%n}, tensor<?x32xf32>{%rows}, index, index) -> %d{%rows} =
      (%xb: !iree_tensor_ext.dispatch.tensor<readonly:tensor<2x?xf32>>,
       %db: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x32xf32>>,
       %nn: index, %rr: index) {
    %v = iree_tensor_ext.dispatch.tensor.load %xb, offsets = [0, 0], sizes = [2, %nn], strides = [1, 1]
        : !iree_tensor_ext.dispatch.tensor<readonly:tensor<2x?xf32>>{%nn} -> tensor<2x?xf32>
    %e = tensor.empty(%nn) : tensor<2x?xf32>
    %g = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%v : tensor<2x?xf32>) outs(%e : tensor<2x?xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %a : f32
      linalg.yield %s : f32
    } -> tensor<2x?xf32>
    %flat = tensor.collapse_shape %g [[0, 1]] : tensor<2x?xf32> into tensor<?xf32>
    iree_tensor_ext.dispatch.tensor.store %flat, %db, offsets = [0, 3], sizes = [%rr, 1], strides = [1, 1]
        : tensor<?xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x32xf32>>{%rr}
    flow.return
  }
  return %r : tensor<?x32xf32>
}
