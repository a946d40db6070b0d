// vectorize-size-limit-int-overflow (iree-org/iree PR #21920).
//
// A reduction generic whose (static) middle dim is 9007199254740991 (2^53 - 1):
// the vector sizes inferred from the shape multiply to far more than the
// vectorizer's size limit, so GenericVectorization must leave the op alone.
// Before #21920 the element count was accumulated in an `int` (std::accumulate
// with the literal `1` as initial value): the product overflowed, the check
// passed, and the op was vectorized into vector<1x9007199254740991x1xf16>.
// The original report was a `1x8x?` tensor whose ValueBounds upper bound was
// this large; the static shape reproduces the same check.
func.func @negative_no_vectorize_large_vector(%arg0 : tensor<1x9007199254740991x1xf16>, %output : tensor<1x9007199254740991xf32>) -> tensor<1x9007199254740991xf32> {
  %c8 = arith.constant 8.000000e+00 : f16
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<1x9007199254740991x1xf16>) outs(%output : tensor<1x9007199254740991xf32>) {
  ^bb0(%in: f16, %out: f32):
    %d = arith.divf %in, %c8 : f16
    %e = arith.extf %d : f16 to f32
    %m = arith.maxnumf %e, %out : f32
    linalg.yield %m : f32
  } -> tensor<1x9007199254740991xf32>
  return %r : tensor<1x9007199254740991xf32>
}
