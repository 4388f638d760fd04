#!/usr/bin/env python3
"""Where the HGMMAs and warpgroup syncs stand in an sm_90a cubin, without a
disassembler (this build machine has ptxas but neither cuobjdump nor nvdisasm).

    python3 bench/profile/cubin_hgmma.py KERNEL.sm_90a.cubin [...]

Prints, per kernel (.text section), the instruction index of each
  H  HGMMA with A from registers
  h  HGMMA with A from shared memory
  W  warpgroup sync (WARPGROUP.ARRIVE before a group, the DEPBAR wait after)
so that one can see whether ptxas kept instructions between the HGMMAs of one
group (the kernel hint wgmma_interleave) or packed them together.

The classes are the low 12 bits of each 128-bit instruction, read off CUDA
13.0's ptxas output on 2026-12-05 by comparing kernels that differ only in
those instructions (0xdf0: the count of register-A wgmmas in the PTX; 0x9f0:
the shared-memory ones; 0x9c5: +1 per added wgmma.fence). They are inferred,
not documented. They agree with the H200's SASS of the same PTX: at e1f1886
compute_out's default cubin gives H1797 H1802 H1805 H1808 W1809 ... H3085 H3086
W3087 and h505 W506, h593 W594, which are the HGMMA and WARPGROUP.DEPBAR lines
of ncu's source page at 17babc3 (bench/results/2026-12-05-17babc3-ncu/
compute_out.hot.txt; compute_out's PTX did not change in between). Check
them against `cuobjdump --dump-sass` where it exists (bench/pending-gpu-
checks.sh tests does, on the GPU machine).
"""
import struct
import sys

CLASSES = {0xDF0: "H", 0x9F0: "h", 0x9C5: "W"}


def text_sections(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit(f"{path}: not a 64-bit ELF file (a cubin)")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = []
    for i in range(shnum):
        name, _, _, _, off, size = struct.unpack_from(
            "<IIQQQQ", data, shoff + i * shentsize)
        sections.append((name, off, size))
    strtab = sections[shstrndx][1]
    for name, off, size in sections:
        end = data.index(b"\0", strtab + name)
        label = data[strtab + name:end].decode()
        if label.startswith(".text."):
            yield label[len(".text."):], data[off:off + size]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        for kernel, text in text_sections(path):
            marks = []
            for i in range(0, len(text) - 15, 16):
                cls = CLASSES.get(struct.unpack_from("<Q", text, i)[0] & 0xFFF)
                if cls:
                    marks.append(f"{cls}{i // 16}")
            print(f"{kernel} ({len(text) // 16} instructions): " + " ".join(marks))


if __name__ == "__main__":
    main()
