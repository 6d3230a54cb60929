"""Producing from Python: the Program and Builder make PTX that ptxas -g accepts,
whose cubin's line table (llvm-dwarfdump --debug-line) has exactly the rows asked
for and whose DIEs are those built; misuse raises BuildError naming the problem;
annotate() equals `ptxdump annotate`."""
import os
import re
import subprocess
import tempfile
import unittest

from support import FIXTURES, ptxdwarf, run_ptxdump, tool  # first: finds the build's ptxdwarf
from producer_example import SAXPY, SCALE, build_saxpy  # noqa: E402
import tiny_saxpy  # noqa: E402


def ptxas_rows(requests):
    """The rows `ptxas -g` (CUDA 13) writes for these requests, as measured (see
    tests/corpus/producer_program_test.cpp, ptxasRows): no column; a request on the
    line of the row before adds no row; entering inlined code first writes a row
    for the call site of each inline level entered."""
    rows, previous = [], None
    for path, line, _, calls in requests:
        for k, call in enumerate(calls):
            if previous is None or k >= len(previous) or previous[k] != call:
                rows.append((call[0], call[1]))
        if not rows or rows[-1] != (path, line):
            rows.append((path, line))
        previous = calls
    return rows


def debug_line_rows(dump):
    """(path, line) of every row of `llvm-dwarfdump --debug-line` but the end of a sequence."""
    dirs = dict((int(i), d) for i, d in re.findall(r'include_directories\[\s*(\d+)\] = "([^"]*)"', dump))
    files = {}
    for index, name, directory in re.findall(r'file_names\[\s*(\d+)\]:\s+name: "([^"]*)"\s+dir_index: (\d+)', dump):
        files[int(index)] = (dirs[int(directory)] + "/" if int(directory) else "") + name
    rows = []
    for line, file_, flags in re.findall(r"^0x[0-9a-f]+\s+(\d+)\s+\d+\s+(\d+)\s+\d+\s+\d+\s+(.*)$", dump, re.M):
        if "end_sequence" not in flags:
            rows.append((files[int(file_)], int(line)))
    return rows


class TinyRendererTest(unittest.TestCase):
    """docs/python.md's tinygrad-style renderer: the kernel's `.loc` lines are
    the Python lines that made each operation, ptxas -g accepts the PTX, and its
    line table and DWARF say so."""

    def setUp(self):
        self.kernel = tiny_saxpy.saxpy()
        self.text, self.diagnostics = self.kernel.render()
        with open(tiny_saxpy.__file__) as f:
            self.source = f.read().splitlines()

    def test_every_row_is_a_line_of_the_kernel_source_that_made_code(self):
        self.assertEqual([str(d) for d in self.diagnostics if d.severity != "note"], [])
        body = [n for n, text in enumerate(self.source, 1) if text.startswith("    ")]
        for (path, line, column), code in self.kernel.operations:
            self.assertEqual(path, os.path.abspath(tiny_saxpy.__file__))
            self.assertIn(line, body)
            self.assertGreater(column, 0)
            self.assertTrue(self.source[line - 1][column - 1:].strip(), (line, column))
        store = next(n for n, text in enumerate(self.source, 1) if text.strip().startswith("y[i] ="))
        self.assertIn("\t.loc\t1 %d 5\n" % store, self.text)  # the store: column of `y[i]`

    def test_ptxas_accepts_it_and_its_line_table_is_the_python_lines(self):
        ptxas, dwarfdump = tool("ptxas"), tool("llvm-dwarfdump", "llvm-dwarfdump-19", "llvm-dwarfdump-14")
        if not ptxas or not dwarfdump:
            self.skipTest("ptxas or llvm-dwarfdump not found")
        with tempfile.TemporaryDirectory() as tmp:
            ptx, cubin = os.path.join(tmp, "saxpy.ptx"), os.path.join(tmp, "saxpy.cubin")
            with open(ptx, "w") as f:
                f.write(self.text)
            r = subprocess.run([ptxas, "-arch=sm_80", "-g", ptx, "-o", cubin], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = subprocess.run([dwarfdump, "--debug-line", cubin], capture_output=True, text=True).stdout
            info = subprocess.run([dwarfdump, "--debug-info", cubin], capture_output=True, text=True).stdout
        requests = [(path, line, column, []) for (path, line, column), _ in self.kernel.operations]
        requests.append((*self.kernel.position, []))  # ret
        self.assertEqual(debug_line_rows(lines), ptxas_rows(requests), lines)
        for name in ("saxpy", "x", "y", "a", "i", "scaled", "r"):
            self.assertIn('DW_AT_name\t("%s")' % name, info)

    def test_a_debugger_at_the_store_sees_every_named_value_in_its_register(self):
        m = ptxdwarf.parse(self.text, name="saxpy.ptx")
        store = next(n for n, text in enumerate(self.source, 1) if text.strip().startswith("y[i] ="))
        [match] = m.lookup("tiny_saxpy.py:%d" % store, strict=True)
        where = {v.name: v.location for v in match.variables}
        named = {name: value.register for name, value, _ in self.kernel.named}
        self.assertEqual(set(named), {"i", "scaled", "r"})
        for name, register in named.items():
            self.assertEqual(where[name], register)
        self.assertEqual((where["x"], where["a"]), ("saxpy_x", "saxpy_a"))


class ProducerTest(unittest.TestCase):
    def test_assembled_program_is_accepted_by_ptxas_with_the_rows_asked_for(self):
        p, b, requests = build_saxpy()
        text, diagnostics = p.assemble(b, check=True, filename="saxpy.ptx")
        self.assertEqual([str(d) for d in diagnostics if d.severity != "note"], [])
        self.assertIn("\t.loc\t2 2 13, function_name $L__info_string0, inlined_at 1 5 12\n", text)
        ptxas, dwarfdump = tool("ptxas"), tool("llvm-dwarfdump", "llvm-dwarfdump-19", "llvm-dwarfdump-14")
        if not ptxas or not dwarfdump:
            self.skipTest("ptxas or llvm-dwarfdump not found")
        with tempfile.TemporaryDirectory() as tmp:
            ptx, cubin = os.path.join(tmp, "saxpy.ptx"), os.path.join(tmp, "saxpy.cubin")
            with open(ptx, "w") as f:
                f.write(text)
            r = subprocess.run([ptxas, "-arch=sm_80", "-g", ptx, "-o", cubin], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("error", r.stderr)
            dump = subprocess.run([dwarfdump, "--debug-line", cubin], capture_output=True, text=True).stdout
        want = ptxas_rows(requests)
        self.assertEqual(len(want), 9)  # 3 4 5, 5 (the call site), 2 3 in scale.h, 5 4 6
        self.assertEqual(debug_line_rows(dump), want, dump)

    def test_the_dies_read_back_are_those_built(self):
        p, b, _ = build_saxpy()
        m = ptxdwarf.parse(p.assemble(b), name="saxpy.ptx")
        dies = [(d.tag, d.name) for d in m.units[0].iter_dies()]
        self.assertEqual(dies, [
            ("DW_TAG_compile_unit", "saxpy.cu"), ("DW_TAG_base_type", "int"), ("DW_TAG_base_type", "float"),
            ("DW_TAG_pointer_type", None), ("DW_TAG_subprogram", "scale"), ("DW_TAG_formal_parameter", "a"),
            ("DW_TAG_formal_parameter", "v"), ("DW_TAG_variable", "r"), ("DW_TAG_subprogram", "saxpy"),
            ("DW_TAG_formal_parameter", "n"), ("DW_TAG_formal_parameter", "a"), ("DW_TAG_formal_parameter", "x"),
            ("DW_TAG_formal_parameter", "y"), ("DW_TAG_variable", "i"), ("DW_TAG_lexical_block", None),
            ("DW_TAG_inlined_subroutine", None)])
        by_name = {d.name: d for d in m.units[0].iter_dies() if d.name}
        self.assertEqual(by_name["i"].location.text, "DW_OP_regx %r2")
        self.assertEqual(by_name["n"].location.text, "DW_OP_addr saxpy_n")
        self.assertEqual(by_name["i"].attributes["DW_AT_decl_file"].text, '"%s"' % SAXPY)
        self.assertEqual(by_name["r"].attributes["DW_AT_decl_file"].text, '"%s"' % SCALE)
        self.assertEqual(by_name["saxpy"].attributes["DW_AT_low_pc"].symbol, "$L__func_begin0")
        inlined = [r for r in m.line_table() if r.inlined_at]
        self.assertEqual([(r.file, r.line, r.column) for r in inlined], [(SCALE, 2, 13), (SCALE, 3, 3)])
        self.assertEqual([(f.function, f.file, f.line, f.column) for f in inlined[0].inlined_at],
                         [("scale(float, float)", SAXPY, 5, 12)])

    def test_types_and_a_global_variable_read_back_as_built(self):
        p = ptxdwarf.Program()
        cu = p.add_file("/src/g.cu")
        p.code(".global .align 4 .b8 table[64];\n"
               ".visible .entry g()\n{\n\t.reg .b32 %r<2>;\n")
        begin, end = p.begin_function()
        p.loc(cu, 4, 3)
        p.code("\tld.global.u32 %r1, [table];\n")
        p.loc(cu, 5, 1)
        p.code("\tret;\n")
        p.end_function()
        p.code("}\n")
        b = ptxdwarf.Builder(policy="compact")
        b.compile_unit(producer="test", name="g.cu", comp_dir="/src")
        int_t = b.base_type("int", 0x05, 4)
        pair = b.struct_type("pair", 8)
        b.member(pair, "a", int_t, 0, decl_file=cu, decl_line=1)
        b.member(pair, "b", int_t, 4, decl_file=cu, decl_line=1)
        table_t = b.array_type(pair, [8])
        b.variable(b.root, "table", decl_file=cu, decl_line=2, type=table_t, external=True,
                   location=ptxdwarf.Location.symbol("table", space="global"))
        g = b.subprogram(name="g", linkage_name="g", decl_file=cu, decl_line=3, low_pc=begin, high_pc=end)
        b.variable(g, "c", decl_file=cu, decl_line=4, type=b.const_type(int_t),
                   location=ptxdwarf.Location.register("%r1"))
        text, found = p.assemble(b, check=True, filename="g.ptx")
        self.assertEqual([str(d) for d in found if d.severity != "note"], [])
        m = ptxdwarf.parse(text, name="g.ptx")
        by_name = {d.name: d for d in m.units[0].iter_dies() if d.name}
        table = by_name["table"]
        self.assertRegex(table.attributes["DW_AT_type"].text, r'^0x[0-9a-f]{8} "pair\[8\]"$')
        self.assertEqual(table.location.text, "DW_OP_addr table")
        self.assertEqual(table.attributes["DW_AT_address_class"].value, 5)  # ADDR_global_space
        self.assertEqual([(c.name, c.attributes["DW_AT_data_member_location"].value) for c in by_name["pair"].children],
                         [("a", b"\x23\x00"), ("b", b"\x23\x04")])  # DW_OP_plus_uconst (DWARF 2 blocks)
        self.assertRegex(by_name["c"].attributes["DW_AT_type"].text, r'^0x[0-9a-f]{8} "const int"$')
        self.assertEqual(by_name["c"].attributes["DW_AT_address_class"].value, 2)  # ADDR_reg_space
        self.assertEqual([(r.line, r.column) for r in m.line_table()], [(4, 3), (5, 1)])
        ptxas = tool("ptxas")
        if ptxas:
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "g.ptx")
                with open(path, "w") as f:
                    f.write(text)
                r = subprocess.run([ptxas, "-arch=sm_80", "-g", path, "-o", os.path.join(tmp, "g.cubin")],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_misuse_raises_build_error_naming_it(self):
        p = ptxdwarf.Program()
        p.add_file("/src/k.cu")
        with self.assertRaisesRegex(ptxdwarf.BuildError, "names file id 7, which is not in the file table"):
            p.loc(7, 1, 0)
        with self.assertRaisesRegex(ptxdwarf.BuildError, "%abcdefghij"):
            ptxdwarf.Location.register("%abcdefghij")
        b = ptxdwarf.Builder()
        b.compile_unit(name="k.cu")
        with self.assertRaisesRegex(ptxdwarf.BuildError, "%r123456789"):
            b.register_variable(b.root, "%r123456789")
        with self.assertRaisesRegex(ptxdwarf.BuildError, "already has"):
            p.add_file("/src/k.cu", timestamp=5)
            p.add_file("/src/k.cu", timestamp=6)
        with self.assertRaisesRegex(ValueError, "unknown state space 'nowhere'"):
            ptxdwarf.Location.symbol("x", space="nowhere")
        with self.assertRaises(ptxdwarf.BuildError):
            ptxdwarf.Program().end_function()
        self.assertTrue(issubclass(ptxdwarf.BuildError, ptxdwarf.Error))
        self.assertTrue(issubclass(ptxdwarf.Error, ValueError))

    def test_assemble_refuses_a_decl_file_not_in_the_table(self):
        p = ptxdwarf.Program()
        p.add_file("/src/k.cu")
        b = ptxdwarf.Builder()
        b.compile_unit(name="k.cu")
        b.subprogram(name="f", linkage_name="f", decl_file=3, decl_line=1)
        with self.assertRaisesRegex(ptxdwarf.BuildError, "3"):
            p.assemble(b)


class AnnotateTest(unittest.TestCase):
    def test_annotate_equals_ptxdump_annotate(self):
        for name, options, flags in (("dsl.ptx", {"rename_registers": True}, ["--rename-registers"]),
                                     ("cccl_O3.ptx", {"keep_lines": True}, ["--keep-lines"])):
            with self.subTest(name=name):
                path = FIXTURES / "annotate" / name
                r = run_ptxdump("annotate", path, *flags)
                self.assertEqual(r.returncode, 0, r.stderr)
                out, warnings = ptxdwarf.annotate(path.read_bytes(), name=str(path), diagnostics=True, **options)
                self.assertEqual(out, r.stdout)
                self.assertEqual([str(w) for w in warnings], r.stderr.decode().splitlines())
                m = ptxdwarf.parse(out, name=name)
                self.assertEqual(len(m.units), 1)
                if not options.get("keep_lines"):  # the text became the source: a row per instruction line
                    self.assertGreater(len(m.line_table()), 10)

    def test_annotate_refuses_text_with_debug_information(self):
        with self.assertRaisesRegex(ptxdwarf.Error, "debug"):
            ptxdwarf.annotate((FIXTURES / "chapter6.ptx").read_text(), name="chapter6.ptx")


if __name__ == "__main__":
    unittest.main()
