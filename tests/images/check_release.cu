// Two releases of one CUDA fatbin for `offload check` (cli/tests/check.rs compiles both with
// nvcc): the second drops `scale` for sm_90 (-DDROP_SCALE_ON_SM90) and holds `heavy` to 32
// registers (-DHEAVY_REGS=32), so that it spills to local memory.
#ifndef HEAVY_REGS
#define HEAVY_REGS 255
#endif

#if !(defined(DROP_SCALE_ON_SM90) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900)
extern "C" __global__ void scale(float *p, float s) { p[threadIdx.x] *= s; }
#endif

extern "C" __global__ void add(const float *a, const float *b, float *c) { c[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x]; }

// Many live values: with HEAVY_REGS 32 they no longer fit in registers and spill.
extern "C" __global__ void __maxnreg__(HEAVY_REGS) heavy(const float *in, float *out) {
  float v[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) v[i] = in[threadIdx.x * 96 + i];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i) s += v[i] * v[95 - i] + v[(i * 7) % 96];
#pragma unroll
  for (int i = 0; i < 96; ++i) out[threadIdx.x * 96 + i] = v[i] * s;
}
