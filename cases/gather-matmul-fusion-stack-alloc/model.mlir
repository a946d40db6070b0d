// gather-matmul-stack-alloc (iree-org/iree#23464).
//
// An iree_linalg_ext.gather of expert weights [n_expert, n_out, n_embd] by
// ids [n_used, n_tokens] feeds a matmul-like linalg.generic that contracts the
// gathered n_embd dim with the input [n_embd, n_tokens]. All dims dynamic.
// Dispatch creation fuses the gather into the contraction; llvm-cpu codegen
// of that dispatch then exceeds the 32 KiB stack limit (3.8.0 .. 3.10.0).
// Written for this suite after the issue's reproducer (same ops and shapes).

func.func @main(%input: tensor<?x?xf32>, %weights: tensor<?x?x?xf32>, %ids: tensor<?x?xi32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n_embd = tensor.dim %input, %c0 : tensor<?x?xf32>
  %n_tokens = tensor.dim %input, %c1 : tensor<?x?xf32>
  %n_out = tensor.dim %weights, %c1 : tensor<?x?x?xf32>
  %n_used = tensor.dim %ids, %c0 : tensor<?x?xi32>
  %g_init = tensor.empty(%n_used, %n_tokens, %n_out, %n_embd) : tensor<?x?x?x?xf32>
  %g = iree_linalg_ext.gather dimension_map = [0]
      ins(%weights, %ids : tensor<?x?x?xf32>, tensor<?x?xi32>)
      outs(%g_init : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %o_init = tensor.empty(%n_used, %n_tokens, %n_out) : tensor<?x?x?xf32>
  %o_fill = linalg.fill ins(%zero : f32) outs(%o_init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(e, t, o, k) -> (e, t, o, k)>, affine_map<(e, t, o, k) -> (k, t)>, affine_map<(e, t, o, k) -> (e, t, o)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g, %input : tensor<?x?x?x?xf32>, tensor<?x?xf32>) outs(%o_fill : tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}
