"""pyelftools' side of tests/bench/python_read.py: run by an interpreter that has
pyelftools (Debian's /usr/bin/python3). Prints one JSON line of counts and seconds."""
import json
import sys
import time

from elftools.elf.elffile import ELFFile


def main(cubin):
    start = time.process_time()
    with open(cubin, "rb") as f:
        dwarf = ELFFile(f).get_dwarf_info(relocate_dwarf_sections=False)  # cubin relocations pyelftools does not know
        dies = values = 0
        for cu in dwarf.iter_CUs():
            for die in cu.iter_DIEs():
                if die.is_null():
                    continue
                dies += 1
                for attr in die.attributes.values():
                    attr.value
                    values += 1
        info = time.process_time()
        rows = 0
        for cu in dwarf.iter_CUs():
            program = dwarf.line_program_for_CU(cu)
            if program is None:
                continue
            for entry in program.get_entries():
                if entry.state is not None:
                    state = entry.state
                    (state.file, state.line, state.column)
                    rows += 1
        lines = time.process_time()
    print(json.dumps({"dies": dies, "values": values, "info_seconds": info - start, "rows": rows,
                      "line_seconds": lines - info}))


if __name__ == "__main__":
    main(sys.argv[1])
