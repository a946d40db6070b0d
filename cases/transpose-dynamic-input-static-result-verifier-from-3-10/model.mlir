func.func @main(%arg0: !torch.vtensor<[?,5],f32>, %arg1: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %0 = torch.aten.transpose.int %arg1, %int0, %int1 : !torch.vtensor<[?,?],f32>, !torch.int, !torch.int -> !torch.vtensor<[5,?],f32>
  %1 = torch.aten.matmul %arg0, %0 : !torch.vtensor<[?,5],f32>, !torch.vtensor<[5,?],f32> -> !torch.vtensor<[?,?],f32>
  return %1 : !torch.vtensor<[?,?],f32>
}
