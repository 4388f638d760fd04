//===- ResidencyTest.cpp - CTAs per SM from the target table --------------===//
//
// codegen::residentCtas against hand computations of the CUDA occupancy
// calculator's rules (registers per warp in units of 256, whole warps per
// quarter of the register file; shared memory plus the 1 KB reserved per CTA,
// in units of 128 bytes; tensor-memory columns; warps; CTA slots).
//
//===----------------------------------------------------------------------===//

#include "codegen/Target.h"

#include <gtest/gtest.h>

using namespace tessel::codegen;

namespace {

const TargetInfo &target(const char *name) {
  const TargetInfo *t = lookupTarget(name);
  EXPECT_NE(t, nullptr) << name;
  return *t;
}

TEST(Residency, RegistersBindAtFourCtas) {
  // 128 x 32 = 4096 per warp: 16384 / 4096 = 4 warps per quarter, 16 per SM.
  // Shared: 49152 + 64 + 1024 -> 50304; 233472 / 50304 = 4 as well: the tie
  // names registers.
  Residency r = residentCtas(target("sm_90a"), 4, 128, 49152 + 64, 0);
  EXPECT_EQ(r.ctas, 4);
  EXPECT_EQ(r.limit, "registers");
}

TEST(Residency, RegistersRoundedPerWarp) {
  // 168 x 32 = 5376 (a multiple of 256): 16384 / 5376 = 3 warps per quarter.
  EXPECT_EQ(residentCtas(target("sm_90a"), 4, 168, 49152, 0).ctas, 3);
  // 255 x 32 = 8160 -> 8192: 2 warps per quarter, 8 per SM.
  EXPECT_EQ(residentCtas(target("sm_90a"), 4, 255, 0, 0).ctas, 2);
  // 100 x 32 = 3200 -> 3328: 4 per quarter (not 5 as 16384 / 3200 would).
  EXPECT_EQ(residentCtas(target("sm_90a"), 4, 100, 0, 0).ctas, 4);
}

TEST(Residency, SharedMemoryWithTheReservation) {
  // 57344 + 1024 = 58368 = 233472 / 4: exactly 4 ...
  Residency four = residentCtas(target("sm_90a"), 4, 64, 57344, 0);
  EXPECT_EQ(four.ctas, 4);
  // ... and 48 bytes of mbarriers more: 58416 -> 58496, 3.
  Residency three = residentCtas(target("sm_90a"), 4, 64, 57344 + 48, 0);
  EXPECT_EQ(three.ctas, 3);
  EXPECT_EQ(three.limit, "shared memory");
}

TEST(Residency, TensorMemoryOnBlackwell) {
  // 96 registers: 5 CTAs; 33792 bytes of shared memory: 6; 128 of the 512
  // tensor-memory columns: 4.
  for (const char *name : {"sm_100a", "sm_103a"}) {
    Residency r = residentCtas(target(name), 4, 96, 32768, 128);
    EXPECT_EQ(r.ctas, 4) << name;
    EXPECT_EQ(r.limit, "tensor memory") << name;
  }
  // Hopper has none: a kernel that allocates some does not run.
  EXPECT_EQ(residentCtas(target("sm_90a"), 4, 96, 0, 32).ctas, 0);
}

TEST(Residency, WarpsAndCtaSlots) {
  // 1024 threads, registers unknown (no cubin): 64 / 32 warps.
  Residency warps = residentCtas(target("sm_90a"), 32, 0, 0, 0);
  EXPECT_EQ(warps.ctas, 2);
  EXPECT_EQ(warps.limit, "warps");
  // One warp of 16 registers: 128 by registers, 228 by shared memory, 64 by
  // warps, 32 CTA slots.
  Residency slots = residentCtas(target("sm_103a"), 1, 16, 0, 0);
  EXPECT_EQ(slots.ctas, 32);
  EXPECT_EQ(slots.limit, "CTA slots");
}

} // namespace
