#!/bin/bash
# Device-only (a machine with a GPU, cuda-gdb, Triton and numba-cuda): what no
# oracle on a GPU-less machine can say. Run from the repository root with the
# annotated kernels in .device/ (see tests/device/README.md); writes under $OUT:
#   run.log      everything, tool versions first
#   results.tar  cuda-gdb transcripts, the PTX of the nvcc -G build they ran,
#                Triton's and Numba's PTX
# usage: OUT=DIR bash tests/device/run.sh [SECTION...]   (default: every section)
#   sections: dsl locals_O3 cccl locals numba producers dsl_regmap
set -u
SECTIONS=${*:-"dsl locals_O3 cccl locals numba producers dsl_regmap"}
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:?}
W=$(mktemp -d)
R=$W/results
mkdir -p "$R"
exec > >(tee "$OUT/run.log") 2>&1

echo "== tools"
nvidia-smi -L
nvcc --version | tail -2
ptxas --version | tail -1
cuda-gdb --version | head -1

gdb_batch() { # COMMANDS-FILE PROGRAM ARGS...: every line one -ex, so one failing command does not end the rest
  local cmds=$1 args=()
  shift
  while IFS= read -r line; do [ -n "$line" ] && args+=(-ex "$line"); done <"$cmds"
  timeout 240 cuda-gdb -batch -nx "${args[@]}" --args "$@"
}

launcher() { [ -x "$W/launch" ] || nvcc -g -o "$W/launch" tests/device/launch_cubin.cpp -lcuda; }

dsl() {
echo "== annotated DSL kernel: ptxas -g, run, cuda-gdb"
launcher
for v in annotated renamed; do
  ptxas -g -arch=sm_90 ".device/dsl_$v.ptx" -o "$W/dsl_$v.cubin" && "$W/launch" E_4_32 "$W/dsl_$v.cubin"
done
gdb_batch tests/device/dsl.gdb "$W/launch" E_4_32 "$W/dsl_annotated.cubin" >"$R/cuda-gdb-dsl.txt" 2>&1
gdb_batch tests/device/dsl_renamed.gdb "$W/launch" E_4_32 "$W/dsl_renamed.cubin" >"$R/cuda-gdb-dsl-renamed.txt" 2>&1
cat "$R/cuda-gdb-dsl.txt" "$R/cuda-gdb-dsl-renamed.txt"
}

# The three values cuda-gdb printed at dsl.ptx:37 (%r2, %r3, %rd4: 0) where no
# register map entry covers the PC: line 37 reached directly and after a stop at
# line 30, the SASS registers their entries name, the map cuda-gdb reads, and
# both settings of value extrapolation.
dsl_regmap() {
echo "== annotated DSL kernel at dsl.ptx:37: the register map and the SASS registers"
launcher
ptxas -g -arch=sm_90 ".device/dsl_annotated.ptx" -o "$W/dsl_annotated.cubin" || return
gdb_batch tests/device/dsl_regmap.gdb "$W/launch" E_4_32 "$W/dsl_annotated.cubin" >"$R/cuda-gdb-dsl-regmap.txt" 2>&1
cp "$W/dsl_annotated.cubin" "$R/dsl_annotated.cubin"
cat "$R/cuda-gdb-dsl-regmap.txt"
}

locals_O3() {
echo "== nvcc -O3 -lineinfo kernel, annotate --keep-lines: variables in an optimized build"
launcher
ptxas -g -arch=sm_90 .device/locals_O3_annotated.ptx -o "$W/locals_O3.cubin" && "$W/launch" localArrays "$W/locals_O3.cubin"
gdb_batch tests/device/locals_O3.gdb "$W/launch" localArrays "$W/locals_O3.cubin" >"$R/cuda-gdb-locals-O3.txt" 2>&1
cat "$R/cuda-gdb-locals-O3.txt"
}

cccl() {
echo "== nvcc -O3 CUB kernel (no line information), annotated: the optimized PTX as the source"
launcher
ptxas -g -arch=sm_90 .device/cccl_O3_annotated.ptx -o "$W/cccl_O3.cubin" && "$W/launch" block_sum "$W/cccl_O3.cubin"
gdb_batch tests/device/cccl.gdb "$W/launch" block_sum "$W/cccl_O3.cubin" >"$R/cuda-gdb-cccl-O3.txt" 2>&1
cat "$R/cuda-gdb-cccl-O3.txt"
}

locals() {
echo "== nvcc -G corpus program: cuda-gdb, and the PTX of the same build"
mkdir -p "$W/keep"
nvcc -G -arch=sm_90 -keep -keep-dir "$W/keep" tests/device/locals_main.cu -o "$W/locals_main" && "$W/locals_main"
cp "$W/keep/locals_main.ptx" "$R/locals_main.ptx"
gdb_batch tests/device/locals.gdb "$W/locals_main" >"$R/cuda-gdb-locals.txt" 2>&1
cat "$R/cuda-gdb-locals.txt"
}

numba() {
echo "== numba-cuda debug=True kernels under cuda-gdb, and the PTX they ran"
PYTHONUNBUFFERED=1 python3 tests/device/numba_main.py "$R"
gdb_batch tests/device/numba.gdb "$(command -v python3)" tests/device/numba_main.py "$W" >"$R/cuda-gdb-numba.txt" 2>&1
cat "$R/cuda-gdb-numba.txt"
# Where a source-line breakpoint did not resolve: what cuda-gdb knows at the first kernel's launch.
grep -q "numba_main.py:29" "$R/cuda-gdb-numba.txt" ||
  gdb_batch tests/device/numba_launch.gdb "$(command -v python3)" tests/device/numba_main.py "$W" 2>&1 | tee "$R/cuda-gdb-numba-launch.txt"
}

producers() {
echo "== Triton and Numba PTX"
PYTHONUNBUFFERED=1 python3 tests/device/collect_triton.py "$R"
PYTHONUNBUFFERED=1 python3 tests/device/collect_numba.py "$R"
}

for section in $SECTIONS; do "$section"; done
for f in "$R"/*.ptx; do ptxas -arch=sm_90a -g "$f" -o /dev/null && echo "ptxas -g accepts $(basename "$f")"; done

tar -C "$R" -cf "$OUT/results.tar" .
ls -l "$R"
