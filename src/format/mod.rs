//! The container formats, one module each, reading and writing side by side.

pub mod archive;
pub mod bundle;
pub mod host;
pub mod nv_fatbin;
pub mod offload_binary;
