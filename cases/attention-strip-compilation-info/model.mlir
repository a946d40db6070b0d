// iree-org/iree#20053: iree_linalg_ext.attention ops carrying tuning attributes,
// the input of `iree-opt --iree-codegen-strip-compilation-info`. Modeled on the
// attention tests that PRs #20072/#20081/#21345 added to
// compiler/src/iree/compiler/Codegen/Common/test/strip_compilation_info.mlir,
// rewritten for this suite (shapes 1x2x16x32 like the numeric attention case).
// Spelling for 3.13 and later (`#iree_codegen.no_pipeline`, properties in `<...>`).
#mq = affine_map<(b, h, m, n, k1, k2) -> (b, h, m, k1)>
#mk = affine_map<(b, h, m, n, k1, k2) -> (b, h, k2, k1)>
#mv = affine_map<(b, h, m, n, k1, k2) -> (b, h, k2, n)>
#ms = affine_map<(b, h, m, n, k1, k2) -> ()>
#mo = affine_map<(b, h, m, n, k1, k2) -> (b, h, m, n)>
#config = #iree_codegen.lowering_config<tile_sizes = [[1, 1, 16, 32], [0, 0, 0, 0, 0, 8]]>
#translation = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [64, 1, 1] subgroup_size = 64>
#compilation = #iree_codegen.compilation_info<lowering_config = #config, translation_info = #translation>

// lowering_config plus a decomposition_config holding qk/pv attrs and one other
// entry: the qk/pv attrs go, `use_exp2` stays.
func.func @attn_lowering_config(%q: tensor<1x2x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>, %s: f16) -> tensor<1x2x16x32xf16> attributes {translation_info = #translation} {
  %init = tensor.empty() : tensor<1x2x16x32xf16>
  %r = iree_linalg_ext.attention <decomposition_config = {pv_attrs = {attention_pv_matmul, lowering_config = #config}, qk_attrs = {attention_qk_matmul, lowering_config = #config}, use_exp2}, indexing_maps = [#mq, #mk, #mv, #ms, #mo]> {lowering_config = #config} ins(%q, %k, %v, %s : tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, f16) outs(%init : tensor<1x2x16x32xf16>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<1x2x16x32xf16>
  return %r : tensor<1x2x16x32xf16>
}

// compilation_info plus a decomposition_config holding only qk/pv attrs: once
// they are stripped the config is empty and must be removed (#21345).
func.func @attn_compilation_info(%q: tensor<1x2x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>, %s: f16) -> tensor<1x2x16x32xf16> {
  %init = tensor.empty() : tensor<1x2x16x32xf16>
  %r = iree_linalg_ext.attention <decomposition_config = {pv_attrs = {attention_pv_matmul}, qk_attrs = {attention_qk_matmul}}, indexing_maps = [#mq, #mk, #mv, #ms, #mo]> {compilation_info = #compilation} ins(%q, %k, %v, %s : tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, f16) outs(%init : tensor<1x2x16x32xf16>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<1x2x16x32xf16>
  return %r : tensor<1x2x16x32xf16>
}

// An explicitly empty decomposition_config next to a lowering_config.
func.func @attn_empty_config(%q: tensor<1x2x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>, %s: f16) -> tensor<1x2x16x32xf16> {
  %init = tensor.empty() : tensor<1x2x16x32xf16>
  %r = iree_linalg_ext.attention <decomposition_config = {}, indexing_maps = [#mq, #mk, #mv, #ms, #mo]> {lowering_config = #config} ins(%q, %k, %v, %s : tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, f16) outs(%init : tensor<1x2x16x32xf16>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<1x2x16x32xf16>
  return %r : tensor<1x2x16x32xf16>
}
