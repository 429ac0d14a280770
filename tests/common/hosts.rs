//! Host files built during a test run by clang-22 and the system `cc`: HIP objects without ROCm
//! (the declarations a kernel launch needs: tests/images/mini_hip.h, which the fixture
//! generators use too), a HIP shared library, OpenMP objects, and a C stub of the HIP runtime
//! that prints the fat binary a linked program registers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The few declarations a HIP kernel launch needs without ROCm (`-nogpuinc` turns clang's HIP
/// wrapper headers off): the header the fixture generators compile with too.
pub const MINI_HIP_H: &str = include_str!("../images/mini_hip.h");

/// Two kernels and their host-side launchers.
pub const KERN_HIP: &str = r#"#include "mini_hip.h"
__device__ float twice(float v) { return 2.0f * v; }
__global__ void scale(float *x, float a, int n) {
  int i = BID() * 64 + TID();
  if (i < n) x[i] = a * twice(x[i]);
}
__global__ void fill(int *p, int v) { p[TID()] = v; }
void launch_scale(float *x, float a, int n) { scale<<<dim3((n + 63) / 64), dim3(64)>>>(x, a, n); }
void launch_fill(int *p, int v) { fill<<<1, 64>>>(p, v); }
"#;

/// Translation units of the shared library: one kernel each.
pub const LIB_TUS: [(&str, &str); 3] = [
    ("lib_a.hip", "#include \"mini_hip.h\"\n__global__ void axpy(float a, const float *x, float *y, int n) { int i = BID() * 64 + TID(); if (i < n) y[i] = a * x[i] + y[i]; }\nvoid run_axpy(float a, const float *x, float *y, int n) { axpy<<<(n + 63) / 64, 64>>>(a, x, y, n); }\n"),
    ("lib_b.hip", "#include \"mini_hip.h\"\n__global__ void square(int *p) { p[TID()] *= p[TID()]; }\nvoid run_square(int *p) { square<<<1, 64>>>(p); }\n"),
    ("lib_c.hip", "#include \"mini_hip.h\"\n__global__ void negate(float *p) { p[TID()] = -p[TID()]; }\nvoid run_negate(float *p) { negate<<<1, 64>>>(p); }\n"),
];

pub const OMP_C: &str = r#"void saxpy(int n, float a, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}
"#;

/// The HIP runtime entry points a HIP host object calls, for linking without ROCm. Registering
/// the fat binary (which the object's constructor does before `main`) prints the wrapper's magic
/// and the first 32 bytes of the fat binary it points to, so a test sees what the linked program
/// would hand to the runtime.
pub const HIP_RUNTIME_STUB_C: &str = r#"#include <stdio.h>
struct fatbin_wrapper { int magic; int version; const unsigned char *binary; void *unused; };
static void *handle;
void **__hipRegisterFatBinary(const struct fatbin_wrapper *w) {
  printf("registered %08x v%d:", w->magic, w->version);
  for (int i = 0; i < 32; i++) printf(" %02x", w->binary[i]);
  printf("\n");
  return &handle;
}
void __hipRegisterFunction(void **h, const void *f, char *device_function, const char *name,
                           unsigned thread_limit, void *tid, void *bid, void *block, void *grid,
                           int *size) {
  printf("kernel %s\n", name);
}
void __hipUnregisterFatBinary(void **h) {}
int hipLaunchKernel() { return 0; }
unsigned __hipPushCallConfiguration() { return 0; }
int __hipPopCallConfiguration() { return 0; }
int main(void) { printf("main ran\n"); return 0; }
"#;

/// What the stub prints for a fat binary starting with `payload`.
pub fn registered_line(payload: &[u8]) -> String {
    let bytes: Vec<String> = payload[..32].iter().map(|b| format!(" {b:02x}")).collect();
    // 0x48495046 is "HIPF", the magic of the wrapper clang emits in .hipFatBinSegment.
    format!("registered 48495046 v1:{}", bytes.concat())
}

pub fn run_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `cc`, when installed (otherwise says which test skips a step).
pub fn system_cc(test: &str) -> Option<PathBuf> {
    let ok = Command::new("cc").arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if !ok {
        println!("skipping {test}: the system `cc` is not installed");
    }
    ok.then(|| PathBuf::from("cc"))
}

/// Compiles `source` (written to `dir/name`) as HIP for gfx906 and gfx90a into `dir/out`.
pub fn hip_object(clang: &Path, dir: &Path, name: &str, source: &str, out: &str, extra: &[&str]) -> PathBuf {
    hip_object_for(clang, dir, name, source, out, "gfx906,gfx90a", extra)
}

/// Compiles `source` (written to `dir/name`) as HIP for `archs` (comma separated) into `dir/out`.
pub fn hip_object_for(
    clang: &Path,
    dir: &Path,
    name: &str,
    source: &str,
    out: &str,
    archs: &str,
    extra: &[&str],
) -> PathBuf {
    std::fs::write(dir.join("mini_hip.h"), MINI_HIP_H).unwrap();
    std::fs::write(dir.join(name), source).unwrap();
    let obj = dir.join(out);
    run_ok(
        Command::new(clang)
            .current_dir(dir)
            .args(["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "-c", name, "-o"])
            .arg(&obj)
            .arg(format!("--offload-arch={archs}"))
            .args(extra),
    );
    obj
}

/// A HIP shared library of three translation units compiled with `--offload-compress`: its
/// `.hip_fatbin` holds three compressed bundles, 4096-aligned.
pub fn hip_shared_library(clang: &Path, dir: &Path) -> PathBuf {
    hip_shared_library_of(clang, dir, true)
}

/// The same library's translation units, compiled with `--offload-compress` when `compress`,
/// as `dir/lib<i>.o`, linked into `dir/libhip3.so` (compressed) or `dir/libhip3_plain.so`:
/// without compression its `.hip_fatbin` holds three binary bundles back to back.
pub fn hip_shared_library_of(clang: &Path, dir: &Path, compress: bool) -> PathBuf {
    let mut objects = Vec::new();
    for (i, (name, source)) in LIB_TUS.iter().enumerate() {
        let cuid = format!("-cuid=lib{i}");
        let mut extra = vec!["-fPIC", cuid.as_str()];
        if compress {
            extra.push("--offload-compress");
        }
        objects.push(hip_object(clang, dir, name, source, &format!("lib{i}.o"), &extra));
    }
    let lib = dir.join(if compress { "libhip3.so" } else { "libhip3_plain.so" });
    run_ok(
        Command::new(clang)
            .current_dir(dir)
            .args(["-shared", "-nostdlib", "-fuse-ld=lld", "-Wl,--build-id=none"])
            .args(&objects)
            .arg("-o")
            .arg(&lib),
    );
    lib
}

/// An OpenMP object offloading to gfx90a: `.llvm.offloading` holds one offload binary.
pub fn openmp_object(clang: &Path, dir: &Path) -> PathBuf {
    std::fs::write(dir.join("saxpy.c"), OMP_C).unwrap();
    let obj = dir.join("saxpy_omp.o");
    run_ok(
        Command::new(clang)
            .current_dir(dir)
            .args(["-fopenmp", "--offload-arch=gfx90a", "-nogpulib", "-O2", "-c", "saxpy.c", "-o"])
            .arg(&obj),
    );
    obj
}

/// Links `inputs` (sources or objects) with `cc` into `dir/name`, runs it, returns what it printed.
pub fn link_and_run(cc: &Path, dir: &Path, inputs: &[&Path], name: &str) -> String {
    let exe = dir.join(name);
    run_ok(Command::new(cc).current_dir(dir).args(inputs).arg("-o").arg(&exe));
    String::from_utf8(run_ok(&mut Command::new(&exe))).unwrap()
}

/// Links `objects` and the HIP runtime stub with `cc`, runs the program, returns what it printed.
pub fn link_with_stub_and_run(cc: &Path, dir: &Path, objects: &[&Path], name: &str) -> String {
    let stub = dir.join("hip_stub.c");
    std::fs::write(&stub, HIP_RUNTIME_STUB_C).unwrap();
    let mut inputs = vec![stub.as_path()];
    inputs.extend(objects);
    link_and_run(cc, dir, &inputs, name)
}
