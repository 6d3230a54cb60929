// A launcher for fixtures/corpus/locals.cu, so that cuda-gdb can stop in the
// nvcc -G build of a corpus program and its answers can be held against
// `ptxdump lookup` on the PTX of the same build.
#include "../../fixtures/corpus/locals.cu"

#include <cstdio>

int main() {
  const int threads = 32;
  int* idx;
  long long* out;
  int hostIdx[threads];
  long long hostOut[threads] = {};
  for (int i = 0; i < threads; ++i) hostIdx[i] = i * 5;
  cudaMalloc(&idx, sizeof hostIdx);
  cudaMalloc(&out, sizeof hostOut);
  cudaMemcpy(idx, hostIdx, sizeof hostIdx, cudaMemcpyHostToDevice);
  localArrays<<<1, threads>>>(idx, out, 3);
  cudaError_t e = cudaMemcpy(hostOut, out, sizeof hostOut, cudaMemcpyDeviceToHost);
  std::printf("localArrays: %s, out[1] = %lld\n", cudaGetErrorString(e), hostOut[1]);
  cudaFree(idx);
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}
