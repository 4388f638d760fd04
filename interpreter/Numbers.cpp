//===- Numbers.cpp - number formats of tiles and views
//---------------------===//

#include "interpreter/Numbers.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace tessel {

const char *dtypeName(DType type) {
  switch (type) {
  case DType::i1:
    return "i1";
  case DType::i8:
    return "i8";
  case DType::i16:
    return "i16";
  case DType::i32:
    return "i32";
  case DType::i64:
    return "i64";
  case DType::bf16:
    return "bf16";
  case DType::f16:
    return "f16";
  case DType::f32:
    return "f32";
  case DType::f64:
    return "f64";
  }
  return "?";
}

int64_t dtypeBytes(DType type) {
  switch (type) {
  case DType::i1:
  case DType::i8:
    return 1;
  case DType::i16:
  case DType::bf16:
  case DType::f16:
    return 2;
  case DType::i32:
  case DType::f32:
    return 4;
  case DType::i64:
  case DType::f64:
    return 8;
  }
  return 1;
}

bool isFloat(DType type) {
  return type == DType::bf16 || type == DType::f16 || type == DType::f32 ||
         type == DType::f64;
}

} // namespace tessel

namespace tessel::interp {

uint16_t bf16Bits(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if (std::isnan(x))
    return static_cast<uint16_t>((u >> 16) | 0x40); // keep it a quiet NaN
  u += 0x7FFF + ((u >> 16) & 1);                    // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}
float bf16FromBits(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}
float roundToBF16(float x) { return bf16FromBits(bf16Bits(x)); }

uint16_t f16Bits(float x) {
  return std::bit_cast<uint16_t>(static_cast<_Float16>(x));
}
float f16FromBits(uint16_t bits) {
  return static_cast<float>(std::bit_cast<_Float16>(bits));
}
float roundToF16(float x) {
  return static_cast<float>(static_cast<_Float16>(x));
}

float roundToTF32(float x) {
  if (!std::isfinite(x))
    return x;
  uint32_t u = std::bit_cast<uint32_t>(x);
  u += 0x1000; // nearest, ties away from zero (cvt.rna.tf32.f32)
  u &= 0xFFFFE000u;
  return std::bit_cast<float>(u);
}

double loadElement(const void *p, DType dtype) {
  auto read = [&](auto value) {
    std::memcpy(&value, p, sizeof(value));
    return value;
  };
  switch (dtype) {
  case DType::bf16:
    return bf16FromBits(read(uint16_t()));
  case DType::f16:
    return f16FromBits(read(uint16_t()));
  case DType::f32:
    return read(float());
  case DType::f64:
    return read(double());
  case DType::i1:
  case DType::i8:
    return read(int8_t());
  case DType::i16:
    return read(int16_t());
  case DType::i32:
    return read(int32_t());
  case DType::i64:
    return static_cast<double>(read(int64_t()));
  }
  return 0;
}

void storeElement(void *p, DType dtype, double value) {
  auto write = [&](auto v) { std::memcpy(p, &v, sizeof(v)); };
  switch (dtype) {
  case DType::bf16:
    return write(bf16Bits(static_cast<float>(value)));
  case DType::f16:
    return write(f16Bits(static_cast<float>(value)));
  case DType::f32:
    return write(static_cast<float>(value));
  case DType::f64:
    return write(value);
  case DType::i1:
  case DType::i8:
    return write(static_cast<int8_t>(value));
  case DType::i16:
    return write(static_cast<int16_t>(value));
  case DType::i32:
    return write(static_cast<int32_t>(value));
  case DType::i64:
    return write(static_cast<int64_t>(value));
  }
}

} // namespace tessel::interp
