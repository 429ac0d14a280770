//! `offload`: read, explore and write GPU offload containers.
//!
//! Module map (imports go one way: whole-file operations use formats; formats use `ids`,
//! `codec` and `util`; everything uses `tree` and `error`):
//!
//! - [`format`]: one module per container format, its byte layout in its doc comment, reading
//!   and writing side by side: [`format::offload_binary`], [`format::bundle`] (binary, text,
//!   compressed, bundled objects), [`format::archive`] (`ar`, device archives),
//!   [`format::host`] (ELF, COFF and Mach-O offload sections; ELF relocatable rewriting),
//!   [`format::nv_fatbin`] (NVIDIA fatbins and their wrapper), [`format::sycl`] (the image
//!   sequence of a SYCL entry), [`format::kpack`] (ROCm `.kpack` archives, the reference and
//!   HIP fatbin wrappers of kpack'd binaries).
//! - [`image`]: what is inside a device image: AMDGPU code objects, CUDA cubins, PTX, SPIR-V,
//!   LLVM bitcode (header fields and kernels).
//! - [`ids`]: target IDs, processors, triples, bundle entry IDs, composition rules.
//! - [`codec`]: zlib and zstd with output limits (ruzstd, or libzstd with `zstd-c`), MD5.
//! - [`util`]: the checked byte reader, LLVM's string table builder and string hash.
//! - [`tree`], [`error`]: the annotated tree every view draws; errors as values.
//! - [`explore`] (with [`explore::explore_with_companions`] for a kpack'd binary and its
//!   archives), [`edit`], [`replace`], [`targets`], [`kernels`], [`file_names`], [`runs_on`]
//!   (what runs where), [`fit`] (will it run on this GPU, per library and kernel),
//!   [`requirements`] (what the runtime or driver must read), [`sizes`] (what each target costs), [`diff`] (two files compared):
//!   whole-file operations.
//!
//! Parsers never panic and never trust a length.
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub mod codec;
pub mod diff;
pub mod edit;
pub mod error;
pub mod explore;
pub mod file_names;
pub mod fit;
pub mod format;
pub mod ids;
pub mod image;
pub mod kernels;
pub mod replace;
pub mod requirements;
pub mod runs_on;
pub mod sizes;
pub mod targets;
pub mod tree;
pub mod util;

pub use error::{Error, Result};
