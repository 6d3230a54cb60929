// Writes a CUDA program that `nvcc -G -ptx` turns into large PTX with full
// debug info, in one of three shapes:
//   functions  N device functions shaped like real debug-heavy code: structs,
//              loops with nested lexical blocks, locals, shared, constant and
//              global variables, calls, over kernels of 32 call sites (about
//              9 KB of PTX per function pair; the default)
//   kernel     one kernel of N scoped statements, each a lexical block with
//              a local, and one running value whose location list nvcc gives
//              about 5 entries per statement: generated and unrolled code,
//              one function of megabytes (about 1.5 KB of PTX per statement)
//   templates  N kernels of CUB block-wide sort, reduce and scan over types,
//              block sizes and items per thread: template-heavy code, long
//              names and deep type trees (about 250 KB of PTX per kernel;
//              at most 1,024 kernels)
// usage: ptxdwarf_gen_cuda N [functions|kernel|templates] > big.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

void functions(long n) {
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
}

void kernel(long n) {
  std::printf("__global__ void unrolled(float* out, const float* in, int n) {\n"
              "  float acc = 0.0f;\n"
              "  int i = threadIdx.x;\n");
  for (long j = 0; j < n; ++j)
    std::printf("  { float t%ld = in[(i + %ld) %% n] * %ld.0f; if (t%ld > acc) acc += t%ld; else acc -= %ld; }\n", j,
                j, j % 13, j, j, j % 7);
  std::printf("  out[i] = acc;\n}\n");
}

void templates(long n) {
  static const char* const kTypes[] = {"int",   "unsigned", "float", "double", "long long", "short",
                                       "char", "unsigned long long"};
  std::printf("#include <cub/block/block_radix_sort.cuh>\n"
              "#include <cub/block/block_reduce.cuh>\n"
              "#include <cub/block/block_scan.cuh>\n");
  for (long k = 0; k < n; ++k) {
    const char* type = kTypes[k % 8];
    const long threads = 32 * (1 + (k / 8) % 16);  // 32 .. 512
    const long items = 1 + (k / 128) % 8;
    std::printf(
        "__global__ void k%ld(const %s* in, %s* out) {\n"
        "  using Sort = cub::BlockRadixSort<%s, %ld, %ld>;\n"
        "  using Reduce = cub::BlockReduce<%s, %ld>;\n"
        "  using Scan = cub::BlockScan<%s, %ld>;\n"
        "  __shared__ union { typename Sort::TempStorage sort; typename Reduce::TempStorage reduce;\n"
        "                     typename Scan::TempStorage scan; } temp;\n"
        "  %s keys[%ld];\n"
        "  for (int i = 0; i < %ld; ++i) keys[i] = in[threadIdx.x * %ld + i];\n"
        "  Sort(temp.sort).Sort(keys);\n"
        "  __syncthreads();\n"
        "  %s total = Reduce(temp.reduce).Sum(keys[0]);\n"
        "  __syncthreads();\n"
        "  %s exclusive;\n"
        "  Scan(temp.scan).ExclusiveSum(keys[%ld - 1], exclusive);\n"
        "  out[threadIdx.x] = total + exclusive;\n"
        "}\n",
        k, type, type, type, threads, items, type, threads, type, threads, type, items, items, items, type, type,
        items);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* shape = argc == 3 ? argv[2] : "functions";
  const bool known = !std::strcmp(shape, "functions") || !std::strcmp(shape, "kernel") || !std::strcmp(shape, "templates");
  if (argc < 2 || argc > 3 || !known) {
    std::fprintf(stderr, "usage: %s N [functions|kernel|templates]\n", argv[0]);
    return 2;
  }
  const long n = std::strtol(argv[1], nullptr, 10);
  const long most = !std::strcmp(shape, "templates") ? 1024 : 1000000;
  if (n < 1 || n > most) {
    std::fprintf(stderr, "N must be 1..%ld for %s\n", most, shape);
    return 2;
  }
  if (!std::strcmp(shape, "functions")) functions(n);
  else if (!std::strcmp(shape, "kernel")) kernel(n);
  else templates(n);
  return 0;
}
