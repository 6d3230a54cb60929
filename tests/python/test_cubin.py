"""A cubin's line rows with inline stacks, register map, SASS lines and embedded PTX from Python:
each equal to what ptxdump prints of the same cubin (dump --debug-regmap/--sass-lines/--debug-line
--format json, extract --ptx), on cubins ptxas makes here of fixtures (nvcc -G's locals through
ptxas -g; fixtures/faults/lines/base.ptx, two levels of inlining, through ptxas -lineinfo)."""
import json
import os
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


if __name__ == "__main__":
    unittest.main()
