// argmax-f16-extf-mixed-maximumf-3-5-to-3-8
//
// IREE's own lit test @argmax_extf (DispatchCreation/test/split_reduction.mlir, v3.9.0),
// as written: an argmax over 151,936 f16 logits (a vocabulary's worth) extended to f32 in
// the reduction body, the max and its index. Found by the iree-lit-differ sweep's scan
// over the fifteen releases: 3.5.0..3.8.0 refuse it ("'arith.maximumf' op requires the
// same type for all operands and results": a maximumf of mixed f16 / f32 operands the
// compiler builds itself), 3.3.0..3.4.0 and 3.9.0.. compile it.
func.func @main(%input: tensor<151936xf16>) -> (tensor<f32>, tensor<i64>) {
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<i64>
  %init_idx = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<i64>) -> tensor<i64>
  %2 = tensor.empty() : tensor<f32>
  %init_val = linalg.fill ins(%cst : f32) outs(%2 : tensor<f32>) -> tensor<f32>
  %result:2 = linalg.generic {
    indexing_maps = [affine_map<(d0) -> (d0)>,
                     affine_map<(d0) -> ()>,
                     affine_map<(d0) -> ()>],
    iterator_types = ["reduction"]}
    ins(%input : tensor<151936xf16>)
    outs(%init_val, %init_idx : tensor<f32>, tensor<i64>) {
  ^bb0(%in: f16, %out: f32, %out_idx: i64):
    %extf = arith.extf %in : f16 to f32
    %i = linalg.index 0 : index
    %i_cast = arith.index_cast %i : index to i64
    %max = arith.maximumf %extf, %out : f32
    %cmp = arith.cmpf ogt, %extf, %out : f32
    %sel = arith.select %cmp, %i_cast, %out_idx : i64
    linalg.yield %max, %sel : f32, i64
  } -> (tensor<f32>, tensor<i64>)
  return %result#0, %result#1 : tensor<f32>, tensor<i64>
}
