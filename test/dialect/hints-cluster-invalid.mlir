// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// The `cluster` hint: 1 to 3 positive sizes whose product is at most 8 (the
// portable cluster size: the runtime does not opt in to 16).

// expected-error @below {{hint 'cluster' of target 'sm_100a' asks for 32 CTAs per cluster; at most 8 (the portable cluster size) are supported}}
func.func @too_big() attributes {tile.hints = #tile.hints<{sm_100a = {cluster = array<i64: 4, 4, 2>}}>} {
  return
}

// -----

// expected-error @below {{hint 'cluster' of target 'sm_90a' asks for 9 CTAs per cluster; at most 8 (the portable cluster size) are supported}}
func.func @just_too_big() attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 9>}}>} {
  return
}

// -----

// The product saturates: sizes whose product wraps around 2^64 (2^62 x 4 = 0
// mod 2^64) are still too big.
// expected-error @below {{hint 'cluster' of target 'sm_90a' asks for 18446744073709551615 CTAs per cluster; at most 8 (the portable cluster size) are supported}}
func.func @product_overflow() attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 4611686018427387904, 4>}}>} {
  return
}

// -----

// expected-error @below {{hint 'cluster' of target 'sm_90a' has a non-positive size 0}}
func.func @zero_size() attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 2, 0>}}>} {
  return
}

// -----

// expected-error @below {{hint 'cluster' of target 'default' has a non-positive size -2}}
func.func @negative_size() attributes {tile.hints = #tile.hints<{default = {cluster = array<i64: -2, -2>}}>} {
  return
}

// -----

// expected-error @below {{hint 'cluster' of target 'sm_90a' must be an array<i64> of 1 to 3 sizes}}
func.func @empty() attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64>}}>} {
  return
}

// -----

// expected-error @below {{hint 'cluster' of target 'sm_90a' must be an array<i64> of 1 to 3 sizes}}
func.func @four_sizes() attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 1, 1, 1, 1>}}>} {
  return
}

// -----

// expected-error @below {{hint 'cluster' of target 'sm_90a' must be an array<i64> of 1 to 3 sizes}}
func.func @array_attr() attributes {tile.hints = #tile.hints<{sm_90a = {cluster = [2, 1]}}>} {
  return
}

// -----

// expected-error @below {{hint 'cluster' of target 'sm_90a' must be an array<i64> of 1 to 3 sizes}}
func.func @i32_array() attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i32: 2, 1>}}>} {
  return
}

// -----

// expected-error @below {{hint 'cluster' of target 'sm_90a' must be an array<i64> of 1 to 3 sizes}}
func.func @integer() attributes {tile.hints = #tile.hints<{sm_90a = {cluster = 2}}>} {
  return
}
