// iree-org/iree#20389: a transpose feeding a multi-input elementwise generic
// whose result is the LHS of a matmul. Written for this suite after the issue's
// description (its input IR lives in an external gist); not copied from upstream.
//   out = (transpose(a) * b + transpose(a)) @ w
#id = affine_map<(d0, d1) -> (d0, d1)>
util.func public @main(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %w: tensor<64x48xf32>) -> tensor<32x48xf32> {
  %cst = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%a : tensor<64x32xf32>) outs(%e0 : tensor<32x64xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<32x64xf32>
  %ew = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<32x64xf32>, tensor<32x64xf32>) outs(%e1 : tensor<32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %x : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e2 = tensor.empty() : tensor<32x48xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e2 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm = linalg.matmul ins(%ew, %w : tensor<32x64xf32>, tensor<64x48xf32>) outs(%f : tensor<32x48xf32>) -> tensor<32x48xf32>
  util.return %mm : tensor<32x48xf32>
}
