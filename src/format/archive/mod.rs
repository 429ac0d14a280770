//! `ar` archives, and the heterogeneous device archives of bundled objects built on them.

pub mod ar;
pub mod device;
