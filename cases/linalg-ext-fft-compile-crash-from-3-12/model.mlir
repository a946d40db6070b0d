// linalg-ext-fft-compile-crash-from-3-12
//
// IREE's own lit test @fft_tensor (Dialect/LinalgExt/IR/test/roundtrip.mlir, v3.9.0;
// moved there by 2fe2975e4e, iree-org/iree#16407), as written: one radix-2 stage of an
// FFT over the real and imaginary halves of a 1024-point signal, in place. The
// iree-lit-differ sweep's scan found it compiling on 3.9.0..3.11.0 (2.9.0..3.11.0 by
// prove --scan) and iree-compile for cpu crashing from 3.12.0 (SIGSEGV in
// OperandStorage::OperandStorage: an operation built from an invalid operand).
func.func @main(%arg0: tensor<1024xf32>, %arg1: tensor<1024xf32>)
    -> (tensor<1024xf32>, tensor<1024xf32>) {
  %cst1 = arith.constant 1 : index
  %0:2 = iree_linalg_ext.fft
    ins(%cst1: index)
    outs(%arg0, %arg1: tensor<1024xf32>, tensor<1024xf32>)
  : tensor<1024xf32>, tensor<1024xf32>
  return %0#0, %0#1 : tensor<1024xf32>, tensor<1024xf32>
}
