#!/bin/sh
# Fault table for issue "check, verify and diff" (acceptance 5).
#
# For fixtures/chapter6.ptx (baseline), every fixtures/faults/*.ptx listed in
# fixtures/faults/generate.py, and a few extra faults made here with sed, run
#   1. ptxas -arch=sm_75 -g FILE -o x.cubin
#   2. llvm-dwarfdump --verify x.cubin   (only when ptxas wrote a cubin)
#   3. ptxdump check FILE
# and print a Markdown table saying whether each tool caught the fault.
#
# Usage: tools/faults/measure_faults.sh PATH/TO/ptxdump > table.md
# Environment: PTXAS (default /usr/local/cuda/bin/ptxas, else ptxas on PATH),
#              LLVM_DWARFDUMP (default llvm-dwarfdump), PYTHON (default python3).
#
# What counts as caught:
#   ptxas           non-zero exit, or a message the baseline does not print.
#   llvm-dwarfdump  an error: line the baseline's --verify does not print
#                   (the baseline already reports "DIEs have overlapping
#                   address ranges", since every function starts at 0 in a
#                   cubin), or a crash; only-new-warning: lines are shown as
#                   "caught (warning only)" and counted separately.
#   ptxdump check   exit 1 with an error diagnostic tagged with the expected
#                   rule (generate.py's table; for the extra faults, below).
set -u

usage() { echo "usage: $0 PATH/TO/ptxdump" >&2; exit 2; }
[ $# -eq 1 ] || usage
PTXDUMP=$1
[ -x "$PTXDUMP" ] || { echo "$0: $PTXDUMP is not executable" >&2; exit 2; }

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
BASE=$ROOT/fixtures/chapter6.ptx
FAULTS=$ROOT/fixtures/faults
if [ -z "${PTXAS:-}" ]; then
    if [ -x /usr/local/cuda/bin/ptxas ]; then PTXAS=/usr/local/cuda/bin/ptxas
    else PTXAS=$(command -v ptxas) || { echo "$0: ptxas not found (set PTXAS)" >&2; exit 2; }
    fi
fi
DWARFDUMP=${LLVM_DWARFDUMP:-llvm-dwarfdump}
command -v "$DWARFDUMP" >/dev/null 2>&1 || { echo "$0: $DWARFDUMP not found (set LLVM_DWARFDUMP)" >&2; exit 2; }
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || { echo "$0: $PYTHON not found (set PYTHON)" >&2; exit 2; }
[ -r "$BASE" ] || { echo "$0: $BASE missing" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/measure_faults.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT HUP TERM

if command -v timeout >/dev/null 2>&1; then TO="timeout 120"; else TO=; fi
TAB=$(printf '\t')
MAXLEN=110

# cell TEXT: one table cell -- single line, squeezed blanks, '|' escaped, shortened.
cell() {
    printf '%s' "$1" | tr '\n\t' '  ' | sed -e 's/  */ /g' -e 's/^ //' -e 's/ $//' |
        awk -v max="$MAXLEN" '{ if (length($0) > max) $0 = substr($0, 1, max - 3) "..."; print }' |
        sed 's/|/\\|/g'
}

# ---------------------------------------------------------------------------
# The fault list: name, expected rule, description, source file.
# generate.py's FAULTS is read with ast.literal_eval (nothing is executed).
"$PYTHON" - "$FAULTS/generate.py" > "$TMP/list.tsv" <<'PY' || { echo "$0: cannot read generate.py" >&2; exit 2; }
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
faults = next(ast.literal_eval(n.value) for n in tree.body
              if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "FAULTS" for t in n.targets))
for name, rule, _line, edits in faults:
    desc = "; ".join("L%d `%s` → `%s`" % (l, o, n) for l, o, n in edits)
    print("\t".join((name[:-4], rule, desc, "fixture")))
PY

# Extra faults, made from chapter6.ptx with sed: name, rule, description, sed script.
cat > "$TMP/extra.tsv" <<'EOF'
ref_past_unit	ref-target	(sed) L84 pointer's DW_AT_type `.b32 164` → `.b32 400` (past the unit end 0x10a)	84s/^\.b32 164$/.b32 400/
pubnames_past_unit	pubnames-entry	(sed) L101 pubnames offset `.b32 174` → `.b32 500` (past the unit end)	101s/^\.b32 174$/.b32 500/
abbrev_offset_past_section	abbrev-offset	(sed) L55 `.b32 .debug_abbrev` → `.b32 .debug_abbrev+200` (section is 86 bytes)	55s/^\.b32 \.debug_abbrev$/.b32 .debug_abbrev+200/
header_address_size_4	unit-address-size	(sed) L56 unit header address_size `8` → `4` (PTX keeps .address_size 64)	56s/^\.b8 8, 1,/.b8 4, 1,/
EOF
while IFS=$TAB read -r name rule desc script; do
    sed "$script" "$BASE" > "$TMP/$name.ptx"
    if cmp -s "$BASE" "$TMP/$name.ptx"; then
        echo "$0: the sed edit for $name did not change chapter6.ptx" >&2; exit 2
    fi
    printf '%s\t%s\t%s\t%s\n' "$name" "$rule" "$desc" "extra" >> "$TMP/list.tsv"
done < "$TMP/extra.tsv"

# ---------------------------------------------------------------------------
# Tool runs. Each sets RESULT (cell text) and CAUGHT (yes / warn / no / na).

# run_ptxas FILE TAG: leaves $TMP/TAG.cubin when ptxas wrote one.
run_ptxas() {
    rm -f "$TMP/$2.cubin"
    $TO "$PTXAS" -arch=sm_75 -g "$1" -o "$TMP/$2.cubin" > "$TMP/$2.ptxas" 2>&1
    rc=$?
    # Drop the path from "ptxas FILE, line N; error   : ..." and squeeze blanks.
    sed -e 's/^ptxas [^,]*, line \([0-9]*\); */line \1: /' -e 's/^ptxas  *//' \
        -e 's/  *:/:/' -e 's/  */ /g' "$TMP/$2.ptxas" > "$TMP/$2.ptxas.msg"
    [ "$2" = base ] && { PTXAS_BASE_RC=$rc; return; }
    new=$(grep -vxF -f "$TMP/base.ptxas.msg" "$TMP/$2.ptxas.msg" 2>/dev/null | head -n 1)
    [ -s "$TMP/base.ptxas.msg" ] || new=$(head -n 1 "$TMP/$2.ptxas.msg")
    if [ "$rc" -ne "$PTXAS_BASE_RC" ] || [ -n "$new" ]; then
        CAUGHT=yes
        RESULT="caught (exit $rc): ${new:-no message}"
    else
        CAUGHT=no; RESULT=missed
    fi
}

# verify_lines TAG: the error:/warning: lines of TAG's --verify output.
verify_lines() { grep -E '^(error|warning): ' "$TMP/$1.verify" | sed 's/ *$//'; }

run_verify() {
    tag=$1
    if [ ! -s "$TMP/$tag.cubin" ]; then CAUGHT=na; RESULT="n/a (no cubin)"; return; fi
    $TO "$DWARFDUMP" --verify "$TMP/$tag.cubin" > "$TMP/$tag.verify" 2>&1
    rc=$?
    verify_lines "$tag" > "$TMP/$tag.vlines"
    [ "$tag" = base ] && return
    # New lines = the fault's lines minus the baseline's (as multisets).
    sort "$TMP/$tag.vlines" > "$TMP/a"; sort "$TMP/base.vlines" > "$TMP/b"
    comm -23 "$TMP/a" "$TMP/b" > "$TMP/new"
    # First new error (else warning), in output order, with its first note.
    first() {
        awk -v kind="$1" -v newf="$TMP/new" '
            BEGIN { while ((getline l < newf) > 0) want[l]++ }
            { sub(/ *$/, "") }
            hit && /^note: / { print hit " — " substr($0, 7); hit = ""; exit }
            hit { print hit; hit = ""; exit }
            index($0, kind ": ") == 1 && want[$0] > 0 { hit = $0 }
            END { if (hit != "") print hit }' "$TMP/$tag.verify" | head -n 1
    }
    err=$(first error); warn=$(first warning)
    crash=
    if [ "$rc" -ge 124 ] || grep -q '^Stack dump:' "$TMP/$tag.verify"; then
        case $rc in 124) crash="timed out";; 139) crash="crashed (SIGSEGV)";; 134) crash="crashed (SIGABRT)";; *) crash="crashed (exit $rc)";; esac
    fi
    if [ -n "$crash" ]; then
        CAUGHT=yes; RESULT="caught: $crash${err:+ after $err}${warn:+ after $warn}"
    elif [ -n "$err" ]; then
        CAUGHT=yes; RESULT="caught: ${err#error: }"
    elif [ -n "$warn" ]; then
        CAUGHT=warn; RESULT="caught (warning only): ${warn#warning: }"
    elif grep -q '^No errors\.' "$TMP/$tag.verify"; then
        CAUGHT=no; RESULT="missed (verify passes: the baseline's own errors vanish)"
    else
        CAUGHT=no; RESULT=missed
    fi
}

run_check() {
    file=$1 tag=$2 rule=$3
    $TO "$PTXDUMP" check "$file" > "$TMP/$tag.check.out" 2> "$TMP/$tag.check"
    rc=$?
    [ "$tag" = base ] && { CHECK_BASE_RC=$rc; return; }
    # "FILE:LINE:COL: error: MESSAGE [rule] (.section+0xN)"
    hit=$(grep -F ": error: " "$TMP/$tag.check" | grep -F "[$rule]" | head -n 1)
    if [ "$rc" -eq 1 ] && [ -n "$hit" ]; then
        line=$(printf '%s\n' "$hit" | sed 's/^.*:\([0-9][0-9]*\):[0-9][0-9]*: error: .*/\1/')
        msg=$(printf '%s\n' "$hit" | sed -e 's/^.*: error: //' -e 's/ (\.debug_[a-z_]*+0x[0-9a-fA-F]*)$//' \
                -e 's/ \[[a-z0-9-]*\]$//' -e 's/ (in DW_TAG_[^()]*)$//')
        CAUGHT=yes; RESULT="caught: [$rule] L$line $msg"
    elif [ "$rc" -eq 1 ]; then
        other=$(grep -F ": error: " "$TMP/$tag.check" | head -n 1 | sed 's/^.*: error: //')
        CAUGHT=no; RESULT="missed (exit 1 but no [$rule] error; first: $other)"
    elif [ "$rc" -eq 0 ]; then
        CAUGHT=no; RESULT=missed
    else
        CAUGHT=no; RESULT="missed (exit $rc)"
    fi
}

# ---------------------------------------------------------------------------
run_ptxas "$BASE" base
run_verify base
run_check "$BASE" base -

base_verify=$(sed 's/:$//' "$TMP/base.vlines" | sort | uniq -c | awk '{ c = $1; $1 = ""; sub(/^ /, ""); printf "%s%s%s", (NR > 1 ? "; " : ""), $0, (c > 1 ? " (x" c ")" : "") }')
base_check=$(sed 's/^.*: //' "$TMP/base.check.out")

echo "| fault | what changed | ptxas | llvm-dwarfdump --verify | ptxdump check |"
echo "|---|---|---|---|---|"
printf '| %s | %s | %s | %s | %s |\n' "chapter6 (baseline)" "nothing" \
    "$(cell "exit $PTXAS_BASE_RC$( [ -s "$TMP/base.ptxas.msg" ] && printf ', prints: %s' "$(head -n 1 "$TMP/base.ptxas.msg")" || printf ', no messages')")" \
    "$(cell "${base_verify:-No errors.} (baseline noise)")" \
    "$(cell "exit $CHECK_BASE_RC: $base_check")"

n=0 np=0 nv=0 nvw=0 nvna=0 nc=0
while IFS=$TAB read -r name rule desc kind; do
    if [ "$kind" = fixture ]; then file=$FAULTS/$name.ptx; label=$name
    else file=$TMP/$name.ptx; label="$name (extra)"; fi
    [ -r "$file" ] || { echo "$0: $file missing" >&2; exit 2; }
    n=$((n + 1))
    run_ptxas "$file" f; c1=$(cell "$RESULT"); [ "$CAUGHT" = yes ] && np=$((np + 1))
    run_verify f; c2=$(cell "$RESULT")
    case $CAUGHT in yes) nv=$((nv + 1));; warn) nv=$((nv + 1)); nvw=$((nvw + 1));; na) nvna=$((nvna + 1));; esac
    run_check "$file" f "$rule"; c3=$(cell "$RESULT"); [ "$CAUGHT" = yes ] && nc=$((nc + 1))
    printf '| %s | %s | %s | %s | %s |\n' "$label" "$(cell "$desc")" "$c1" "$c2" "$c3"
done < "$TMP/list.tsv"

measured=$((n - nvna))
printf '| **caught** | %d faults | %d/%d | %d/%d with a cubin (%d of them by a warning only; %d n/a: no cubin) | %d/%d |\n' \
    "$n" "$np" "$n" "$nv" "$measured" "$nvw" "$nvna" "$nc" "$n"
