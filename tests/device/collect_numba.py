# Device-only: PTX as numba-cuda emits it through NVVM, with full debug
# information (debug=True, opt=False) and with line tables only, for the corpus.
import os
import sys

import numpy as np

# numba-cuda 0.x registers an overload for np.row_stack, which NumPy 2.4 removed.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda, float32, int32  # noqa: E402

out = sys.argv[1]


def axpy(r, a, x, y):
    i = cuda.grid(1)
    if i < r.size:
        t = a * x[i]
        r[i] = t + y[i]


def histogram(data, bins, nbins):
    i = cuda.grid(1)
    if i < data.size:
        b = int32(data[i] * nbins)
        if b >= nbins:
            b = nbins - 1
        cuda.atomic.add(bins, b, 1)


kernels = [
    (axpy, (float32[:], float32, float32[:], float32[:])),
    (histogram, (float32[:], int32[:], int32)),
]
for fn, sig in kernels:
    for mode, opts in (("debug", dict(debug=True, opt=False)), ("lineinfo", dict(lineinfo=True))):
        ptx, _ = cuda.compile_ptx(fn, sig, cc=(8, 0), **opts)
        name = f"numba_{fn.__name__}_{mode}.ptx"
        with open(os.path.join(out, name), "w") as f:
            f.write(ptx)
        print(name, len(ptx), "bytes")
