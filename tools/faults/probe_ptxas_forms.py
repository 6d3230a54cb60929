#!/usr/bin/env python3
"""Which DW_FORMs ptxas reads, per DWARF version (the README's "DWARF forms
ptxas reads" table and cuda::ptxasFormProblem()).

For every DWARF 2-4 form and unit versions 2, 3 and 4, writes a small PTX file
whose .debug_info holds a compile unit, a base type and a variable whose one
probed attribute has that form, runs `ptxas -arch=sm_90 -g` on it, and prints a
Markdown row per form. DW_FORM_ref_addr is probed with a 4-byte operand (DWARF
3/4) and an address-sized one (DWARF 2) in every version.

Usage: tools/faults/probe_ptxas_forms.py [WORKDIR]   (PTXAS overrides the ptxas path)
"""
import os
import subprocess
import sys
import tempfile

PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
# form: (name, attribute, value operands (list of (directive, text)))
FORMS = [
 (0x01,"DW_FORM_addr",0x11,[(".b64","func_begin0")]),
 (0x03,"DW_FORM_block2",0x02,[(".b8","1, 0, 156")]),
 (0x04,"DW_FORM_block4",0x02,[(".b8","1, 0, 0, 0, 156")]),
 (0x05,"DW_FORM_data2",0x0b,[(".b8","4, 0")]),
 (0x06,"DW_FORM_data4",0x0b,[(".b8","4, 0, 0, 0")]),
 (0x07,"DW_FORM_data8",0x0b,[(".b8","4, 0, 0, 0, 0, 0, 0, 0")]),
 (0x08,"DW_FORM_string",0x03,[(".b8","120, 0")]),
 (0x09,"DW_FORM_block",0x02,[(".b8","1, 156")]),
 (0x0a,"DW_FORM_block1",0x02,[(".b8","1, 156")]),
 (0x0b,"DW_FORM_data1",0x0b,[(".b8","4")]),
 (0x0c,"DW_FORM_flag",0x3f,[(".b8","1")]),
 (0x0d,"DW_FORM_sdata",0x0b,[(".b8","4")]),
 (0x0e,"DW_FORM_strp",0x03,[(".b32",".debug_str")]),
 (0x0f,"DW_FORM_udata",0x0b,[(".b8","4")]),
 (0x10,"DW_FORM_ref_addr",0x49,None),  # size depends on version
 (0x11,"DW_FORM_ref1",0x49,[(".b8","REF")]),
 (0x12,"DW_FORM_ref2",0x49,[(".b8","REF, 0")]),
 (0x13,"DW_FORM_ref4",0x49,[(".b8","REF, 0, 0, 0")]),
 (0x14,"DW_FORM_ref8",0x49,[(".b8","REF, 0, 0, 0, 0, 0, 0, 0")]),
 (0x15,"DW_FORM_ref_udata",0x49,[(".b8","REF")]),
 (0x16,"DW_FORM_indirect",0x0b,[(".b8","11, 4")]),
 (0x17,"DW_FORM_sec_offset",0x10,[(".b32",".debug_line")]),
 (0x18,"DW_FORM_exprloc",0x02,[(".b8","1, 156")]),
 (0x19,"DW_FORM_flag_present",0x3f,[]),
 (0x20,"DW_FORM_ref_sig8",0x49,[(".b8","1, 2, 3, 4, 5, 6, 7, 8")]),
]
def uleb(v):
    out=[]
    while True:
        b=v&0x7f; v>>=7
        if v: out.append(b|0x80)
        else: out.append(b); return out

def probe(version, form, fname, attr, operands, where, ref_addr_size=0):
    # unit: header 11 bytes; CU DIE: code 1, name "p.cu\0", stmt_list data4 (or sec_offset when probed).
    # base type DIE "int" at a known offset; probe DIE: DW_TAG_variable code 3 with name "v" and the probed attribute.
    refsz = ref_addr_size if ref_addr_size else (8 if version == 2 else 4)
    cu_stmt_form = 0x06
    body = []  # list of (directive, text, size)
    def b8(vals): body.append((".b8", ", ".join(map(str, vals)), len(vals)))
    b8([1]); b8([112, 46, 99, 117, 0])
    if form == 0x17:
        body.append((".b32", ".debug_line", 4)); cu_stmt_form = 0x17
    else:
        body.append((".b32", ".debug_line", 4))
    int_off = 11 + sum(s for _,_,s in body)
    b8([2]); b8([105, 110, 116, 0]); b8([5]); b8([4])  # base type int: name, encoding data1, byte_size data1
    b8([3]); b8([118, 0])
    if form == 0x17:
        attr_spec = None
    else:
        attr_spec = (attr, form)
        if form == 0x10:
            vals = [int_off] + [0]*(refsz-1)
            b8(vals)
        else:
            for d, t in operands:
                t = t.replace("REF", str(int_off))
                size = {".b8": len(t.split(",")), ".b32": 4, ".b64": 8}[d] if t else 0
                if t: body.append((d, t, size))
    b8([0])
    length = 7 + sum(s for _,_,s in body)
    info = [".b32 %d" % length, ".b8 %d, 0" % version, ".b32 .debug_abbrev", ".b8 8"]
    info += ["%s %s" % (d, t) for d, t, _ in body]
    abbrev = [".b8 1, 17, 1, 3, 8, 16, %d, 0, 0" % cu_stmt_form,
              ".b8 2, 36, 0, 3, 8, 62, 11, 11, 11, 0, 0"]
    a3 = [3, 52, 0, 3, 8]
    if attr_spec: a3 += uleb(attr_spec[0]) + uleb(attr_spec[1])
    a3 += [0, 0]
    abbrev.append(".b8 " + ", ".join(map(str, a3)))
    abbrev.append(".b8 0")
    ptx = """.version 7.8
.target sm_90
.address_size 64

.file 1 "p.cu"

.visible .entry k()
{
.loc 1 1 1
func_begin0:
	ret;
func_end0:
}
.section .debug_info
{
%s
}
.section .debug_abbrev
{
%s
}
.section .debug_str
{
.b8 120, 0
}
""" % ("\n".join(info), "\n".join(abbrev))
    path = os.path.join(where, "v%d_%s_%d.ptx" % (version, fname, ref_addr_size))
    open(path, "w").write(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90", "-g", path, "-o", path[:-4] + ".cubin"], capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip().replace("\n", " ")

def cell(rc, msg):
    if rc == 0 and not msg:
        return "reads"
    return "exit %d: %s" % (rc, msg.replace("|", "\\|")[:70])


def main():
    where = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ptxas_forms.")
    os.makedirs(where, exist_ok=True)
    print("| form | DWARF 2 | DWARF 3 | DWARF 4 |")
    print("|---|---|---|---|")
    for form, name, attr, ops in FORMS:
        sizes = [4, 8] if form == 0x10 else [0]
        for size in sizes:
            label = name + (" (%d-byte operand)" % size if size else "")
            row = [label] + [cell(*probe(v, form, name, attr, ops, where, size)) for v in (2, 3, 4)]
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
