//! The C functions LLVM's demangler calls (`itanium.cpp`), for wasm32, where no C library is
//! linked: memory from Rust's allocator, each block led by a 16-byte header holding its size,
//! so that `free` and `realloc` can give it back.

use alloc::alloc::{alloc, dealloc, realloc as grow, Layout};
use core::ffi::c_char;

const HEADER: usize = 16;

fn layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.checked_add(HEADER)?, HEADER).ok()
}

/// # Safety
/// C's `malloc`: the result is freed with [`free`] or resized with [`realloc`].
#[no_mangle]
pub unsafe extern "C" fn malloc(size: usize) -> *mut u8 {
    let Some(layout) = layout(size) else { return core::ptr::null_mut() };
    let block = alloc(layout);
    if block.is_null() {
        return block;
    }
    block.cast::<usize>().write(size);
    block.add(HEADER)
}

/// # Safety
/// C's `free`: `at` is null or came from [`malloc`] or [`realloc`].
#[no_mangle]
pub unsafe extern "C" fn free(at: *mut u8) {
    if at.is_null() {
        return;
    }
    let block = at.sub(HEADER);
    let size = block.cast::<usize>().read();
    if let Some(layout) = layout(size) {
        dealloc(block, layout);
    }
}

/// # Safety
/// C's `realloc`: `at` is null or came from [`malloc`] or [`realloc`].
#[no_mangle]
pub unsafe extern "C" fn realloc(at: *mut u8, size: usize) -> *mut u8 {
    if at.is_null() {
        return malloc(size);
    }
    let block = at.sub(HEADER);
    let old = block.cast::<usize>().read();
    let (Some(old_layout), Some(new_size)) = (layout(old), size.checked_add(HEADER)) else {
        return core::ptr::null_mut();
    };
    let moved = grow(block, old_layout, new_size);
    if moved.is_null() {
        return moved;
    }
    moved.cast::<usize>().write(size);
    moved.add(HEADER)
}

/// C's `abort`: the demangler calls it only when memory runs out.
#[no_mangle]
pub extern "C" fn abort() -> ! {
    core::arch::wasm32::unreachable()
}

/// # Safety
/// C's `strlen`: `text` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn strlen(text: *const c_char) -> usize {
    let mut n = 0;
    while *text.add(n) != 0 {
        n += 1;
    }
    n
}

/// # Safety
/// C's `memchr`: `at` holds `size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn memchr(at: *const u8, byte: i32, size: usize) -> *const u8 {
    let wanted = byte as u8;
    (0..size).map(|i| at.add(i)).find(|&p| *p == wanted).unwrap_or(core::ptr::null())
}
