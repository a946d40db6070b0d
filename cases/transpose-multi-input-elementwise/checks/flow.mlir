// FileCheck patterns for `iree-compile --compile-to=flow` (llvm-cpu) on model.mlir
// (iree-org/iree#20389, multi-input form). The default path generalizes the
// transpose and elementwise fusion folds it into the elementwise dispatch as a
// permuted input indexing map: there is no linalg.transpose and no standalone
// transpose dispatch. The number of dispatches is not checked: with CPU data
// tiling at the flow level (up to 3.6 at least) it is 4 (pack/mmt4d/unpack), 2
// from 3.10.

// CHECK-NOT:   linalg.transpose
// CHECK:       flow.executable private @[[EW:[a-zA-Z0-9_]+]] {
// CHECK-NOT:   dispatch_{{[0-9]+}}_transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%{{.+}}, %{{.+}} : tensor<64x32xf32>, tensor<32x64xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:   linalg.transpose
// CHECK-NOT:   dispatch_{{[0-9]+}}_transpose
// CHECK:       util.func public @main
// CHECK-NOT:   linalg.transpose
// CHECK-NOT:   dispatch_{{[0-9]+}}_transpose
// CHECK:       flow.dispatch @[[EW]]::
// CHECK-NOT:   dispatch_{{[0-9]+}}_transpose
// CHECK:       util.return
