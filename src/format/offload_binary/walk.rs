//! Walking a section: offload binaries back to back at 8-byte aligned steps.

use super::*;

/// What bytes of a buffer that hold no binary are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unused {
    /// All zero (alignment padding, most likely).
    Zeros,
    /// Not zero, and no magic.
    Unrecognized,
    /// A magic, but not a readable binary.
    Invalid,
}

/// One piece of a walked buffer: a binary, or bytes that hold none.
#[derive(Clone, Debug)]
pub struct Found<'a> {
    /// Where the piece starts in the walked buffer.
    pub offset: u64,
    /// Bytes the piece covers: a binary's size plus its padding to 8, or the unused run. The
    /// pieces tile the buffer.
    pub size: u64,
    pub bytes: &'a [u8],
    /// The binary, or why there is none here (the error's offset counts from `offset`, as when
    /// [`parse`] is given the bytes from there).
    pub binary: core::result::Result<OffloadBinary<'a>, Error>,
    /// For bytes without a binary: what they are.
    pub unused: Option<Unused>,
}

/// A buffer cut into binaries and unused bytes, covering it entirely and in order.
#[derive(Clone, Debug, Default)]
pub struct Walk<'a> {
    pub items: Vec<Found<'a>>,
}

impl<'a> Walk<'a> {
    /// The binaries with their offsets.
    pub fn binaries(&self) -> impl Iterator<Item = (u64, &OffloadBinary<'a>)> {
        self.items.iter().filter_map(|f| f.binary.as_ref().ok().map(|b| (f.offset, b)))
    }

    /// The binaries, mutable, for editing.
    pub fn binaries_mut(&mut self) -> impl Iterator<Item = &mut OffloadBinary<'a>> {
        self.items.iter_mut().filter_map(|f| f.binary.as_mut().ok())
    }

    /// The byte ranges without a binary: what they are, and the error LLVM would give there
    /// (its offset counting from the range's start).
    pub fn unused(&self) -> impl Iterator<Item = (Range<u64>, Unused, &Error)> {
        self.items.iter().filter_map(|f| match (&f.binary, f.unused) {
            (Err(e), Some(why)) => Some((f.offset..f.offset + f.size, why, e)),
            _ => None,
        })
    }

    /// True when the buffer is nothing but binaries, the way LLVM requires.
    pub fn is_clean(&self) -> bool {
        self.unused().next().is_none()
    }

    /// The buffer again: each binary written (its input bytes when unedited) and unused bytes
    /// kept as they were.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for found in &self.items {
            match &found.binary {
                Ok(binary) => out.extend_from_slice(&binary.write()?),
                Err(_) => out.extend_from_slice(found.bytes),
            }
        }
        Ok(out)
    }
}

impl<'a> IntoIterator for Walk<'a> {
    type Item = Found<'a>;
    type IntoIter = alloc::vec::IntoIter<Found<'a>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'w, 'a> IntoIterator for &'w Walk<'a> {
    type Item = &'w Found<'a>;
    type IntoIter = core::slice::Iter<'w, Found<'a>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// Cuts `data` (a section, or a file of binaries back to back) into binaries at 8-byte-aligned
/// steps, like LLVM's `extractOffloadBinaries`, reporting bytes that hold none.
pub fn walk(data: &[u8]) -> Walk<'_> {
    walk_with(data, &ReadOptions::default())
}

/// [`walk`] with explicit allocation bounds.
pub fn walk_with<'a>(data: &'a [u8], options: &ReadOptions) -> Walk<'a> {
    let mut items = Vec::new();
    let mut pos = 0usize;
    // Unreadable binaries may nest (each magic inside the last one's bytes), and reading one can
    // cost up to its size: bound the total so a hostile buffer cannot take quadratic time.
    let mut failed_budget = (data.len() as u64).saturating_mul(8).max(1 << 20);
    while pos < data.len() {
        let offset = pos as u64;
        let rest = &data[pos..];
        let (end, binary, unused) = if has_magic(rest) {
            match parse_with(rest, options) {
                Ok(binary) => (pos + binary.stored_len() as usize, Ok(binary), None),
                Err(error) => {
                    let cost = read_header(rest).map_or(32, |h| h.size);
                    failed_budget = failed_budget.saturating_sub(cost);
                    let next = if failed_budget == 0 { data.len() } else { next_magic(data, pos + ALIGNMENT as usize) };
                    (next, Err(error), Some(Unused::Invalid))
                }
            }
        } else {
            let next = next_magic(data, align_to_entry(offset + 1) as usize);
            let zeros = data[pos..next].iter().all(|&b| b == 0);
            let why = if zeros { Unused::Zeros } else { Unused::Unrecognized };
            (next, Err(no_binary_error(next - pos, why)), Some(why))
        };
        let bytes = &data[pos..end];
        items.push(Found { offset, size: bytes.len() as u64, bytes, binary, unused });
        pos = end;
    }
    Walk { items }
}

/// The error for bytes where a binary should start but none does (LLVM's reader fails there).
fn no_binary_error(len: usize, why: Unused) -> Error {
    let found = match why {
        Unused::Zeros => format!("{} of zeros", human_size(len as u64)),
        _ => format!("{} without the magic", human_size(len as u64)),
    };
    Error::new(0, CTX_HEADER, "an offload binary (magic 10 FF 10 AD) or the end of the buffer", found)
}

/// The first 8-byte-aligned offset at or after `from` where a magic starts, or the end.
fn next_magic(data: &[u8], from: usize) -> usize {
    (from..data.len()).step_by(ALIGNMENT as usize).find(|&p| has_magic(&data[p..])).unwrap_or(data.len())
}
