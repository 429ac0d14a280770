//! Kernel names as people read them: Itanium C++ names (`_Z…`, what clang and nvcc write for
//! HIP, CUDA and OpenMP kernels) through `cpp_demangle`, printed as `llvm-cxxfilt` prints them;
//! Rust names (v0 `_R…`, and legacy `_ZN…17h<hash>E`) through `rustc-demangle`, printed as
//! `rustfilt` prints them, without the hash. A name that is not mangled, or does not demangle,
//! is kept as it is. The mangled name stays the key wherever names are joined (across targets,
//! between two files); this is only what is shown.
//!
//! `cpp_demangle` spells its output as GNU `c++filt` (libiberty) does, and has no option for
//! LLVM's spelling. Where the two differ in ways kernel names meet often, its output is respelt
//! as it is written, from the pieces it writes and the template-argument nodes it reports
//! ([`cpp_demangle::DemangleWrite`]); nothing is parsed here:
//!
//! | | `cpp_demangle` | `llvm-cxxfilt` |
//! |---|---|---|
//! | nested template arguments | `A<B<int> >` | `A<B<int>>` |
//! | operator templates | `operator< <A>`, `operator<< <A>` | `operator<<A>`, `operator<<<A>` |
//! | lambdas (`UliE_`, `UliE0_`, ...) | `{lambda(int)#1}`, `{lambda(int)#2}` | `'lambda'(int)`, `'lambda0'(int)` |
//! | integer literals (`Lj7E`, `Lln5E`, `Lm3E`, `Lx6E`, `Ly7E`) | `(unsigned int)7`, `(long)-5`, ... | `7u`, `-5l`, `3ul`, `6ll`, `7ull` |
//! | suffixes after the name (`.cold`, `.constprop.0`, `.kd`) | `f() [clone .cold]` | `f() (.cold)` |
//!
//! What stays different is rare in kernel names: names `cpp_demangle` rejects, such as C++20
//! templated lambdas, are kept mangled; generic lambdas (`auto:1`), a few expression forms inside
//! `decltype` and array bounds (`{parm#1}`), floating-point literals, unnamed types and
//! `{vtable(A)}` are spelt the libiberty way; and `cpp_demangle` 0.5.1 drops the `*` of a pack of
//! pointers (`DpPT_`: `int` where LLVM says `int*`). `tests/demangle.rs` compares every kernel
//! name of the committed device images, and templated kernels compiled by clang-22, with
//! `llvm-cxxfilt`.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write};
use cpp_demangle::{DemangleNodeType, DemangleOptions, DemangleWrite, Symbol};

/// The most a demangled name may take: a hostile symbol can ask for far more text than it has
/// (substitutions repeat whole types), and such a name is kept mangled.
const MAX_DEMANGLED: usize = 64 * 1024;

/// How many `.` of a name are tried as the start of its suffix (`.cold`, `.isra.0.part.1`).
const MAX_DOTS_TRIED: usize = 8;

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

/// Integer literal types that LLVM writes as a suffix (`7u`) rather than a cast (`(short)7`).
const LITERAL_SUFFIXES: [(&str, &str); 5] =
    [("unsigned int", "u"), ("long", "l"), ("unsigned long", "ul"), ("long long", "ll"), ("unsigned long long", "ull")];

/// Takes `cpp_demangle`'s output piece by piece and writes it as `llvm-cxxfilt` spells it (the
/// table in the module documentation).
struct LlvmSpelling {
    out: Bounded,
    /// The byte ranges in `out` of the last few pieces written, latest last.
    recent: Vec<(usize, usize)>,
    /// Where each open lambda's number goes: just after `'lambda`.
    lambdas: Vec<usize>,
    /// After a lambda's `)#`: its number, then its `}`, are to come.
    lambda_end: LambdaEnd,
    nodes: Vec<DemangleNodeType>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LambdaEnd {
    No,
    Number,
    Brace,
}

impl LlvmSpelling {
    fn new() -> LlvmSpelling {
        LlvmSpelling {
            out: Bounded(String::new()),
            recent: Vec::new(),
            lambdas: Vec::new(),
            lambda_end: LambdaEnd::No,
            nodes: Vec::new(),
        }
    }

    /// The text of the piece written `back` pieces ago (0: the last one).
    fn piece(&self, back: usize) -> Option<&str> {
        let i = self.recent.len().checked_sub(back + 1)?;
        let (start, end) = self.recent[i];
        self.out.0.get(start..end)
    }

    fn emit(&mut self, s: &str) -> fmt::Result {
        let start = self.out.0.len();
        self.out.write_str(s)?;
        if self.recent.len() == 4 {
            self.recent.remove(0);
        }
        self.recent.push((start, self.out.0.len()));
        Ok(())
    }

    /// Removes the piece written `back` pieces ago from `out` (with those after it) and
    /// forgets the recent pieces.
    fn truncate_to_piece(&mut self, back: usize) -> String {
        let i = self.recent.len() - 1 - back;
        let start = self.recent[i].0;
        let removed = self.out.0.split_off(start);
        self.recent.clear();
        removed
    }

    /// `(unsigned long)` `-`? `3` → `-3ul`: `digits` is about to be written.
    fn integer_literal(&mut self, digits: &str) -> Option<fmt::Result> {
        let negative = self.piece(0) == Some("-");
        let at = usize::from(negative);
        if self.piece(at) != Some(")") || self.piece(at + 2) != Some("(") {
            return None;
        }
        let ty = self.piece(at + 1)?;
        let suffix = LITERAL_SUFFIXES.iter().find(|(t, _)| *t == ty)?.1;
        self.truncate_to_piece(at + 2);
        let sign = if negative { "-" } else { "" };
        let mut text = String::from(sign);
        text.push_str(digits);
        text.push_str(suffix);
        Some(self.emit(&text))
    }
}

impl DemangleWrite for LlvmSpelling {
    fn push_demangle_node(&mut self, node: DemangleNodeType) {
        // `operator<` + ` ` + `<` opening template arguments: LLVM writes no space.
        if node == DemangleNodeType::TemplateArgs
            && self.piece(0) == Some("<")
            && self.piece(1) == Some(" ")
            && self.out.0.len() >= 3
            && self.out.0.as_bytes()[self.out.0.len() - 3] == b'<'
        {
            self.truncate_to_piece(1);
            self.out.0.push('<');
            self.recent.clear();
        }
        self.nodes.push(node);
    }

    fn pop_demangle_node(&mut self) {
        // `>` + ` ` before the closing `>` of template arguments: LLVM writes `>>`.
        if self.nodes.pop() == Some(DemangleNodeType::TemplateArgs)
            && self.piece(0) == Some(" ")
            && self.out.0.ends_with("> ")
        {
            self.truncate_to_piece(0);
        }
    }

    fn write_string(&mut self, s: &str) -> fmt::Result {
        match self.lambda_end {
            LambdaEnd::Number => {
                self.lambda_end = LambdaEnd::Brace;
                let at = self.lambdas.pop().ok_or(fmt::Error)?;
                // `#1` is LLVM's `'lambda'`, `#2` its `'lambda0'`, and so on.
                let n: u64 = s.parse().map_err(|_| fmt::Error)?;
                if n >= 2 {
                    self.out.0.insert_str(at, &(n - 2).to_string());
                }
                self.recent.clear();
                return Ok(());
            }
            LambdaEnd::Brace => {
                self.lambda_end = LambdaEnd::No;
                return if s == "}" { Ok(()) } else { Err(fmt::Error) };
            }
            LambdaEnd::No => {}
        }
        if s == "{lambda(" {
            self.emit("'lambda")?;
            self.lambdas.push(self.out.0.len());
            return self.emit("'(");
        }
        if s == ")#" && !self.lambdas.is_empty() {
            self.lambda_end = LambdaEnd::Number;
            return self.emit(")");
        }
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            if let Some(done) = self.integer_literal(s) {
                return done;
            }
        }
        self.emit(s)
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

fn itanium(name: &str) -> Option<String> {
    if !(name.starts_with("_Z") || name.starts_with("__Z")) {
        return None;
    }
    // LLVM reads the name, and whatever follows it from a `.` on is printed as it is, in
    // parentheses: `f() (.cold)`. The first `.` before which the name is complete is where.
    // (A few `.` at most are tried: each try parses the name again.)
    for (at, _) in name.match_indices('.').take(MAX_DOTS_TRIED) {
        if let Some(head) = itanium_whole(&name[..at]) {
            let mut out = head;
            out.push_str(" (");
            out.push_str(&name[at..]);
            out.push(')');
            return (out.len() <= MAX_DEMANGLED).then_some(out);
        }
    }
    itanium_whole(name)
}

fn itanium_whole(name: &str) -> Option<String> {
    let symbol = Symbol::new(name.as_bytes()).ok()?;
    let mut out = LlvmSpelling::new();
    symbol.structured_demangle(&mut out, &DemangleOptions::new()).ok()?;
    (out.lambdas.is_empty() && out.lambda_end == LambdaEnd::No).then_some(out.out.0)
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
