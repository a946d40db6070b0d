// spirv-f16-buffers-read-as-f32 (found by iree-regress; related: iree-org/iree#24688): an f16 add compiled for
// the default Vulkan target (no 16-bit storage/arithmetic). The SPIR-V kernel
// must not access the f16 buffers as f32 elements: with 2-byte elements in the
// buffer, a 4-byte f32 load at index i reads the wrong bytes.
//
// Checked on the output of
//   iree-compile --iree-hal-target-device=vulkan --compile-to=executable-targets
func.func @main(%a: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<64xf16> {
  %0 = arith.addf %a, %b : tensor<64xf16>
  return %0 : tensor<64xf16>
}

// CHECK: spirv.func
// CHECK-NOT: spirv.Load "StorageBuffer" %{{[^ ]+}} : f32
// CHECK-NOT: spirv.Store "StorageBuffer" %{{[^,]+}}, %{{[^ ]+}} : f32
