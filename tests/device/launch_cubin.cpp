// Loads a cubin assembled with `ptxas -g` from annotated PTX and runs one of
// the two kernels the device tests debug, through the driver API, so that
// cuda-gdb can stop in it:
//   E_4_32       fixtures/annotate/dsl.ptx: out[i] = in[i] * 2 + 1, n = 32
//   localArrays  fixtures/corpus/locals.cu built with nvcc -O3 -lineinfo,
//                idx[i] = 5 * i, n = 3 (the nvcc -G launcher's inputs)
//   block_sum    fixtures/annotate/cccl_O3.ptx (CUB's BlockReduce, nvcc -O3):
//                one block of 128 threads, in[i] = i, out[0] = 8128
// One block of 32 threads, unless said otherwise. Exit 0 when the kernel ran and its result is right.
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#define CHECK(call)                                                 \
  do {                                                              \
    CUresult r_ = (call);                                           \
    if (r_ != CUDA_SUCCESS) {                                       \
      const char* s_ = nullptr;                                     \
      cuGetErrorString(r_, &s_);                                    \
      std::fprintf(stderr, "%s: %s\n", #call, s_ ? s_ : "unknown"); \
      return 2;                                                     \
    }                                                               \
  } while (0)

namespace {
constexpr unsigned kThreads = 32;

int runDslKernel(CUmodule mod) {
  CUfunction fn;
  CHECK(cuModuleGetFunction(&fn, mod, "E_4_32"));
  std::vector<float> in(kThreads), out(kThreads, -1.0f);
  for (unsigned i = 0; i < kThreads; ++i) in[i] = static_cast<float>(i);
  CUdeviceptr dOut, dIn;
  CHECK(cuMemAlloc(&dOut, kThreads * sizeof(float)));
  CHECK(cuMemAlloc(&dIn, kThreads * sizeof(float)));
  CHECK(cuMemcpyHtoD(dIn, in.data(), kThreads * sizeof(float)));
  unsigned n = kThreads;
  void* params[] = {&dOut, &dIn, &n};
  CHECK(cuLaunchKernel(fn, 1, 1, 1, kThreads, 1, 1, 0, nullptr, params, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out.data(), dOut, kThreads * sizeof(float)));
  unsigned wrong = 0;
  for (unsigned i = 0; i < kThreads; ++i) wrong += out[i] != in[i] * 2.0f + 1.0f;
  std::printf("E_4_32: %u of %u elements right\n", kThreads - wrong, kThreads);
  return wrong == 0 ? 0 : 1;
}

int runLocalArrays(CUmodule mod) {
  CUfunction fn;
  CHECK(cuModuleGetFunction(&fn, mod, "_Z11localArraysPKiPxi"));
  std::vector<int> idx(kThreads);
  std::vector<long long> out(kThreads);
  for (unsigned i = 0; i < kThreads; ++i) idx[i] = static_cast<int>(5 * i);
  CUdeviceptr dIdx, dOut;
  CHECK(cuMemAlloc(&dIdx, kThreads * sizeof(int)));
  CHECK(cuMemAlloc(&dOut, kThreads * sizeof(long long)));
  CHECK(cuMemcpyHtoD(dIdx, idx.data(), kThreads * sizeof(int)));
  int n = 3;
  void* params[] = {&dIdx, &dOut, &n};
  CHECK(cuLaunchKernel(fn, 1, 1, 1, kThreads, 1, 1, 0, nullptr, params, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out.data(), dOut, kThreads * sizeof(long long)));
  // The same inputs as locals_main.cu, whose nvcc -G build prints out[1] = 2767.
  std::printf("localArrays: out[1] = %lld\n", out[1]);
  return out[1] == 2767 ? 0 : 1;
}
int runBlockSum(CUmodule mod) {
  CUfunction fn;
  CHECK(cuModuleGetFunction(&fn, mod, "_Z9block_sumPKiPi"));
  constexpr unsigned kBlock = 128;
  std::vector<int> in(kBlock);
  for (unsigned i = 0; i < kBlock; ++i) in[i] = static_cast<int>(i);
  CUdeviceptr dIn, dOut;
  CHECK(cuMemAlloc(&dIn, kBlock * sizeof(int)));
  CHECK(cuMemAlloc(&dOut, sizeof(int)));
  CHECK(cuMemcpyHtoD(dIn, in.data(), kBlock * sizeof(int)));
  void* params[] = {&dIn, &dOut};
  CHECK(cuLaunchKernel(fn, 1, 1, 1, kBlock, 1, 1, 0, nullptr, params, nullptr));
  CHECK(cuCtxSynchronize());
  int sum = 0;
  CHECK(cuMemcpyDtoH(&sum, dOut, sizeof(int)));
  std::printf("block_sum: %d\n", sum);
  return sum == 127 * 128 / 2 ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
  const std::string_view kernel = argc == 3 ? argv[1] : "";
  if (kernel != "E_4_32" && kernel != "localArrays" && kernel != "block_sum") {
    std::fprintf(stderr, "usage: %s {E_4_32|localArrays|block_sum} KERNEL.cubin\n", argv[0]);
    return 2;
  }
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK(cuModuleLoad(&mod, argv[2]));
  if (kernel == "E_4_32") return runDslKernel(mod);
  return kernel == "localArrays" ? runLocalArrays(mod) : runBlockSum(mod);
}
