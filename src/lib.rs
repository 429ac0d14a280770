//! `offload`: read, explore and write GPU offload containers.
//!
//! The map of the code, how a dropped file and an edit flow through it, and the rules it keeps
//! are in `docs/ARCHITECTURE.md`. In short: [`format`] reads and writes each container format,
//! [`image`] reads device images, [`ids`] names targets, [`codec`] decompresses with limits,
//! [`explore`], [`edit`] and [`replace`] work on whole files, and [`report`] answers questions
//! over an explored file. Imports go one way (whole-file operations use formats; formats use
//! `ids`, `codec` and `util`; everything uses [`tree`] and [`error`]).
//!
//! Parsers never panic and never trust a length.
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub mod codec;
pub mod disasm;
pub mod edit;
pub mod error;
pub mod explore;
pub mod format;
pub mod ids;
pub mod image;
pub mod replace;
pub mod report;
pub mod tree;
pub mod util;

pub use error::{Error, Result};
