// FileCheck patterns for the output of
//   iree-opt --pass-pipeline='builtin.module(util.func(iree-global-opt-propagate-linalg-transpose,cse,canonicalize))'
// on model.mlir (single-input form of iree-org/iree#20389).
// The transpose is sunk through the one-input generic, which now computes in the
// untransposed 64x32 layout, and is absorbed by the matmul as a transposed LHS
// (`linalg.matmul_transpose_a` in old releases, `linalg.matmul indexing_maps = [...]`
// in new ones).

// CHECK-LABEL: util.func public @main
// CHECK-SAME:    (%[[A:[a-zA-Z0-9_]+]]: tensor<64x32xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x48xf32>)
// CHECK-NOT:   linalg.transpose
// CHECK:       %[[EW:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[A]] : tensor<64x32xf32>) outs(%{{.+}} : tensor<64x32xf32>)
// CHECK:         arith.mulf
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.matmul
// CHECK-SAME:    ins(%[[EW]], %[[W]] : tensor<64x32xf32>, tensor<64x48xf32>)
// CHECK-NOT:   linalg.transpose
// CHECK:       util.return
