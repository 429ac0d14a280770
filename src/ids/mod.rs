//! Target IDs and bundle entry IDs, read, standardized, compared and checked as
//! clang-offload-bundler 22 does.
//!
//! # Grammar
//!
//! ```text
//! target-id  ::= processor ( ":" feature ( "+" | "-" ) )*
//! entry-id   ::= kind "-" arch "-" vendor "-" os "-" env [ "-" last ]
//! kind       ::= "host" | "openmp" | "hip" | "hipv4"         (what the bundler 22 accepts)
//! last       ::= everything after the fifth '-', dashes included
//! ```
//!
//! How clang-offload-bundler 22 reads an entry ID (all verified against 22.1.8):
//!
//! * It cuts the ID at the first five `-`. Fewer than four `-` is refused ("Targets need to
//!   follow the format ..."). So a 3-field triple is only accepted as `kind-a-v-o-x`, and
//!   `x` becomes the *environment*: `hip-amdgcn-amd-amdhsa-gfx906` has no target ID at all.
//! * `last` is the target ID only when the text before its first `:` is a processor LLVM 22
//!   knows ([`PROCESSORS`]); otherwise it is silently dropped (`…--gfx940` is written `…--`).
//!   A kept target ID is kept verbatim: never validated, never canonicalized.
//! * The triple fields are taken by position; the triple is valid when the arch is known.
//! * It writes `kind-<triple>-<target id>` where `<triple>` is the triple normalized to four
//!   fields (`unknown` filling gaps, see [`normalize_triple`]), except for an `amdhsa` OS,
//!   which gets three fields and an empty environment: `hip-amdgcn-amd-amdhsa--gfx90a`,
//!   `host-x86_64-unknown-linux-gnu-`, `openmp-nvptx64-nvidia-cuda-unknown-sm_70`.
//!
//! # Compatibility (unbundling)
//!
//! A bundle entry (a code object) serves a requested target when ([`compatible`]):
//! the kinds, triples and target-ID texts are equal (triples compared as parsed values), or
//! the kinds are equal or `hip`/`hipv4` (optionally also `openmp` with either), the triples
//! are compatible, both target IDs name the same processor (for `amdgcn` triples it must be
//! a known AMD GPU and the features ones it supports; elsewhere no feature at all) and
//! **every feature the entry sets is set the same way by the request**. A feature the entry
//! leaves out means "any": the entry `gfx90a` serves requests `gfx90a`, `gfx90a:xnack+` and
//! `gfx90a:xnack-`; the entry `gfx90a:xnack+` serves only requests that say `xnack+`.
//!
//! # Composition (bundling)
//!
//! [`check_composition`] lists the documented rules a set of entries breaks, each marked with
//! whether clang-offload-bundler 22 itself refuses to bundle it; [`bundler_error`] gives the
//! exact message the bundler prints. The bundler's own target-ID check compares each ID only
//! with the first one (in byte order) for the same processor and only in one direction, so it
//! misses `gfx906:sramecc+:xnack+` next to `gfx906:xnack+`; we report those too.

use crate::error::{Error, Result};
use crate::tree::{Diagnostic, Node, Severity, Span};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

const TARGET_ID_CONTEXT: &str = "target ID";
const ENTRY_ID_CONTEXT: &str = "bundle entry ID";

mod composition;
mod diagnostics;
mod entry_id;
mod processors;
mod target_id;
#[cfg(test)]
mod tests;
mod triple;

pub use composition::*;
pub use diagnostics::*;
pub use entry_id::*;
pub use processors::*;
pub use target_id::*;
pub use triple::*;
