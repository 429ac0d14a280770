//! Checked little-endian reading. Every read is bounds-checked against the buffer and every
//! offset computation is checked for overflow, so no input can make a parser panic.

use crate::error::{Error, Result};
use alloc::format;
use alloc::string::String;

/// A count with thousands separators, as people read large ones: `20,684`.
pub fn thousands(n: u64) -> String {
    let digits = alloc::string::ToString::to_string(&n);
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Human-readable size, used in error messages and labels.
pub fn human_size(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `offset + size`, or an error naming the structure when it overflows.
pub fn checked_end(offset: u64, size: u64, at: u64, context: &'static str) -> Result<u64> {
    offset.checked_add(size).ok_or_else(|| {
        Error::new(at, context, "an offset and size that fit in 64 bits", format!("offset {offset} + size {size}"))
    })
}

/// The sub-slice `[offset, offset + size)` of `data`, checked. `at` is where the offset was read,
/// for the error message.
pub fn slice_at<'a>(data: &'a [u8], offset: u64, size: u64, at: u64, context: &'static str) -> Result<&'a [u8]> {
    let end = checked_end(offset, size, at, context)?;
    if end > data.len() as u64 {
        return Err(Error::new(
            at,
            context,
            format!("a range within the {} bytes of input", data.len()),
            format!("bytes {offset}..{end}"),
        ));
    }
    Ok(&data[offset as usize..end as usize])
}

/// `value` rounded up to a multiple of `align` (a power of two or any positive number).
pub fn align_up(value: u64, align: u64) -> Option<u64> {
    if align <= 1 {
        return Some(value);
    }
    let rem = value % align;
    if rem == 0 {
        Some(value)
    } else {
        value.checked_add(align - rem)
    }
}

/// A cursor over a byte slice with checked little-endian reads.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    pub fn at(data: &'a [u8], pos: usize) -> Self {
        Reader { data, pos: pos.min(data.len()) }
    }

    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The next `n` bytes; `what` names them for the error.
    pub fn bytes(&mut self, n: u64, what: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() as u64 {
            return Err(Error::new(
                self.pos as u64,
                what,
                format!("{n} bytes"),
                format!("{} bytes before the end of input", self.remaining()),
            ));
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok(&self.data[start..self.pos])
    }

    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let b = self.bytes(N as u64, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_read_reports_offset_and_sizes() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(r.u16("a").unwrap(), 0x0201);
        let e = r.u32("bundle count").unwrap_err();
        assert_eq!(e.offset, 2);
        assert_eq!(e.expected, "4 bytes");
        assert_eq!(e.found, "1 bytes before the end of input");
    }

    #[test]
    fn slice_at_rejects_wrapping_ranges() {
        let data = [0u8; 16];
        assert!(slice_at(&data, u64::MAX, 2, 0, "x").is_err());
        assert!(slice_at(&data, 8, 9, 0, "x").is_err());
        assert_eq!(slice_at(&data, 8, 8, 0, "x").unwrap().len(), 8);
    }

    #[test]
    fn align_up_rounds() {
        assert_eq!(align_up(0, 4096), Some(0));
        assert_eq!(align_up(1, 4096), Some(4096));
        assert_eq!(align_up(4096, 4096), Some(4096));
        assert_eq!(align_up(5, 1), Some(5));
        assert_eq!(align_up(u64::MAX, 8), None);
    }
}

/// One record of a host's wrapper section: a u32 magic, a u32 version and two pointers (the
/// shape of CUDA's `__fatBinC_Wrapper_t` and HIP's `__CudaFatBinaryWrapper`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrapperRecord {
    pub magic: u32,
    pub version: u32,
    pub first: u64,
    pub second: u64,
}

/// The wrapper records of a section, `pointer` bytes per pointer (8 or 4). A tail too short for
/// a record is an error at its offset, naming `what` the records are.
pub fn wrapper_records(data: &[u8], pointer: u64, what: &'static str) -> Result<alloc::vec::Vec<WrapperRecord>> {
    let record = 8 + 2 * pointer;
    let mut r = Reader::new(data);
    let mut out = alloc::vec::Vec::with_capacity(data.len() / record as usize);
    while r.remaining() > 0 {
        if (r.remaining() as u64) < record {
            return Err(Error::new(
                r.position(),
                what,
                format!("{record} bytes"),
                format!("{} bytes before the end of the section", r.remaining()),
            ));
        }
        let magic = r.u32("wrapper magic")?;
        let version = r.u32("wrapper version")?;
        let (first, second) = if pointer == 8 {
            (r.u64("wrapper pointer")?, r.u64("wrapper pointer")?)
        } else {
            (u64::from(r.u32("wrapper pointer")?), u64::from(r.u32("wrapper pointer")?))
        };
        out.push(WrapperRecord { magic, version, first, second });
    }
    Ok(out)
}
