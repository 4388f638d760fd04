//===- Numbers.h - number formats of tiles and views ------------*- C++ -*-===//
//
// Conversions between doubles and the bytes of each element type, shared by
// the interpreter, the tests and the GPU test drivers (plain C++: no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_INTERPRETER_NUMBERS_H
#define TESSEL_INTERPRETER_NUMBERS_H

#include "dsl/Tessel.h"

#include <cstdint>

namespace tessel::interp {

float roundToBF16(float x);
float roundToF16(float x);
/// Nearest, ties away from zero (cvt.rna.tf32.f32).
float roundToTF32(float x);
uint16_t bf16Bits(float x);
float bf16FromBits(uint16_t bits);
uint16_t f16Bits(float x);
float f16FromBits(uint16_t bits);

/// Reads one element of type `dtype` at `p` (i64 beyond 2^53 loses bits).
double loadElement(const void *p, DType dtype);
/// Writes `value` at `p` as `dtype`: floats round to nearest even, integers
/// truncate toward zero and wrap.
void storeElement(void *p, DType dtype, double value);

} // namespace tessel::interp

#endif // TESSEL_INTERPRETER_NUMBERS_H
