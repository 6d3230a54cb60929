// What the generated CUDA program (ptxdwarf_gen_cuda) needs of the CUDA
// headers, for clang's NVPTX back end without them (run.sh's `clang` shape:
// `clang++ -x cuda --cuda-device-only -nocudainc -include` this). clang 14
// knows CUDA up to 11.5 and does not read CUDA 13's headers; the program
// uses only these.
#pragma once
#define __constant__ __attribute__((constant))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __noinline__ __attribute__((noinline))
#define __shared__ __attribute__((shared))
#define __forceinline__ __attribute__((always_inline))
#include <__clang_cuda_builtin_vars.h>  // threadIdx, blockIdx, blockDim, gridDim
__device__ inline int atomicAdd(int* a, int v) { return __nvvm_atom_add_gen_i(a, v); }
__device__ inline float atomicAdd(float* a, float v) { return __nvvm_atom_add_gen_f(a, v); }
