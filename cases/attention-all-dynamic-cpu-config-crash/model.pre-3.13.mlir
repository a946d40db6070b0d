// attention-all-dynamic-cpu-config-crash (iree-org/iree#23277, fixed by #23544).
//
// iree_linalg_ext.attention with every dim dynamic (batch, M, K1 = head dim,
// K2, N). In 3.3.0 - 3.10.0 LLVMCPUSelectLoweringStrategy crashes (SIGFPE) in
// limitVectorTileSizes while choosing the attention's tile sizes; from 3.11.0 it
// compiles and matches PyTorch SDPA (scale 0.5).
// Spelling: attribute dictionary (before 3.13.0); model.mlir has the <properties> form.
func.func @main(%q: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %q, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %q, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %v, %c2 : tensor<?x?x?xf32>
  %init = tensor.empty(%b, %m, %n) : tensor<?x?x?xf32>
  %scale = arith.constant 0.5 : f32
  %r = iree_linalg_ext.attention {indexing_maps = [
      affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>,
      affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>,
      affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>,
      affine_map<(d0, d1, d2, d3, d4) -> ()>,
      affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>]}
      ins(%q, %k, %v, %scale : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, f32)
      outs(%init : tensor<?x?x?xf32>) {
  ^bb0(%s: f32):
    iree_linalg_ext.yield %s : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}
