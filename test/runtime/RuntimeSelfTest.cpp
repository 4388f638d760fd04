//===- RuntimeSelfTest.cpp - the runtime's driver-free half ---------------===//
//
// Argument packing, launch validation, image selection and statistics, with
// no GPU and no driver: this binary links TesselRuntimeCore only, never
// libcuda.
//
//===----------------------------------------------------------------------===//

#include "runtime/Images.h"
#include "runtime/KernelAbi.h"
#include "runtime/Stats.h"
#include "runtime/Tuning.h"
#include "runtime/Status.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace tessel::rt;

namespace {

/// Fails the test unless `status` is an error whose message contains
/// `expected`.
void expectError(const Status &status, const std::string &expected) {
  ASSERT_FALSE(status.ok()) << "expected an error containing: " << expected;
  EXPECT_NE(status.message().find(expected), std::string::npos)
      << "message: " << status.message()
      << "\nexpected to contain: " << expected;
}

void expectOk(const Status &status) {
  EXPECT_TRUE(status.ok()) << status.message();
}

template <class T> T readAt(const PackedArgs &packed, size_t offset) {
  T value;
  std::memcpy(&value, packed.data() + offset, sizeof(T));
  return value;
}

constexpr DevicePtr kPtr = 0x7f0000001000ull; // 16-byte aligned

ViewArg view2d(DevicePtr ptr = kPtr) {
  return ViewArg{ptr, 4, {3, 5}, {8, 1}, 0};
}

//===----------------------------------------------------------------------===//
// Status
//===----------------------------------------------------------------------===//

Status failsThenNotReached(bool *reached) {
  TESSEL_RT_TRY(Status::error("inner"));
  *reached = true;
  return Status::success();
}

TEST(Status, SuccessAndErrorWithContext) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_TRUE(ok.message().empty());
  EXPECT_TRUE(Status::success().withContext("ignored").ok());

  Status error = Status::error("bad").withContext("outer");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.message(), "outer: bad");

  bool reached = false;
  Status tried = failsThenNotReached(&reached);
  EXPECT_FALSE(reached);
  EXPECT_EQ(tried.message(), "inner");
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

TEST(Pack, ArgConversionsPickTheIntendedScalarType) {
  EXPECT_TRUE(std::holds_alternative<int32_t>(Arg(5)));
  EXPECT_TRUE(std::holds_alternative<int64_t>(Arg(int64_t{5})));
  EXPECT_TRUE(std::holds_alternative<float>(Arg(2.5f)));
  EXPECT_TRUE(std::holds_alternative<ViewArg>(Arg(view2d())));
  // A double or a size_t would narrow: Arg refuses them at compile time.
  EXPECT_FALSE((std::is_constructible_v<Arg, double>));
  EXPECT_FALSE((std::is_constructible_v<Arg, size_t>));
}

TEST(Pack, ByteLayoutOfEveryKind) {
  ViewArg a{kPtr, 2, {3, 5}, {40, 1}, kAligned16 | kUnitStride};
  ViewArg b{kPtr + 256, 4, {7}, {2}, 0};
  std::vector<Arg> args = {a, 1.5f,       int32_t{-7}, 0.5f, int64_t{1} << 40,
                           b, int32_t{9}, 0.25f};
  PackedArgs packed;
  expectOk(packArguments(args, &packed));

  struct Expected {
    size_t offset, size;
    ParamKind kind;
    size_t arg;
    int dim;
  };
  // Each parameter at the next offset aligned to its size: the i64 after the
  // f32 at 48 skips 4 bytes of padding to 56.
  const Expected expected[] = {
      {0, 8, ParamKind::Pointer, 0, -1}, {8, 8, ParamKind::Size, 0, 0},
      {16, 8, ParamKind::Size, 0, 1},    {24, 8, ParamKind::Stride, 0, 0},
      {32, 8, ParamKind::Stride, 0, 1},  {40, 4, ParamKind::F32, 1, -1},
      {44, 4, ParamKind::I32, 2, -1},    {48, 4, ParamKind::F32, 3, -1},
      {56, 8, ParamKind::I64, 4, -1},    {64, 8, ParamKind::Pointer, 5, -1},
      {72, 8, ParamKind::Size, 5, 0},    {80, 8, ParamKind::Stride, 5, 0},
      {88, 4, ParamKind::I32, 6, -1},    {92, 4, ParamKind::F32, 7, -1},
  };
  ASSERT_EQ(packed.numParams(), std::size(expected));
  EXPECT_EQ(packed.size(), 96u);
  for (size_t i = 0; i < std::size(expected); ++i) {
    const ParamSlot &slot = packed.slots()[i];
    SCOPED_TRACE("parameter " + std::to_string(i));
    EXPECT_EQ(slot.offset, expected[i].offset);
    EXPECT_EQ(slot.size, expected[i].size);
    EXPECT_EQ(slot.kind, expected[i].kind);
    EXPECT_EQ(slot.argIndex, expected[i].arg);
    EXPECT_EQ(slot.dim, expected[i].dim);
    EXPECT_EQ(packed.kernelParams()[i],
              static_cast<const void *>(packed.data() + slot.offset));
  }

  EXPECT_EQ(readAt<uint64_t>(packed, 0), kPtr);
  EXPECT_EQ(readAt<int64_t>(packed, 8), 3);
  EXPECT_EQ(readAt<int64_t>(packed, 16), 5);
  EXPECT_EQ(readAt<int64_t>(packed, 24), 40);
  EXPECT_EQ(readAt<int64_t>(packed, 32), 1);
  EXPECT_EQ(readAt<float>(packed, 40), 1.5f);
  EXPECT_EQ(readAt<int32_t>(packed, 44), -7);
  EXPECT_EQ(readAt<float>(packed, 48), 0.5f);
  EXPECT_EQ(readAt<uint32_t>(packed, 52), 0u); // padding, zeroed
  EXPECT_EQ(readAt<int64_t>(packed, 56), int64_t{1} << 40);
  EXPECT_EQ(readAt<uint64_t>(packed, 64), kPtr + 256);
  EXPECT_EQ(readAt<int64_t>(packed, 72), 7);
  EXPECT_EQ(readAt<int64_t>(packed, 80), 2);
  EXPECT_EQ(readAt<int32_t>(packed, 88), 9);
  EXPECT_EQ(readAt<float>(packed, 92), 0.25f);
  // Through the pointer array, as the driver reads it.
  EXPECT_EQ(*static_cast<int64_t *>(packed.kernelParams()[8]),
            int64_t{1} << 40);
}

TEST(Pack, PaddingBeforeI64AfterI32) {
  PackedArgs packed;
  expectOk(packArguments({int32_t{1}, int64_t{2}, int32_t{3}}, &packed));
  ASSERT_EQ(packed.numParams(), 3u);
  EXPECT_EQ(packed.slots()[0].offset, 0u);
  EXPECT_EQ(packed.slots()[1].offset, 8u);
  EXPECT_EQ(packed.slots()[2].offset, 16u);
  EXPECT_EQ(packed.size(), 20u);
}

TEST(Pack, RankZeroViewIsJustAPointer) {
  PackedArgs packed;
  expectOk(packArguments({ViewArg{kPtr, 4, {}, {}, 0}}, &packed));
  ASSERT_EQ(packed.numParams(), 1u);
  EXPECT_EQ(packed.slots()[0].kind, ParamKind::Pointer);
}

TEST(Pack, NoArguments) {
  PackedArgs packed;
  expectOk(packArguments({}, &packed));
  EXPECT_EQ(packed.numParams(), 0u);
  EXPECT_EQ(packed.size(), 0u);
}

TEST(Pack, MoveKeepsPointersValid) {
  PackedArgs packed;
  expectOk(packArguments({view2d(), 3.0f}, &packed));
  PackedArgs moved = std::move(packed);
  ASSERT_EQ(moved.numParams(), 6u);
  for (size_t i = 0; i < moved.numParams(); ++i)
    EXPECT_EQ(
        moved.kernelParams()[i],
        static_cast<const void *>(moved.data() + moved.slots()[i].offset));
  EXPECT_EQ(*static_cast<float *>(moved.kernelParams()[5]), 3.0f);
  EXPECT_FALSE(std::is_copy_constructible_v<PackedArgs>);
}

TEST(Pack, RepackingReplacesThePreviousContents) {
  PackedArgs packed;
  expectOk(packArguments({view2d(), 3.0f}, &packed));
  expectOk(packArguments({int32_t{4}}, &packed));
  ASSERT_EQ(packed.numParams(), 1u);
  EXPECT_EQ(*static_cast<int32_t *>(packed.kernelParams()[0]), 4);
}

TEST(Pack, RejectsRankMismatch) {
  PackedArgs packed;
  ViewArg bad = view2d();
  bad.strides.push_back(1);
  expectError(packArguments({1.0f, bad}, &packed),
              "argument 1 (view): rank mismatch: 2 sizes but 3 strides");
}

TEST(Pack, RejectsTooManyParameterBytes) {
  ViewArg huge;
  huge.ptr = kPtr;
  huge.elementBytes = 4;
  huge.sizes.assign(2100, 1);
  huge.strides.assign(2100, 1);
  PackedArgs packed;
  expectError(packArguments({huge}, &packed),
              "the arguments take 33608 bytes of kernel parameters, more "
              "than the 32764");
}

TEST(Pack, DescribeSlot) {
  EXPECT_EQ(describeSlot({0, 8, ParamKind::Pointer, 2, -1}),
            "argument 2 (view) pointer");
  EXPECT_EQ(describeSlot({0, 8, ParamKind::Stride, 1, 0}),
            "argument 1 (view) stride 0");
  EXPECT_EQ(describeSlot({0, 4, ParamKind::I32, 3, -1}), "argument 3 (i32)");
}

TEST(Pack, ContiguousViewStrides) {
  ViewArg v = contiguousView(kPtr, 2, {4, 5, 6}, kUnitStride);
  EXPECT_EQ(v.strides, (std::vector<int64_t>{30, 6, 1}));
  EXPECT_EQ(v.sizes, (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(v.elementBytes, 2);
  EXPECT_EQ(v.flags, unsigned(kUnitStride));
  EXPECT_TRUE(contiguousView(kPtr, 4, {}).strides.empty());
}

//===----------------------------------------------------------------------===//
// Launch validation
//===----------------------------------------------------------------------===//

LaunchConfig config(Dim3 grid, int numWarps = 4) {
  LaunchConfig c;
  c.grid = grid;
  c.numWarps = numWarps;
  return c;
}

TEST(Validate, AcceptsAWellFormedLaunch) {
  ViewArg a{kPtr, 2, {64, 100}, {128, 1}, kAligned16 | kUnitStride};
  expectOk(validateLaunch(config({10, 2, 3}),
                          {a, 1.0f, int32_t{3}, int64_t{4}, view2d()}));
}

TEST(Validate, NullPointer) {
  ViewArg v = view2d(0);
  expectError(validateLaunch(config({1}), {1.0f, v}),
              "argument 1 (view): null pointer with non-empty extent [3, 5]");
  // Nothing to point at: a null pointer is fine, also with kAligned16.
  v.sizes = {3, 0};
  v.flags = kAligned16;
  v.strides = {16, 1};
  expectOk(validateLaunch(config({1}), {1.0f, v}));
  // Rank 0 holds one element.
  expectError(validateLaunch(config({1}), {ViewArg{0, 4, {}, {}, 0}}),
              "argument 0 (view): null pointer with non-empty extent []");
}

TEST(Validate, RankMismatch) {
  ViewArg v = view2d();
  v.strides = {1};
  expectError(validateLaunch(config({1}), {int32_t{0}, int32_t{1}, v}),
              "argument 2 (view): rank mismatch: 2 sizes but 1 strides");
}

TEST(Validate, NegativeSize) {
  ViewArg v = view2d();
  v.sizes = {3, -5};
  expectError(validateLaunch(config({1}), {v}),
              "argument 0 (view): size 1 is negative (-5), sizes [3, -5]");
}

TEST(Validate, SizeBeyond32Bits) {
  ViewArg v = view2d();
  v.sizes = {int64_t{1} << 31, 2};
  expectError(validateLaunch(config({1}), {v}),
              "argument 0 (view): size 0 (2147483648) is larger than 2^31 - "
              "1, the largest a kernel reads as its 32-bit size; sizes "
              "[2147483648, 2]");
  // The largest size passes.
  v.sizes = {(int64_t{1} << 31) - 1, 2};
  EXPECT_TRUE(validateLaunch(config({1}), {v}).ok());
}

TEST(Validate, ElementSize) {
  ViewArg v = view2d();
  v.elementBytes = 3;
  expectError(validateLaunch(config({1}), {v}),
              "argument 0 (view): element size 3 bytes is not 1, 2, 4, 8 or "
              "16");
  v.elementBytes = 0;
  expectError(validateLaunch(config({1}), {v}), "element size 0 bytes");
}

TEST(Validate, UnknownFlags) {
  ViewArg v = view2d();
  v.flags = kUnitStride | 8;
  expectError(validateLaunch(config({1}), {v}),
              "argument 0 (view): unknown flag bits 0x8");
}

TEST(Validate, Aligned16Pointer) {
  ViewArg v{kPtr + 4, 4, {3, 5}, {8, 1}, kAligned16};
  expectError(validateLaunch(config({1}), {2.0f, v}),
              "argument 1 (view): flagged kAligned16 but the pointer "
              "0x7f0000001004 is not a multiple of 16 bytes");
  // Unflagged, the same view is fine.
  v.flags = 0;
  expectOk(validateLaunch(config({1}), {2.0f, v}));
}

TEST(Validate, Aligned16Strides) {
  // 33 bf16 elements = 66 bytes.
  ViewArg v{kPtr, 2, {4, 3, 5}, {99, 33, 1}, kAligned16};
  expectError(validateLaunch(config({1}), {v}),
              "argument 0 (view): flagged kAligned16 but stride 0 (99 "
              "elements of 2 bytes) is not a multiple of 16 bytes");
  v.strides = {96, 33, 1};
  expectError(validateLaunch(config({1}), {v}),
              "flagged kAligned16 but stride 1 (33 elements of 2 bytes)");
  // The last stride is not covered by the alignment promise; negative and
  // zero strides are fine when their byte counts are multiples of 16.
  v.strides = {-96, 0, 3};
  expectOk(validateLaunch(config({1}), {v}));
  // No overflow for huge strides: 2^62 + 8 floats is 2^64 + 32 bytes.
  v = ViewArg{kPtr, 4, {2, 2}, {(int64_t{1} << 62) + 8, 1}, kAligned16};
  expectOk(validateLaunch(config({1}), {v}));
  v.strides[0] = (int64_t{1} << 62) + 2;
  expectError(validateLaunch(config({1}), {v}), "stride 0");
  // 16-byte elements are always aligned.
  v = ViewArg{kPtr, 16, {2, 2}, {3, 1}, kAligned16};
  expectOk(validateLaunch(config({1}), {v}));
}

TEST(Validate, UnitStride) {
  ViewArg v{kPtr, 4, {3, 5}, {1, 3}, kUnitStride};
  expectError(validateLaunch(config({1}), {v}),
              "argument 0 (view): flagged kUnitStride but its last stride is "
              "3, not 1");
  expectError(validateLaunch(config({1}), {ViewArg{kPtr, 4, {}, {}, 2}}),
              "argument 0 (view): flagged kUnitStride but has no dimensions");
}

TEST(Validate, GridLimits) {
  const int64_t maxX = (int64_t{1} << 31) - 1;
  expectOk(validateLaunch(config({maxX, 65535, 65535}), {}));
  expectError(validateLaunch(config({maxX + 1}), {}),
              "grid (2147483648, 1, 1) exceeds the device limits "
              "(2147483647, 65535, 65535)");
  expectError(validateLaunch(config({1, 65536, 1}), {}),
              "grid (1, 65536, 1) exceeds");
  expectError(validateLaunch(config({1, 1, 65536}), {}),
              "grid (1, 1, 65536) exceeds");
  expectError(validateLaunch(config({4, -1, 1}), {}),
              "grid (4, -1, 1) has a negative dimension");
}

TEST(Validate, EmptyGridIsValidButArgumentsAreStillChecked) {
  expectOk(validateLaunch(config({0, 1, 1}), {view2d()}));
  expectOk(validateLaunch(config({5, 0, 7}), {view2d()}));
  expectError(validateLaunch(config({0, 1, 1}), {view2d(0)}),
              "null pointer with non-empty extent");
}

TEST(Validate, NumWarps) {
  expectOk(validateLaunch(config({1}, 1), {}));
  expectOk(validateLaunch(config({1}, 32), {}));
  expectError(validateLaunch(config({1}, 0), {}), "numWarps 0 is not in 1..32");
  expectError(validateLaunch(config({1}, 33), {}),
              "numWarps 33 is not in 1..32");
  expectError(validateLaunch(config({1}, -2), {}),
              "numWarps -2 is not in 1..32");
}

TEST(Validate, KernelThreadLimit) {
  KernelLimits limits;
  limits.maxThreadsPerBlock = 384;
  limits.numRegs = 168;
  expectOk(validateLaunch(config({1}, 12), {}, limits));
  expectError(validateLaunch(config({1}, 16), {}, limits),
              "16 warps (512 threads) exceed the kernel's limit of 384 "
              "threads per block at 168 registers per thread");
}

TEST(Validate, SharedMemory) {
  KernelLimits limits;
  limits.maxSharedPerBlockOptin = 227 * 1024;
  limits.staticSharedBytes = 1024;
  LaunchConfig c = config({1});
  c.dynamicSharedBytes = 226 * 1024;
  expectOk(validateLaunch(c, {}, limits));
  c.dynamicSharedBytes += 1;
  expectError(validateLaunch(c, {}, limits),
              "dynamic shared memory of 231425 bytes plus 1024 bytes of "
              "static shared memory exceed the device's 232448 bytes per "
              "block");
  c.dynamicSharedBytes = size_t{1} << 33;
  expectError(validateLaunch(c, {}, KernelLimits{}),
              "does not fit the launch's 32-bit field");
}

TEST(Validate, RuntimeCluster) {
  LaunchConfig c = config({8, 4});
  c.cluster = {2, 2, 1};
  expectOk(validateLaunch(c, {}));
  c.cluster = {0, 1, 1};
  expectError(validateLaunch(c, {}),
              "cluster (0, 1, 1) has a dimension below 1");
  c.cluster = {4, 4, 1};
  expectError(validateLaunch(c, {}),
              "cluster (4, 4, 1) has more than 8 blocks");
  c.cluster = {2, 2, 4};
  expectError(validateLaunch(c, {}),
              "cluster (2, 2, 4) has more than 8 blocks");
  c.cluster = {3, 1, 1};
  expectError(validateLaunch(c, {}),
              "grid (8, 4, 1) is not a multiple of the cluster (3, 1, 1)");
  c.cluster = {int64_t{1} << 40, 1, 1};
  expectError(validateLaunch(c, {}), "has more than 8 blocks");
}

TEST(Validate, CompiledInCluster) {
  KernelLimits limits;
  limits.requiredCluster = {2, 1, 1};
  LaunchConfig c = config({6});
  expectOk(validateLaunch(c, {}, limits));
  EXPECT_EQ(effectiveCluster(c, limits), (Dim3{2, 1, 1}));
  c.cluster = {2, 1, 1};
  expectOk(validateLaunch(c, {}, limits));
  c.cluster = {1, 2, 1};
  expectError(validateLaunch(c, {}, limits),
              "cluster (1, 2, 1) differs from the kernel's compiled-in "
              "cluster (2, 1, 1)");
  c = config({5});
  expectError(validateLaunch(c, {}, limits),
              "grid (5, 1, 1) is not a multiple of the cluster (2, 1, 1)");
  // No compiled-in cluster: the launch's own.
  c.cluster = {1, 1, 1};
  EXPECT_EQ(effectiveCluster(c, KernelLimits{}), (Dim3{1, 1, 1}));
}

TEST(Validate, FirstBadArgumentIsReported) {
  ViewArg bad1 = view2d(0), bad3 = view2d();
  bad3.sizes = {-1, 2};
  expectError(validateLaunch(config({1}), {view2d(), bad1, 1.0f, bad3}),
              "argument 1 (view)");
}

//===----------------------------------------------------------------------===//
// Signature checks
//===----------------------------------------------------------------------===//

std::vector<ParamInfo> layoutOf(const std::vector<Arg> &args) {
  PackedArgs packed;
  EXPECT_TRUE(packArguments(args, &packed).ok());
  std::vector<ParamInfo> infos;
  for (const ParamSlot &slot : packed.slots())
    infos.push_back({slot.offset, slot.size});
  return infos;
}

TEST(Signature, Matches) {
  std::vector<Arg> args = {view2d(), 1.0f, int64_t{3}};
  PackedArgs packed;
  expectOk(packArguments(args, &packed));
  expectOk(checkSignature(packed, layoutOf(args)));
}

TEST(Signature, WrongScalarWidth) {
  PackedArgs packed;
  expectOk(packArguments({view2d(), int32_t{3}}, &packed));
  expectError(checkSignature(packed, layoutOf({view2d(), int64_t{3}})),
              "kernel parameter 5 is 8 bytes at offset 40, but the arguments "
              "put argument 1 (i32) there, 4 bytes at offset 40");
}

TEST(Signature, WrongRank) {
  PackedArgs packed;
  ViewArg rank1{kPtr, 4, {5}, {1}, 0};
  expectOk(packArguments({rank1, 1.0f}, &packed));
  // The kernel wants a rank-2 view: its parameter 3 (the first stride) is
  // where the arguments put the f32.
  expectError(checkSignature(packed, layoutOf({view2d(), 1.0f})),
              "kernel parameter 3 is 8 bytes at offset 24, but the arguments "
              "put argument 1 (f32) there, 4 bytes at offset 24");
}

TEST(Signature, CountMismatch) {
  PackedArgs packed;
  expectOk(packArguments({view2d(), 1.0f, 2.0f}, &packed));
  expectError(checkSignature(packed, layoutOf({view2d(), 1.0f})),
              "the kernel takes 6 parameters but the arguments pack into 7; "
              "the first extra one is argument 2 (f32)");
  expectOk(packArguments({view2d()}, &packed));
  expectError(checkSignature(packed, layoutOf({view2d(), 1.0f})),
              "the kernel takes 6 parameters but the arguments pack into 5");
}

//===----------------------------------------------------------------------===//
// Tensor maps (TMA)
//===----------------------------------------------------------------------===//

// A bf16 (b, L, n) view of 2 x 100 x 128, rows padded to 136 elements.
ViewArg bf16View(DevicePtr ptr = kPtr) {
  return ViewArg{ptr, 2, {2, 100, 128}, {100 * 136, 136, 1}, 0};
}

TensorMapSpec spec3d() { return {0, {1, 64, 64}, 128}; }

TEST(TensorMaps, ParseTable) {
  const int32_t table[] = {1, 2, 0, 3, 128, 1, 64, 64, 0, 0,
                           4, 2, 128, 32, 32, 0, 0, 0};
  std::vector<TensorMapSpec> maps;
  expectOk(parseTensorMapTable(table, std::size(table), &maps));
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0], (TensorMapSpec{0, {1, 64, 64}, 128}));
  EXPECT_EQ(maps[1], (TensorMapSpec{4, {32, 32}, 128}));
  // Version 2: a flags word per map (1: a store).
  const int32_t v2[] = {2, 2, 0, 3, 128, 1, 64, 64, 0, 0, 1,
                        4, 2, 128, 32, 32, 0, 0, 0, 0};
  expectOk(parseTensorMapTable(v2, std::size(v2), &maps));
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0], (TensorMapSpec{0, {1, 64, 64}, 128, true}));
  EXPECT_EQ(maps[1], (TensorMapSpec{4, {32, 32}, 128, false}));
  expectError(parseTensorMapTable(v2, 19, &maps),
              "19 words cannot hold 2 maps");
  const int32_t version3[] = {3, 0};
  expectError(parseTensorMapTable(version3, 2, &maps),
              "tensor map table: unknown format (version 3)");
  expectError(parseTensorMapTable(table, 10, &maps),
              "10 words cannot hold 2 maps");
  int32_t badRank[] = {1, 1, 0, 6, 128, 1, 1, 1, 1, 1};
  expectError(parseTensorMapTable(badRank, 10, &maps),
              "map 0 has argument 0, rank 6, swizzle 128");
  // Unswizzled (a copy read into registers): the element size in bits 8-15
  // of the flags.
  const int32_t plain[] = {2, 1, 3, 3, 0, 1, 1, 64, 0, 0, 4 << 8};
  expectOk(parseTensorMapTable(plain, std::size(plain), &maps));
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps[0], (TensorMapSpec{3, {1, 1, 64}, 0, false, 4}));
  const int32_t plainUnsized[] = {2, 1, 3, 3, 0, 1, 1, 64, 0, 0, 0};
  expectError(parseTensorMapTable(plainUnsized, 11, &maps),
              "map 0 is unswizzled but of element size 0");
  const int32_t plainStore[] = {2, 1, 3, 3, 0, 1, 1, 64, 0, 0, 1 | 4 << 8};
  expectError(parseTensorMapTable(plainStore, 11, &maps),
              "map 0 is unswizzled but a store");
  const int32_t swizzle64[] = {2, 1, 3, 3, 64, 1, 1, 64, 0, 0, 0};
  expectError(parseTensorMapTable(swizzle64, 11, &maps),
              "map 0 has argument 3, rank 3, swizzle 64");
}

TEST(TensorMaps, PackedAfterTheArgumentsAt64Bytes) {
  PackedArgs packed;
  expectOk(packArguments({bf16View(), int32_t{7}}, &packed,
                         {spec3d(), spec3d()}));
  // 7 view slots (56 bytes) and an i32 at 56: the maps at 64 and 192.
  ASSERT_EQ(packed.numParams(), 10u);
  EXPECT_EQ(packed.slots()[8].kind, ParamKind::TensorMap);
  EXPECT_EQ(packed.slots()[8].offset, 64u);
  EXPECT_EQ(packed.slots()[8].size, kTensorMapBytes);
  EXPECT_EQ(packed.slots()[8].argIndex, 0u);
  EXPECT_EQ(packed.slots()[9].offset, 192u);
  EXPECT_EQ(packed.slots()[9].argIndex, 1u);
  EXPECT_EQ(packed.size(), 320u);
  EXPECT_EQ(describeSlot(packed.slots()[9]), "tensor map 1");
  EXPECT_EQ(packed.slotData(9), packed.data() + 192);
  // The driver may place a map elsewhere (its constant bank's alignment):
  // only the size must agree.
  std::vector<ParamInfo> driver;
  for (const ParamSlot &slot : packed.slots())
    driver.push_back({slot.offset, slot.size});
  driver[8].offset = 112;
  driver[9].offset = 240;
  expectOk(checkSignature(packed, driver));
  driver[9].size = 64;
  expectError(checkSignature(packed, driver),
              "kernel parameter 9 is 64 bytes at offset 240, but the "
              "arguments put tensor map 1 there, 128 bytes at offset 192");
}

TEST(TensorMaps, ValidateWhatTheCopyEngineNeeds) {
  LaunchConfig config;
  config.grid = {2, 1, 1};
  const std::vector<TensorMapSpec> maps = {spec3d()};
  expectOk(validateLaunch(config, {bf16View()}, {}, maps));
  expectError(validateLaunch(config, {1.0f}, {}, maps),
              "tensor map 0 (argument 0): the kernel copies a view there, but "
              "the argument is not a view");
  ViewArg rank2{kPtr, 2, {100, 128}, {136, 1}, 0};
  expectError(validateLaunch(config, {rank2}, {}, maps),
              "a view of rank 2 for a box of rank 3");
  ViewArg v = bf16View(kPtr + 8);
  expectError(validateLaunch(config, {v}, {}, maps),
              "the TMA needs a 16-byte aligned base address, got "
              "0x7f0000001008");
  v = bf16View();
  v.strides[1] = 130; // 260 bytes
  expectError(validateLaunch(config, {v}, {}, maps),
              "stride 1 is 130 elements of 2 bytes");
  v = bf16View();
  v.strides[0] = 0; // a broadcast batch
  expectError(validateLaunch(config, {v}, {}, maps),
              "positive multiple of 16 bytes below 2^40 bytes; stride 0 is 0");
  v = bf16View();
  v.strides = {100 * 136 * 2, 2, 200};
  expectError(validateLaunch(config, {v}, {}, maps),
              "the TMA needs unit stride along the last dimension, got 200");
  v = bf16View();
  v.sizes[1] = 0;
  expectError(validateLaunch(config, {v}, {}, maps),
              "the TMA cannot read a view of sizes [2, 0, 128]");
  // An empty grid encodes no map: nothing to check.
  config.grid = {0, 1, 1};
  expectOk(validateLaunch(config, {v}, {}, maps));
  config.grid = {2, 1, 1};
  expectError(validateLaunch(config, {bf16View()}, {},
                             {TensorMapSpec{0, {1, 64, 128}, 128}}),
              "box rows of 256 bytes (128 elements of 2 bytes) instead of "
              "the swizzle span of 128");
  // A view of another element size than the kernel's.
  ViewArg f32 = bf16View();
  f32.elementBytes = 4;
  f32.strides = {100 * 128, 128, 1};
  expectError(validateLaunch(config, {f32}, {}, maps),
              "box rows of 256 bytes (64 elements of 4 bytes) instead of the "
              "swizzle span of 128: the view's element size is not the "
              "kernel's");
  expectError(validateLaunch(config, {bf16View()}, {},
                             {TensorMapSpec{0, {1, 300, 64}, 128}}),
              "box [1, 300, 64] has an extent outside 1..256");
  // Unswizzled: rows of whole 16-byte chunks, of the compiled element size.
  expectOk(validateLaunch(config, {f32}, {},
                          {TensorMapSpec{0, {1, 1, 64}, 0, false, 4}}));
  expectOk(validateLaunch(config, {bf16View()}, {},
                          {TensorMapSpec{0, {1, 2, 24}, 0, false, 2}}));
  expectError(validateLaunch(config, {bf16View()}, {},
                             {TensorMapSpec{0, {1, 1, 64}, 0, false, 4}}),
              "tensor map 0 (argument 0): elements of 2 bytes, but the kernel "
              "copies elements of 4: the view's element size is not the "
              "kernel's");
  expectError(validateLaunch(config, {bf16View()}, {},
                             {TensorMapSpec{0, {1, 1, 12}, 0, false, 2}}),
              "box rows of 24 bytes are not whole 16-byte chunks");
  // A store map: the last extent in whole 16 bytes (128 bf16 pass; 100 do
  // not, though a load map takes them).
  const std::vector<TensorMapSpec> storeMaps = {
      TensorMapSpec{0, {1, 64, 64}, 128, true}};
  expectOk(validateLaunch(config, {bf16View()}, {}, storeMaps));
  v = bf16View();
  v.sizes[2] = 100;
  expectOk(validateLaunch(config, {v}, {}, maps));
  expectError(validateLaunch(config, {v}, {}, storeMaps),
              "tensor map 0 (argument 0): the kernel stores through the TMA, "
              "which writes whole 16-byte chunks along the last dimension: "
              "its extent must be a multiple of 16 bytes, got 100 elements "
              "of 2 bytes");
}

//===----------------------------------------------------------------------===//
// Image selection
//===----------------------------------------------------------------------===//

const unsigned char kBytes[4] = {0x7f, 'E', 'L', 'F'};

Image image(const std::string &target) { return {target, kBytes, 4}; }

TEST(Images, ParseTarget) {
  Target t;
  ASSERT_TRUE(parseTarget("sm_90a", &t));
  EXPECT_EQ(t.major, 9);
  EXPECT_EQ(t.minor, 0);
  EXPECT_EQ(t.kind, Target::ArchSpecific);
  ASSERT_TRUE(parseTarget("sm_103a", &t));
  EXPECT_EQ(t.major, 10);
  EXPECT_EQ(t.minor, 3);
  ASSERT_TRUE(parseTarget("sm_100f", &t));
  EXPECT_EQ(t.kind, Target::FamilySpecific);
  ASSERT_TRUE(parseTarget("sm_80", &t));
  EXPECT_EQ(t.major, 8);
  EXPECT_EQ(t.kind, Target::Plain);
  for (const char *bad : {"", "sm_", "sm_9", "sm_9a", "sm90a", "compute_90a",
                          "sm_90b", "sm_1000a", "sm_090", "sm_9x", "SM_90a"})
    EXPECT_FALSE(parseTarget(bad, &t)) << bad;
}

TEST(Images, ArchSpecificRunsOnlyOnItsCapability) {
  Target t;
  ASSERT_TRUE(parseTarget("sm_100a", &t));
  EXPECT_TRUE(runsOn(t, 10, 0));
  EXPECT_FALSE(runsOn(t, 10, 3));
  EXPECT_FALSE(runsOn(t, 9, 0));
  ASSERT_TRUE(parseTarget("sm_100f", &t));
  EXPECT_TRUE(runsOn(t, 10, 3));
  EXPECT_FALSE(runsOn(t, 12, 0));
  ASSERT_TRUE(parseTarget("sm_103", &t));
  EXPECT_FALSE(runsOn(t, 10, 0));
  EXPECT_EQ(archSpecificTarget(9, 0), "sm_90a");
  EXPECT_EQ(archSpecificTarget(10, 3), "sm_103a");
}

TEST(Images, PicksTheDevicesArchSpecificImage) {
  std::vector<Image> images = {image("sm_100a"), image("sm_103a"),
                               image("sm_90a")};
  size_t index = 99;
  expectOk(selectImage(images, 9, 0, &index));
  EXPECT_EQ(index, 2u);
  expectOk(selectImage(images, 10, 0, &index));
  EXPECT_EQ(index, 0u);
  expectOk(selectImage(images, 10, 3, &index));
  EXPECT_EQ(index, 1u);
}

TEST(Images, PrefersArchSpecificThenFamilyThenNewestPlain) {
  std::vector<Image> images = {image("sm_90"), image("sm_100"),
                               image("sm_100f"), image("sm_103"),
                               image("sm_103a")};
  size_t index = 99;
  expectOk(selectImage(images, 10, 3, &index));
  EXPECT_EQ(index, 4u);
  images.pop_back();
  expectOk(selectImage(images, 10, 3, &index));
  EXPECT_EQ(index, 2u);
  images.erase(images.begin() + 2);
  expectOk(selectImage(images, 10, 3, &index));
  EXPECT_EQ(index, 2u); // sm_103 over sm_100
  expectOk(selectImage(images, 10, 0, &index));
  EXPECT_EQ(index, 1u);
}

TEST(Images, NoneFits) {
  size_t index = 99;
  expectError(selectImage({image("sm_100a"), image("sm_103a")}, 9, 0, &index),
              "no cubin image runs on this device (compute capability 9.0: "
              "it runs sm_90a, or sm_9<m> and sm_9<m>f with m <= 0); "
              "available targets: sm_100a, sm_103a");
  EXPECT_EQ(index, 99u);
  // An arch-specific cubin of a neighbouring capability does not run.
  expectError(selectImage({image("sm_100a")}, 10, 3, &index),
              "compute capability 10.3");
  expectError(selectImage({}, 9, 0, &index),
              "no cubin images to choose from for a device of compute "
              "capability 9.0");
}

TEST(Images, RejectsMalformedImages) {
  size_t index = 0;
  expectError(selectImage({image("sm_90a"), image("hopper")}, 9, 0, &index),
              "image 1 has a malformed target 'hopper'");
  expectError(selectImage({image("sm_90a"), Image{"sm_100a", nullptr, 0}}, 9, 0,
                          &index),
              "image 1 (sm_100a) has no bytes");
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

TEST(Stats, Median) {
  EXPECT_EQ(median({3.0f}), 3.0f);
  EXPECT_EQ(median({5.0f, 1.0f, 3.0f}), 3.0f);
  EXPECT_EQ(median({4.0f, 1.0f, 3.0f, 2.0f}), 2.5f);
  EXPECT_EQ(median({9.0f, 1.0f, 1.0f, 1.0f, 100.0f}), 1.0f);
  EXPECT_TRUE(std::isnan(median({})));
}

//===----------------------------------------------------------------------===//
// Tuned tables: the nearest row of the device's target and the variant
//===----------------------------------------------------------------------===//

TEST(Tuning, NearestRowOfTargetAndVariant) {
  const int64_t v256[] = {256, 5}, v128[] = {128, 5};
  // log2 of (1024, 24), (4096, 80), (65536, 80), (262144, 80).
  const double l80 = std::log2(80.0);
  const double s1k[] = {10, std::log2(24.0)}, s4k[] = {12, l80},
               s64k[] = {16, l80}, s256k[] = {18, l80};
  const TunedRow rows[] = {
      {"sm_90a", v256, s1k, 10},  {"sm_90a", v256, s4k, 11},
      {"sm_90a", v256, s64k, 12}, {"sm_90a", v128, s64k, 13},
      {"sm_100a", v256, s4k, 14}, {"sm_90a", v256, s256k, 15},
  };
  auto pick = [&](std::string_view target, const int64_t *variant,
                  std::initializer_list<int64_t> shape) {
    int r = nearestTunedRow(rows, std::size(rows), target, variant, 2,
                            shape.begin(), shape.size());
    return r < 0 ? -1 : rows[r].entry;
  };
  EXPECT_EQ(pick("sm_90a", v256, {4096, 80}), 11);    // exact
  EXPECT_EQ(pick("sm_90a", v256, {8192, 80}), 11);    // 1 from 4k, 3 from 64k
  EXPECT_EQ(pick("sm_90a", v256, {32768, 80}), 12);   // 1 from 64k
  EXPECT_EQ(pick("sm_90a", v256, {1 << 30, 80}), 15); // past the last row
  EXPECT_EQ(pick("sm_90a", v256, {1024, 20}), 10);
  EXPECT_EQ(pick("sm_90a", v128, {4096, 80}), 13);    // its variant's only row
  EXPECT_EQ(pick("sm_100a", v256, {65536, 80}), 14);  // its target's only row
  const int64_t v64[] = {64, 5};
  EXPECT_EQ(pick("sm_90a", v64, {4096, 80}), -1);     // no row: the default
  EXPECT_EQ(pick("sm_103a", v256, {4096, 80}), -1);
  // Ties go to the first row: 2048 is 1 from 1024 and 1 from 4096.
  const double s1k80[] = {10, l80};
  const int64_t mid[] = {2048, 80};
  const TunedRow tie[] = {{"sm_90a", v256, s4k, 1},
                          {"sm_90a", v256, s1k80, 2}};
  EXPECT_EQ(nearestTunedRow(tie, 2, "sm_90a", v256, 2, mid, 2), 0);
  const TunedRow tieSwapped[] = {tie[1], tie[0]};
  EXPECT_EQ(nearestTunedRow(tieSwapped, 2, "sm_90a", v256, 2, mid, 2), 0);
  // Sizes below 1 count as 1: a launch with an empty dimension still picks
  // the row nearest to size 1 (log2 1 = 0), not a NaN-poisoned one.
  const double one[] = {0, 0}, big[] = {20, 20};
  const TunedRow clamp[] = {{"sm_90a", v256, big, 1},
                            {"sm_90a", v256, one, 2}};
  const int64_t empty[] = {0, -5};
  EXPECT_EQ(nearestTunedRow(clamp, 2, "sm_90a", v256, 2, empty, 2), 1);
}

} // namespace
