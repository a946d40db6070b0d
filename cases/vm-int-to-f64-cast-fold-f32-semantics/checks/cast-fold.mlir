// Canonicalization folds the casts; the folded f64 constants must be exact
// (2^32 - 1 = 0x41EFFFFFFFE00000, -(2^31 + 1) = 0xC1E0000000200000), not the
// f32-rounded 2^32 / -2^31 that the f32-semantics folder produced.
vm.module public @float_cast_folds {
  // CHECK-LABEL: vm.func @cast_unsigned_to_f64
  vm.func @cast_unsigned_to_f64() -> f64 {
    // CHECK: vm.const.f64 0x41EFFFFFFFE00000
    // CHECK-NOT: vm.cast.ui64.f64
    %cst = vm.const.i64 4294967295
    %0 = vm.cast.ui64.f64 %cst : i64 -> f64
    vm.return %0 : f64
  }
  // CHECK-LABEL: vm.func @cast_signed_to_f64
  vm.func @cast_signed_to_f64() -> f64 {
    // CHECK: vm.const.f64 0xC1E0000000200000
    // CHECK-NOT: vm.cast.si64.f64
    %cst = vm.const.i64 -2147483649
    %0 = vm.cast.si64.f64 %cst : i64 -> f64
    vm.return %0 : f64
  }
}
