// FileCheck patterns for the output of
//   iree-opt --pass-pipeline='builtin.module(util.func(iree-global-opt-propagate-linalg-transpose,cse,canonicalize))'
// on model.mlir (iree-org/iree#20389, multi-input form).
// The pass cannot sink the transpose through the two-input generic, but it must
// not leave it standalone either: it is folded into the generic, which then reads
// the untransposed 64x32 operand directly, and the generic feeds the matmul.

// CHECK-LABEL: util.func public @main
// CHECK-SAME:    (%[[A:[a-zA-Z0-9_]+]]: tensor<64x32xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<32x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x48xf32>)
// CHECK-NOT:   linalg.transpose
// CHECK:       %[[EW:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[A]], %[[B]] : tensor<64x32xf32>, tensor<32x64xf32>)
// CHECK:         arith.mulf
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.matmul
// CHECK-SAME:    ins(%[[EW]], %[[W]] : tensor<32x64xf32>, tensor<64x48xf32>)
// CHECK-NOT:   linalg.transpose
// CHECK:       util.return
