// FileCheck patterns for `iree-codegen-generic-vectorization{enable-vector-masking=true}`
// on ../model.mlir: the generic must stay a linalg.generic, with no vector ops.
// CHECK-LABEL: func.func @negative_no_vectorize_large_vector
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
// CHECK-NOT:     vector.
// CHECK:         return
