//! What a release must hold: the policy `offload check` judges a file by. People write it as
//! TOML (`offload-check.toml`, read by the CLI) or give its common parts as flags; this is its
//! model, with the defaults of whatever is left out.
//!
//! | key | meaning |
//! |---|---|
//! | `require = ["gfx90a", "sm_90"]` | targets every library must run on |
//! | `[serve] sm_90 = "ptx"` | how a required target may be served: `exact` (its own image, or one whose target ID is compatible: `gfx90a:xnack+` for `gfx90a`; the default), `generic` (also a generic target that covers it, `gfx11-generic`), `ptx` (also a cubin of the same major or PTX the driver compiles), `any` (every rule [`crate::report::fit`] knows) |
//! | `complete = "required"` | which targets every kernel of a library must be on: `required` (the required targets, the default), `all` (every target the library has), `off` |
//! | `[[limits]]` `target = "gfx9*"`, `vendor = "amd"`, `registers`, `spills`, `scratch`, `lds`, `min_waves` | per-kernel limits, for the kernels of the targets (glob) or vendor (`amd`, `nvidia`) named, or all; later tables win over earlier ones for the keys they set |
//! | `[[exceptions]]` `kernel = "*flash_fwd*"`, `target`, `vendor`, the same limit keys, `ignore = true` | per-kernel limits (a glob on the demangled or the mangled name), applied last; `ignore` leaves the kernel out of the limits |
//! | `[baseline]` `registers = 8`, `spills = 0`, `scratch = 0` | how far registers, spills or scratch bytes may rise over the baseline before it is a regression |

use alloc::string::String;
use alloc::vec::Vec;

/// How a required target may be served (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Serve {
    #[default]
    Exact,
    Generic,
    Ptx,
    Any,
}

impl Serve {
    pub fn as_str(self) -> &'static str {
        match self {
            Serve::Exact => "exact",
            Serve::Generic => "generic",
            Serve::Ptx => "ptx",
            Serve::Any => "any",
        }
    }

    /// Whether an image chosen by `rule` serves a target that may be served this way.
    pub fn allows(self, rule: crate::report::fit::Rule) -> bool {
        use crate::report::fit::Rule;
        match self {
            Serve::Any => true,
            Serve::Exact => matches!(rule, Rule::Exact | Rule::TargetId),
            Serve::Generic => matches!(rule, Rule::Exact | Rule::TargetId | Rule::Generic),
            Serve::Ptx => matches!(
                rule,
                Rule::Exact | Rule::TargetId | Rule::CubinSameMajor | Rule::FamilySpecific | Rule::PtxJit
            ),
        }
    }
}

/// Which targets every kernel of a library must be on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Complete {
    #[default]
    Required,
    All,
    Off,
}

/// Per-kernel limits; a key left out sets no limit (or keeps the one set before).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct Limits {
    /// Most registers (VGPRs on AMD GPUs, registers on NVIDIA).
    pub registers: Option<u64>,
    /// Most spills (AMD: VGPR and SGPR spills).
    pub spills: Option<u64>,
    /// Most scratch (private, local) memory per work-item, in bytes.
    pub scratch: Option<u64>,
    /// Most LDS (shared memory) per work-group, in bytes.
    pub lds: Option<u64>,
    /// Fewest waves per SIMD (AMD occupancy).
    pub min_waves: Option<u64>,
}

impl Limits {
    /// These limits with every key `over` sets taken from it.
    pub fn overridden_by(&self, over: &Limits) -> Limits {
        Limits {
            registers: over.registers.or(self.registers),
            spills: over.spills.or(self.spills),
            scratch: over.scratch.or(self.scratch),
            lds: over.lds.or(self.lds),
            min_waves: over.min_waves.or(self.min_waves),
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Limits::default()
    }
}

/// Limits for the kernels of some targets: a `[[limits]]` table.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct ScopedLimits {
    /// A glob on the target (`gfx9*`, `sm_90`); every target when absent.
    pub target: Option<String>,
    /// `amd` or `nvidia`; every vendor when absent.
    pub vendor: Option<String>,
    pub registers: Option<u64>,
    pub spills: Option<u64>,
    pub scratch: Option<u64>,
    pub lds: Option<u64>,
    pub min_waves: Option<u64>,
}

/// Limits of some kernels: an `[[exceptions]]` table.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct Exception {
    /// A glob on the kernel's demangled or mangled name.
    pub kernel: String,
    pub target: Option<String>,
    pub vendor: Option<String>,
    /// Leave these kernels out of the limits altogether.
    pub ignore: bool,
    pub registers: Option<u64>,
    pub spills: Option<u64>,
    pub scratch: Option<u64>,
    pub lds: Option<u64>,
    pub min_waves: Option<u64>,
}

/// The limit keys of a `[[limits]]` or `[[exceptions]]` table as [`Limits`] (the keys are
/// spelled out in each table, not flattened, so that serde can refuse a misspelt one).
macro_rules! limits_of {
    ($t:ty) => {
        impl $t {
            pub fn limits(&self) -> Limits {
                Limits {
                    registers: self.registers,
                    spills: self.spills,
                    scratch: self.scratch,
                    lds: self.lds,
                    min_waves: self.min_waves,
                }
            }
        }
    };
}
limits_of!(ScopedLimits);
limits_of!(Exception);

/// How far a resource may rise over the baseline before it is a regression.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct Tolerance {
    pub registers: u64,
    pub spills: u64,
    /// Bytes per work-item.
    pub scratch: u64,
}

/// A required target and how it may be served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Required {
    pub target: String,
    pub serve: Serve,
}

/// The whole policy.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct Policy {
    pub require: Vec<String>,
    /// How each required target may be served, by target; [`Serve::Exact`] for those not named.
    #[cfg_attr(feature = "serde", serde(default))]
    pub serve: alloc::collections::BTreeMap<String, Serve>,
    pub complete: Complete,
    pub limits: Vec<ScopedLimits>,
    pub exceptions: Vec<Exception>,
    pub baseline: Tolerance,
}

impl Policy {
    /// The required targets with how each may be served.
    pub fn required(&self) -> Vec<Required> {
        self.require
            .iter()
            .map(|t| Required { target: t.clone(), serve: self.serve.get(t).copied().unwrap_or_default() })
            .collect()
    }

    /// What is wrong with the policy, said for the person who wrote it: a vendor that is not
    /// one, a `serve` for a target that is not required, an exception without a kernel.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let vendor_ok = |v: &Option<String>| v.as_deref().is_none_or(|v| Vendor::parse(v).is_some());
        for (i, l) in self.limits.iter().enumerate() {
            if !vendor_ok(&l.vendor) {
                out.push(alloc::format!("limits #{}: vendor should be amd or nvidia, not {:?}", i + 1, l.vendor));
            }
        }
        for (i, e) in self.exceptions.iter().enumerate() {
            if !vendor_ok(&e.vendor) {
                out.push(alloc::format!("exceptions #{}: vendor should be amd or nvidia, not {:?}", i + 1, e.vendor));
            }
            if e.kernel.is_empty() {
                out.push(alloc::format!("exceptions #{}: expected a kernel glob (kernel = \"*name*\")", i + 1));
            }
        }
        for t in self.serve.keys() {
            if !self.require.contains(t) {
                out.push(alloc::format!("serve.{t}: {t} is not in require ({})", self.require.join(", ")));
            }
        }
        out
    }

    /// The limits of one kernel (`name` mangled, `demangled` as read) on `target`: every
    /// matching `[[limits]]` in order, then `over` (the command line's flags), then every
    /// matching exception; `None` when an exception says to ignore it.
    pub fn limits_for(&self, over: &Limits, target: &str, name: &str, demangled: &str) -> Option<Limits> {
        let mut limits = Limits::default();
        for l in self.limits.iter().filter(|l| in_scope(&l.target, &l.vendor, target)) {
            limits = limits.overridden_by(&l.limits());
        }
        limits = limits.overridden_by(over);
        let named = |e: &&Exception| glob_match(&e.kernel, demangled) || glob_match(&e.kernel, name);
        for e in self.exceptions.iter().filter(|e| in_scope(&e.target, &e.vendor, target)).filter(named) {
            if e.ignore {
                return None;
            }
            limits = limits.overridden_by(&e.limits());
        }
        Some(limits)
    }
}

/// The vendors a policy may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    Amd,
    Nvidia,
}

impl Vendor {
    pub fn parse(name: &str) -> Option<Vendor> {
        match name.to_ascii_lowercase().as_str() {
            "amd" => Some(Vendor::Amd),
            "nvidia" => Some(Vendor::Nvidia),
            _ => None,
        }
    }

    /// The vendor of a kernel table's column (`gfx90a:xnack+`, `sm_80`, `sm_80 (PTX)`).
    pub fn of_column(column: &str) -> Option<Vendor> {
        if column.starts_with("gfx") || column.starts_with("amdgcn") {
            Some(Vendor::Amd)
        } else if column.starts_with("sm_") || column.starts_with("compute_") || column.starts_with("nvptx") {
            Some(Vendor::Nvidia)
        } else {
            None
        }
    }
}

fn in_scope(target: &Option<String>, vendor: &Option<String>, column: &str) -> bool {
    let processor = column.split([':', ' ']).next().unwrap_or(column);
    let target_ok = target.as_deref().is_none_or(|t| glob_match(t, column) || glob_match(t, processor));
    let vendor_ok =
        vendor.as_deref().is_none_or(|v| Vendor::parse(v).is_some() && Vendor::parse(v) == Vendor::of_column(column));
    target_ok && vendor_ok
}

/// Whether `text` matches `pattern`, where `*` is any run of characters and `?` any one (shell
/// globs without classes: kernel names are full of `[`, `]` and `<`, which match themselves).
/// Iterative, with one backtrack point: linear in practice, never exponential.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_kernel_names() {
        assert!(glob_match("*flash*", "void flash_fwd<128>(Params)"));
        assert!(glob_match("gfx9*", "gfx90a:xnack+"));
        assert!(glob_match("sm_?0", "sm_80"));
        assert!(glob_match("vec[add]*", "vec[add](float*)"));
        assert!(!glob_match("gfx9*", "gfx1100"));
        assert!(!glob_match("sm_80", "sm_800"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a*b*c", "a-b-d"));
    }

    #[test]
    fn limits_layer_scopes_then_flags_then_exceptions() {
        let policy = Policy {
            limits: alloc::vec![
                ScopedLimits { registers: Some(128), spills: Some(0), ..Default::default() },
                ScopedLimits { vendor: Some("nvidia".into()), registers: Some(255), ..Default::default() },
            ],
            exceptions: alloc::vec![
                Exception { kernel: "*big*".into(), spills: Some(40), ..Default::default() },
                Exception { kernel: "skip*".into(), ignore: true, ..Default::default() },
            ],
            ..Policy::default()
        };
        let flags = Limits { scratch: Some(64), ..Limits::default() };
        let amd = policy.limits_for(&flags, "gfx90a", "_Z3bigv", "big()").unwrap();
        assert_eq!((amd.registers, amd.spills, amd.scratch), (Some(128), Some(40), Some(64)));
        let nv = policy.limits_for(&Limits::default(), "sm_80", "k", "k").unwrap();
        assert_eq!((nv.registers, nv.spills), (Some(255), Some(0)));
        assert_eq!(policy.limits_for(&flags, "gfx90a", "skip_me", "skip_me"), None);
    }
}
