// The pass must keep the bias: the depthwise conv accumulates into a zero fill
// and a separate elementwise op adds the original (broadcast bias) init back.
// iree-org/iree#19356: before the fix the init was replaced by the fill and the
// pattern then bailed out (non-identity output map), so the bias vanished.
func.func @depthwise_bias(%x: tensor<1x8x13x13xf32>, %w: tensor<8x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x11x11xf32> {
  %e = tensor.empty() : tensor<1x8x11x11xf32>
  %init = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x11x11xf32>) dimensions = [0, 2, 3]
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
         ins(%x, %w : tensor<1x8x13x13xf32>, tensor<8x3x3xf32>) outs(%init : tensor<1x8x11x11xf32>) -> tensor<1x8x11x11xf32>
  return %r : tensor<1x8x11x11xf32>
}
// CHECK-LABEL: func.func @depthwise_bias
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: tensor<8xf32>
//       CHECK:   %[[INIT:.+]] = linalg.broadcast ins(%[[B]]
//       CHECK:   %[[FILL:.+]] = linalg.fill
//       CHECK:   %[[CONV:.+]] = linalg.depthwise_conv_2d_nchw_chw
//  CHECK-SAME:     outs(%[[FILL]]
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%[[CONV]], %[[INIT]]
//       CHECK:     arith.addf
