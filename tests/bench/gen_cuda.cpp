// Writes a CUDA program with N device functions shaped like real debug-heavy
// code: structs, loops with nested lexical blocks, locals, shared, constant and
// global variables, and calls. `nvcc -G -ptx` turns it into large PTX with
// full debug info (about 5.4 KB of PTX per function).
// usage: ptxdwarf_gen_cuda N > big.cu
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FUNCTIONS\n", argv[0]);
    return 2;
  }
  long n = std::strtol(argv[1], nullptr, 10);
  if (n < 1 || n > 1000000) {
    std::fprintf(stderr, "FUNCTIONS must be 1..1000000\n");
    return 2;
  }
  std::printf(
      "struct Particle { float x, y, z; int id; unsigned flags : 4; };\n"
      "struct Cell { Particle p[4]; int count; };\n"
      "__constant__ float coeffs[16];\n"
      "__device__ int globalCounter;\n");
  for (long i = 0; i < n; ++i) {
    std::printf(
        "__device__ __noinline__ float work%ld(const Cell* c, int n, float scale) {\n"
        "  float acc = 0.0f;\n"
        "  for (int k = 0; k < n; ++k) {\n"
        "    const Particle& q = c->p[k & 3];\n"
        "    float d = q.x * scale + q.y;\n"
        "    for (int j = 0; j < 3; ++j) { float t = d * coeffs[(j + k) & 15]; acc += t; }\n"
        "    if (q.flags & 1) { int id = q.id + %ld; atomicAdd(&globalCounter, id); }\n"
        "  }\n"
        "  return acc;\n"
        "}\n",
        i, i);
    // A call into an earlier function, so the program has a call tree.
    if (i > 0)
      std::printf("__device__ __noinline__ float call%ld(const Cell* c, int n) { return work%ld(c, n, 0.5f) + 1.0f; }\n",
                  i, i / 2);
  }
  // Kernels of at most kCallsPerKernel call sites each: one kernel calling
  // every function makes cicc's time grow faster than quadratically with N,
  // and real programs spread their calls over many kernels.
  constexpr long kCallsPerKernel = 32;
  for (long first = 0; first < n; first += kCallsPerKernel) {
    std::printf("__global__ void kernel%ld(Cell* cells, float* out, int n) {\n"
                "  __shared__ float tile[128];\n"
                "  int t = threadIdx.x;\n"
                "  tile[t & 127] = 0.0f;\n"
                "  float s = 0.0f;\n",
                first / kCallsPerKernel);
    for (long i = first; i < n && i < first + kCallsPerKernel; ++i) {
      std::printf("  s += work%ld(&cells[%ld %% n], n, tile[%ld & 127]);\n", i, i, i);
      if (i > 0) std::printf("  s += call%ld(&cells[%ld %% n], n);\n", i, i);
    }
    std::printf("  out[t] = s;\n}\n");
  }
  return 0;
}
