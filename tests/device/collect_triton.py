# Device-only: PTX as Triton emits it (line information from its own
# .file/.loc and a line-tables-only .debug_info), for the corpus.
import os
import sys

import torch
import triton
import triton.language as tl

out = sys.argv[1]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def save(name, compiled):
    with open(os.path.join(out, name), "w") as f:
        f.write(compiled.asm["ptx"])
    print(name, len(compiled.asm["ptx"]), "bytes")


x = torch.rand(4096, device="cuda")
y = torch.rand(4096, device="cuda")
o = torch.empty_like(x)
k = add_kernel[(4,)](x, y, o, 4096, BLOCK=1024)
torch.testing.assert_close(o, x + y)
save("triton_add.ptx", k)

m = torch.randn(64, 100, device="cuda")
s = torch.empty_like(m)
k = softmax_kernel[(64,)](s, m, m.stride(0), 100, BLOCK=128)
torch.testing.assert_close(s, torch.softmax(m, dim=1))
save("triton_softmax.ptx", k)

a = torch.randn(128, 128, device="cuda", dtype=torch.float16)
b = torch.randn(128, 128, device="cuda", dtype=torch.float16)
c = torch.empty(128, 128, device="cuda", dtype=torch.float32)
k = matmul_kernel[(2, 2)](a, b, c, 128, 128, 128, BM=64, BN=64, BK=32)
torch.testing.assert_close(c, (a.float() @ b.float()), atol=1e-2, rtol=1e-2)
save("triton_matmul.ptx", k)
