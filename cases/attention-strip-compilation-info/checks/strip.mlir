// FileCheck patterns for `iree-opt --iree-codegen-strip-compilation-info` on the
// case's model (model.mlir / model.pre-3.13.mlir / model.pre-3.12.mlir): every
// tuning attribute on the attention ops is gone (lowering_config,
// compilation_info, translation_info, the qk_attrs/pv_attrs entries of
// decomposition_config), entries of decomposition_config that are not tuning
// attributes stay, and a decomposition_config left empty is removed (#21345).

// No iree_codegen attribute survives anywhere (aliases are printed up front).
// CHECK-NOT:   iree_codegen.

// CHECK-LABEL: func.func @attn_lowering_config
// CHECK-NOT:   translation_info
// CHECK-NOT:   lowering_config
// CHECK:       iree_linalg_ext.attention
// CHECK-NOT:   lowering_config
// CHECK-NOT:   qk_attrs
// CHECK-NOT:   pv_attrs
// CHECK-SAME:  decomposition_config = {use_exp2}
// CHECK-NOT:   lowering_config
// CHECK-NOT:   qk_attrs
// CHECK-NOT:   pv_attrs
// CHECK:       return

// CHECK-LABEL: func.func @attn_compilation_info
// CHECK:       iree_linalg_ext.attention
// CHECK-NOT:   compilation_info
// CHECK-NOT:   decomposition_config
// CHECK-NOT:   qk_attrs
// CHECK-NOT:   pv_attrs
// CHECK:       return

// CHECK-LABEL: func.func @attn_empty_config
// CHECK:       iree_linalg_ext.attention
// CHECK-NOT:   lowering_config
// CHECK-NOT:   decomposition_config
// CHECK:       return
