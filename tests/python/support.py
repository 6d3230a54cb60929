"""What the Python tests share: where ptxdwarf, ptxdump, the fixtures and the tools are.

ctest passes PTXDWARF_PTXDUMP (the CLI, the oracle the reading tests compare with),
PTXDWARF_FIXTURES and PYTHONPATH (the build's python/ directory); run by hand
(`python3 -m unittest discover tests/python`, or pytest), they default to the
repository's build/ directory. PTXDWARF_PY_CORPUS (directories separated by ':')
adds compiled corpus PTX (the build's corpus-work/, tools/record_behaviour.py's cache).
"""
import os
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PTXDWARF_BUILD_DIR", ROOT / "build"))
if os.environ.get("PYTHONPATH") is None and (BUILD / "python" / "ptxdwarf").is_dir():
    sys.path.insert(0, str(BUILD / "python"))

import ptxdwarf  # noqa: E402

FIXTURES = Path(os.environ.get("PTXDWARF_FIXTURES", ROOT / "fixtures"))
PTXDUMP = Path(os.environ.get("PTXDWARF_PTXDUMP", BUILD / "ptxdump" / "ptxdump"))
CUDA_BIN = Path("/usr/local/cuda/bin")


def tool(*names):
    """The first of `names` on PATH or in /usr/local/cuda/bin; None when none is."""
    for name in names:
        found = shutil.which(name) or shutil.which(name, path=str(CUDA_BIN))
        if found:
            return found
    return None


def corpus_files():
    """Every PTX fixture that is not malformed, then the compiled corpus where given."""
    files = sorted(p for p in FIXTURES.rglob("*.ptx") if "malformed" not in p.parts)
    for directory in filter(None, os.environ.get("PTXDWARF_PY_CORPUS", "").split(":")):
        files += sorted(Path(directory).glob("*.ptx"))
    return files


def run_ptxdump(*args):
    if not PTXDUMP.exists():
        raise unittest.SkipTest("ptxdump is not built at %s (set PTXDWARF_PTXDUMP)" % PTXDUMP)
    return subprocess.run([str(PTXDUMP), *map(str, args)], capture_output=True)


def json_text(s):
    """A string of ptxdump's JSON as ptxdwarf gives it: the JSON writes each byte
    >= 0x80 as \\u00XX, ptxdwarf decodes the bytes as UTF-8 (surrogateescape)."""
    return s.encode("latin-1").decode("utf-8", "surrogateescape")
