//! The container formats, one module each, reading and writing side by side; `sycl` is the
//! sequence of device images inside a SYCL bundled-object entry; `package` the packages that
//! carry libraries (wheels, tar, conda, deb, rpm); `kpack` ROCm's `.kpack` archives and the
//! reference and wrappers of the binaries whose device code they hold.

pub mod archive;
pub mod bundle;
pub mod host;
pub mod kpack;
pub mod nv_fatbin;
pub mod offload_binary;
pub mod package;
pub mod sycl;
