// Kernels that exercise every encoding class llvm-objdump prints for compute code: scalar ALU and
// branches, vector ALU (VOP1, VOP2, VOP3, VOPC), DPP, SDWA (GFX9), packed math (VOP3P), MFMA,
// WMMA, LDS, buffer, global, flat and scratch memory. generate.sh compiles them for one
// processor of each family; the disassembly agreement test compares our listing with
// llvm-objdump's. Family-specific builtins are guarded by the processor macros clang defines.
// Images, exports and interpolation are not reachable from HIP without the ROCm headers.
#include "../images/mini_hip.h"

typedef _Float16 half2 __attribute__((ext_vector_type(2)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef double double4 __attribute__((ext_vector_type(4)));
typedef short short2 __attribute__((ext_vector_type(2)));

#define GID() (BID() * 64 + TID())

// Scalar ALU and branches: uniform loops and conditions on kernel arguments.
__global__ void scalar_branches(int *out, int n, unsigned mask, long long big) {
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    if ((mask >> (i & 31)) & 1)
      acc += i * 3;
    else
      acc ^= (int)(big >> (i & 63));
  }
  int lanes = __builtin_popcountll(__builtin_amdgcn_read_exec());
  out[GID()] = acc + __builtin_amdgcn_readfirstlane(TID()) + lanes + __builtin_clz(mask | 1);
}

// Vector ALU: conversions, transcendental ops, comparisons and selects, 64-bit integers.
__global__ void vector_alu(const float *a, const int *b, float *out, long long *wide) {
  int i = GID();
  float x = a[i];
  int k = b[i];
  float y = __builtin_fmaf(x, 1.5f, (float)k);
  y = y > 0.0f ? __builtin_sqrtf(y) : __builtin_amdgcn_rcpf(x + 2.0f);
  y += __builtin_amdgcn_sinf(x) * __builtin_amdgcn_cosf(x) + __builtin_amdgcn_exp2f(x) + __builtin_amdgcn_logf(y);
  int m = __builtin_abs(k) < 17 ? k * 0x1234567 : (k >> 3) | (k << 5);
  unsigned u = (unsigned)m;
  u = __builtin_amdgcn_ubfe(u, 3, 7) + __builtin_amdgcn_alignbit(u, (unsigned)k, 9);
  double d = (double)x * (double)k + 0.125;
  out[i] = y + (float)u + (float)d + __builtin_fminf(x, y) + __builtin_fmaxf(x, 3.0f);
  wide[i] = (long long)k * (long long)m + (wide[i] >> 7);
}

// DPP: lane shuffles in the data-parallel primitives encoding.
__global__ void dpp(const int *in, int *out) {
  int v = in[GID()];
  int s = v;
  s += __builtin_amdgcn_update_dpp(0, s, 0x111, 0xf, 0xf, false); // row_shr:1
  s += __builtin_amdgcn_update_dpp(0, s, 0x112, 0xf, 0xf, false); // row_shr:2
  s += __builtin_amdgcn_update_dpp(0, s, 0x114, 0xf, 0xe, true);  // row_shr:4
  s += __builtin_amdgcn_mov_dpp(s, 0x141, 0xf, 0xf, false);        // row_half_mirror
  s += __builtin_amdgcn_mov_dpp(s, 0x140, 0xa, 0xf, true);         // row_mirror
  s += __builtin_amdgcn_mov_dpp(s, 0x1b, 0xf, 0xf, false);         // quad_perm:[3,2,1,0]
  float f = __builtin_bit_cast(float, s);
  f = f * 0.5f + __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, f), 0x121, 0xf, 0xf, false));
  out[GID()] = s + __builtin_amdgcn_ds_swizzle(v, 0x401f) + __builtin_amdgcn_ds_bpermute(TID() * 4 ^ 4, v) + (int)f;
}

// 16-bit and 8-bit operands: SDWA selects on GFX9, op_sel and true16 forms later.
__global__ void narrow(const unsigned *in, const _Float16 *h, unsigned *out, _Float16 *hout) {
  int i = GID();
  unsigned w = in[i];
  unsigned char b0 = w & 0xff, b1 = (w >> 8) & 0xff;
  unsigned short s1 = w >> 16;
  unsigned r = (unsigned)(b0 * b1) + (unsigned)(unsigned short)(s1 * (unsigned short)b1);
  short2 p = __builtin_bit_cast(short2, w);
  r += (unsigned)(p.x + p.y);
  out[i] = r;
  _Float16 a = h[2 * i], c = h[2 * i + 1];
  hout[i] = a * c + (_Float16)b0 - __builtin_sqrtf16(c);
}

// Packed math (VOP3P): half2 everywhere, float2 on gfx90a and later.
__global__ void packed(const half2 *a, const half2 *b, half2 *c, const float2 *fa, float2 *fc) {
  int i = GID();
  half2 x = a[i], y = b[i];
  half2 z = x * y + c[i];
  z = __builtin_elementwise_max(z, x) - y;
  c[i] = z;
  float2 f = fa[i];
  fc[i] = f * f + (float2){1.0f, 2.0f};
#if defined(__gfx906__) || defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__) || defined(__gfx950__) || \
    defined(__gfx1030__) || defined(__GFX11__) || defined(__GFX12__)
  fc[i].x += __builtin_amdgcn_fdot2(x, y, f.y, false);
#endif
}

// Matrix cores: MFMA (gfx908, gfx90a, gfx942, gfx950), WMMA (GFX11, GFX12).
__global__ void matrix(const float *a, const half8 *h, float4 *out, double4 *dout, float8 *wout, const half16 *h16) {
  int i = GID();
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__) || defined(__gfx950__)
  float4 acc = out[i];
  acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[i], a[i + 1], acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f32_4x4x1f32(a[i + 2], a[i], acc, 1, 0, 0);
  out[i] = acc;
#endif
#if defined(__gfx90a__) || defined(__gfx942__) || defined(__gfx950__)
  dout[i] = __builtin_amdgcn_mfma_f64_16x16x4f64((double)a[i], (double)a[i + 3], dout[i], 0, 0, 0);
#endif
#if defined(__gfx950__)
  out[i + 64] = __builtin_amdgcn_mfma_f32_16x16x32_f16(h[i], h[i + 1], out[i + 64], 0, 0, 0);
#endif
#if defined(__GFX11__)
  wout[i] = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(h16[i], h16[i + 1], wout[i]);
#endif
#if defined(__GFX12__)
  wout[i] = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(h[i], h[i + 1], wout[i]);
#endif
}

// LDS: loads, stores and atomics on __shared__ memory.
__global__ void lds(const int *in, int *out) {
  __shared__ int tile[256];
  __shared__ int counter;
  __shared__ float ftile[64];
  if (TID() == 0) counter = 0;
  tile[TID()] = in[GID()];
  ftile[TID() & 63] = (float)in[GID()];
  __syncthreads();
  __hip_atomic_fetch_add(&counter, tile[(TID() + 1) & 255], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_max(&tile[TID() ^ 1], TID(), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __syncthreads();
  long long two = *(long long *)&tile[(TID() & 127) * 2];
  out[GID()] = tile[255 - TID()] + counter + (int)two + (int)ftile[(TID() + 7) & 63];
}

// Buffer loads and stores through a resource made from a pointer.
__global__ void buffer(int *base, int n, float *fout) {
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(base, 0, n * 4, 0x00027000);
  int off = TID() * 4;
  int v = __builtin_amdgcn_raw_buffer_load_b32(r, off, 0, 0);
  unsigned short h = __builtin_amdgcn_raw_buffer_load_b16(r, off + 2, 16, 0);
  __builtin_amdgcn_raw_buffer_store_b32(v + h, r, off + 256, 0, 0);
  __builtin_amdgcn_raw_buffer_store_b8((unsigned char)v, r, off + 1, 4, 1);
  fout[GID()] = (float)v;
}

// Global memory: loads and stores of several widths, atomics.
__global__ void global(const float4 *in, float4 *out, int *counter, float *sum, unsigned long long *ticks) {
  int i = GID();
  float4 v = in[i];
  out[i] = v * 2.0f;
  __hip_atomic_fetch_add(counter, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(sum, v.x, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  int old = __hip_atomic_exchange(counter + 1, i, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_SYSTEM);
  ((unsigned char *)out)[i + 4096] = (unsigned char)old;
#if defined(__GFX9__) || defined(__GFX10__)
  ticks[i] = __builtin_amdgcn_s_memtime();
#endif
}

// Flat memory: a pointer that may be LDS or global.
__device__ __attribute__((noinline)) int touch(int *p, int v) {
  int old = p[0];
  p[1] = old + v;
  return old;
}
__global__ void flat(int *g, int pick) {
  __shared__ int local[64];
  local[TID()] = TID();
  __syncthreads();
  int *p = (pick & 1) ? g + TID() * 2 : local + (TID() & 31);
  g[TID() + 1024] = touch(p, pick);
}

// Scratch: a private array indexed at run time.
__global__ void scratch(const int *idx, int *out, int n) {
  int a[64];
#pragma nounroll
  for (int i = 0; i < 64; ++i) a[i] = idx[i] * n;
  out[GID()] = a[idx[GID()] & 63] + a[(idx[GID()] + 5) & 63];
}

// Control: waits, sleeps, priorities and messages.
__global__ void control(int *out) {
  __builtin_amdgcn_s_setprio(2);
  __builtin_amdgcn_s_sleep(3);
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_s_setprio(0);
  out[GID()] = (int)__builtin_amdgcn_s_getreg((4 << 0) | (0 << 6) | (31 << 11)) + TID();
}
