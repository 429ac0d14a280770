// Two releases of one HIP library for `offload check` (cli/tests/check.rs compiles both): the
// second drops `scale` for gfx1100 (-DDROP_SCALE_ON_GFX1100) and holds `heavy` to fewer VGPRs
// (-DHEAVY_VGPRS=32), so that it spills.
#include "mini_hip.h"

#ifndef HEAVY_VGPRS
#define HEAVY_VGPRS 256
#endif

#if !(defined(DROP_SCALE_ON_GFX1100) && defined(__gfx1100__))
__global__ void scale(float *p, float s) { p[TID()] *= s; }
#endif

__global__ void add(const float *a, const float *b, float *c) { c[TID()] = a[TID()] + b[TID()]; }

// Many live values: with HEAVY_VGPRS 32 they no longer fit in registers and spill.
__global__ __attribute__((amdgpu_num_vgpr(HEAVY_VGPRS))) void heavy(const float *in, float *out) {
  float v[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) v[i] = in[TID() * 96 + i];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i) s += v[i] * v[95 - i] + v[(i * 7) % 96];
#pragma unroll
  for (int i = 0; i < 96; ++i) out[TID() * 96 + i] = v[i] * s;
}

void launch(float *p, const float *a, const float *b, float *c) {
#if !defined(DROP_SCALE_ON_GFX1100)
  scale<<<1, 64>>>(p, 2.0f);
#endif
  add<<<1, 64>>>(a, b, c);
  heavy<<<1, 64>>>(a, c);
}
