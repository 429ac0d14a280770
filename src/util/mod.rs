//! Helpers the formats share: a checked byte reader, LLVM's string table builder, one stable
//! sort, LLVM's string hash, and a window that reads any input as one type.

pub mod bytes;
pub mod llvm_hash;
pub mod sort;
pub mod strtab;
pub mod window;
