//! The disassembler Web Worker: lists the code of device images for the page's Code view
//! (loaded the first time that view opens, so exploring never fetches it).
#[cfg(target_arch = "wasm32")]
fn main() {
    offload_www::worker::disasm::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the disassembler worker runs in a browser: build it with `trunk build` (see README.md)");
}
