// HoistIntoGlobals on model.mlir: the matmul of two constants sits inside a
// dispatch region that also reads the argument. It must stay in the region
// (no global, no util.global.load inside the region).
// CHECK-NOT: util.global
// CHECK:     flow.dispatch.region
// CHECK-NOT: util.global.load
// CHECK:     linalg.matmul
// CHECK:     flow.return
