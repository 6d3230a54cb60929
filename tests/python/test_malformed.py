"""Bad input raises ptxdwarf.Error with ptxdump's `file:line:col: error: ...`, and
nothing a file contains crashes the interpreter: mutated corpus files go through
parse() and every accessor."""
import random
import re
import unittest

from support import FIXTURES, corpus_files, ptxdwarf, run_ptxdump

POSITION = re.compile(r"^(?P<file>[^\n]+?):(?P<line>\d+):(?P<column>\d+): error: ", re.M)
# A file that starts with ELF's magic is read as a cubin: its errors name a file offset, not a line.
CUBIN_POSITION = re.compile(r"^(?P<file>[^\n]+?): error: not a readable cubin: .* \(at file offset 0x[0-9a-f]+\)$", re.M)


class MalformedTest(unittest.TestCase):
    def test_every_malformed_fixture_raises_error_at_its_position(self):
        files = sorted((FIXTURES / "malformed").rglob("*.ptx"))
        self.assertGreaterEqual(len(files), 10)
        for path in files:
            with self.subTest(path=str(path)):
                with self.assertRaises(ptxdwarf.Error) as caught:
                    ptxdwarf.read(path)
                message = str(caught.exception)
                self.assertIsInstance(caught.exception, ValueError)
                if path.read_bytes().startswith(b"\x7fELF"):
                    first = CUBIN_POSITION.match(message)
                    self.assertIsNotNone(first, message)
                else:
                    first = POSITION.match(message)
                    self.assertIsNotNone(first, message)
                    self.assertGreater(int(first.group("line")), 0)
                self.assertEqual(first.group("file"), str(path))
                # What ptxdump says about the same file, word for word.
                r = run_ptxdump("dump", path)
                self.assertEqual(r.returncode, 2)
                self.assertEqual(message, r.stderr.decode(errors="surrogateescape").rstrip("\n"))
                # The same from text, named as asked.
                with self.assertRaises(ptxdwarf.Error) as caught:
                    ptxdwarf.parse(path.read_bytes(), name="given.ptx")
                self.assertTrue(str(caught.exception).startswith("given.ptx:"), str(caught.exception))

    def test_unreadable_paths_raise_error(self):
        for path in ("/nonexistent/x.ptx", str(FIXTURES)):
            with self.subTest(path=path):
                with self.assertRaisesRegex(ptxdwarf.Error, "^%s: error: cannot read file: " % re.escape(path)):
                    ptxdwarf.read(path)

    def test_dies_and_attributes_cannot_be_made_from_python(self):
        for type_ in (ptxdwarf.DIE, ptxdwarf.Attribute):
            with self.assertRaisesRegex(TypeError, "cannot create"):
                type_()
            with self.assertRaises(TypeError):
                type_.__new__(type_)

    def test_not_ptx_raises_error(self):
        with self.assertRaisesRegex(ptxdwarf.Error, r"^empty\.ptx:1:1: error: no \.version directive"):
            ptxdwarf.parse("", name="empty.ptx")
        with self.assertRaises(TypeError):
            ptxdwarf.parse(42)


def visit(m):
    """Everything a reader may look at: every DIE, attribute (value, symbol, text,
    reference), child list and parent, the line table with its inline stacks, check()."""
    count = 0
    for unit in m.units:
        (unit.version, unit.address_size, unit.offset, unit.top_die)
        for die in unit.iter_dies():
            (die.tag, die.offset, die.name, die.parent, die.location, len(die.children))
            for attr in die.attribute_list:
                (attr.name, attr.form, attr.value, attr.symbol, attr.text, attr.referenced_die)
                count += 1
    for row in m.line_table():
        (row.file, row.line, row.column, row.ptx_line, row.function, row.inlined_at)
    m.check()
    return count


def mutate(data, rng):
    """One of a few kinds of damage: bytes flipped, the text cut, lines deleted,
    duplicated or swapped, a number changed, junk tokens inserted."""
    kind = rng.randrange(6)
    if kind == 0:
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 1:
        return data[: rng.randrange(len(data))]
    lines = data.split(b"\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind == 2:
        del lines[i: i + rng.randint(1, 20)]
    elif kind == 3:
        lines[i:i] = lines[j: j + rng.randint(1, 20)]
    elif kind == 4:
        lines[i] = re.sub(rb"\d+", lambda _: str(rng.choice([0, 1, 255, 65535, 2**32 - 1, 2**63])).encode(),
                          lines[i], count=1)
    else:
        lines[i] += rng.choice([b" .b8 ", b" {", b"}", b" .section .debug_info {", b" 0x", b" $L__x-", b"\x00", b","])
    return b"\n".join(lines)


class FuzzTest(unittest.TestCase):
    def test_mutated_corpus_files_never_crash(self):
        rng = random.Random(46)
        seeds = [p for p in corpus_files() if p.stat().st_size < 200_000]
        self.assertGreater(len(seeds), 20)
        read, refused = 0, 0
        for n in range(1000):
            path = seeds[n % len(seeds)]
            data = mutate(path.read_bytes(), rng)
            try:
                m = ptxdwarf.parse(data, name="mutant%d.ptx" % n)
            except ptxdwarf.Error as e:
                self.assertRegex(str(e), r"^mutant%d\.ptx(:\d+:\d+)?: error: " % n)
                refused += 1
                continue
            visit(m)
            read += 1
        # Both paths are exercised: some mutants read, some are refused.
        self.assertGreater(read, 100)
        self.assertGreater(refused, 100)


if __name__ == "__main__":
    unittest.main()
