//! Kernel names demangled as `llvm-cxxfilt` 22 prints them: every kernel name of the real
//! device images committed under `tests/images/` and `tests/fixtures/` (AMDGPU code objects made
//! by clang-22, cubins made by nvcc), read by the core's kernel table, goes through
//! `report::demangle` and through one run of `llvm-cxxfilt` with all the names on its standard
//! input; the two must agree on every name. The committed kernels have plain C++ signatures, so
//! HIP kernels with the names real libraries have (templates within templates, lambdas, integer
//! template arguments, anonymous namespaces) are also compiled here with clang-22 and compared
//! the same way. Then every kernel name of real CUDA, ROCm and SYCL wheels from PyPI (cached,
//! skipped offline). Skipped, saying so, when llvm-cxxfilt (or clang) is missing.

mod common;

use offload::explore::{explore, Options};
use offload::report::{demangle::demangle, kernels};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every file under `dir`, in name order, depth first.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The kernel names of every committed file, each once, and how many files had kernels.
fn committed_kernel_names() -> (BTreeSet<String>, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut paths = Vec::new();
    files(&root.join("images"), &mut paths);
    files(&root.join("fixtures"), &mut paths);
    let options = Options { verify_all: true, ..Options::default() };
    let mut names = BTreeSet::new();
    let mut with_kernels = 0;
    for path in &paths {
        let data = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        let table = kernels::collect(&explore(&data[..], &name, &options));
        if !table.rows.is_empty() {
            with_kernels += 1;
        }
        names.extend(table.rows.into_iter().map(|r| r.name));
    }
    (names, with_kernels)
}

/// What `llvm-cxxfilt` prints for each of `names`, from one run with them all on standard input.
fn cxxfilt(tool: &Path, names: &[&String]) -> Vec<String> {
    let mut child = Command::new(tool)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
    let input: String = names.iter().map(|n| format!("{n}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "llvm-cxxfilt: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect()
}

#[test]
fn committed_kernel_names_demangle_as_llvm_cxxfilt_prints_them() {
    let (names, files) = committed_kernel_names();
    // The committed images hold HIP and CUDA kernels, many of them templates: if none are
    // found, the kernel table or the fixtures changed, and this test would compare nothing.
    assert!(files >= 10, "only {files} committed files have kernels");
    assert!(names.len() >= 20, "only {} kernel names found: {names:?}", names.len());
    assert!(names.iter().any(|n| n.starts_with("_Z")), "no mangled kernel name among {names:?}");
    // llvm-cxxfilt reads whitespace-separated words; a kernel name never holds whitespace.
    assert!(names.iter().all(|n| !n.is_empty() && !n.contains(char::is_whitespace)), "{names:?}");
    let Some(tool) = common::tool("llvm-cxxfilt", "committed_kernel_names_demangle_as_llvm_cxxfilt_prints_them") else {
        return;
    };
    let demangled = agree_with_cxxfilt(&tool, &names);
    println!("{} kernel names from {files} files agree with llvm-cxxfilt ({demangled} of them demangled)", names.len());
}

/// Asserts that every name demangles as llvm-cxxfilt prints it; how many were demangled.
fn agree_with_cxxfilt(tool: &Path, names: &BTreeSet<String>) -> usize {
    let names: Vec<&String> = names.iter().collect();
    let want = cxxfilt(tool, &names);
    assert_eq!(want.len(), names.len(), "llvm-cxxfilt printed {} lines for {} names", want.len(), names.len());
    let differ: Vec<String> = names
        .iter()
        .zip(&want)
        .filter(|(n, w)| demangle(n) != w.as_str())
        .map(|(n, w)| format!("{n}\n  llvm-cxxfilt: {w}\n  ours:         {}", demangle(n)))
        .collect();
    assert!(differ.is_empty(), "{} of {} names differ:\n{}", differ.len(), names.len(), differ.join("\n"));
    names.iter().filter(|n| demangle(n) != n.as_str()).count()
}

/// Kernels named as templated C++ libraries name theirs, with the shapes a demangler other than
/// LLVM's once spelt otherwise (generic lambdas, expressions in `decltype`, packs of pointers,
/// empty packs).
const TEMPLATED_HIP: &str = r#"#include "mini_hip.h"
namespace {
__global__ void in_anonymous_namespace(int *p) { p[0] = 1; }
}
namespace at { namespace native {
template <typename T, int N> struct Array { T data[N]; };
template <typename A, typename B> struct Pair { A a; B b; };
template <int vec_size, typename func_t, typename array_t>
__global__ void vectorized_elementwise_kernel(int n, func_t f, array_t data) { data.data[0][0] = f(n); }
template <typename T> __global__ void nested(Pair<Pair<T, long>, Pair<char, Array<T, 3>>> *p) { p->a.b = 1; }
template <typename T, typename U> __global__ void two(T *t, U *u) {}
}}
template <bool B, unsigned U, long L, unsigned long UL, long long LL, unsigned long long ULL, char C, short S>
__global__ void values(int *p) { p[0] = B + U + L + C; }
template <typename... Ts> __global__ void variadic(Ts... ts) {}
__device__ int twice(int x) { return 2 * x; }
template <int (*F)(int)> __global__ void through_pointer(int *p) { p[0] = F(1); }
struct S { int m; __device__ int operator()(int x) const { return x; } };
template <typename F> __global__ void functor(F f, int *p) { p[0] = f(2); }
enum class Mode : int { Fast = 1, Exact = 2 };
template <Mode m> __global__ void with_enum(int *p) { p[0] = (int)m; }
template <size_t N> __global__ void sized(float (*a)[N]) {}
template <typename... Ts> __global__ void pointers(int n, Ts *...ts) {}
template <typename T> __global__ void typed(T t, decltype(t + 1) *u) {}
template <int N> struct Dim {};
template <int N> __global__ void arith(Dim<N - 2> d) {}
inline namespace v2 { __global__ void inline_namespace(int *p) {} }
__global__ void overloaded(int *p) {}
__global__ void overloaded(float *p, const volatile double *q, unsigned char c, long long l, __fp16 h) {}
__global__ void refs(int &r, int *__restrict__ x) {}
extern "C" __global__ void c_kernel(int *p) { p[0] = 2; }
void launch(int *ip, float *fp) {
  using namespace at::native;
  vectorized_elementwise_kernel<4><<<1, 1>>>(1, [] __device__(int x) { return x * 2; }, Array<int *, 2>{});
  vectorized_elementwise_kernel<2><<<1, 1>>>(1, [=] __device__(int x) { return x + ip[0]; }, Array<int *, 2>{});
  vectorized_elementwise_kernel<1><<<1, 1>>>(1, [] __device__(int x) {
    auto inner = [](int y) { return y + 1; };
    return inner(x);
  }, Array<int *, 3>{});
  nested<<<1, 1>>>((Pair<Pair<float, long>, Pair<char, Array<float, 3>>> *)nullptr);
  two<<<1, 1>>>((Array<Array<int, 2>, 2> *)nullptr, (Pair<int, Array<char, 1>> *)nullptr);
  values<true, 7u, -5L, 3ul, 6ll, 4000000000ull, 'a', -8><<<1, 1>>>(ip);
  values<false, 0u, 0L, 0ul, -1ll, 0ull, -3, 9><<<1, 1>>>(ip);
  variadic<<<1, 1>>>(1, 2.0f, 'c', ip);
  variadic<<<1, 1>>>();
  through_pointer<twice><<<1, 1>>>(ip);
  functor<<<1, 1>>>(S{}, ip);
  with_enum<Mode::Exact><<<1, 1>>>(ip);
  sized<3><<<1, 1>>>(nullptr);
  pointers<<<1, 1>>>(1, ip, fp);
  pointers<<<1, 1>>>(1);
  typed<<<1, 1>>>(1, ip);
  arith<4><<<1, 1>>>(Dim<2>{});
  vectorized_elementwise_kernel<8><<<1, 1>>>(1, [] __device__(auto x) { return x; }, Array<int *, 4>{});
  in_anonymous_namespace<<<1, 1>>>(ip);
}
"#;

#[test]
fn templated_hip_kernel_names_compiled_here_demangle_as_llvm_cxxfilt_prints_them() {
    let test = "templated_hip_kernel_names_compiled_here";
    let (Some(clang), Some(tool)) = (common::tool("clang", test), common::tool("llvm-cxxfilt", test)) else {
        return;
    };
    let s = common::Scratch::new("demangle", "templated");
    let images = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/images");
    std::fs::copy(images.join("mini_hip.h"), s.path("mini_hip.h")).unwrap();
    std::fs::write(s.path("templated.hip"), TEMPLATED_HIP).unwrap();
    let out = Command::new(&clang)
        .current_dir(s.dir())
        .args(["-x", "hip", "-std=c++17", "-nogpulib", "-nogpuinc", "-O2", "-cuid=t1", "--offload-arch=gfx90a"])
        .args(["-c", "templated.hip", "-o", "templated.o"])
        .output()
        .unwrap();
    assert!(out.status.success(), "clang -x hip: {}", String::from_utf8_lossy(&out.stderr));
    let data = s.read("templated.o");
    let options = Options { verify_all: true, ..Options::default() };
    let table = kernels::collect(&explore(&data[..], "templated.o", &options));
    let names: BTreeSet<String> = table.rows.into_iter().map(|r| r.name).collect();
    // Every kernel launched above: a name lost on the way would compare nothing.
    assert!(names.len() >= 24, "only {} kernel names: {names:?}", names.len());
    for want in ["UliE_", "UliE0_", "ILi4E", "ILb1ELj7ELln5ELm3ELx6ELy4000000000ELc97ELsn8E", "_GLOBAL__N_1"] {
        assert!(names.iter().any(|n| n.contains(want)), "no kernel name has {want}: {names:?}");
    }
    let demangled = agree_with_cxxfilt(&tool, &names);
    assert_eq!(demangled, names.len() - 1, "every name but c_kernel demangles: {names:?}");
    println!("{} kernel names compiled here agree with llvm-cxxfilt", names.len());
}

/// Pinned wheels from PyPI whose every kernel name is compared: CUDA (cubins), ROCm (code
/// objects) and SYCL (SPIR-V modules, with `_ZTS` type names). The CLI's tests download most of
/// them already; oneMKL's BLAS and CuPy's CUDA build are here for their names.
const REAL_WHEELS: [&str; 7] = [
    "cupy-cuda12x==13.3.0",
    "nvidia-curand-cu12==10.3.5.147",
    "cupy-rocm-4-3==13.3.0",
    "cupy-rocm-5-0==13.3.0",
    "onemkl-sycl-blas==2026.2.0",
    "onemkl-sycl-stats==2026.2.0",
    "dpnp==0.20.0",
];

#[test]
fn kernel_names_of_real_wheels_demangle_as_llvm_cxxfilt_prints_them() {
    let Some(tool) = common::tool("llvm-cxxfilt", "kernel_names_of_real_wheels_demangle_as_llvm_cxxfilt_prints_them")
    else {
        return;
    };
    let options = Options { verify_all: true, ..Options::default() };
    let mut all = BTreeSet::new();
    for requirement in REAL_WHEELS {
        let Some(wheel) = common::wheels::wheel_file(requirement) else { continue };
        let data = std::fs::read(&wheel).unwrap();
        let table = kernels::collect(&explore(&data[..], requirement, &options));
        let names: BTreeSet<String> = table.rows.into_iter().map(|r| r.name).collect();
        assert!(!names.is_empty(), "{requirement}: no kernel names found");
        let demangled = agree_with_cxxfilt(&tool, &names);
        println!("{requirement}: {} kernel names agree with llvm-cxxfilt ({demangled} demangled)", names.len());
        all.extend(names);
    }
    println!("{} kernel names of real wheels agree with llvm-cxxfilt", all.len());
}
