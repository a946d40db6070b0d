// insert-slice-store-fold-drops-dest (iree-org/iree PR #24266).
//
// One dispatch, written out by hand after the #24266 lit test
// `no_fold_insert_slice_with_unrelated_load`: the destination of a
// tensor.insert_slice is a 4x1 slice loaded from the *input* binding
// (%input[:, 0:1]); the n-element %val is inserted into its first n rows and
// the whole 4x1 tensor is stored to the output. Rows n..3 must keep
// %input[i, 0].
//
// Before #24266 the insert_slice -> dispatch.tensor.store folder dropped the
// insert's destination: the store became "%val into rows [0, n)" and rows
// n..3 of the result were never written.
//
// Spelling: flow.dispatch.tensor.* for releases before 3.4.0 (same program as
// model.mlir).
func.func @main(%input: tensor<4x2xf32>, %val: tensor<?xf32>) -> tensor<4x1xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %val, %c0 : tensor<?xf32>
  %0 = flow.dispatch.workgroups(%input, %val, %n)
      : (tensor<4x2xf32>, tensor<?xf32>{%n}, index) -> tensor<4x1xf32> =
      (%in: !flow.dispatch.tensor<readonly:tensor<4x2xf32>>,
       %vb: !flow.dispatch.tensor<readonly:tensor<?xf32>>,
       %nn: index,
       %out: !flow.dispatch.tensor<writeonly:tensor<4x1xf32>>) {
    %dest = flow.dispatch.tensor.load %in, offsets = [0, 0], sizes = [4, 1], strides = [1, 1]
        : !flow.dispatch.tensor<readonly:tensor<4x2xf32>> -> tensor<4x1xf32>
    %v = flow.dispatch.tensor.load %vb, offsets = [0], sizes = [%nn], strides = [1]
        : !flow.dispatch.tensor<readonly:tensor<?xf32>>{%nn} -> tensor<?xf32>
    %ins = tensor.insert_slice %v into %dest[0, 0] [%nn, 1] [1, 1] : tensor<?xf32> into tensor<4x1xf32>
    flow.dispatch.tensor.store %ins, %out, offsets = [0, 0], sizes = [4, 1], strides = [1, 1]
        : tensor<4x1xf32> -> !flow.dispatch.tensor<writeonly:tensor<4x1xf32>>
    flow.return
  }
  return %0 : tensor<4x1xf32>
}
