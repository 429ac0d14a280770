//! The package explorer: the explorer worker built with the package readers (zip and wheels,
//! tar, cpio, deb, rpm, compressed streams). The explorer worker every file loads is built
//! without them and starts this one, nested, when the file it is given is a package.
#[cfg(target_arch = "wasm32")]
fn main() {
    offload_www::worker::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the package explorer runs in a browser: build it with `trunk build` (see README.md)");
}
