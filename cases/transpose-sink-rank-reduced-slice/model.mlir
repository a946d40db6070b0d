// transpose-sink-rank-reduced-slice (iree-org/iree#22687, fixed by #22754).
//
// A 5-D transpose (permutation [3, 4, 0, 1, 2]) followed by a rank-reducing
// tensor.extract_slice that drops the two unit dims and takes a 5x2x3 window.
// iree-global-opt-propagate-linalg-transpose sinks the transpose below the
// slice (slice the input first, then transpose the 3-D result). Before #22754
// the permutation for the rank-reduced transpose was computed from the wrong
// map, so the new slice got the wrong result type and the IR failed to verify:
//   error: expected type to be 'tensor<2x3x1x1x5xf32>' or a rank-reduced
//   version. (size mismatch)
// With the fix: slice %arg0[0:2, 0:3, 0, 0, 0:5] -> 2x3x5, transpose [2, 0, 1].
func.func @main(%arg0: tensor<4x3x1x1x5xf32>) -> tensor<5x2x3xf32> {
  %empty = tensor.empty() : tensor<1x5x4x3x1xf32>
  %t = linalg.transpose ins(%arg0 : tensor<4x3x1x1x5xf32>) outs(%empty : tensor<1x5x4x3x1xf32>) permutation = [3, 4, 0, 1, 2]
  %s = tensor.extract_slice %t[0, 0, 0, 0, 0] [1, 5, 2, 3, 1] [1, 1, 1, 1, 1] : tensor<1x5x4x3x1xf32> to tensor<5x2x3xf32>
  return %s : tensor<5x2x3xf32>
}
