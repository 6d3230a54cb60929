#!/usr/bin/env python3
"""Reading from Python, side by side in one run: ptxdwarf on a PTX file and on
the cubin `ptxas -g` made of it, against pyelftools on that cubin.

    PYTHONPATH=build/python python3 tests/bench/python_read.py [PTX [CUBIN]] [--runs N]
    (defaults: /work/bench20/gen20.ptx and .cubin, the 20 MB nvcc -G benchmark program)

Each side reads its file and visits every DIE and every attribute value, then
every row of the line table (ptxdwarf: the .loc rows; pyelftools: the line
program's rows). ptxdwarf on the cubin reads the same bytes pyelftools reads
(DIEs and values only). pyelftools runs in the interpreter that has it
(PTXDWARF_PYELFTOOLS_PYTHON, default /usr/bin/python3: tests/bench/pyelftools_read.py).
The sides alternate, `--runs` times each; the best of each is reported, in CPU
seconds of the process (the machine may be shared: wall seconds vary with the
load) and in wall seconds. The DIE and value counts of the two sides must agree.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "build" / "python"))
import ptxdwarf  # noqa: E402


def ptxdwarf_side(ptx, lines=True):
    clock, wall = time.process_time(), time.perf_counter()
    m = ptxdwarf.read(ptx)
    dies = values = 0
    for unit in m.units:
        for die in unit.iter_dies():
            dies += 1
            for attr in die.attributes.values():
                attr.value
                values += 1
    info_cpu, info_wall = time.process_time() - clock, time.perf_counter() - wall
    if not lines:
        return {"dies": dies, "values": values, "info_seconds": info_cpu, "info_wall": info_wall}
    clock, wall = time.process_time(), time.perf_counter()
    rows = 0
    for row in m.line_table():
        (row.file, row.line, row.column)
        rows += 1
    return {"dies": dies, "values": values, "info_seconds": info_cpu, "info_wall": info_wall, "rows": rows,
            "line_seconds": time.process_time() - clock, "line_wall": time.perf_counter() - wall}


def pyelftools_side(cubin, python):
    start = time.perf_counter()
    r = subprocess.run([python, str(HERE / "pyelftools_read.py"), cubin], capture_output=True, text=True, check=True)
    out = json.loads(r.stdout)
    out["wall_total"] = time.perf_counter() - start
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ptx", nargs="?", default="/work/bench20/gen20.ptx")
    parser.add_argument("cubin", nargs="?")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cubin = args.cubin or str(Path(args.ptx).with_suffix(".cubin"))
    python = os.environ.get("PTXDWARF_PYELFTOOLS_PYTHON", "/usr/bin/python3")
    ours, ours_cubin, theirs = [], [], []
    for _ in range(args.runs):
        ours.append(ptxdwarf_side(args.ptx))
        ours_cubin.append(ptxdwarf_side(cubin, lines=False))
        theirs.append(pyelftools_side(cubin, python))
    best = lambda runs, key: min(r[key] for r in runs)  # noqa: E731
    o, c, t = ours[0], ours_cubin[0], theirs[0]
    for side, counts in (("ptxdwarf on the PTX", o), ("ptxdwarf on the cubin", c)):
        if (counts["dies"], counts["values"]) != (t["dies"], t["values"]):
            sys.exit("the sides disagree: %s %d DIEs, %d values; pyelftools %d DIEs, %d values"
                     % (side, counts["dies"], counts["values"], t["dies"], t["values"]))
    print("%s: %d DIEs, %d attribute values; %d .loc rows (the cubin's line program: %d rows)"
          % (args.ptx, o["dies"], o["values"], o["rows"], t["rows"]))
    print("best of %d, CPU seconds          ptxdwarf  pyelftools  ratio" % args.runs)
    for label, key in (("read + every DIE and value", "info_seconds"), ("line table rows", "line_seconds")):
        a, b = best(ours, key), best(theirs, key)
        print("  %-30s %8.3f  %10.3f  %5.1fx" % (label, a, b, b / a))
    a, b = best(ours_cubin, "info_seconds"), best(theirs, "info_seconds")
    print("  %-30s %8.3f  %10.3f  %5.1fx" % ("the cubin: read + DIEs, values", a, b, b / a))
    print("wall seconds (ptxdwarf read+visit best %.3f; pyelftools process best %.3f)"
          % (best(ours, "info_wall"), best(theirs, "wall_total")))


if __name__ == "__main__":
    main()
