//! A window on any input: the bytes `offset..offset + len` of a reader whose type is hidden
//! behind `dyn`, itself an `object::ReadRef`.
//!
//! Two uses. A member of an archive or a package is explored with the readers of whole files
//! while the container stays lazily read. And every input, whatever its reader (a slice, the
//! CLI's file cache, the browser's sliced `Blob`, a member of a member), reaches the format
//! readers as this one type: `object`'s ELF, COFF and Mach-O parsers and our own readers are
//! compiled once instead of once per reader type (six copies of the host reader alone made up a
//! twelfth of the web worker). Windows in windows stay one type ([`Window::sub`]), and each read
//! costs one dynamic call, nothing next to the parsing it feeds.

use core::ops::Range;
use object::ReadRef;

/// A reader with its type erased: what [`Window`] reads through. The unit errors are
/// `object::ReadRef`'s, which this mirrors.
#[allow(clippy::result_unit_err)]
pub trait ReadAt<'a> {
    /// The input's size in bytes.
    fn size(&self) -> Result<u64, ()>;
    /// `size` bytes at `offset`, as `ReadRef::read_bytes_at`.
    fn bytes_at(&self, offset: u64, size: u64) -> Result<&'a [u8], ()>;
    /// The bytes of `range` up to `delimiter`, as `ReadRef::read_bytes_at_until`.
    fn bytes_until(&self, range: Range<u64>, delimiter: u8) -> Result<&'a [u8], ()>;
}

impl<'a, R: ReadRef<'a>> ReadAt<'a> for R {
    fn size(&self) -> Result<u64, ()> {
        ReadRef::len(*self)
    }

    fn bytes_at(&self, offset: u64, size: u64) -> Result<&'a [u8], ()> {
        ReadRef::read_bytes_at(*self, offset, size)
    }

    fn bytes_until(&self, range: Range<u64>, delimiter: u8) -> Result<&'a [u8], ()> {
        ReadRef::read_bytes_at_until(*self, range, delimiter)
    }
}

/// The bytes `offset..offset + len` of a reader, readable as a whole file.
#[derive(Clone, Copy)]
pub struct Window<'s, 'a> {
    inner: &'s (dyn ReadAt<'a> + 's),
    offset: u64,
    len: u64,
}

impl<'s, 'a> Window<'s, 'a> {
    /// All of `input` (empty if its size cannot be read).
    pub fn whole(input: &'s (dyn ReadAt<'a> + 's)) -> Self {
        Window { inner: input, offset: 0, len: input.size().unwrap_or(0) }
    }

    /// The bytes `offset..offset + len` of this window, as a window on the same input, cut to
    /// lie within this one.
    pub fn sub(self, offset: u64, len: u64) -> Self {
        let offset = offset.min(self.len);
        Window { inner: self.inner, offset: self.offset + offset, len: len.min(self.len - offset) }
    }
}

impl<'a> ReadRef<'a> for Window<'_, 'a> {
    fn len(self) -> Result<u64, ()> {
        Ok(self.len)
    }

    fn read_bytes_at(self, offset: u64, size: u64) -> Result<&'a [u8], ()> {
        let end = offset.checked_add(size).ok_or(())?;
        if end > self.len {
            return Err(());
        }
        self.inner.bytes_at(self.offset.checked_add(offset).ok_or(())?, size)
    }

    fn read_bytes_at_until(self, range: Range<u64>, delimiter: u8) -> Result<&'a [u8], ()> {
        if range.start > range.end || range.end > self.len {
            return Err(());
        }
        let start = self.offset.checked_add(range.start).ok_or(())?;
        let end = self.offset.checked_add(range.end).ok_or(())?;
        self.inner.bytes_until(start..end, delimiter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_in_windows_read_within_their_bounds() {
        let data: &[u8] = b"0123456789abcdef";
        let whole = Window::whole(&data);
        assert_eq!(whole.len(), Ok(16));
        let inner = whole.sub(4, 8).sub(2, 100);
        assert_eq!(inner.len(), Ok(6));
        assert_eq!(inner.read_bytes_at(0, 6), Ok(&b"6789ab"[..]));
        assert_eq!(inner.read_bytes_at(1, 6), Err(()));
        assert_eq!(inner.read_bytes_at(u64::MAX, 2), Err(()));
        assert_eq!(inner.read_bytes_at_until(0..6, b'9'), Ok(&b"678"[..]));
        assert_eq!(inner.read_bytes_at_until(0..7, b'9'), Err(()));
        assert_eq!(whole.sub(20, 5).len(), Ok(0));
    }
}
