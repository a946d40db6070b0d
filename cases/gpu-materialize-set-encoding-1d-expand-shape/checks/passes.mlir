// The passes the issue ran complete and print the program; the bug was their failing.
// CHECK: @main
