// Kernels whose resources differ: LDS, scratch from a private array, VGPR spills, a dynamic
// stack (recursion), and a device function. Compiled by generate.sh and by the tests.
#include "mini_hip.h"

// LDS: 256 ints per work-group.
__global__ void reduce_lds(const int *in, int *out) {
  __shared__ int tmp[256];
  tmp[TID()] = in[BID() * 256 + TID()];
  __builtin_amdgcn_s_barrier();
  if (TID() == 0) {
    int s = 0;
    for (int i = 0; i < 256; ++i) s += tmp[i];
    out[BID()] = s;
  }
}

// A private array indexed at run time: scratch (private segment).
__global__ void private_array(const int *idx, int *out, int n) {
  int a[64];
  for (int i = 0; i < 64; ++i) a[i] = idx[i] * n;
  out[TID()] = a[idx[TID()] & 63];
}

// More live values than 32 VGPRs hold: spills to scratch.
__global__ __attribute__((amdgpu_num_vgpr(32))) void spill(const float *in, float *out) {
  float v[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) v[i] = in[TID() * 96 + i];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i) s += v[i] * v[95 - i] + v[(i * 7) % 96];
#pragma unroll
  for (int i = 0; i < 96; ++i) out[TID() * 96 + i] = v[i] * s;
}

// Recursion: a stack whose size is not known when compiling.
__device__ __attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__global__ void recursive(int *p) { p[TID()] = fib(p[TID()]); }

void launch_all(const int *i, int *o, const float *f, float *g) {
  reduce_lds<<<1, 256>>>(i, o);
  private_array<<<1, 64>>>(i, o, 3);
  spill<<<1, 64>>>(f, g);
  recursive<<<1, 64>>>(o);
}
