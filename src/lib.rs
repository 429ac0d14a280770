//! `offload`: read, explore and write GPU offload containers.
//!
//! One module per format, each with its byte layout in its doc comment, reading and writing side
//! by side. Parsers never panic and never trust a length. Every format produces the generic
//! annotated [`tree`] that the CLI and the web app draw.
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub mod archive;
pub mod bundle;
pub mod bundled_object;
pub mod bytes;
pub mod error;
pub mod explore;
pub mod host;
pub mod tree;

pub use error::{Error, Result};

pub mod compressed;
pub mod compression;
pub mod device_archive;
pub mod edit;
pub mod elf_rel;
pub mod file_names;
pub mod offload_binary;
pub mod replace;
pub mod strtab;
pub mod target_id;
pub mod targets;
pub mod text_bundle;
