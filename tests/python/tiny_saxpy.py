"""The kernel of docs/python.md's tinygrad-style renderer (tiny_renderer.py):
its `.loc` lines point at the lines below."""
from tiny_renderer import Kernel


def saxpy():
    k = Kernel("saxpy")
    x, y, a = k.buffer("x"), k.buffer("y"), k.scalar("a")
    i = k.global_index()
    scaled = (a * x[i]).named("scaled")
    y[i] = (scaled + y[i] + 1.0).named("r")
    return k
