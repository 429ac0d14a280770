// Kernels whose occupancy is limited by different resources: VGPRs, AGPRs, SGPRs, LDS with
// large and small work-groups. tests/occupancy.rs compiles them for many processors with
// clang-22 -Rpass-analysis=kernel-resource-usage and compares clang's "Occupancy [waves/SIMD]"
// with the `occupancy` the explorer computes from the code object's metadata.
#include "mini_hip.h"

#define WG(lo, hi) __attribute__((amdgpu_flat_work_group_size(lo, hi)))

// Few resources: the processor's wave slots.
__global__ void light(int *out) { out[TID()] = TID(); }

// 1 KiB of LDS.
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

// LDS sized so that two, one, or a few work-groups fit on a CU.
#define LDS_KERNEL(name, ints, attrs)                                                          \
  __global__ attrs void name(int *out) {                                                      \
    __shared__ int tmp[ints];                                                                 \
    tmp[TID()] = TID();                                                                       \
    __builtin_amdgcn_s_barrier();                                                             \
    out[TID()] = tmp[(TID() * 7) % (ints)];                                                   \
  }
LDS_KERNEL(lds_24000, 6000, )
LDS_KERNEL(lds_40000, 10000, )
LDS_KERNEL(lds_12000_wg256, 3000, WG(1, 256))
LDS_KERNEL(lds_8000_wg64, 2000, WG(1, 64))
LDS_KERNEL(lds_8000_wg32, 2000, WG(1, 32))
LDS_KERNEL(lds_20000_wg128, 5000, WG(1, 128))
LDS_KERNEL(lds_3000_wg1024, 750, )

// Work-group size alone (no LDS): barriers and wave slots.
__global__ WG(1, 128) void wg128(int *out) { out[TID()] = TID(); }

// Many VGPRs: 160 live floats.
__global__ void many_vgprs(const float *in, float *out) {
  float v[160];
#pragma unroll
  for (int i = 0; i < 160; ++i) v[i] = in[TID() * 160 + i];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 160; ++i) s += v[i] * v[159 - i] + v[(i * 7) % 160];
#pragma unroll
  for (int i = 0; i < 160; ++i) out[TID() * 160 + i] = v[i] * s;
}

// Register counts set by clobbers: VGPRs, AGPRs (processors with MFMA), SGPRs.
__global__ void vgprs_71(float *out) {
  asm volatile("" ::: "v70");
  out[TID()] = 1.0f;
}
__global__ void vgprs_200(float *out) {
  asm volatile("" ::: "v199");
  out[TID()] = 1.0f;
}
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__) || defined(__gfx950__)
__global__ void agprs_41(float *out) {
  asm volatile("" ::: "a40");
  asm volatile("" ::: "v70");
  out[TID()] = 1.0f;
}
__global__ WG(1, 64) void agprs_200(float *out) {
  asm volatile("" ::: "a199");
  asm volatile("" ::: "v30");
  out[TID()] = 1.0f;
}
#endif
__global__ void sgprs_60(int *out) {
  asm volatile("" ::: "s59");
  out[TID()] = TID();
}
__global__ void sgprs_85(int *out) {
  asm volatile("" ::: "s84");
  out[TID()] = TID();
}
__global__ void sgprs_95(int *out) {
  asm volatile("" ::: "s94");
  out[TID()] = TID();
}
__global__ void sgprs_101(int *out) {
  asm volatile("" ::: "s100");
  out[TID()] = TID();
}

// LDS and VGPRs together.
__global__ WG(1, 256) void lds_and_vgprs(float *out) {
  __shared__ float tmp[4096];
  asm volatile("" ::: "v90");
  tmp[TID()] = 1.0f;
  __builtin_amdgcn_s_barrier();
  out[TID()] = tmp[(TID() * 5) % 4096];
}
