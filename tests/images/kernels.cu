// CUDA kernels for the cubin fixtures (nvcc from the PyPI wheels, see generate.sh): shared
// memory, a device function with a stack frame, a constant bank, launch bounds.
__device__ __noinline__ float helper(const float *p, int i) {
  float a[32];
  for (int j = 0; j < 32; ++j) a[j] = p[j] * i;
  return a[i & 31];
}

extern "C" __global__ void lds(const int *in, int *out) {
  __shared__ int tmp[256];
  tmp[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < 256; ++i) s += tmp[i];
    out[blockIdx.x] = s;
  }
}

__constant__ float coef[16];

__global__ void __launch_bounds__(128) uses_helper(float *p, int n) {
  p[threadIdx.x] = helper(p, n) * coef[n & 15];
}
