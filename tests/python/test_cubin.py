"""A cubin's line rows with inline stacks, register map, SASS lines and embedded PTX from Python:
each equal to what ptxdump prints of the same cubin (dump --debug-regmap/--sass-lines/--debug-line
--format json, extract --ptx), on cubins ptxas makes here of fixtures (nvcc -G's locals through
ptxas -g; fixtures/faults/lines/base.ptx, two levels of inlining, through ptxas -lineinfo)."""
import json
import os
import struct
import subprocess
import tempfile
import unittest

import ptxdwarf
from support import FIXTURES, json_text, run_ptxdump, tool


class CubinTables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ptxas = tool("ptxas")
        if not ptxas:
            raise unittest.SkipTest("ptxas not found")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.locals = os.path.join(cls.tmp.name, "locals.cubin")
        cls.inlined = os.path.join(cls.tmp.name, "inlined.cubin")
        for flag, ptx, out in (("-g", FIXTURES / "producers" / "nvcc_G_locals_main.ptx", cls.locals),
                               ("-lineinfo", FIXTURES / "faults" / "lines" / "base.ptx", cls.inlined)):
            r = subprocess.run([ptxas, flag, "-arch=sm_90", str(ptx), "-o", out], capture_output=True, text=True)
            if r.returncode != 0:
                raise AssertionError(r.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def dump_json(self, *args):
        r = run_ptxdump(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_regmap_equals_the_json_dump(self):
        m = ptxdwarf.read(self.locals)
        self.assertTrue(m.is_cubin)
        expected = self.dump_json("dump", "--debug-regmap", "--format", "json", self.locals)["regmap"]
        self.assertGreater(len(expected), 40)
        self.assertEqual(m.regmap(), expected)
        self.assertEqual(m.regmap()[0], {"function": "_Z8sumLocalPKii", "register": "%p1", "piece": 0,
                                         "loc": 0x2000000, "class": "predicate", "sass": "P0",
                                         "start": 0x190, "end": 0x1a0})

    def test_line_rows_and_inline_stacks_equal_the_json_dump(self):
        m = ptxdwarf.read(self.inlined)
        dumped = self.dump_json("dump", "--debug-line", "--format", "json", self.inlined)["line_tables"]
        expected = []
        for table in dumped:
            path = {f["index"]: json_text(f["path"]) for f in table["files"]}
            for r in table["rows"]:
                expected.append({"address": r["address"], "file": path[r["file"]], "line": r["line"],
                                 "column": r["column"], "is_stmt": r["is_stmt"],
                                 "end_sequence": r.get("end_sequence", False),
                                 "inlined_at": [{"function": json_text(f["function"]), "file": path[f["file"]],
                                                 "line": f["line"], "column": f["column"]}
                                                for f in r.get("inlined_at", [])]})
        self.assertEqual(m.line_rows(), expected)
        deepest = [r for r in m.line_rows() if len(r["inlined_at"]) == 2]
        self.assertEqual(len(deepest), 1)
        self.assertEqual((deepest[0]["address"], deepest[0]["file"], deepest[0]["line"]),
                         (0x40, "/home/dev/include/square.h", 9))
        self.assertEqual([(f["function"], f["file"], f["line"]) for f in deepest[0]["inlined_at"]],
                         [("_Z4bumpi", "/home/dev/include/square.h", 5), ("_Z6squarei", "/home/dev/kernel.cu", 21)])

    def test_sass_lines_name_lines_of_the_embedded_ptx(self):
        m = ptxdwarf.read(self.inlined)
        dumped = self.dump_json("dump", "--sass-lines", "--format", "json", self.inlined)["sass_lines"]
        expected = [{"address": r["address"], "ptx_line": r["line"], "end_sequence": r.get("end_sequence", False)}
                    for t in dumped for r in t["rows"]]
        self.assertEqual(m.sass_lines(), expected)
        ptx = m.embedded_ptx()
        self.assertEqual(ptx, run_ptxdump("extract", "--ptx", self.inlined).stdout.decode())
        lines = ptx.split("\n")
        self.assertTrue(all(1 <= r["ptx_line"] <= len(lines) for r in m.sass_lines()))
        first = m.sass_lines()[0]
        self.assertEqual((first["address"], first["ptx_line"]), (0, 13))

    def test_a_ptx_module_has_none_of_it(self):
        m = ptxdwarf.read(FIXTURES / "chapter6.ptx")
        self.assertFalse(m.is_cubin)
        for method in (m.line_rows, m.regmap, m.sass_lines, m.embedded_ptx):
            with self.assertRaisesRegex(ValueError, "not a cubin"):
                method()


def uleb(v):
    out = bytearray()
    while True:
        byte, v = v & 0x7F, v >> 7
        out.append(byte | (0x80 if v else 0))
        if not v:
            return bytes(out)


def inline_chain_cubin(rows):
    """An ELF64 file (as ptxas lays out a cubin) of a .debug_line whose one sequence has `rows` rows, each
    after the first inlined from the row before it (NVIDIA's DW_LNE 0x90: context, name), and a .debug_str
    holding the inlined function's name."""
    header = bytes([1, 1, 0xFB, 14, 10, 0, 1, 1, 1, 1, 0, 0, 0, 1]) + b"\0" + b"a.cu\0\0\0\0" + b"\0"
    header += struct.pack("<I", 0)  # the inlined functions' names at .debug_str+0
    program = bytearray(b"\0\x09\x02" + struct.pack("<Q", 0))
    for r in range(rows):
        if r:
            call = b"\x90" + uleb(r) + uleb(0)
            program += b"\0" + uleb(len(call)) + call + b"\x02\x10"  # inlined from row r; address += 0x10
        program += b"\x03\x01\x01"  # line += 1; copy: row r at line r + 2
    program += b"\x02\x10\0\x01\x01"  # end_sequence
    line = struct.pack("<IHI", 2 + 4 + len(header) + len(program), 2, len(header)) + header + bytes(program)
    sections = [(".debug_line", line), (".debug_str", b"inner\0")]
    names = b"\0" + b"".join(n.encode() + b"\0" for n, _ in sections) + b".shstrtab\0"
    sections.append((".shstrtab", names))
    body, offsets = bytearray(), []
    for _, data in sections:
        offsets.append(64 + len(body))
        body += data
    while len(body) % 8:
        body += b"\0"
    shoff = 64 + len(body)
    headers = bytearray(64)
    name_at = 1
    for (name, data), offset in zip(sections, offsets):
        kind = 3 if name == ".shstrtab" else 1
        headers += struct.pack("<IIQQQQIIQQ", name_at, kind, 0, 0, offset, len(data), 0, 0, 1, 0)
        name_at += len(name) + 1
    elf = b"\x7fELF" + bytes([2, 1, 1, 0x41]) + bytes(8)
    elf += struct.pack("<HHIQQQIHHHHHH", 2, 190, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(sections) + 1, len(sections))
    return elf + bytes(body) + bytes(headers)


class DeepInlineStacks(unittest.TestCase):
    """A row shows at most 64 frames of its inline stack, and a count of the rest: the library's one rule
    (kInlineFramesShown, ptxdwarf/inline_frames.h) for ptxdump's rows and Python's."""

    def test_line_rows_cap_the_stack_as_the_json_dump(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "deep.cubin")
            with open(path, "wb") as f:
                f.write(inline_chain_cubin(100))
            rows = ptxdwarf.read(path).line_rows()
            r = run_ptxdump("dump", "--debug-line", "--format", "json", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            dumped = json.loads(r.stdout)["line_tables"][0]["rows"]
        self.assertEqual(len(rows), 101)  # and the end of the sequence
        for row, e in zip(rows, dumped):
            self.assertEqual(len(row["inlined_at"]), len(e.get("inlined_at", [])))
            self.assertEqual(row.get("inline_frames_omitted"), e.get("inline_frames_omitted"))
            self.assertEqual([(f["function"], f["line"]) for f in row["inlined_at"]],
                             [(f["function"], f["line"]) for f in e.get("inlined_at", [])])
        deepest = rows[99]
        self.assertEqual(len(deepest["inlined_at"]), 64)
        self.assertEqual(deepest["inline_frames_omitted"], 99 - 64)
        self.assertEqual(deepest["inlined_at"][0], {"function": "inner", "file": "a.cu", "line": 100, "column": 0})
        self.assertEqual(len(rows[64]["inlined_at"]), 64)
        self.assertNotIn("inline_frames_omitted", rows[64])
        self.assertEqual(rows[0]["inlined_at"], [])


if __name__ == "__main__":
    unittest.main()
