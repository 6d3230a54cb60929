"""Reading from Python equals ptxdump's output on every corpus file: the DIE tree
(tags, offsets, attribute names, forms, values, symbols, texts) equals
`ptxdump dump --format json`, the line rows `ptxdump dump --debug-line --format json`,
and check() what `ptxdump check` reports."""
import gc
import json
import os
import tempfile
import unittest

from support import FIXTURES, corpus_files, json_text, ptxdwarf, run_ptxdump


def load_or_none(test, path):
    """The module and the JSON dump, or None where ptxdump cannot read the file
    either (ptxdwarf.Error then says what ptxdump says). A file whose sections do
    not decode is read: the decoder's errors are the module's decode_diagnostics."""
    r = run_ptxdump("dump", "--format", "json", path)
    if r.returncode == 2 and not r.stdout:
        with test.assertRaises(ptxdwarf.Error) as caught:
            ptxdwarf.read(path)
        test.assertEqual(str(caught.exception), r.stderr.decode().rstrip("\n"))
        return None, None
    m = ptxdwarf.read(path)
    test.assertEqual([str(d) for d in m.diagnostics + m.decode_diagnostics], r.stderr.decode().splitlines())
    return m, json.loads(r.stdout)


class DieTreeTest(unittest.TestCase):
    def assert_attribute(self, attr, expected, where):
        self.assertEqual(attr.name, expected["name"], where)
        self.assertEqual(attr.form, expected["form"], where)
        self.assertEqual(attr.offset, expected["offset"], where)
        if "bytes" in expected:
            self.assertEqual(attr.value.hex(), expected["bytes"], where)
        elif isinstance(expected["value"], str):
            self.assertEqual(attr.value, json_text(expected["value"]), where)
        else:
            self.assertEqual(attr.value, expected["value"], where)
        self.assertEqual(attr.symbol, json_text(expected["symbol"]) if "symbol" in expected else None, where)
        self.assertEqual(attr.text, json_text(expected["text"]), where)

    def assert_die(self, die, expected, parent, path):
        where = "%s: DIE at %d" % (path, expected["offset"])
        self.assertEqual(die.offset, expected["offset"], where)
        self.assertEqual(die.tag, expected["tag"], where)
        self.assertEqual(die.abbrev_code, expected["code"], where)
        self.assertEqual(die.parent, parent, where)
        attrs = die.attribute_list
        self.assertEqual(len(attrs), len(expected["attributes"]), where)
        for attr, e in zip(attrs, expected["attributes"]):
            self.assert_attribute(attr, e, where)
        for name, attr in die.attributes.items():
            self.assertEqual(attr.name, name)
            self.assertEqual(attr.offset, min(a.offset for a in attrs if a.name == name), where)
        name = next((a for a in expected["attributes"] if a["name"] == "DW_AT_name"), None)
        if name is not None and "value" in name and isinstance(name["value"], str):
            self.assertEqual(die.name, json_text(name["value"]), where)
        location = next((a for a in expected["attributes"] if a["name"] == "DW_AT_location"), None)
        self.assertEqual(die.location.text if die.location else None,
                         json_text(location["text"]) if location else None, where)
        children = die.children
        self.assertEqual(len(children), len(expected.get("children", [])), where)
        self.assertEqual(die.has_children, "children" in expected, where)
        for child, e in zip(children, expected.get("children", [])):
            self.assert_die(child, e, die, path)

    def test_die_tree_equals_the_json_dump(self):
        files = corpus_files()
        self.assertGreater(len(files), 50)
        compared = 0
        for path in files:
            with self.subTest(path=str(path)):
                m, expected = load_or_none(self, path)
                if m is None:
                    continue
                self.assertEqual(len(m.units), len(expected.get("units", [])))
                for unit, e in zip(m.units, expected.get("units", [])):
                    self.assertEqual((unit.offset, unit.length, unit.version, unit.abbrev_offset, unit.address_size),
                                     (e["offset"], e["length"], e["version"], e["abbr_offset"], e["addr_size"]))
                    self.assertEqual(len(e["dies"]) <= 1, True)
                    if not e["dies"]:
                        self.assertIsNone(unit.top_die)
                        continue
                    self.assert_die(unit.top_die, e["dies"][0], None, path)
                    # iter_dies() visits the same DIEs, in offset order.
                    flat, stack = [], list(e["dies"])
                    while stack:
                        d = stack.pop(0)
                        flat.append(d["offset"])
                        stack[:0] = d.get("children", [])
                    self.assertEqual([d.offset for d in unit.iter_dies()], flat)
                    compared += 1
        self.assertGreater(compared, 20)

    def test_references_resolve_to_the_dies_they_name(self):
        m = ptxdwarf.read(FIXTURES / "chapter6.ptx")
        for die in m.units[0].iter_dies():
            if "DW_AT_type" in die.attributes:
                target = die.attributes["DW_AT_type"].referenced_die
                self.assertEqual(target.offset, die.attributes["DW_AT_type"].value)
                self.assertEqual(m.get_DIE_from_offset(target.offset), target)
                self.assertEqual(die.get_DIE_from_attribute("DW_AT_type"), target)

    def test_objects_keep_their_module_alive(self):
        m = ptxdwarf.parse((FIXTURES / "chapter6.ptx").read_text(), name="chapter6.ptx")
        die = m.units[0].top_die
        attrs = list(die.attributes.values())
        rows = m.line_table()
        del m
        gc.collect()
        self.assertEqual(die.tag, "DW_TAG_compile_unit")
        self.assertEqual(attrs[0].text, '"lgenfe: EDG 4.9"')
        self.assertEqual([c.name for c in die.children][:1], ["_Z3fooii"])
        self.assertEqual(len(rows), 5)
        self.assertEqual(rows[0].file, "call_example.cu")


class LineTableTest(unittest.TestCase):
    def test_rows_equal_the_json_line_dump(self):
        compared = 0
        for path in corpus_files():
            with self.subTest(path=str(path)):
                r = run_ptxdump("dump", "--debug-line", "--format", "json", path)
                if r.returncode == 2:
                    continue
                expected = json.loads(r.stdout)["line"]
                table = ptxdwarf.read(path).line_table()
                self.assertEqual(table.include_directories, [json_text(d) for d in expected["include_directories"]])
                self.assertEqual(table.files, [dict(f, path=json_text(f["path"]), name=json_text(f["name"]))
                                               for f in expected["files"]])
                paths = {}
                for f in expected["files"]:
                    d = f["directory"]
                    dirs = expected["include_directories"]
                    paths[f["index"]] = json_text((dirs[d - 1] + "/" if 0 < d <= len(dirs) else "") + f["name"])
                self.assertEqual(len(table), len(expected["rows"]))
                for row, e in zip(table, expected["rows"]):
                    self.assertEqual(
                        (row.function, row.ptx_line, row.loc_line, row.file_index, row.line, row.column, row.file),
                        (e["function"] and json_text(e["function"]), e["ptx_line"], e["loc_line"], e["file"],
                         e["line"], e["column"], paths.get(e["file"])))
                    frames = row.inlined_at
                    stack = e.get("inline_stack", [])
                    self.assertEqual(len(frames), len(stack))
                    self.assertEqual(row.inline_frames_omitted, e.get("inline_frames_omitted", 0))
                    for frame, f in zip(frames, stack):
                        self.assertEqual(
                            (frame.label, frame.function, frame.file_index, frame.line, frame.column, frame.resolved,
                             frame.file),
                            (json_text(f["function_name"]), f["name"] and json_text(f["name"]),
                             f["inlined_at"]["file"], f["inlined_at"]["line"], f["inlined_at"]["column"],
                             f["resolved"], paths.get(f["inlined_at"]["file"])))
                    compared += bool(frames)
        self.assertGreater(compared, 0, "no inlined rows among the files")


def inline_chain_ptx(depth):
    """A kernel whose `.loc` k (k = 1..depth) is inlined at `.loc` k-1: row k's stack is k frames deep."""
    locs = ["\t.loc\t1 10 0", "\tret;"]
    for k in range(1, depth + 1):
        locs += ["\t.loc\t1 %d 0, function_name $L__info_string0, inlined_at 1 %d 0" % (10 + k, 9 + k), "\tret;"]
    return "\n".join([".version 8.0", ".target sm_80", ".address_size 64", '\t.file\t1 "a.cu"',
                      ".visible .entry k()", "{"] + locs +
                     ["}", "\t.section\t.debug_str", "\t{", "$L__info_string0:",
                      "\t.b8 105,110,110,101,114,0", "\t}", ""])


class DeepInlineStackTest(unittest.TestCase):
    """A PTX row shows at most 64 frames of its inline stack and counts the rest, as ptxdump's rows do
    (kInlineFramesShown, ptxdwarf/inline_frames.h)."""

    def test_rows_cap_the_stack_as_the_json_dump(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "deep.ptx")
            with open(path, "w") as f:
                f.write(inline_chain_ptx(100))
            table = ptxdwarf.read(path).line_table()
            r = run_ptxdump("dump", "--debug-line", "--format", "json", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            dumped = json.loads(r.stdout)["line"]["rows"]
        self.assertEqual(len(table), 101)
        for row, e in zip(table, dumped):
            self.assertEqual([(f.function, f.line) for f in row.inlined_at],
                             [(f["name"], f["inlined_at"]["line"]) for f in e.get("inline_stack", [])])
            self.assertEqual(row.inline_frames_omitted, e.get("inline_frames_omitted", 0))
        deepest = table[100]
        self.assertEqual(len(deepest.inlined_at), 64)
        self.assertEqual(deepest.inline_frames_omitted, 100 - 64)
        self.assertEqual((deepest.inlined_at[0].function, deepest.inlined_at[0].line), ("inner", 109))
        self.assertEqual((len(table[64].inlined_at), table[64].inline_frames_omitted), (64, 0))
        self.assertEqual((table[0].inlined_at, table[0].inline_frames_omitted), ([], 0))


class DocsExampleTest(unittest.TestCase):
    def test_the_triton_style_line_table_test_of_docs_python_md(self):
        m = ptxdwarf.read(FIXTURES / "faults/lines/base.ptx")
        rows = m.line_table()
        assert {r.line for r in rows if r.function == "_Z6kernelPi" and not r.inlined_at} == {20, 21, 22, 23}
        stacks = {(r.file, r.line): [(f.function, f.line) for f in r.inlined_at] for r in rows}
        assert stacks["/home/dev/include/square.h", 9] == [("bump(int)", 5), ("square(int)", 21)]
        assert not [d for d in m.check() if d.severity == "error"]


class CheckTest(unittest.TestCase):
    def test_check_equals_ptxdump_check(self):
        for path in corpus_files():
            with self.subTest(path=str(path)):
                r = run_ptxdump("check", path)
                if r.returncode == 2:
                    continue
                m = ptxdwarf.read(path)
                found = m.check()
                lines = [str(d) for d in m.diagnostics] + [str(d) for d in found]
                self.assertEqual(lines, r.stderr.decode(errors="surrogateescape").splitlines())
                errors = sum(d.severity == "error" for d in found)
                self.assertEqual(r.returncode, 1 if errors else 0)
                for d in found:
                    self.assertIn(d.severity, ("error", "warning", "note"))
                    self.assertEqual(d.offset is None, not d.section or d.offset is None)

    def test_fields_of_a_diagnostic(self):
        m = ptxdwarf.read(FIXTURES / "chapter6.ptx")
        d = next(d for d in m.check() if d.rule == "linkage-name")
        self.assertEqual((d.severity, d.line, d.column, d.section, d.offset), ("warning", 61, 26, ".debug_info", 0x46))
        self.assertIn("'_Z3fooii' names no PTX function", d.message)


if __name__ == "__main__":
    unittest.main()
