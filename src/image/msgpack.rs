//! MessagePack values with the byte span each was read from, for the AMDGPU metadata note.
//!
//! Markers and fixed-width payloads are decoded by the `rmp` crate (`no_std`, no allocation);
//! this module adds what a viewer of hostile files needs and `rmpv` does not give: the span of
//! every value, a nesting limit, a limit on the number of values, and allocations bounded by the
//! bytes left (every value takes at least one byte, so an array header claiming 2^32 elements
//! reserves no more than the input can hold). `rmpv` needs `std` (it reads through
//! `std::io::Read`), so it cannot be used in the `no_std` core.
//!
//! | first byte | value | payload |
//! |---|---|---|
//! | `00..7f` / `e0..ff` | positive / negative fixint | none |
//! | `80..8f` / `90..9f` / `a0..bf` | fixmap / fixarray / fixstr | n pairs / n values / n bytes |
//! | `c0`, `c2`, `c3` | nil, false, true | none |
//! | `c4..c6` | bin 8/16/32 | big-endian length, bytes |
//! | `c7..c9`, `d4..d8` | ext 8/16/32, fixext 1..16 | length, type byte, bytes |
//! | `ca`, `cb` | float 32/64 | 4 / 8 bytes |
//! | `cc..cf`, `d0..d3` | uint / int 8..64 | 1..8 bytes, big-endian |
//! | `d9..db` | str 8/16/32 | big-endian length, UTF-8 bytes |
//! | `dc`, `dd` / `de`, `df` | array 16/32 / map 16/32 | big-endian count, then the values |
//! | `c1` | never used | an error |

use crate::error::{Error, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use rmp::decode::{read_marker, Bytes, RmpRead};
use rmp::Marker;

/// Deepest nesting of arrays and maps accepted. The AMDGPU metadata nests five deep (map,
/// kernels, kernel, arguments, argument).
pub const MAX_DEPTH: u32 = 32;
/// Most values read from one document.
pub const MAX_VALUES: usize = 1 << 20;

const CONTEXT: &str = "msgpack";

/// A decoded value and where it lies: `offset` and `size` in the bytes given to [`parse`].
#[derive(Clone, Debug, PartialEq)]
pub struct Mp<'a> {
    pub offset: u64,
    pub size: u64,
    pub value: MpValue<'a>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MpValue<'a> {
    Nil,
    Bool(bool),
    Uint(u64),
    /// A negative integer (non-negative ones are [`MpValue::Uint`] whatever their marker).
    Int(i64),
    Float(f64),
    /// String bytes, not checked as UTF-8.
    Str(&'a [u8]),
    Bin(&'a [u8]),
    Ext(i8, &'a [u8]),
    Array(Vec<Mp<'a>>),
    Map(Vec<(Mp<'a>, Mp<'a>)>),
}

impl<'a> Mp<'a> {
    /// The value of `key` in a map whose keys are strings; the first one when keys repeat.
    pub fn get(&self, key: &str) -> Option<&Mp<'a>> {
        match &self.value {
            MpValue::Map(pairs) => pairs.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&'a str> {
        match self.value {
            MpValue::Str(s) => core::str::from_utf8(s).ok(),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self.value {
            MpValue::Uint(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Mp<'a>]> {
        match &self.value {
            MpValue::Array(items) => Some(items),
            _ => None,
        }
    }

    /// What kind of value this is, for messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            MpValue::Nil => "nil",
            MpValue::Bool(_) => "a boolean",
            MpValue::Uint(_) | MpValue::Int(_) => "an integer",
            MpValue::Float(_) => "a float",
            MpValue::Str(_) => "a string",
            MpValue::Bin(_) => "binary data",
            MpValue::Ext(..) => "an extension value",
            MpValue::Array(_) => "an array",
            MpValue::Map(_) => "a map",
        }
    }

    /// A short text form of a scalar, or of an array of scalars (`1, 2`); `None` for maps,
    /// nested arrays and binary data.
    pub fn scalar_text(&self) -> Option<String> {
        Some(match &self.value {
            MpValue::Nil => "nil".into(),
            MpValue::Bool(b) => format!("{b}"),
            MpValue::Uint(n) => format!("{n}"),
            MpValue::Int(n) => format!("{n}"),
            MpValue::Float(x) => format!("{x}"),
            MpValue::Str(s) => String::from_utf8_lossy(s).into_owned(),
            MpValue::Array(items) if items.len() <= 64 => {
                let parts: Option<Vec<String>> = items
                    .iter()
                    .map(|i| match i.value {
                        MpValue::Array(_) | MpValue::Map(_) => None,
                        _ => i.scalar_text(),
                    })
                    .collect();
                parts?.join(", ")
            }
            _ => return None,
        })
    }
}

/// Reads one value from the start of `data`; bytes after it are left for the caller to judge.
pub fn parse(data: &[u8]) -> Result<Mp<'_>> {
    let mut d = Decoder { data, rd: Bytes::new(data), values: 0 };
    d.value(0)
}

struct Decoder<'a> {
    data: &'a [u8],
    rd: Bytes<'a>,
    values: usize,
}

impl<'a> Decoder<'a> {
    fn pos(&self) -> u64 {
        (self.data.len() - self.rd.remaining_slice().len()) as u64
    }

    fn short(&self, at: u64, what: &str, want: u64) -> Error {
        Error::new(
            at,
            CONTEXT,
            format!("{want} bytes of {what}"),
            format!("{} bytes before the end", self.rd.remaining_slice().len()),
        )
    }

    fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8]> {
        let rest = self.rd.remaining_slice();
        if n > rest.len() as u64 {
            return Err(self.short(self.pos(), what, n));
        }
        let (taken, left) = rest.split_at(n as usize);
        self.rd = Bytes::new(left);
        Ok(taken)
    }

    fn uint(&mut self, width: u8, what: &str) -> Result<u64> {
        let at = self.pos();
        let r = match width {
            1 => self.rd.read_data_u8().map(u64::from),
            2 => self.rd.read_data_u16().map(u64::from),
            4 => self.rd.read_data_u32().map(u64::from),
            _ => self.rd.read_data_u64(),
        };
        r.map_err(|_| self.short(at, what, width as u64))
    }

    fn int(&mut self, width: u8) -> Result<MpValue<'a>> {
        let at = self.pos();
        let r = match width {
            1 => self.rd.read_data_i8().map(i64::from),
            2 => self.rd.read_data_i16().map(i64::from),
            4 => self.rd.read_data_i32().map(i64::from),
            _ => self.rd.read_data_i64(),
        };
        let n = r.map_err(|_| self.short(at, "an integer", width as u64))?;
        Ok(if n >= 0 { MpValue::Uint(n as u64) } else { MpValue::Int(n) })
    }

    fn ext(&mut self, len: u64) -> Result<MpValue<'a>> {
        let kind = self.take(1, "an extension type")?[0] as i8;
        Ok(MpValue::Ext(kind, self.take(len, "extension data")?))
    }

    fn value(&mut self, depth: u32) -> Result<Mp<'a>> {
        let start = self.pos();
        self.values += 1;
        if self.values > MAX_VALUES {
            return Err(Error::new(start, CONTEXT, format!("at most {MAX_VALUES} values"), "more"));
        }
        let marker = read_marker(&mut self.rd).map_err(|_| self.short(start, "a value", 1))?;
        let value = match marker {
            Marker::Null => MpValue::Nil,
            Marker::True => MpValue::Bool(true),
            Marker::False => MpValue::Bool(false),
            Marker::FixPos(n) => MpValue::Uint(n as u64),
            Marker::FixNeg(n) => MpValue::Int(n as i64),
            Marker::U8 => MpValue::Uint(self.uint(1, "an integer")?),
            Marker::U16 => MpValue::Uint(self.uint(2, "an integer")?),
            Marker::U32 => MpValue::Uint(self.uint(4, "an integer")?),
            Marker::U64 => MpValue::Uint(self.uint(8, "an integer")?),
            Marker::I8 => self.int(1)?,
            Marker::I16 => self.int(2)?,
            Marker::I32 => self.int(4)?,
            Marker::I64 => self.int(8)?,
            Marker::F32 => {
                let at = self.pos();
                MpValue::Float(self.rd.read_data_f32().map_err(|_| self.short(at, "a float", 4))? as f64)
            }
            Marker::F64 => {
                let at = self.pos();
                MpValue::Float(self.rd.read_data_f64().map_err(|_| self.short(at, "a float", 8))?)
            }
            Marker::FixStr(n) => MpValue::Str(self.take(n as u64, "a string")?),
            Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                let n = self.uint(width(marker), "a string length")?;
                MpValue::Str(self.take(n, "a string")?)
            }
            Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => {
                let n = self.uint(width(marker), "a binary length")?;
                MpValue::Bin(self.take(n, "binary data")?)
            }
            Marker::FixExt1 => self.ext(1)?,
            Marker::FixExt2 => self.ext(2)?,
            Marker::FixExt4 => self.ext(4)?,
            Marker::FixExt8 => self.ext(8)?,
            Marker::FixExt16 => self.ext(16)?,
            Marker::Ext8 | Marker::Ext16 | Marker::Ext32 => {
                let n = self.uint(width(marker), "an extension length")?;
                self.ext(n)?
            }
            Marker::FixArray(n) => self.array(n as u64, depth, start)?,
            Marker::Array16 | Marker::Array32 => {
                let n = self.uint(width(marker), "an array length")?;
                self.array(n, depth, start)?
            }
            Marker::FixMap(n) => self.map(n as u64, depth, start)?,
            Marker::Map16 | Marker::Map32 => {
                let n = self.uint(width(marker), "a map length")?;
                self.map(n, depth, start)?
            }
            Marker::Reserved => {
                return Err(Error::new(start, CONTEXT, "a msgpack value", "the never-used marker 0xc1"));
            }
        };
        Ok(Mp { offset: start, size: self.pos() - start, value })
    }

    fn deeper(&self, depth: u32, at: u64) -> Result<u32> {
        if depth >= MAX_DEPTH {
            return Err(Error::new(
                at,
                CONTEXT,
                format!("arrays and maps nested at most {MAX_DEPTH} deep"),
                "deeper nesting",
            ));
        }
        Ok(depth + 1)
    }

    /// Room for `n` items of at least `min_size` bytes each, bounded by the bytes left.
    fn capacity(&self, n: u64, min_size: u64) -> usize {
        n.min(self.rd.remaining_slice().len() as u64 / min_size) as usize
    }

    /// An array or map of `n` items takes at least `n * min_size` bytes: refuse a count the
    /// bytes left cannot hold, at the array's own header.
    fn fits(&self, n: u64, min_size: u64, at: u64, what: &str) -> Result<()> {
        let left = self.rd.remaining_slice().len() as u64;
        if n.saturating_mul(min_size) > left {
            let expected = format!("{what} whose {n} items fit in the {left} bytes left (at least {min_size} each)");
            return Err(Error::new(at, CONTEXT, expected, format!("{n} items declared")));
        }
        Ok(())
    }

    fn array(&mut self, n: u64, depth: u32, at: u64) -> Result<MpValue<'a>> {
        let depth = self.deeper(depth, at)?;
        self.fits(n, 1, at, "an array")?;
        let mut items = Vec::with_capacity(self.capacity(n, 1));
        for _ in 0..n {
            items.push(self.value(depth)?);
        }
        Ok(MpValue::Array(items))
    }

    fn map(&mut self, n: u64, depth: u32, at: u64) -> Result<MpValue<'a>> {
        let depth = self.deeper(depth, at)?;
        self.fits(n, 2, at, "a map")?;
        let mut pairs = Vec::with_capacity(self.capacity(n, 2));
        for _ in 0..n {
            let k = self.value(depth)?;
            let v = self.value(depth)?;
            pairs.push((k, v));
        }
        Ok(MpValue::Map(pairs))
    }
}

/// Width of the length that follows a str/bin/ext/array/map marker.
fn width(marker: Marker) -> u8 {
    match marker {
        Marker::Str8 | Marker::Bin8 | Marker::Ext8 => 1,
        Marker::Str16 | Marker::Bin16 | Marker::Ext16 | Marker::Array16 | Marker::Map16 => 2,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_with_spans() {
        // {"a": [1, -2, "xy"], "b": true}
        let data = [0x82, 0xa1, b'a', 0x93, 0x01, 0xfe, 0xa2, b'x', b'y', 0xa1, b'b', 0xc3];
        let v = parse(&data).unwrap();
        assert_eq!((v.offset, v.size), (0, 12));
        let a = v.get("a").unwrap();
        assert_eq!((a.offset, a.size), (3, 6));
        let items = a.as_array().unwrap();
        assert_eq!(items[0].as_u64(), Some(1));
        assert_eq!(items[1].value, MpValue::Int(-2));
        assert_eq!(items[2].as_str(), Some("xy"));
        assert_eq!((items[2].offset, items[2].size), (6, 3));
        assert_eq!(v.get("b").unwrap().value, MpValue::Bool(true));
        assert_eq!(a.scalar_text().as_deref(), Some("1, -2, xy"));
    }

    #[test]
    fn wide_markers() {
        let data = [0xdc, 0x00, 0x02, 0xcd, 0x01, 0x00, 0xd9, 0x01, b'z'];
        let v = parse(&data).unwrap();
        let items = v.as_array().unwrap();
        assert_eq!(items[0].as_u64(), Some(256));
        assert_eq!(items[1].as_str(), Some("z"));
        assert_eq!(parse(&[0xd0, 0x05]).unwrap().as_u64(), Some(5));
        assert_eq!(parse(&[0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]).unwrap().value, MpValue::Float(1.0));
    }

    #[test]
    fn truncation_at_every_byte_is_an_error() {
        let data = [0x82, 0xa1, b'a', 0x93, 0x01, 0xfe, 0xa2, b'x', b'y', 0xa1, b'b', 0xc3];
        for n in 0..data.len() {
            assert!(parse(&data[..n]).is_err(), "{n}");
        }
    }

    #[test]
    fn nesting_bomb_is_refused_at_its_depth() {
        let data = [0x91u8; 1000];
        let e = parse(&data).unwrap_err();
        assert_eq!(e.offset, MAX_DEPTH as u64);
        assert!(e.expected.contains("nested"), "{e}");
    }

    #[test]
    fn huge_counts_reserve_nothing_unbacked() {
        let e = parse(&[0xdd, 0xff, 0xff, 0xff, 0xff, 0x01]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.found.contains("4294967295 items"), "{e}");
        let e = parse(&[0xdf, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
        assert_eq!(e.offset, 0);
        // Three pairs need six bytes.
        assert_eq!(parse(&[0x83, 1, 2, 3, 4, 5]).unwrap_err().offset, 0);
        let e = parse(&[0xdb, 0xff, 0xff, 0xff, 0xff, b'a']).unwrap_err();
        assert!(e.expected.contains("4294967295"), "{e}");
        assert!(parse(&[0xc1]).is_err());
    }
}
