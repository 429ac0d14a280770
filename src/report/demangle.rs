//! Kernel names as people read them: Itanium C++ names (`_Z…`, what clang and nvcc write for
//! HIP, CUDA, SYCL and OpenMP kernels, and `_ZTS…` type names) through LLVM's own demangler,
//! so that every name reads exactly as `llvm-cxxfilt` 22 prints it; Rust names (v0 `_R…`, and
//! legacy `_ZN…17h<hash>E`) through `rustc-demangle`, printed as `rustfilt` prints them,
//! without the hash. A name that is not mangled, or does not demangle, is kept as it is. The
//! mangled name stays the key wherever names are joined (across targets, between two files);
//! this is only what is shown.
//!
//! LLVM's demangler is the header `llvm/Demangle/ItaniumDemangle.h`, compiled into the core by
//! `build.rs` with the glue in `demangle/itanium.cpp` (natively, and for wasm32 with
//! `demangle/wasm_libc.rs` as its C library). An earlier version respelt `cpp_demangle`'s
//! GNU-style output; on the kernels of real wheels it differed from llvm-cxxfilt on 1.3% of
//! names (empty packs, substitutions, expressions), which no respelling could mend.
//!
//! Bounds: a name longer than [`MAX_MANGLED`] is kept mangled (the parser recurses once per
//! nesting level, and the page's stack is 1 MiB), and so is one that would print more than
//! [`MAX_DEMANGLED`] bytes (substitutions repeat whole types, so a short hostile name can ask
//! for gigabytes; the glue counts the printed size before printing).

use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt::{self, Write};

#[cfg(target_arch = "wasm32")]
mod wasm_libc;

/// The most a demangled name may take.
const MAX_DEMANGLED: usize = 64 * 1024;

/// The longest mangled name given to the parser, which recurses once per nesting level: 4 KiB
/// of the deepest shapes parse in 512 KiB of stack natively. The longest of the 56,159 kernel
/// names of the real wheels the tests read is 1,812 bytes.
const MAX_MANGLED: usize = 4096;

extern "C" {
    /// `size` bytes at `name` demangled: a NUL-terminated buffer and its length in `*length`,
    /// or null when the name does not parse or would print more than `limit` bytes.
    fn offload_itanium_demangle(name: *const u8, size: usize, limit: usize, length: *mut usize) -> *mut u8;
    /// Frees what [`offload_itanium_demangle`] returned.
    fn offload_itanium_free(text: *mut u8);
}

/// `name` demangled, or `name` itself when it is not a mangled C++ or Rust name.
pub fn demangle(name: &str) -> Cow<'_, str> {
    match rust(name).or_else(|| itanium(name)) {
        Some(d) => Cow::Owned(d),
        None => Cow::Borrowed(name),
    }
}

/// A `fmt::Write` that refuses to grow past [`MAX_DEMANGLED`].
struct Bounded(String);

impl Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.0.len().saturating_add(s.len()) > MAX_DEMANGLED {
            return Err(fmt::Error);
        }
        self.0.push_str(s);
        Ok(())
    }
}

/// Whether `name` ends in a legacy Rust hash segment, `17h` and 16 hex digits before the `E`
/// that closes the path (an LLVM suffix such as `.llvm.123` may follow).
fn legacy_rust_hash(name: &str) -> bool {
    let path = name.split('.').next().unwrap_or(name);
    let Some(body) = path.strip_suffix('E') else { return false };
    let Some(at) = body.len().checked_sub(19) else { return false };
    let Some(segment) = body.get(at..) else { return false };
    segment.starts_with("17h") && segment[3..].bytes().all(|b| b.is_ascii_hexdigit())
}

fn rust(name: &str) -> Option<String> {
    // v0 names start `_R` (`__R` on Mach-O); legacy ones are Itanium-shaped (`_ZN`, `__ZN`),
    // told apart from C++ by their hash segment.
    let v0 = name.starts_with("_R") || name.starts_with("__R");
    let legacy = (name.starts_with("_ZN") || name.starts_with("__ZN")) && legacy_rust_hash(name);
    if !(v0 || legacy) {
        return None;
    }
    let d = rustc_demangle::try_demangle(name).ok()?;
    let mut out = Bounded(String::new());
    write!(out, "{d:#}").ok()?;
    Some(out.0)
}

/// An Itanium name (`_Z…`, or `__Z…` as Mach-O writes it) through LLVM's demangler. A suffix
/// from a `.` on (`.cold`, `.kd`) is LLVM's to print: `f() (.cold)`.
fn itanium(name: &str) -> Option<String> {
    if !(name.starts_with("_Z") || name.starts_with("__Z")) || name.len() > MAX_MANGLED {
        return None;
    }
    let mut length = 0usize;
    // SAFETY: the glue reads `name.len()` bytes at `name` and nothing else of it; what it
    // returns is `length` bytes (and a NUL) that stay valid until freed, once, here.
    unsafe {
        let text = offload_itanium_demangle(name.as_ptr(), name.len(), MAX_DEMANGLED, &mut length);
        if text.is_null() {
            return None;
        }
        let bytes = core::slice::from_raw_parts(text, length);
        // The printed name is the input's identifiers and ASCII punctuation; an identifier
        // that is not UTF-8 cannot come from a `&str`, but the check costs nothing.
        let out = core::str::from_utf8(bytes).ok().map(String::from);
        offload_itanium_free(text);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn itanium_names() {
        assert_eq!(demangle("_Z6vecaddPfS_S_i"), "vecadd(float*, float*, float*, int)");
        assert_eq!(demangle("_ZN5space3fooEibc"), "space::foo(int, bool, char)");
        assert_eq!(demangle("_ZN12_GLOBAL__N_111anon_kernelEPi"), "(anonymous namespace)::anon_kernel(int*)");
        assert_eq!(demangle("_Z19__device_stub__fillPii"), "__device_stub__fill(int*, int)");
    }

    /// What llvm-cxxfilt 22 prints for each (`tests/demangle.rs` asks it again where installed).
    #[test]
    fn spelt_as_llvm_cxxfilt_prints_them() {
        for (name, llvm) in [
            (
                "_ZN2ns5inner6nestedIiEEvPNS0_4PairINS2_IT_lEENS2_IcS3_EEEE",
                "void ns::inner::nested<int>(ns::inner::Pair<ns::inner::Pair<int, long>, ns::inner::Pair<char, int>>*)",
            ),
            ("_ZltI1AEbRKT_S3_", "bool operator<<A>(A const&, A const&)"),
            ("_ZlsI1AEvT_", "void operator<<<A>(A)"),
            (
                "_Z13launch_lambdaIZ11instantiatevEUliE_EvT_Pi",
                "void launch_lambda<instantiate()::'lambda'(int)>(instantiate()::'lambda'(int), int*)",
            ),
            (
                "_Z13launch_lambdaIZ11instantiatevEUliE0_EvT_Pi",
                "void launch_lambda<instantiate()::'lambda0'(int)>(instantiate()::'lambda0'(int), int*)",
            ),
            (
                "_Z6valuesILb1ELj7ELln5ELm3ELx6ELy4000000000ELc97ELsn8EEvPi",
                "void values<true, 7u, -5l, 3ul, 6ll, 4000000000ull, (char)97, (short)-8>(int*)",
            ),
            ("_Z5sizedILm3EEvPAT__f", "void sized<3ul>(float (*) [3ul])"),
            ("_Z9with_enumIL1E2EEvPi", "void with_enum<(E)2>(int*)"),
            ("_Z3foov.cold", "foo() (.cold)"),
            ("_Z3foov.isra.20.part.21", "foo() (.isra.20.part.21)"),
            ("_ZN2ns5inner4tmplIiEEvPT_S2_.kd", "void ns::inner::tmpl<int>(int*, int) (.kd)"),
        ] {
            assert_eq!(demangle(name), llvm, "{name}");
        }
    }

    #[test]
    fn a_name_too_long_once_demangled_is_kept() {
        let long = "a".repeat(MAX_DEMANGLED);
        let name = format!("_Z{}{long}v", long.len());
        assert!(matches!(demangle(&name), Cow::Borrowed(_)));
        let name = format!("_Z{}{long}v.cold", long.len());
        assert!(matches!(demangle(&name), Cow::Borrowed(_)));
    }

    /// Substitutions that double what they name: 201 bytes that llvm-cxxfilt prints as 3 MB,
    /// and that would be 3 GB with ten more. Kept mangled, without printing them.
    #[test]
    fn a_short_name_that_would_print_gigabytes_is_kept() {
        let digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut name = String::from("_Z1f1A1BIS_S_E");
        for seq in digits.chars().skip(1).take(27) {
            name.push_str(&format!("S0_IS{seq}_S{seq}_E"));
        }
        let started = std::time::Instant::now();
        assert!(matches!(demangle(&name), Cow::Borrowed(_)));
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        // Short enough, the same shape prints.
        let short = &name[..name.find("S0_IS3_").unwrap()];
        assert!(demangle(short).starts_with("f(A, B<A, A>, B<B<A, A>, B<A, A>>"), "{}", demangle(short));
    }

    /// Names nested as deep as the length bound allows are parsed on a small stack (the page's
    /// is 1 MiB) and kept mangled, since they would print past the nesting the glue counts.
    #[test]
    fn deeply_nested_names_fit_a_small_stack() {
        let fill = |open: &str, close: &str| {
            let n = (MAX_MANGLED - 8) / (open.len() + close.len());
            format!("_Z1f{}i{}", open.repeat(n), close.repeat(n))
        };
        let names = [fill("P", ""), fill("I1AI", "EE"), fill("N1a", "E"), fill("FvP", "E"), fill("RKPFvP", "E")];
        let stack = std::thread::Builder::new().stack_size(512 << 10);
        let kept = stack
            .spawn(move || names.iter().map(|n| matches!(demangle(n), Cow::Borrowed(_))).collect::<Vec<_>>())
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(kept, [true; 5]);
    }

    #[test]
    fn rust_names_as_rustfilt_prints_them() {
        for name in ["_ZN4core3fmt5write17h0123456789abcdefE", "_RNvCs1234_7mycrate3foo"] {
            let want = format!("{:#}", rustc_demangle::demangle(name));
            assert_eq!(demangle(name), want.as_str());
        }
        assert_eq!(demangle("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
    }

    #[test]
    fn names_that_are_not_mangled_are_kept() {
        for name in ["main", "my_kernel", "_Z", "_Zfoo", "_R", "__omp_offloading_10303_2c1b3_main_l5", ""] {
            assert!(matches!(demangle(name), Cow::Borrowed(n) if n == name), "{name}");
        }
    }
}
