#pragma once
typedef __SIZE_TYPE__ size_t;
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1)
      : x(x), y(y), z(z) {}
};
typedef struct ihipStream_t *hipStream_t;
typedef int hipError_t;
extern "C" {
hipError_t hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args,
                           size_t shmem, hipStream_t stream);
unsigned __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0,
                                    hipStream_t stream = 0);
hipError_t __hipPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem,
                                     hipStream_t *stream);
}
#define TID() ((int)__builtin_amdgcn_workitem_id_x())
#define BID() ((int)__builtin_amdgcn_workgroup_id_x())
#define __syncthreads() __builtin_amdgcn_s_barrier()
