//! Helpers the formats share: a checked byte reader, LLVM's string table builder and LLVM's
//! string hash.

pub mod bytes;
pub mod llvm_hash;
pub mod strtab;
