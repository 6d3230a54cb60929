#!/usr/bin/env python3
"""Record what every ptxdump command prints on every corpus file, to hold a refactoring to byte-for-byte equality.

    tools/record_behaviour.py PTXDUMP OUTDIR [--corpus-cache DIR]

Inputs: every .ptx under fixtures/, plus the programs of fixtures/corpus compiled as the corpus tests compile
them (nvcc -G sm_80 and sm_90, nvcc -lineinfo -O3 sm_90, clang -g sm_80 where clang can), and fixtures/llvm/*.ll
through llc-19 and llc-22 where present. For each input, OUTDIR/<input>/<command>.out holds stdout, stderr and
the exit code of: dump (text, json, json-lines, every section, --show-form), --debug-line (text, json),
--statistics, check, lookup at a spread of source lines, PTX lines and every function, types (text, json),
reformat in each style with and without --reencode, and annotate (with --keep-lines where the file has .loc).

Each nvcc build is also assembled (ptxas -g for -G, -lineinfo for -lineinfo), and with fixtures/cubin/*.cubin the
cubins are recorded as well: dump (text, json, json-lines, --debug-line, --sass-lines, --debug-regmap, each in text
and json), --statistics, check, lookup at the PTX's places; and `check --cubin` of the PTX against its cubin.

Compare two recordings with `diff -r OLD NEW`. Output paths are printed relative to the repository so that two
checkouts give equal recordings.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CUDA = Path("/usr/local/cuda/bin")


def which(name, *more):
    for candidate in (name,) + more:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def compile_corpus(cache: Path):
    """The corpus programs as the corpus tests compile them; returns (label, path) pairs."""
    cache.mkdir(parents=True, exist_ok=True)
    include = ROOT / "fixtures/corpus/include"
    nvcc = CUDA / "nvcc"
    clang = which("clang-22", "clang-19", "clang")
    out = []
    for source in sorted((ROOT / "fixtures/corpus").glob("*.cu")):
        text = source.read_text(errors="replace")
        extra = []
        m = re.search(r"ptxdwarf-corpus: nvcc-flags ([^\n*]+)", text)
        if m:
            extra = m.group(1).split()
        builds = [
            ("nvcc_G_sm80", [str(nvcc), "-G", "-ptx", "-arch=sm_80", *extra]),
            ("nvcc_G_sm90", [str(nvcc), "-G", "-ptx", "-arch=sm_90", *extra]),
            ("nvcc_lineinfo_O3_sm90", [str(nvcc), "-lineinfo", "-O3", "-ptx", "-arch=sm_90", *extra]),
        ]
        if clang and "no-clang" not in text:
            builds.append(("clang_g_sm80", [clang, "-x", "cuda", "--cuda-device-only", "-S", "-g", "-O0",
                                            "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib",
                                            "-Wno-unknown-cuda-version", "-include",
                                            str(include / "clang_prelude.h")]))
        for label, argv in builds:
            target = cache / f"{source.stem}.{label}.ptx"
            if not target.exists():
                r = subprocess.run(argv + [f"-I{include}", str(source), "-o", str(target)],
                                   capture_output=True, cwd=cache)
                if r.returncode != 0:
                    target.unlink(missing_ok=True)
                    continue
            out.append((f"corpus/{target.name}", target))
    for ll in sorted((ROOT / "fixtures/llvm").glob("*.ll")):
        for llc in ("llc-19", "llc-22"):
            tool = which(llc)
            if not tool:
                continue
            target = cache / f"{ll.stem}.{llc}.ptx"
            if not target.exists():
                r = subprocess.run([tool, "-march=nvptx64", "-mcpu=sm_80", str(ll), "-o", str(target)],
                                   capture_output=True)
                if r.returncode != 0:
                    target.unlink(missing_ok=True)
                    continue
            out.append((f"llvm/{target.name}", target))
    return out


def assemble_cubins(cache: Path, ptx_inputs):
    """The nvcc builds through ptxas as a debugger's build would assemble them; returns (label, cubin, ptx)."""
    out = []
    for label, ptx in ptx_inputs:
        m = re.search(r"\.nvcc_(G|lineinfo_O3)_sm(\d+)\.ptx$", label)
        if not m:
            continue
        target = cache / (ptx.stem + ".cubin")
        if not target.exists():
            debug = "-g" if m.group(1) == "G" else "-lineinfo"
            r = subprocess.run([str(CUDA / "ptxas"), f"-arch=sm_{m.group(2)}", debug, str(ptx), "-o", str(target)],
                               capture_output=True)
            if r.returncode != 0:
                target.unlink(missing_ok=True)
                continue
        out.append((f"corpus/{target.name}", target, ptx))
    for cubin in sorted((ROOT / "fixtures/cubin").glob("*.cubin")):
        out.append((str(cubin.relative_to(ROOT)), cubin, None))
    return out


def fixture_inputs():
    return [(str(p.relative_to(ROOT)), p) for p in sorted((ROOT / "fixtures").rglob("*.ptx"))]


LOC = re.compile(rb"^\s*\.loc\s+(\d+)\s+(\d+)", re.M)
FILE = re.compile(rb'^\s*\.file\s+(\d+)\s+"([^"]*)"', re.M)
FUNC = re.compile(rb"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)", re.M)


def lookup_places(data: bytes):
    """A spread of places: up to 12 source lines, 4 PTX lines, up to 6 functions."""
    files = {m.group(1): m.group(2).decode(errors="replace") for m in FILE.finditer(data)}
    seen = []
    for m in LOC.finditer(data):
        path = files.get(m.group(1))
        if path is None or "\\" in path:
            continue
        place = f"{os.path.basename(path)}:{int(m.group(2))}"
        if place not in seen:
            seen.append(place)
    step = max(1, len(seen) // 12)
    places = seen[::step][:12]
    lines = data.count(b"\n") + 1
    places += [f"ptx:{max(1, lines * k // 5)}" for k in range(1, 5)]
    functions = []
    for m in FUNC.finditer(data):
        name = m.group(1).decode(errors="replace")
        if name not in functions:
            functions.append(name)
    return places + functions[:6], bool(seen)


def commands(data: bytes):
    yield "dump", ["dump"]
    yield "dump_all", ["dump", "--all"]
    yield "dump_all_form", ["dump", "--all", "--show-form"]
    yield "dump_json", ["dump", "--all", "--format", "json"]
    yield "dump_json_lines", ["dump", "--format", "json-lines"]
    yield "debug_line", ["dump", "--debug-line"]
    yield "debug_line_json", ["dump", "--debug-line", "--format", "json"]
    yield "statistics", ["dump", "--statistics"]
    yield "check", ["check"]
    yield "types", ["types"]
    yield "types_json", ["types", "--format", "json"]
    for style in ("packed", "one-per-line", "verbose", "dense"):
        yield f"reformat_{style}", ["reformat", "--style", style]
        yield f"reformat_{style}_reencode", ["reformat", "--style", style, "--reencode"]
    yield "strip_all", ["strip", "--all", "-o", "-"]
    places, has_loc = lookup_places(data)
    for i, place in enumerate(places):
        safe = re.sub(r"[^A-Za-z0-9_.:-]", "_", place)[:60]
        yield f"lookup_{i:02d}_{safe}", ["lookup", "--at", place]
        if i % 4 == 0:
            yield f"lookup_{i:02d}_{safe}_json", ["lookup", "--at", place, "--format", "json"]
    yield "annotate", ["annotate", "--replace"]
    if has_loc:
        yield "annotate_keep_lines", ["annotate", "--replace", "--keep-lines"]


def cubin_commands(ptx_data):
    yield "dump", ["dump"]
    yield "dump_all", ["dump", "--all"]
    yield "dump_json", ["dump", "--all", "--format", "json"]
    yield "dump_json_lines", ["dump", "--format", "json-lines"]
    for name, option in (("debug_line", "--debug-line"), ("sass_lines", "--sass-lines"),
                         ("regmap", "--debug-regmap")):
        yield name, ["dump", option]
        yield f"{name}_json", ["dump", option, "--format", "json"]
    yield "tables_json", ["dump", "--debug-line", "--sass-lines", "--debug-regmap", "--format", "json"]
    yield "statistics", ["dump", "--statistics"]
    yield "check", ["check"]
    if ptx_data is not None:
        places, _ = lookup_places(ptx_data)
        for i, place in enumerate(p for p in places if not p.startswith("ptx:")):
            safe = re.sub(r"[^A-Za-z0-9_.:-]", "_", place)[:60]
            yield f"lookup_{i:02d}_{safe}", ["lookup", "--at", place]
            if i % 4 == 0:
                yield f"lookup_{i:02d}_{safe}_json", ["lookup", "--at", place, "--format", "json"]


def run_into(target: Path, name, argv, work: Path):
    r = subprocess.run(argv, capture_output=True, cwd=work, timeout=300)
    (target / f"{name}.out").write_bytes(
        r.stdout + b"\n--- stderr ---\n" + r.stderr + f"\n--- exit {r.returncode} ---\n".encode())


def record_cubin(ptxdump, label, cubin: Path, ptx, outdir: Path):
    target = outdir / label
    target.mkdir(parents=True, exist_ok=True)
    work = outdir / ".work"
    work.mkdir(exist_ok=True)
    (work / "input.cubin").write_bytes(cubin.read_bytes())
    ptx_data = ptx.read_bytes() if ptx else None
    for name, argv in cubin_commands(ptx_data):
        run_into(target, name, [ptxdump, *argv, "input.cubin"], work)
    if ptx_data is not None:
        (work / "input.ptx").write_bytes(ptx_data)
        run_into(target, "check_ptx_against_cubin", [ptxdump, "check", "--cubin", "input.cubin", "input.ptx"], work)


def record(ptxdump, label, path: Path, outdir: Path):
    data = path.read_bytes()
    target = outdir / label
    target.mkdir(parents=True, exist_ok=True)
    # The file is copied under a fixed name so that messages naming it are equal across checkouts.
    work = outdir / ".work"
    work.mkdir(exist_ok=True)
    local = work / "input.ptx"
    local.write_bytes(data)
    for name, argv in commands(data):
        run_into(target, name, [ptxdump, *argv, "input.ptx"], work)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ptxdump")
    parser.add_argument("outdir")
    parser.add_argument("--corpus-cache", default="/tmp/ptxdwarf-record-corpus")
    parser.add_argument("--only", help="record only inputs whose label contains this")
    args = parser.parse_args()
    ptxdump = str(Path(args.ptxdump).resolve())
    outdir = Path(args.outdir)
    corpus = compile_corpus(Path(args.corpus_cache))
    inputs = fixture_inputs() + corpus
    cubins = assemble_cubins(Path(args.corpus_cache), corpus)
    for label, path in inputs:
        if args.only and args.only not in label:
            continue
        record(ptxdump, label, path, outdir)
    for label, cubin, ptx in cubins:
        if args.only and args.only not in label:
            continue
        record_cubin(ptxdump, label, cubin, ptx, outdir)
    shutil.rmtree(outdir / ".work", ignore_errors=True)
    print(f"recorded {len(inputs)} inputs and {len(cubins)} cubins into {outdir}", file=sys.stderr)


if __name__ == "__main__":
    main()
