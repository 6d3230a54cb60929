#!/bin/sh
# `ptxdump check` of a PTX file against `llvm-dwarfdump --verify` of its
# cubin (issue 42's target: at most 0.5x the CPU time, peak at most 1.5x the
# file), run alternately in one loop so that both see the same load: pinned to
# one core (taskset -c CPU) and on every core. Prints, per command and
# placement, the minimum and median of CPU time (user + system), wall time and
# peak memory over RUNS runs, and the CPU ratios.
#
#   sh tests/bench/check_vs_verify.sh BUILD PTX CUBIN [RUNS] [CPU] [PTXDUMP...]
#
# BUILD holds ptxdwarf_rusage (tests/bench) and ptxdump; more ptxdump binaries
# (another build's, to compare two versions) may follow and run in the same
# loop. RUNS defaults to 9, CPU to 1.
set -eu
BUILD=$1 PTX=$2 CUBIN=$3 RUNS=${4:-9} CPU=${5:-1}
shift 3
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
RUSAGE=$BUILD/tests/bench/ptxdwarf_rusage
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
set -- "$BUILD/ptxdump/ptxdump" "$@"

# One run of command "$2..." into $WORK/$1 (wall rss faults sys user).
timed() {
  out=$1
  shift
  "$RUSAGE" -o "$WORK/one" "$@" > /dev/null 2>&1 || true
  cat "$WORK/one" >> "$WORK/$out"
}

i=0
while [ $i -lt "$RUNS" ]; do
  n=0
  for ptxdump in "$@"; do
    timed "check$n@1" taskset -c "$CPU" "$ptxdump" check "$PTX"
    timed "check$n" "$ptxdump" check "$PTX"
    n=$((n + 1))
  done
  timed "verify@1" taskset -c "$CPU" llvm-dwarfdump --verify "$CUBIN"
  timed "verify" llvm-dwarfdump --verify "$CUBIN"
  i=$((i + 1))
done

# min and median of a column of numbers
stats() { sort -n | awk '{v[NR]=$1} END {printf "%.1f / %.1f", v[1], v[int((NR+1)/2)]}'; }
fileBytes=$(wc -c < "$PTX")
echo "ptx: $PTX ($fileBytes bytes); $RUNS runs each; min / median"
echo "command | CPU ms | system ms | wall ms | peak MiB | median peak / PTX file"
for f in $(ls "$WORK" | grep -v '^one$' | sort); do
  cpu=$(awk '{print ($4 + $5) * 1000}' "$WORK/$f" | stats)
  sys=$(awk '{print $4 * 1000}' "$WORK/$f" | stats)
  wall=$(awk '{print $1 * 1000}' "$WORK/$f" | stats)
  peak=$(awk '{print $2 / 1024}' "$WORK/$f" | stats)
  ratio=$(awk -v b="$fileBytes" '{print $2 * 1024 / b}' "$WORK/$f" | sort -n | awk '{v[NR]=$1} END {printf "%.2fx", v[int((NR+1)/2)]}')
  echo "$f | $cpu | $sys | $wall | $peak | $ratio"
done
medianCpu() { awk '{print $4 + $5}' "$WORK/$1" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
n=0
for ptxdump in "$@"; do
  for at in "@1" ""; do
    echo "check$n$at / verify$at (median CPU): $(echo "$(medianCpu "check$n$at") $(medianCpu "verify$at")" |
      awk '{printf "%.2fx", $1 / $2}')"
  done
  n=$((n + 1))
done
