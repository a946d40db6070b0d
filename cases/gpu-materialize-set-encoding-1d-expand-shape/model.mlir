#encoding = #iree_encoding.encoding<operand_index = 0 : index, op_type =  matmul, element_types = [f16, f16, f32], user_indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iteration_sizes = [256, 256]>

func.func @main(
    %src: tensor<256xf16>
) -> tensor<256xf16, #encoding> {
  %0 = iree_encoding.set_encoding %src : tensor<256xf16> -> tensor<256xf16, #encoding>
  return %0 : tensor<256xf16, #encoding>
}
