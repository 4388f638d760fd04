// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @counter_not_i32(%f: !tile.view<?xf32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.signal' op counts in a view of 32-bit integers, got elements of type 'f32'}}
  tile.signal %f[%c0], %c0 : !tile.view<?xf32>
  return
}

// -----

func.func @index_count(%f: !tile.view<?x?xi32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.wait' op takes one index per view dimension (2), got 1}}
  tile.wait %f[%c0], %c0 : !tile.view<?x?xi32>
  return
}

// -----

func.func @wait_after_load(%x: !tile.view<?xf32>, %f: !tile.view<?xi32>) {
  %c0 = arith.constant 0 : i32
  // expected-note @below {{this one comes first}}
  %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<32xf32>
  // expected-error @below {{'tile.wait' op must come before every load, store, signal and wait of the kernel}}
  tile.wait %f[%c0], %c0 : !tile.view<?xi32>
  return
}

// -----

func.func @wait_in_branch(%f: !tile.view<?xi32>, %c: i1) {
  %c0 = arith.constant 0 : i32
  scf.if %c {
    // expected-error @below {{'tile.wait' op must be in the kernel's body itself, not in a loop or branch}}
    tile.wait %f[%c0], %c0 : !tile.view<?xi32>
  }
  return
}

// -----

// early_loads: loads may come before the wait (no diagnostic here)...
func.func @early_load_ok(%x: !tile.view<?xf32>, %f: !tile.view<?xi32>) {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<32xf32>
  tile.wait %f[%c0], %c0 {early_loads} : !tile.view<?xi32>
  return
}

// -----

// ...but a store still may not.
func.func @early_loads_store_first(%x: !tile.view<?xf32>, %f: !tile.view<?xi32>) {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<32xf32>
  // expected-note @below {{this one comes first}}
  tile.store %t, %x[%c0] : tensor<32xf32>, !tile.view<?xf32>
  // expected-error @below {{'tile.wait' op must come before every store, signal and wait of the kernel (it is the kernel's dependency point; early_loads lets only loads precede it)}}
  tile.wait %f[%c0], %c0 {early_loads} : !tile.view<?xi32>
  return
}

// -----

// A wait for earlier programs of the kernel may come anywhere, after loads
// and stores, in loops and branches (no diagnostic here)...
func.func @earlier_programs_anywhere(%x: !tile.view<?xf32>, %f: !tile.view<?xi32>, %c: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<32xf32>
  tile.store %t, %x[%c0] : tensor<32xf32>, !tile.view<?xf32>
  scf.if %c {
    tile.wait %f[%c0], %c1 {earlier_programs} : !tile.view<?xi32>
  }
  tile.wait %f[%c1], %c1 {earlier_programs} : !tile.view<?xi32>
  return
}

// -----

// ...but it is not the kernel's dependency point, which early_loads places.
func.func @earlier_programs_early_loads(%f: !tile.view<?xi32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.wait' op takes early_loads or earlier_programs, not both}}
  tile.wait %f[%c0], %c0 {early_loads, earlier_programs} : !tile.view<?xi32>
  return
}

// -----

func.func @ticket_not_i32(%f: !tile.view<?xf32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.ticket' op counts in a view of 32-bit integers, got elements of type 'f32'}}
  %t = tile.ticket %f[%c0] : !tile.view<?xf32>
  return
}
