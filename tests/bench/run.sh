#!/bin/sh
# Whole-command timings of ptxdump on large nvcc -G PTX, side by side with
# llvm-dwarfdump on the cubin ptxas makes of it, with `wc -l`, and with
# ptxdwarf_floor (the file mapped and read, nothing else: floor.cpp).
# usage: tests/bench/run.sh [BUILD_DIR] [SIZES_MB] [RUNS] [SHAPE_MB]
#   BUILD_DIR  a configured and built tree (default: build)
#   SIZES_MB   PTX sizes to generate, in MB (default: "1 20 100")
#   RUNS       runs per command; the median is reported (default: 5)
#   SHAPE_MB   size of the other shapes' PTX, in MB (default: 20; 0: none)
# Inputs are cached in BUILD_DIR/bench-work (nvcc and ptxas take minutes on
# the largest). Prints one Markdown table: times on two cores and pinned to
# one (`@1`, taskset -c 0, for both tools), the ratios the performance
# targets name, minor page faults and system time (on machines where a fault
# is dear, memory touched is time spent), peak memory,
# and check's time and memory per MB (for linearity across sizes).
set -eu
BUILD=${1:-build}
SIZES=${2:-"1 20 100"}
RUNS=${3:-5}
SHAPE_MB=${4:-20}
PTXDUMP=$BUILD/ptxdump/ptxdump
GEN=$BUILD/tests/bench/ptxdwarf_gen_cuda
RUSAGE=$BUILD/tests/bench/ptxdwarf_rusage
FLOOR=$BUILD/tests/bench/ptxdwarf_floor
WORK=$BUILD/bench-work
mkdir -p "$WORK"
rm -f "$WORK/lookup-rows" "$WORK/kernel-rows"
for tool in nvcc ptxas llvm-dwarfdump; do
  command -v $tool >/dev/null 2>&1 || PATH=$PATH:/usr/local/cuda/bin
  command -v $tool >/dev/null 2>&1 || { echo "run.sh: $tool not found" >&2; exit 2; }
done
[ -x "$PTXDUMP" ] && [ -x "$GEN" ] && [ -x "$RUSAGE" ] && [ -x "$FLOOR" ] ||
  { echo "run.sh: build $PTXDUMP, $GEN, $RUSAGE and $FLOOR first" >&2; exit 2; }

# One timed run: prints "seconds maxrss_kb minor_faults system_seconds
# user_seconds", all from the fork to the wait, in microseconds
# (ptxdwarf_rusage: GNU time's %e and %S come in 10 ms steps, which made a
# 40 ms check's system time 0 or 25% of the run).
timed() {
  "$RUSAGE" -o "$WORK/time.txt" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$WORK/time.txt"
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
mean() { awk '{t += $1} END {print (NR ? t / NR : 0)}'; }
# The run with the median time of file $1 (timed's lines).
medianRun() { sort -n "$1" | awk '{v[NR]=$0} END {print v[int((NR+1)/2)]}'; }

# "@1": pinned to one core (taskset -c 0), both ptxdump and llvm-dwarfdump.
printf '| PTX MB | debug text MB | dump s | llvm-dwarfdump s | dump/llvm | dump@1 s | llvm@1 s | dump/llvm@1 | dump faults (llvm) | dump@1 faults (llvm) | dump sys %% | check s (MB/s) | check@1 s | wc -l s | check/wc | check faults | check sys %% | reencode s | reencode/check | check peak MB | dump peak MB | peak/file | check ms/MB | check peak MB/MB |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
# The generated nvcc -G PTX of about $1 MB and its cubin, made once.
makeGen() {
  if [ ! -s "$WORK/gen$1.ptx" ]; then
    "$GEN" $(($1 * 110)) > "$WORK/gen$1.cu"  # about 9 KB of nvcc -G PTX per generated function pair
    nvcc -G -ptx -arch=sm_90 "$WORK/gen$1.cu" -o "$WORK/gen$1.ptx"
  fi
  [ -s "$WORK/gen$1.cubin" ] || ptxas -arch=sm_90 -g "$WORK/gen$1.ptx" -o "$WORK/gen$1.cubin"
}
for mb in $SIZES; do
  makeGen $mb
  ptx=$WORK/gen$mb.ptx
  size=$(wc -c < "$ptx")
  debug=$(awk '/^[ \t]*\.section/{s=1} s{n+=length($0)+1} /^[ \t]*}/{s=0} END{print n+0}' "$ptx")
  for f in d l d1 l1 c c1 w r k k1 fl; do : > "$WORK/$f"; done
  i=0
  while [ $i -lt "$RUNS" ]; do  # alternating, so load changes hit every command alike
    timed "$PTXDUMP" dump --debug-info --debug-loc "$ptx" >> "$WORK/d"
    timed llvm-dwarfdump --debug-info --debug-loc "$WORK/gen$mb.cubin" >> "$WORK/l"
    timed taskset -c 0 "$PTXDUMP" dump --debug-info --debug-loc "$ptx" >> "$WORK/d1"
    timed taskset -c 0 llvm-dwarfdump --debug-info --debug-loc "$WORK/gen$mb.cubin" >> "$WORK/l1"
    timed "$PTXDUMP" check "$ptx" >> "$WORK/c"
    timed taskset -c 0 "$PTXDUMP" check "$ptx" >> "$WORK/c1"
    timed wc -l "$ptx" >> "$WORK/w"
    timed "$FLOOR" "$ptx" >> "$WORK/fl"
    timed "$PTXDUMP" reformat --reencode "$ptx" -o "$WORK/re.ptx" >> "$WORK/r"
    # The debugger's question at a source line of the first generated function.
    timed "$PTXDUMP" lookup "$ptx" --at "gen$mb.cu:17" >> "$WORK/k"
    timed taskset -c 0 "$PTXDUMP" lookup "$ptx" --at "gen$mb.cu:17" >> "$WORK/k1"
    i=$((i + 1))
  done
  d=$(medianRun "$WORK/d"); l=$(medianRun "$WORK/l"); d1=$(medianRun "$WORK/d1"); l1=$(medianRun "$WORK/l1")
  c=$(medianRun "$WORK/c"); c1=$(medianRun "$WORK/c1"); w=$(medianRun "$WORK/w"); r=$(medianRun "$WORK/r")
  # System time: the median of the runs' (each run's is split from its user
  # time at the timer tick: ptxdwarf_rusage), over the median wall time.
  dsys=$(awk '{print $4}' "$WORK/d" | median); csys=$(awk '{print $4}' "$WORK/c" | median)
  echo "$d|$l|$d1|$l1|$c|$c1|$w|$r" | awk -F'|' -v s="$size" -v dbg="$debug" -v dsys="$dsys" -v csys="$csys" '{
    split($1, d, " "); split($2, l, " "); split($3, d1, " "); split($4, l1, " ")
    split($5, c, " "); split($6, c1, " "); split($7, w, " "); split($8, r, " ")
    MB = 1048576; f = s / MB; peak = (c[2] > d[2] ? c[2] : d[2])
    printf "| %.1f | %.1f | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx | %d (%d) | %d (%d) | %.0f%% | %.3f (%.0f) | %.3f | %.4f | %.1fx | %d | %.0f%% | %.3f | %.2fx | %.0f | %.0f | %.2fx | %.1f | %.2f |\n",
      f, dbg / MB, d[1], l[1], (l[1] > 0 ? d[1] / l[1] : 0), d1[1], l1[1], (l1[1] > 0 ? d1[1] / l1[1] : 0),
      d[3], l[3], d1[3], l1[3], (d[1] > 0 ? 100 * dsys / d[1] : 0),
      c[1], (c[1] > 0 ? f / c[1] : 0), c1[1], w[1], (w[1] > 0 ? c[1] / w[1] : 0), c[3], (c[1] > 0 ? 100 * csys / c[1] : 0),
      r[1], (c[1] > 0 ? r[1] / c[1] : 0), c[2] / 1024, d[2] / 1024, (peak * 1024) / s, 1000 * c[1] / f, c[2] / 1024 / f
  }'
  # The kernel's share of each: the mean system time over the median wall
  # time, and over the mean CPU time (system + user). Means, not medians: a
  # run's split of its CPU time between the two is sampled at the timer tick
  # (4 ms here), so one run's is a few ticks' worth and the median of a few
  # jumps by a tick; the mean of the samples is the share.
  for f in w fl c; do
    echo "$(medianRun "$WORK/$f" | awk '{print $1}') $(awk '{print $4}' "$WORK/$f" | mean) $(awk '{print $5}' "$WORK/$f" | mean)"
  done | awk -v s="$size" '{ wall[NR] = $1; sys[NR] = $2; usr[NR] = $3 }
    END {
      printf "| %.1f", s / 1048576
      for (i = 1; i <= 3; i++)
        printf " | %.4f | %.1f | %.0f%% | %.0f%%", wall[i], 1000 * sys[i], (wall[i] > 0 ? 100 * sys[i] / wall[i] : 0),
          (sys[i] + usr[i] > 0 ? 100 * sys[i] / (sys[i] + usr[i]) : 0)
      printf " | %.1f |\n", 1000 * (sys[3] - sys[2])
    }' >> "$WORK/kernel-rows"
  k=$(medianRun "$WORK/k"); k1=$(medianRun "$WORK/k1")
  echo "$k|$k1|$c|$c1" | awk -F'|' -v s="$size" '{
    split($1, k, " "); split($2, k1, " "); split($3, c, " "); split($4, c1, " ")
    printf "| %.1f | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx | %d | %.0f | %.2fx |\n", s / 1048576, k[1], c[1],
      (c[1] > 0 ? k[1] / c[1] : 0), k1[1], c1[1], (c1[1] > 0 ? k1[1] / c1[1] : 0), k[3], k[2] / 1024, k[2] * 1024 / s
  }' >> "$WORK/lookup-rows"
done
# lookup (what is in scope at a source line, where each variable lives) reads
# the whole file as check does, and answers one question.
printf '\n| PTX MB | lookup s | check s | lookup/check | lookup@1 s | check@1 s | lookup/check@1 | lookup faults | lookup peak MB | lookup peak/file |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
cat "$WORK/lookup-rows"
rm -f "$WORK/lookup-rows"
# The kernel's share (target 2's system time) of check, of `wc -l` (which
# copies the file from the page cache) and of ptxdwarf_floor (which maps it
# as ptxdump does, counts its lines and does nothing else): the floor is what
# any reader of the file spends in the kernel on this machine.
printf '\n| PTX MB | wc -l s | wc sys ms | wc sys/wall | wc sys/cpu | floor s | floor sys ms | floor sys/wall | floor sys/cpu | check s | check sys ms | check sys/wall | check sys/cpu | check sys - floor sys ms |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
cat "$WORK/kernel-rows"
rm -f "$WORK/kernel-rows"

# Other shapes of nvcc -G PTX (ptxdwarf_gen_cuda): one kernel of megabytes
# whose running value has one location list of tens of thousands of entries
# (generated, unrolled code), and template-heavy CUB kernels (long names, deep
# type trees); the generated program's PTX as this library writes debug
# sections (`reformat --style packed`, the producer's default: `.b8 237, 155,
# 14`; `--style dense`, annotate's: `.b32 0x676c0108`; `--style verbose`,
# LLVM's layout with a comment a line), the same DWARF in fewer lines; and
# its PTX with CRLF line endings, as a file written or checked out on
# Windows has them; and the generated program as clang -g -O0 writes it
# (clang's NVPTX back end: LLVM's section layout and line table, another
# producer's PTX at this size). check against wc -l; dump and dump --statistics against
# llvm-dwarfdump on the cubin where ptxas makes one in reasonable time (ptxas
# -g takes minutes on a single kernel of megabytes: not for `kernel`); peak
# memory against the file.
if [ "$SHAPE_MB" -gt 0 ]; then
  printf '\n| shape | PTX MB | check s | wc -l s | check/wc | check peak/file | dump s | llvm-dwarfdump s | dump/llvm | dump peak/file | statistics s | llvm --statistics s | statistics/llvm | statistics peak/file |\n'
  printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
  for shape in kernel templates packed dense verbose crlf clang; do
    ptx=$WORK/$shape$SHAPE_MB.ptx
    cubin=$WORK/$shape$SHAPE_MB.cubin
    case $shape in
      packed | dense | verbose)  # written again from gen: the same DWARF, so gen's cubin
        makeGen "$SHAPE_MB"
        # Made by this build each time: what this build writes.
        "$PTXDUMP" reformat --style $shape "$WORK/gen$SHAPE_MB.ptx" -o "$ptx"
        cubin=$WORK/gen$SHAPE_MB.cubin ;;
      crlf)
        makeGen "$SHAPE_MB"
        [ -s "$ptx" ] || sed 's/$/\r/' "$WORK/gen$SHAPE_MB.ptx" > "$ptx"
        cubin=$WORK/gen$SHAPE_MB.cubin ;;
      clang)  # the generated program as clang -g -O0 writes it: another producer's layout at this size
        makeGen "$SHAPE_MB"
        if [ ! -s "$ptx" ]; then
          clang++ -x cuda --cuda-device-only -S -g -O0 --cuda-gpu-arch=sm_80 -nocudalib -nocudainc -Wno-unknown-cuda-version \
            -include "$(dirname "$0")/clang_cuda_prelude.h" "$WORK/gen$SHAPE_MB.cu" -o "$ptx" ||
            { echo "run.sh: clang++ cannot compile CUDA for NVPTX here: no clang shape" >&2; rm -f "$ptx"; continue; }
        fi
        [ -s "$cubin" ] || ptxas -arch=sm_80 -g "$ptx" -o "$cubin" ;;
      *)
        # About 1.5 KB of PTX per statement, 250 KB per CUB kernel.
        if [ $shape = kernel ]; then n=$((SHAPE_MB * 665)); else n=$((SHAPE_MB * 4)); fi
        if [ ! -s "$ptx" ]; then
          "$GEN" $n $shape > "$WORK/$shape$SHAPE_MB.cu"
          nvcc -G -ptx -arch=sm_90 "$WORK/$shape$SHAPE_MB.cu" -o "$ptx"
        fi
        [ $shape = kernel ] || [ -s "$cubin" ] || ptxas -arch=sm_90 -g "$ptx" -o "$cubin" ;;
    esac
    for f in sc sw sd sl ss sls; do : > "$WORK/$f"; done
    i=0
    while [ $i -lt "$RUNS" ]; do
      timed "$PTXDUMP" check "$ptx" >> "$WORK/sc"
      timed wc -l "$ptx" >> "$WORK/sw"
      timed "$PTXDUMP" dump --debug-info --debug-loc "$ptx" >> "$WORK/sd"
      timed "$PTXDUMP" dump --statistics "$ptx" >> "$WORK/ss"
      if [ -s "$cubin" ]; then
        timed llvm-dwarfdump --debug-info --debug-loc "$cubin" >> "$WORK/sl"
        timed llvm-dwarfdump --statistics "$cubin" >> "$WORK/sls"
      fi
      i=$((i + 1))
    done
    sc=$(medianRun "$WORK/sc"); sw=$(medianRun "$WORK/sw"); sd=$(medianRun "$WORK/sd"); ss=$(medianRun "$WORK/ss")
    sl=$(medianRun "$WORK/sl"); sls=$(medianRun "$WORK/sls")
    echo "$sc|$sw|$sd|$sl|$ss|$sls" | awk -F'|' -v shape=$shape -v s="$(wc -c < "$ptx")" '{
      split($1, c, " "); split($2, w, " "); split($3, d, " "); split($4, l, " "); split($5, t, " "); split($6, u, " ")
      MB = 1048576
      llvm = (l[1] > 0 ? sprintf("%.3f | %.2fx", l[1], d[1] / l[1]) : "- | -")
      stats = (u[1] > 0 ? sprintf("%.3f | %.2fx", u[1], t[1] / u[1]) : "- | -")
      printf "| %s | %.1f | %.3f | %.4f | %.1fx | %.2fx | %.3f | %s | %.2fx | %.3f | %s | %.2fx |\n", shape, s / MB,
             c[1], w[1], (w[1] > 0 ? c[1] / w[1] : 0), c[2] * 1024 / s, d[1], llvm, d[2] * 1024 / s, t[1], stats,
             t[2] * 1024 / s
    }'
  done
fi

# annotate against check on the same program compiled without -G (nvcc -O3:
# no debug information, what `ptxdump annotate` is for); issue 13 asks for
# annotate within 2x check. The output is written with -o, as users write it:
# to a new file, and over an existing one (then synced before the rename, so
# that a crash cannot cost the old file); `@1` pinned to one core.
printf '\n| PTX MB (-O3) | check s | annotate -o new s | annotate/check | annotate -o existing s | check@1 s | annotate@1 s | annotate@1/check@1 | annotate faults | check peak MB | annotate peak MB | output MB |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for mb in $SIZES; do
  o3=$WORK/gen${mb}_O3.ptx
  [ -s "$o3" ] || nvcc -ptx -arch=sm_90 -O3 "$WORK/gen$mb.cu" -o "$o3"
  for f in ac aa ax ac1 aa1; do : > "$WORK/$f"; done
  i=0
  # An untimed `sync` before each run: otherwise a run pays for the writeback
  # of the previous annotate's output (tens of megabytes), which slowed check
  # most and flattered the ratio.
  while [ $i -lt "$RUNS" ]; do
    sync; timed "$PTXDUMP" check "$o3" >> "$WORK/ac"
    rm -f "$WORK/annotated.ptx"
    sync; timed "$PTXDUMP" annotate "$o3" -o "$WORK/annotated.ptx" >> "$WORK/aa"
    sync; timed "$PTXDUMP" annotate "$o3" -o "$WORK/annotated.ptx" >> "$WORK/ax"
    sync; timed taskset -c 0 "$PTXDUMP" check "$o3" >> "$WORK/ac1"
    rm -f "$WORK/annotated.ptx"
    sync; timed taskset -c 0 "$PTXDUMP" annotate "$o3" -o "$WORK/annotated.ptx" >> "$WORK/aa1"
    i=$((i + 1))
  done
  ac=$(medianRun "$WORK/ac"); aa=$(medianRun "$WORK/aa"); ax=$(median < "$WORK/ax")
  ac1=$(median < "$WORK/ac1"); aa1=$(median < "$WORK/aa1")
  awk -v s="$(wc -c < "$o3")" -v o="$(wc -c < "$WORK/annotated.ptx")" -v c="$ac" -v a="$aa" -v x="$ax" \
      -v c1="$ac1" -v a1="$aa1" 'BEGIN {
    MB = 1048576
    split(c, cc, " "); split(a, aa, " ")
    printf "| %.1f | %.3f | %.3f | %.2fx | %.3f | %.3f | %.3f | %.2fx | %d | %.0f | %.0f | %.1f |\n", s / MB, cc[1], aa[1],
           (cc[1] > 0 ? aa[1] / cc[1] : 0), x, c1, a1, (c1 > 0 ? a1 / c1 : 0), aa[3], cc[2] / 1024, aa[2] / 1024, o / MB
  }'
done

# check -j over many files uses the cores.
files=""
k=0
while [ $k -lt 20 ]; do cp "$WORK/gen1.ptx" "$WORK/many$k.ptx" 2>/dev/null && files="$files $WORK/many$k.ptx"; k=$((k + 1)); done
if [ -n "$files" ]; then
  : > "$WORK/j1"; : > "$WORK/j2"
  i=0
  while [ $i -lt "$RUNS" ]; do
    timed "$PTXDUMP" check -j 1 $files | awk '{print $1}' >> "$WORK/j1"
    timed "$PTXDUMP" check -j 2 $files | awk '{print $1}' >> "$WORK/j2"
    i=$((i + 1))
  done
  j1=$(median < "$WORK/j1"); j2=$(median < "$WORK/j2")
  awk -v a="$j1" -v b="$j2" 'BEGIN { printf "\ncheck of 20 files: -j 1 %.2f s, -j 2 %.2f s, speed-up %.2fx\n", a, b, (b > 0 ? a / b : 0) }'
fi
