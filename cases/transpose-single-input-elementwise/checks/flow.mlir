// FileCheck patterns for `iree-compile --compile-to=flow` (llvm-cpu) on model.mlir
// (single-input form of iree-org/iree#20389). The transpose must end up absorbed
// by the matmul (or by its data-tiling pack): the elementwise dispatch reads and
// writes with the same indexing map (it computes in the layout it reads, 64x32 or
// collapsed to 2048), and nothing in the program is named or spelled "transpose".
// 3.0.0 re-materializes the transpose inside the elementwise dispatch
// (`main_dispatch_0_elementwise_transpose_32x64_f32_pack`, input map (d1, d0)).

// CHECK-NOT:   transpose
// CHECK:       flow.executable private @[[EW:[a-zA-Z0-9_]+]] {
// CHECK-NOT:   transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<[[M:\([^)]*\) -> \([^)]*\)]]>, affine_map<[[M]]>]
// CHECK-SAME:      ins(%{{.+}} : tensor<{{64x32|2048}}xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:   transpose
// CHECK:       util.func public @main
// CHECK-NOT:   transpose
// CHECK:       flow.dispatch @[[EW]]::
// CHECK-NOT:   transpose
// CHECK:       util.return
