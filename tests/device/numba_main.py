# Device-only: numba-cuda kernels with full debug information (debug=True,
# opt=False) run under cuda-gdb (numba.gdb stops at lines of this file), with
# the PTX numba compiled for the launched signatures written to OUT_DIR, so
# that the transcript can be held against `lookup` on exactly that PTX.
# usage: python3 numba_main.py OUT_DIR
# The line numbers of this file are in numba.gdb and in the unit test that
# reads the transcript: edit neither without the other.
import os
import sys

import numpy as np

# numba-cuda 0.x registers an overload for np.row_stack, which NumPy 2.4 removed.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda, float32, int32  # noqa: E402


@cuda.jit(debug=True, opt=False)
def poly(out, x, n):
    i = cuda.grid(1)
    if i < x.size:
        acc = float32(0.0)
        p = float32(1.0)
        for k in range(n):
            acc += p
            p *= x[i]
        out[i] = acc  # line 29: acc = 1 + x + ... + x**(n-1)


@cuda.jit(debug=True, opt=False)
def histogram(data, bins, nbins):
    i = cuda.grid(1)
    if i < data.size:
        b = int32(data[i] * nbins)
        if b >= nbins:
            b = nbins - 1
        cuda.atomic.add(bins, b, 1)  # line 39


def main():
    out_dir = sys.argv[1]
    x = np.full(32, 2.0, dtype=np.float32)
    x[3] = 3.0
    out = np.zeros(32, dtype=np.float32)
    poly[1, 32](out, x, 4)
    assert out[3] == 1 + 3 + 9 + 27 and out[0] == 15, out
    data = (np.arange(64, dtype=np.float32) / 64).astype(np.float32)
    bins = np.zeros(8, dtype=np.int32)
    histogram[2, 32](data, bins, 8)
    assert list(bins) == [8] * 8, bins
    for kernel in (poly, histogram):
        for i, ptx in enumerate(kernel.inspect_asm().values()):
            name = f"numba_{kernel.__name__}_G.ptx" if i == 0 else f"numba_{kernel.__name__}_G{i}.ptx"
            with open(os.path.join(out_dir, name), "w") as f:
                f.write(ptx)
            print(name, len(ptx), "bytes")
    print("results checked")


if __name__ == "__main__":
    main()
