#!/usr/bin/env python3
"""The compiler's CTAs per SM against the driver's, on the GPU machine.

For every kernel compiled for this GPU's target in a build folder (the
`.txt` tesselc writes beside each cubin: warps, dynamic shared memory and
`ctas_per_sm`, codegen::residentCtas from the target table), loads the cubin
with libcuda, allows its dynamic shared memory and asks
cuOccupancyMaxActiveBlocksPerMultiprocessor. Prints one line per kernel that
disagrees and a summary; exits 1 on any disagreement.

    python3 test/gpu/occupancy.py [build/gpu]
"""

import ctypes
import glob
import os
import sys


def check(rc, what):
    if rc != 0:
        raise RuntimeError("%s failed: CUresult %d" % (what, rc))


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "build/gpu"
    cuda = ctypes.CDLL("libcuda.so.1")
    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    major, minor = ctypes.c_int(), ctypes.c_int()
    check(cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, dev), "major")  # COMPUTE_CAPABILITY_MAJOR
    check(cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev), "minor")
    target = "sm_%d%da" % (major.value, minor.value)
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    checked, wrong = 0, 0
    for txt in sorted(glob.glob(os.path.join(folder, "*.%s.txt" % target))):
        info = {}
        for line in open(txt):
            key, _, value = line.strip().partition(" ")
            info[key] = value
        if "ctas_per_sm" not in info:
            print("%s: no ctas_per_sm (built before the residency report?)" % txt)
            wrong += 1
            continue
        cubin = txt[:-4] + ".cubin"
        data = open(cubin, "rb").read()
        module, fn = ctypes.c_void_p(), ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(module), data), "cuModuleLoadData " + cubin)
        check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, info["kernel"].encode()),
              "cuModuleGetFunction " + info["kernel"])
        dynamic = int(info["dynamic_shared_bytes"])
        # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        check(cuda.cuFuncSetAttribute(fn, 8, dynamic), "cuFuncSetAttribute")
        blocks = ctypes.c_int()
        check(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(blocks), fn, int(info["warps"]) * 32, ctypes.c_size_t(dynamic)),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        ours = int(info["ctas_per_sm"])
        # Tensor memory is no launch limit to the driver: a CTA past the 512
        # columns becomes resident and waits in tcgen05.alloc.
        driver = blocks.value
        tmem = int(info.get("tmem_columns", "0"))
        if tmem:
            driver = min(driver, 512 // tmem)
        checked += 1
        if driver != ours:
            wrong += 1
            print("%s: tesselc says %d CTAs per SM (%s), the driver %d (warps %s, registers %s, "
                  "dynamic shared %d)" % (os.path.basename(txt), ours, info.get("ctas_limited_by"),
                                          driver, info["warps"], info["registers"], dynamic))
        check(cuda.cuModuleUnload(module), "cuModuleUnload")
    print("occupancy: %d %s kernels checked against the driver, %d disagree" % (checked, target, wrong))
    return 1 if wrong or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
