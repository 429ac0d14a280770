//! Answers over an explored file, each a fold over its device images: which targets are in it
//! ([`targets`], the one owner of target naming), every kernel ([`kernels`], its name shown
//! demangled by [`demangle`]), what runs where ([`runs_on`]), will it run on a GPU ([`fit`]),
//! what the runtime or driver must read ([`requirements`]), what each target costs ([`sizes`]),
//! two files compared ([`diff`]), a release gate with its holes and
//! generic-target advisor ([`check`]), and the names extracted images are written under
//! ([`file_names`]).
//!
//! Reports read the tree and device images; they never import the explorer or the editors.

pub mod check;
pub mod demangle;
pub mod diagnostics;
pub mod diff;
pub mod file_names;
pub mod fit;
pub mod kernels;
pub mod requirements;
pub mod runs_on;
pub mod sizes;
pub mod targets;
