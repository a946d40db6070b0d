// A const-expr (matmul of two constants) nested inside a flow.dispatch.region
// whose result also depends on the argument: the region as a whole is not
// constant, so HoistIntoGlobals hoisted the inner matmul and left a
// util.global.load inside the region; outlining the region into an executable
// then leaves the load pointing at a global that is not visible there.
// iree-org/iree#24671, fixed by iree-org/iree#24672 (from its lit test
// @do_not_hoist_const_expr_nested_in_dispatch, made end-to-end).
util.func public @main(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = flow.dispatch.region -> (tensor<2x2xf32>) {
    %cst0 = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %cst1 = arith.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
    %z = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<2x2xf32>
    %f = linalg.fill ins(%z : f32) outs(%empty : tensor<2x2xf32>) -> tensor<2x2xf32>
    %g = linalg.matmul ins(%cst0, %cst1 : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g, %arg0 : tensor<2x2xf32>, tensor<2x2xf32>) outs(%empty : tensor<2x2xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<2x2xf32>
    flow.return %r : tensor<2x2xf32>
  }
  util.return %0 : tensor<2x2xf32>
}
