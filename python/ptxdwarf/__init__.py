"""ptxdwarf: the DWARF of NVIDIA PTX, read, checked and produced.

Reading, in pyelftools' shape::

    m = ptxdwarf.read("kernel.ptx")            # or ptxdwarf.parse(text, name="kernel.ptx")
    for unit in m.units:                       # version, address_size, offset, top_die
        for die in unit.iter_dies():           # tag "DW_TAG_subprogram", offset, name, parent, children
            for attr in die.attributes.values():
                attr.name, attr.form, attr.value, attr.symbol, attr.text
    for row in m.line_table():                 # file, line, column, ptx_line, function, inlined_at
        ...
    for d in m.check():                        # severity, rule, message, line, column, section, offset
        print(d)
    m.lookup("k.cu:42")                        # [LookupMatch]: function, ptx_lines, scopes, variables
    m.types(), m.statistics(), m.dump(format="json")   # ptxdump types / dump --statistics / dump

Producing: Program (the module's code, `.file` table, `.loc` lines, labels),
Builder (the DIE tree), Location; annotate() gives PTX without debug
information a line table and DWARF of its own. See docs/python.md.

Bad input raises ptxdwarf.Error (a ValueError) whose message is
``file:line:col: error: ...``; misuse of the producer raises
ptxdwarf.BuildError (an Error) naming the problem.
"""

import os as _os

from ._ptxdwarf import (  # noqa: F401  (the public names)
    Attribute,
    Builder,
    BuildError,
    DIE,
    Diagnostic,
    Error,
    Frame,
    LineRow,
    LineTable,
    Location,
    LookupMatch,
    Member,
    Module,
    Program,
    Scope,
    TypeLayout,
    Unit,
    Variable,
    __version__,
)
from . import _ptxdwarf

__all__ = [
    "Attribute", "Builder", "BuildError", "DIE", "Diagnostic", "Error", "Frame", "LineRow", "LineTable",
    "Location", "LookupMatch", "Member", "Module", "Program", "Scope", "TypeLayout", "Unit", "Variable",
    "annotate", "parse", "read",
]


def read(path):
    """Reads and decodes the PTX file at `path` (str or os.PathLike): a Module.

    Raises Error (``path:line:col: error: ...``) when it cannot be read as PTX.
    """
    return _ptxdwarf.read(_os.fspath(path))


def parse(text, name="<input>"):
    """Reads and decodes PTX text (str or bytes); `name` names it in diagnostics."""
    return _ptxdwarf.parse(text, name)


def annotate(text, name="<input>", source_name=None, keep_lines=False, rename_registers=False, replace=False,
             style="dense", diagnostics=False):
    """Debug information for PTX that has none (``ptxdump annotate``).

    The text becomes the source: ``.file 1`` and a ``.loc`` before every
    instruction line, a subprogram per function, a parameter per ``.param``, a
    variable per register and per .global/.shared/.const/.local declaration.
    Returns the annotated text (str when `text` is str, else bytes); with
    diagnostics=True, (text, warnings). Raises Error when the text cannot be
    read or is refused (it has debug information already, unless `replace`).
    """
    data = text.encode() if isinstance(text, str) else bytes(text)
    out, found = _ptxdwarf._annotate(data, name, source_name, keep_lines, rename_registers, replace, style)
    if isinstance(text, str):
        out = out.decode("utf-8", "surrogateescape")
    return (out, found) if diagnostics else out
