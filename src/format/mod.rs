//! The container formats, one module each, reading and writing side by side; `sycl` is the
//! sequence of device images inside a SYCL bundled-object entry; `package` the packages that
//! carry libraries (wheels, tar, conda, deb, rpm).

pub mod archive;
pub mod bundle;
pub mod host;
pub mod nv_fatbin;
pub mod offload_binary;
pub mod package;
pub mod sycl;
