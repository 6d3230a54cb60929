"""The views from Python equal ptxdump's on every corpus file: dump() is `ptxdump
dump` (text, JSON, JSON Lines, sections chosen), statistics() `dump --statistics`,
types() `types --format json`, and lookup() `lookup --at PLACE --format json` at
every `// visible:` line of fixtures/corpus/scopes.cu compiled, and at a spread
of `.loc` lines, PTX lines and functions of every file."""
import json
import os
import re
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path

from support import FIXTURES, corpus_files, json_text, ptxdwarf, run_ptxdump, tool

SCOPES_SOURCE = FIXTURES / "corpus" / "scopes.cu"
# A few places per file keep the run short: the first, the last and some between.
PLACES_PER_FILE = 6


def decoded(value):
    """ptxdump's JSON with every string as ptxdwarf gives it (see json_text)."""
    if isinstance(value, str):
        return json_text(value)
    if isinstance(value, list):
        return [decoded(v) for v in value]
    if isinstance(value, dict):
        return {k: decoded(v) for k, v in value.items()}
    return value


def stdout_text(r):
    return r.stdout.decode("utf-8", "surrogateescape")


def readable_modules():
    """(path, module) for every corpus file ptxdwarf reads (test_reading checks the others raise as ptxdump fails)."""
    for path in corpus_files():
        try:
            yield path, ptxdwarf.read(path)
        except ptxdwarf.Error:
            continue


def cubin_modules():
    """(path, module) for the compiled corpus' cubins (read whole: a cubin holds NUL bytes)."""
    for directory in filter(None, os.environ.get("PTXDWARF_PY_CORPUS", "").split(":")):
        for path in sorted(Path(directory).glob("*.cubin")):
            try:
                yield path, ptxdwarf.read(path)
            except ptxdwarf.Error:
                continue


def spread(items, n):
    items = list(dict.fromkeys(items))
    if len(items) <= n:
        return items
    return [items[i * (len(items) - 1) // (n - 1)] for i in range(n)]


class KeyedObjects:
    """An object of lookup() or types() has an attribute per key of ptxdump's
    JSON object, and asdict() is that object."""

    def assert_keyed(self, obj, expected, where):
        self.assertEqual(obj.asdict(), expected, where)
        for key, value in expected.items():
            attr = getattr(obj, key)
            if isinstance(value, list) and value and isinstance(value[0], dict) and hasattr(attr[0], "asdict"):
                self.assertEqual(len(attr), len(value), where)
                for o, e in zip(attr, value):
                    self.assert_keyed(o, e, where)
            else:
                self.assertEqual(attr, value, "%s: %s" % (where, key))


class DumpTest(unittest.TestCase):
    CASES = [
        ({}, []),
        ({"format": "json"}, ["--format", "json"]),
        ({"format": "json-lines"}, ["--format", "json-lines"]),
        ({"sections": "all"}, ["-a"]),
        ({"format": "json", "sections": "all"}, ["--format", "json", "-a"]),
        ({"sections": ["line"]}, ["--debug-line"]),
        ({"sections": ["abbrev", "loc", "aranges"]}, ["--debug-abbrev", "--debug-loc", "--debug-aranges"]),
    ]

    def test_dump_equals_ptxdump_dump(self):
        files = 0
        for path, m in readable_modules():
            for kwargs, flags in self.CASES:
                with self.subTest(path=str(path), options=kwargs):
                    r = run_ptxdump("dump", *flags, path)
                    self.assertEqual(m.dump(**kwargs), stdout_text(r))
            files += 1
        self.assertGreater(files, 50)

    def test_cubin_dump_statistics_and_types_equal_ptxdump(self):
        cubins = 0
        for path, m in cubin_modules():
            for kwargs, flags in self.CASES:
                with self.subTest(path=str(path), options=kwargs):
                    self.assertEqual(m.dump(**kwargs), stdout_text(run_ptxdump("dump", *flags, path)))
            for kwargs, flags in (({"sections": ["regmap", "sass-lines"]}, ["--debug-regmap", "--sass-lines"]),
                                  ({"format": "json", "sections": ["line", "regmap"]},
                                   ["--format", "json", "--debug-line", "--debug-regmap"])):
                with self.subTest(path=str(path), options=kwargs):
                    self.assertEqual(m.dump(**kwargs), stdout_text(run_ptxdump("dump", *flags, path)))
            with self.subTest(path=str(path), view="statistics, types"):
                self.assertEqual(m.statistics(), decoded(json.loads(run_ptxdump("dump", "--statistics", path).stdout)))
                expected = decoded(json.loads(run_ptxdump("types", "--format", "json", path).stdout))["types"]
                self.assertEqual([t.asdict() for t in m.types()], expected)
            cubins += 1
        if not cubins:
            self.skipTest("no compiled cubins in PTXDWARF_PY_CORPUS")

    # llvm-dwarfdump's DIE selection and --show-form: on a spread of files,
    # for a name each file has (its first subprogram) and one it lacks.
    SELECTIONS = [
        ({"show_form": True}, ["--show-form"]),
        ({"name": "{sub}"}, ["--name", "{sub}"]),
        ({"name": ["{sub}", "absent"], "show_parents": True}, ["--name", "{sub}", "--name", "absent", "-p"]),
        ({"name": "{sub}", "show_children": True, "recurse_depth": 1}, ["--name", "{sub}", "-c", "-r", "1"]),
        ({"name": "{SUB}", "ignore_case": True, "show_form": True}, ["--name", "{SUB}", "--ignore-case", "--show-form"]),
        ({"name": "^{sub}$|nothing", "regex": True}, ["--name", "^{sub}$|nothing", "--regex"]),
        ({"format": "json-lines", "name": "{sub}"}, ["--format", "json-lines", "--name", "{sub}"]),
    ]

    def test_die_selection_equals_ptxdump(self):
        selected = 0
        for path, m in spread(readable_modules(), 12):
            subprograms = [d for u in m.units for d in u.iter_dies() if d.tag == "DW_TAG_subprogram" and d.name]
            if not subprograms:
                continue
            sub = re.sub(r"[^A-Za-z0-9_]", "", subprograms[0].name) or subprograms[0].name
            for kwargs, flags in self.SELECTIONS:
                fill = lambda v: v.replace("{sub}", sub).replace("{SUB}", sub.upper())
                kwargs = {k: ([fill(x) for x in v] if isinstance(v, list) else fill(v) if isinstance(v, str) else v)
                          for k, v in kwargs.items()}
                with self.subTest(path=str(path), options=kwargs):
                    expected = stdout_text(run_ptxdump("dump", *[fill(f) for f in flags], path))
                    self.assertEqual(m.dump(**kwargs), expected)
            selected += 1
        self.assertGreater(selected, 3)

    def test_bad_selections_raise_value_error_as_ptxdump_refuses_them(self):
        m = ptxdwarf.read(FIXTURES / "chapter6.ptx")
        for kwargs in ({"format": "json", "name": "f"}, {"name": "(", "regex": True}, {"sections": "debug_nope"},
                       {"recurse_depth": -1}, {"format": "yaml"}):
            with self.subTest(options=kwargs):
                with self.assertRaises(ValueError):
                    m.dump(**kwargs)

    def test_statistics_equal_ptxdump_statistics(self):
        for path, m in readable_modules():
            with self.subTest(path=str(path)):
                r = run_ptxdump("dump", "--statistics", path)
                self.assertEqual(m.statistics(), decoded(json.loads(r.stdout)))

    def test_a_name_beyond_ascii_reads_as_every_other_string(self):
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "k\u00e9rnel.ptx"
            path.write_bytes((FIXTURES / "chapter6.ptx").read_bytes())
            m = ptxdwarf.read(path)
            figures = m.statistics()
            self.assertEqual(figures["file"], str(path))
            self.assertEqual(figures, decoded(json.loads(run_ptxdump("dump", "--statistics", path).stdout)))
            self.assertEqual(m.dump(), stdout_text(run_ptxdump("dump", path)))

    def test_bad_options_raise(self):
        m = ptxdwarf.read(FIXTURES / "chapter6.ptx")
        with self.assertRaisesRegex(ValueError, "format"):
            m.dump(format="xml")
        with self.assertRaisesRegex(ValueError, "no section \"infos\""):
            m.dump(sections=["infos"])

    def test_threads_share_a_module(self):
        """The calls release the GIL: threads on one module get what one thread gets."""
        m = ptxdwarf.read(FIXTURES / "chapter6.ptx")
        expected = (m.dump(format="json"), m.statistics(), [x.asdict() for x in m.lookup("_Z4testPi")])
        fresh = ptxdwarf.read(FIXTURES / "chapter6.ptx")  # its name index built by the threads, once
        results = []

        def work():
            results.append((fresh.dump(format="json"), fresh.statistics(),
                            [x.asdict() for x in fresh.lookup("_Z4testPi")]))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [expected] * 4)


class TypesTest(unittest.TestCase, KeyedObjects):
    def test_types_equal_ptxdump_types(self):
        layouts = 0
        for path, m in readable_modules():
            r = run_ptxdump("types", "--format", "json", path)
            expected = decoded(json.loads(r.stdout))["types"]
            types = m.types()
            self.assertEqual(len(types), len(expected), str(path))
            for t, e in zip(types, expected):
                self.assert_keyed(t, e, "%s: type at %d" % (path, e["die"]))
            layouts += len(types)
        self.assertGreater(layouts, 50)

    def test_absent_keys_read_as_none(self):
        m = ptxdwarf.read(FIXTURES / "chapter6.ptx")
        pointer = next(t for t in m.types() if t.kind == "pointer")
        self.assertIsNone(pointer.members)
        self.assertIsNone(pointer.enumerators)
        self.assertIsNone(pointer.problem)
        self.assertEqual(pointer.target, "int")


class LookupTest(unittest.TestCase, KeyedObjects):
    def assert_lookup_equals_ptxdump(self, m, path, at):
        r = run_ptxdump("lookup", path, "--at", at, "--format", "json")
        expected = decoded(json.loads(r.stdout))["matches"]
        found = m.lookup(at)
        self.assertEqual(len(found), len(expected), at)
        for match, e in zip(found, expected):
            self.assert_keyed(match, e, at)
        if expected:
            self.assertEqual(r.returncode, 0, at)
        else:  # ptxdump: exit status 1 (a problem found, not an unreadable file) and why
            self.assertEqual(r.returncode, 1, at)
            with self.assertRaises(ptxdwarf.Error) as caught:
                m.lookup(at, strict=True)
            self.assertEqual(str(caught.exception), r.stderr.decode("utf-8", "surrogateescape").rstrip("\n"))
        return found

    def scopes_ptx(self):
        """scopes.cu's compiled PTX: from the corpus directories, else compiled here with nvcc -G."""
        found = [p for p in corpus_files() if re.match(r"scopes(\.|_nvcc|_clang)", p.name)
                 and not re.search(r"lineinfo|_lines_", p.name)]  # -lineinfo builds have no variables
        if found:
            return found
        nvcc = tool("nvcc")
        if not nvcc:
            raise unittest.SkipTest("no compiled scopes.cu in PTXDWARF_PY_CORPUS and no nvcc to compile it")
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        out = Path(self.tmp.name) / "scopes.nvcc_G_sm90.ptx"
        subprocess.run([nvcc, "-G", "-ptx", "-arch=sm_90", "-I", str(FIXTURES / "corpus" / "include"),
                        str(SCOPES_SOURCE), "-o", str(out)], check=True, capture_output=True)
        return [out]

    def test_every_visible_line_of_scopes(self):
        comments = [(n, set(m.group(1).split()))
                    for n, line in enumerate(SCOPES_SOURCE.read_text().splitlines(), 1)
                    for m in [re.search(r"//\s*visible:\s*(.*)$", line)] if m]
        self.assertGreater(len(comments), 10)
        for path in self.scopes_ptx():
            m = ptxdwarf.read(path)
            for line, names in comments:
                at = "scopes.cu:%d" % line
                with self.subTest(path=str(path), at=at):
                    found = self.assert_lookup_equals_ptxdump(m, path, at)
                    self.assertTrue(found, at)
                    self.assertEqual({v.name for match in found for v in match.variables}, names, at)

    def test_loc_lines_ptx_lines_and_functions_of_every_file(self):
        places = 0
        for path, m in readable_modules():
            rows = list(m.line_table())
            if not rows:
                continue
            source = spread(("%s:%d" % (Path(r.file).name, r.line) for r in rows if r.file), PLACES_PER_FILE)
            ptx = spread(("ptx:%d" % r.ptx_line for r in rows if r.ptx_line), 2)
            functions = spread((r.function for r in rows if r.function), 2)
            for at in source + ptx + functions:
                with self.subTest(path=str(path), at=at):
                    self.assert_lookup_equals_ptxdump(m, path, at)
                    places += 1
        self.assertGreater(places, 100)

    def test_an_unknown_place_is_no_match(self):
        path = FIXTURES / "chapter6.ptx"
        m = ptxdwarf.read(path)
        self.assertEqual(m.lookup("nowhere.cu:3"), [])
        self.assert_lookup_equals_ptxdump(m, path, "nowhere.cu:3")
        self.assert_lookup_equals_ptxdump(m, path, "ptx:999999")
        self.assert_lookup_equals_ptxdump(m, path, "no_such_function")


class CubinLookupTest(unittest.TestCase, KeyedObjects):
    """lookup() on a cubin (fixtures/cubin, ptxas -g output): ptxdump's JSON with
    `pc` per match and `sass` per variable; cuda-gdb's breakpoint address and
    SASS locations."""
    LOCALS = FIXTURES / "cubin" / "lookup_locals_G_sm90.cubin"

    def lookup_equals_ptxdump(self, path, at):
        m = ptxdwarf.read(path)
        r = run_ptxdump("lookup", path, "--at", at, "--format", "json")
        self.assertEqual(r.returncode, 0, at)
        expected = decoded(json.loads(r.stdout))["matches"]
        found = m.lookup(at)
        self.assertEqual(len(found), len(expected), at)
        for match, e in zip(found, expected):
            self.assert_keyed(match, e, at)
        return found

    def test_a_source_line_stops_where_cuda_gdb_puts_its_breakpoint(self):
        [match] = self.lookup_equals_ptxdump(self.LOCALS, "locals.cu:4")
        self.assertEqual((match.function, match.pc), ("_Z8sumLocalPKii", 0xD0))
        where = {v.name: (v.available, v.sass) for v in match.variables}
        self.assertEqual(where, {"a": (True, ["R0", "R3"]), "n": (True, ["R5"]), "s": (True, ["R4"]),
                                 "i": (False, [])})  # i: cuda-gdb's <optimized out> there

    def test_function_and_pc(self):
        [match] = self.lookup_equals_ptxdump(self.LOCALS, "_Z11localArraysPKiPxi+0x1290")
        self.assertEqual(match.pc, 0x1290)
        where = {v.name: v.sass for v in match.variables}
        self.assertEqual(where["n"], ["[param+0x220]"])
        self.assertEqual(where["table"], ["[CFA-0x68]"])

    def test_ptx_has_no_sass(self):
        [match] = ptxdwarf.read(FIXTURES / "chapter6.ptx").lookup("call_example.cu:8")
        self.assertIsNone(match.pc)
        self.assertIsNone(match.variables[0].sass)
        self.assertNotIn("sass", match.variables[0].asdict())


if __name__ == "__main__":
    unittest.main()
