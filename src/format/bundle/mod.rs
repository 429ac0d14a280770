//! Clang offload bundles: the binary layout, the text layout, compressed bundles (`CCOB`) and
//! bundled objects (a host object with one `__CLANG_OFFLOAD_BUNDLE__<id>` section per entry).

pub mod binary;
pub mod compressed;
pub mod object;
pub mod text;
