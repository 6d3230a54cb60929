"""A tinygrad-style renderer: a kernel is written as Python expressions over
buffers, each operation remembers the Python line (and column) that made it,
and the renderer emits PTX whose `.loc` lines point at those Python lines, with
DWARF for the kernel's parameters and for every value the user named -- so
cuda-gdb (or `ptxdump lookup kernel.py:LINE`) stops on the Python source.

    k = Kernel("saxpy")
    x, y, a = k.buffer("x"), k.buffer("y"), k.scalar("a")
    i = k.global_index()
    y[i] = (a * x[i] + y[i]).named("r")
    text, diagnostics = k.render()

tests/python/tiny_saxpy.py is that kernel; tests/python/test_producing.py
assembles what it renders with `ptxas -g` and reads it back.
"""
import inspect
import os
import struct

import ptxdwarf

DW_ATE_signed, DW_ATE_float = 0x05, 0x04
_HERE = os.path.abspath(__file__)


def _user_position():
    """(file, line, column) of the innermost caller outside this module: the
    line of the kernel's source that made the operation."""
    frame = inspect.currentframe()
    while frame and os.path.abspath(frame.f_code.co_filename) == _HERE:
        frame = frame.f_back
    info = inspect.getframeinfo(frame)
    column = getattr(info, "positions", None)
    column = column.col_offset + 1 if column and column.col_offset is not None else 0
    return os.path.abspath(info.filename), info.lineno, column


class Value:
    """A float or int value of the kernel: a PTX register, made by one operation."""

    def __init__(self, kernel, register, dtype):
        self.kernel, self.register, self.dtype, self.name = kernel, register, dtype, None

    def named(self, name):
        """Gives the value a source name: a DW_TAG_variable in the register."""
        self.name = name
        self.kernel.named.append((name, self, _user_position()))
        return self

    def _alu(self, op, other):
        if not isinstance(other, Value):
            other = self.kernel.constant(float(other))
        return self.kernel.emit(self.dtype, lambda d: "\t%s.f32 %s, %s, %s;\n" % (op, d, self.register, other.register))

    def __add__(self, other):
        return self._alu("add", other)

    def __mul__(self, other):
        return self._alu("mul", other)

    __radd__, __rmul__ = __add__, __mul__


class Buffer:
    """A `float*` parameter: indexing it loads, assigning to an index stores."""

    def __init__(self, kernel, name, pointer):
        self.kernel, self.name, self.pointer = kernel, name, pointer

    def _address(self, index):
        offset, address = self.kernel.new_register("rd"), self.kernel.new_register("rd")
        return ("\tmul.wide.s32 %s, %s, 4;\n\tadd.s64 %s, %s, %s;\n"
                % (offset, index.register, address, self.pointer.register, offset), address)

    def __getitem__(self, index):
        code, address = self._address(index)
        return self.kernel.emit("f32", lambda d: code + "\tld.global.f32 %s, [%s];\n" % (d, address))

    def __setitem__(self, index, value):
        code, address = self._address(index)
        self.kernel.emit(None, lambda d: code + "\tst.global.f32 [%s], %s;\n" % (address, value.register))


class Kernel:
    """One `.entry`: its parameters and its operations in the order written."""

    def __init__(self, name):
        self.name = name
        self.position = _user_position()
        self.params = []      # (ptx name, source name, "u64" or "f32")
        self.operations = []  # ((file, line, column), code)
        self.named = []       # (source name, Value, position)
        self.counts = {"f": 0, "r": 0, "rd": 0}

    def new_register(self, kind):
        self.counts[kind] += 1
        return "%%%s%d" % (kind, self.counts[kind])

    def emit(self, dtype, render):
        """An operation at the caller's line: `render(destination)` gives its PTX."""
        destination = self.new_register({"f32": "f", "s32": "r"}[dtype]) if dtype else None
        self.operations.append((_user_position(), render(destination)))
        return Value(self, destination, dtype) if dtype else None

    def _param(self, name, ptx_type):
        ptx_name = "%s_%s" % (self.name, name)
        self.params.append((ptx_name, name, ptx_type))
        return ptx_name

    def buffer(self, name):
        ptx_name = self._param(name, "u64")
        generic, pointer = self.new_register("rd"), self.new_register("rd")
        self.operations.append((_user_position(), "\tld.param.u64 %s, [%s];\n\tcvta.to.global.u64 %s, %s;\n"
                                % (generic, ptx_name, pointer, generic)))
        return Buffer(self, name, Value(self, pointer, "u64"))

    def scalar(self, name):
        ptx_name = self._param(name, "f32")
        return self.emit("f32", lambda d: "\tld.param.f32 %s, [%s];\n" % (d, ptx_name))

    def constant(self, number):
        bits = struct.unpack("<I", struct.pack("<f", number))[0]  # PTX writes a float as 0fXXXXXXXX
        return self.emit("f32", lambda d: "\tmov.f32 %s, 0f%08X;\n" % (d, bits))

    def global_index(self):
        """blockIdx.x * blockDim.x + threadIdx.x, named `i`."""
        tid, ctaid, ntid = self.new_register("r"), self.new_register("r"), self.new_register("r")
        value = self.emit("s32", lambda d: "\tmov.u32 %s, %%tid.x;\n\tmov.u32 %s, %%ctaid.x;\n\tmov.u32 %s, %%ntid.x;\n"
                          "\tmad.lo.s32 %s, %s, %s, %s;\n" % (tid, ctaid, ntid, d, ctaid, ntid, tid))
        value.name = "i"
        self.named.append(("i", value, self.operations[-1][0]))
        return value

    def render(self, check=True):
        """(PTX text, diagnostics): the kernel with its line table and DWARF."""
        p = ptxdwarf.Program(version="7.5", target="sm_80")
        files = {}

        def file_id(path):
            if path not in files:
                files[path] = p.add_file(path)
            return files[path]

        p.code(".visible .entry %s(\n\t%s)\n{\n" % (self.name, ", ".join(".param .%s %s" % (t, n)
                                                                      for n, _, t in self.params)))
        for kind, type_ in (("f", "f32"), ("r", "b32"), ("rd", "b64")):
            p.code("\t.reg .%s %%%s<%d>;\n" % (type_, kind, self.counts[kind] + 1))
        begin, end = p.begin_function()
        for (path, line, column), code in self.operations:
            p.loc(file_id(path), line, column)
            p.code(code)
        p.loc(file_id(self.position[0]), self.position[1], self.position[2])
        p.code("\tret;\n")
        p.end_function()
        p.code("}\n")

        b = ptxdwarf.Builder()
        path, line, _ = self.position
        b.compile_unit(producer="tiny renderer", name=os.path.basename(path), comp_dir=os.path.dirname(path))
        types = {"f32": b.base_type("float", DW_ATE_float, 4), "s32": b.base_type("int", DW_ATE_signed, 4)}
        types["u64"] = b.pointer_type(types["f32"])
        kernel = b.subprogram(name=self.name, linkage_name=self.name, decl_file=file_id(path), decl_line=line,
                              low_pc=begin, high_pc=end)
        for ptx_name, name, ptx_type in self.params:
            b.formal_parameter(kernel, name, decl_file=file_id(path), decl_line=line, type=types[ptx_type],
                               location=ptxdwarf.Location.symbol(ptx_name, space="param"))
        for name, value, (vpath, vline, _) in self.named:
            b.variable(kernel, name, decl_file=file_id(vpath), decl_line=vline, type=types[value.dtype],
                       location=ptxdwarf.Location.register(value.register))
        return p.assemble(b, check=check, filename=self.name + ".ptx")

