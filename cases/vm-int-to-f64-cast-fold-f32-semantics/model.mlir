// VM-level constant folding of integer -> f64 casts (iree-org/iree#22966,
// fixed by iree-org/iree#22997). Compiled with --compile-from=vm: the module
// is already in the VM dialect, so only VM canonicalization folds it.
// Each result is cast(int constant) minus the exact f64 value: 0.0 when the
// cast is folded with f64 semantics. The argument is unused: it only gives the
// suite's numeric harness an input to pass (any buffer view, as !vm.ref<?>).
vm.module public @module {
  vm.export @main
  vm.func @main(%unused: !vm.ref<?>) -> (f64, f64) {
    // ui64 -> f64: 2^32 - 1 is exact in f64 but rounds to 2^32 in f32.
    %u = vm.const.i64 4294967295
    %uf = vm.cast.ui64.f64 %u : i64 -> f64
    %uexact = vm.const.f64 4294967295.0
    %r0 = vm.sub.f64 %uf, %uexact : f64
    // si64 -> f64: -(2^31 + 1) is exact in f64 but rounds to -2^31 in f32.
    %s = vm.const.i64 -2147483649
    %sf = vm.cast.si64.f64 %s : i64 -> f64
    %sexact = vm.const.f64 -2147483649.0
    %r1 = vm.sub.f64 %sf, %sexact : f64
    vm.return %r0, %r1 : f64, f64
  }
}
