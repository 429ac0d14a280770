//! What of a large inflated ELF library is kept in memory as it is inflated, so that it can be
//! explored without being written anywhere: the page's scratch file costs a second on a quiet
//! machine for a 965 MiB library, and ten under disk load.
//!
//! The explorer reads little of an ELF library ([`crate::format::host`]): the file header, the
//! section header table, the section-name string table and the offload sections. The last
//! three lie at offsets the header does not give, or gives only at the end (the section table
//! comes last), so they are recognised as the bytes pass:
//!
//! | what | kept | recognised by |
//! |------|------|---------------|
//! | file and program headers | the first [`HEAD`] bytes | their place |
//! | section header table | `e_shoff .. e_shoff + e_shnum * e_shentsize` (to the end when `e_shnum` is 0) | the file header |
//! | `.shstrtab` | [`LOOKBACK`] bytes either side of the text `.shstrtab\0`, searched for outside the loaded segments | its own name, which it holds |
//! | NVIDIA fatbin containers (`.nv_fatbin`, `__nv_relfatbin`) | header and `fat size` | magic `50 ED 55 BA`, version 1, header size 16 |
//! | clang offload bundles and `CCOB` compressed bundles (`.hip_fatbin`) | to the end of the last entry, or `total size` | their magic |
//! | LLVM offload binaries (`.llvm.offloading`) | `size` | magic `10 FF 10 AD` |
//! | fatbin wrappers (`.nvFatBinSegment`, `.hipFatBinSegment`) | 24 bytes each | magic `B1 43 62 46`, `HIPF`, `HIPK` |
//!
//! Magics are looked for at 8-byte aligned offsets only: every one of these objects is at least
//! 8-aligned in its section, and sections are placed at their alignment. Up to [`LOOKBACK`] bytes
//! between two kept objects (padding to the next bundle's 4096-byte boundary) are kept too, and
//! [`TRAIL`] bytes after each, so that a section's padding reads as the section does.
//!
//! Kept bytes sit at their own offsets in one allocation of the member's size, of which only the
//! pages written are ever touched: memory follows what is kept, and every read of a kept range
//! is one slice, however many objects it spans.
//!
//! Whatever is missed (a `CCOB` version 1, which gives no size; a kpack reference; a section
//! name table far from its name) is found before the exploration: [`Kept::covers_host`] reads the
//! library as [`crate::format::host::read_host`] will, and says whether every read fell on kept
//! bytes. The caller then inflates the member again somewhere it can read whole.

use crate::format::bundle::{binary as bundle, compressed};
use crate::format::host;
use crate::format::{nv_fatbin, offload_binary};
use alloc::vec::Vec;
use core::cell::Cell;
use core::ops::Range;
use object::ReadRef;

/// The first bytes of the library, kept: its file header and, in any library seen, its program
/// headers.
pub const HEAD: u64 = 64 << 10;
/// How far before a recognised object (or the section-name table's own name) bytes already passed
/// are kept.
pub const LOOKBACK: u64 = 64 << 10;
/// What is kept after each object whose end is known: a section's own trailing padding.
pub const TRAIL: u64 = 4 << 10;
/// What is kept after a magic before its header says how long the object is: enough for the
/// header of a bundle of a few hundred entries.
const PROVISIONAL: u64 = 64 << 10;
/// The most recognised objects waiting for their headers at once; past it, new ones are not kept.
const MAX_PENDING: usize = 1024;

const ELF_MAGIC: [u8; 4] = [0x7F, b'E', b'L', b'F'];
const SHSTRTAB_NAME: &[u8] = b".shstrtab\0";
const HIPF: [u8; 4] = *b"FPIH";
const HIPK: [u8; 4] = *b"HIPK";
const BUNDLE_START: [u8; 4] = *b"__CL";

/// Where the loaded segments lie, from the program headers.
#[derive(Clone, Debug, Default)]
struct Layout {
    /// The file bytes of every loaded segment, in order and merged: the section-name table is
    /// searched for only outside them (it is never loaded, though a tool that adds segments,
    /// such as patchelf, can put loaded bytes after it).
    loaded: Vec<Range<u64>>,
}

impl Layout {
    /// The parts of `range` outside every loaded segment.
    fn unloaded(&self, range: Range<u64>) -> Vec<Range<u64>> {
        let mut parts = Vec::new();
        let mut from = range.start;
        for segment in &self.loaded {
            if segment.end <= from {
                continue;
            }
            if segment.start >= range.end {
                break;
            }
            if segment.start > from {
                parts.push(from..segment.start);
            }
            from = from.max(segment.end);
        }
        if from < range.end {
            parts.push(from..range.end);
        }
        parts
    }
}

/// Takes a member's bytes as they are inflated, keeping what [`crate::format::host`] reads of an
/// ELF library; [`Keeper::finish`] makes the reader.
pub struct Keeper {
    /// The member's kept bytes, at their own offsets.
    arena: Arena,
    /// The offset of the next byte to come.
    at: u64,
    /// Every byte before this one that is still to come is kept.
    keep_until: u64,
    /// Ranges known in advance (the head, the section table).
    planned: Vec<Range<u64>>,
    /// Objects recognised by their magic whose size their header has still to give.
    pending: Vec<u64>,
    /// The last bytes passed (up to [`LOOKBACK`]), ending at `at`.
    recent: Vec<u8>,
    layout: Option<Layout>,
    name_finder: memchr::memmem::Finder<'static>,
    /// Whether magics and the section-name table are looked for ([`Keeper::exactly`]: not).
    searching: bool,
}

impl Keeper {
    /// A keeper for a member that inflates to `size` bytes; `None` when that is more than this
    /// machine can address.
    pub fn new(size: u64) -> Option<Keeper> {
        Some(Keeper {
            arena: Arena::new(size)?,
            at: 0,
            keep_until: HEAD.min(size),
            planned: Vec::new(),
            pending: Vec::new(),
            recent: Vec::with_capacity(LOOKBACK as usize),
            layout: None,
            name_finder: memchr::memmem::Finder::new(SHSTRTAB_NAME),
            searching: true,
        })
    }

    /// A keeper that keeps `ranges` of a member of `size` bytes and looks for nothing: the
    /// second pass over a library whose first missed something, once its section table is known
    /// ([`Kept::host_reads`]).
    pub fn exactly(size: u64, ranges: Vec<Range<u64>>) -> Option<Keeper> {
        let mut keeper = Keeper::new(size)?;
        keeper.keep_until = 0;
        keeper.planned = ranges;
        keeper.planned.sort_by_key(|r| r.start);
        keeper.searching = false;
        Some(keeper)
    }

    /// Takes the next inflated bytes. `false` when the member is not an ELF file (its first bytes
    /// say so) or runs past its declared size: nothing is kept, and the caller stores the member
    /// another way.
    pub fn take(&mut self, chunk: &[u8]) -> bool {
        if self.at == 0 && !chunk.starts_with(&ELF_MAGIC) {
            return false;
        }
        let end = self.at + chunk.len() as u64;
        if end > self.arena.len() {
            return false;
        }
        let mut written = self.at;
        for hit in self.hits(chunk) {
            let upto = hit.at.max(written);
            self.keep(&mut written, upto, chunk);
            self.recognised(hit, chunk);
        }
        self.keep(&mut written, end, chunk);
        loop {
            let before = self.keep_until;
            self.measure_pending();
            if self.keep_until <= before {
                break;
            }
            // The bytes of this chunk that the sizes just read want, which were passed over.
            let wanted = before.max(self.at)..self.keep_until.min(end);
            if wanted.start < wanted.end {
                self.write(wanted, chunk);
            }
        }
        self.remember_recent(chunk);
        self.at = end;
        if self.searching && self.layout.is_none() && self.at >= HEAD.min(self.arena.len()) {
            self.layout = self.read_layout();
        }
        true
    }

    /// The reader over what was kept; `None` when fewer bytes came than the member's size.
    pub fn finish(self) -> Option<Kept> {
        if self.at != self.arena.len() {
            return None;
        }
        Some(Kept { arena: self.arena, misses: Cell::new(0) })
    }

    /// Writes what is wanted of `written .. upto` (within this chunk) and moves `written` on.
    fn keep(&mut self, written: &mut u64, upto: u64, chunk: &[u8]) {
        let from = *written;
        if upto <= from {
            return;
        }
        let mut wanted: Vec<Range<u64>> = Vec::new();
        if self.keep_until > from {
            wanted.push(from..self.keep_until.min(upto));
        }
        for plan in &self.planned {
            let (start, end) = (plan.start.max(from), plan.end.min(upto));
            if start < end {
                wanted.push(start..end);
            }
        }
        wanted.sort_by_key(|r| r.start);
        for range in wanted {
            self.write(range, chunk);
        }
        *written = upto;
    }

    /// Writes the bytes of `range`, which lie in `recent` and `chunk`, into the arena and notes
    /// them kept.
    fn write(&mut self, range: Range<u64>, chunk: &[u8]) {
        let recent_start = self.at - self.recent.len() as u64;
        let start = range.start.max(self.arena.end()).max(recent_start);
        if start < range.end.min(self.at) {
            let from_recent = (start - recent_start) as usize..(range.end.min(self.at) - recent_start) as usize;
            self.arena.append(start, &self.recent[from_recent]);
        }
        let start = start.max(self.at);
        if start < range.end {
            self.arena.append(start, &chunk[(start - self.at) as usize..(range.end - self.at) as usize]);
        }
    }

    /// What this chunk holds that starts a kept range: magics at 8-byte aligned offsets, and the
    /// section-name table's name outside the loaded segments. A magic or name that straddles two
    /// chunks is missed (a chunk is much longer than either, so that is rare), and
    /// [`Kept::covers_host`] catches what that loses.
    fn hits(&self, chunk: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        if !self.searching {
            return hits;
        }
        let first = (8 - self.at % 8) % 8;
        let mut i = first as usize;
        while i + 4 <= chunk.len() {
            let word = [chunk[i], chunk[i + 1], chunk[i + 2], chunk[i + 3]];
            if is_magic(word) {
                hits.push(Hit { at: self.at + i as u64, kind: HitKind::Magic });
            }
            i += 8;
        }
        let chunk_range = self.at..self.at + chunk.len() as u64;
        let unloaded = match &self.layout {
            Some(layout) => layout.unloaded(chunk_range),
            None => alloc::vec![chunk_range],
        };
        for part in unloaded {
            let (mut from, to) = ((part.start - self.at) as usize, (part.end - self.at) as usize);
            while let Some(found) = self.name_finder.find(&chunk[from..to]) {
                hits.push(Hit { at: self.at + (from + found) as u64, kind: HitKind::SectionNames });
                from += found + SHSTRTAB_NAME.len();
            }
        }
        hits.sort_by_key(|h| h.at);
        hits
    }

    /// A recognised start: the gap back to the last kept range when short, or the bytes before
    /// a section-name table's name, are kept, and the bytes after until the header is read.
    fn recognised(&mut self, hit: Hit, chunk: &[u8]) {
        let last_end = self.arena.end();
        let back = match hit.kind {
            HitKind::Magic if hit.at > last_end && hit.at - last_end <= LOOKBACK => last_end,
            HitKind::Magic => hit.at,
            HitKind::SectionNames => hit.at.saturating_sub(LOOKBACK),
        };
        if back < hit.at {
            self.write(back..hit.at, chunk);
        }
        let ahead = match hit.kind {
            HitKind::Magic => {
                if self.pending.len() >= MAX_PENDING {
                    return;
                }
                self.pending.push(hit.at);
                PROVISIONAL
            }
            HitKind::SectionNames => LOOKBACK,
        };
        self.keep_until = self.keep_until.max(hit.at + ahead);
    }

    /// Reads the headers of pending objects that have come whole: each is kept to its end (and
    /// [`TRAIL`] more), or dropped when its header is not one.
    fn measure_pending(&mut self) {
        let mut pending = core::mem::take(&mut self.pending);
        pending.retain(|&start| {
            let available = self.arena.kept_from(start);
            let room = self.arena.len() - start;
            match object_size(available) {
                // A size past the member's end is not a header's: kept bytes are memory.
                Size::Known(size) if size > room => false,
                Size::Known(size) => {
                    self.keep_until = self.keep_until.max(start.saturating_add(size).saturating_add(TRAIL));
                    false
                }
                Size::NeedAtLeast(n) => {
                    self.keep_until = self.keep_until.max(start.saturating_add(n));
                    true
                }
                Size::NotOne => false,
            }
        });
        self.pending = pending;
    }

    fn remember_recent(&mut self, chunk: &[u8]) {
        let keep = LOOKBACK as usize;
        if chunk.len() >= keep {
            self.recent.clear();
            self.recent.extend_from_slice(&chunk[chunk.len() - keep..]);
        } else {
            let drop = (self.recent.len() + chunk.len()).saturating_sub(keep);
            self.recent.drain(..drop);
            self.recent.extend_from_slice(chunk);
        }
    }

    /// The file header's layout, and the section table planned for keeping.
    fn read_layout(&mut self) -> Option<Layout> {
        let head = self.arena.kept_from(0);
        let elf = ElfHead::parse(head)?;
        let size = self.arena.len();
        let table_end = if elf.shnum == 0 { size } else { elf.shoff.saturating_add(elf.shnum * elf.shentsize) };
        let loaded = elf.loaded(head);
        if elf.shoff != 0 && elf.shoff < size {
            self.planned.push(elf.shoff..table_end.min(size));
        }
        Some(Layout { loaded })
    }
}

/// Where [`keep`] put a member.
pub enum Keeping {
    /// An ELF library, of which every byte the host reader reads was kept.
    Kept(Kept),
    /// Not an ELF file: every byte went to the other sink, this many.
    Elsewhere(u64),
    /// An ELF library whose reads could not all be kept (nothing went to the other sink): it is
    /// to be inflated again somewhere it can be read whole.
    Missed,
}

/// Inflates a member of `size` bytes through `fill` ([`super::SpillFill`]) and keeps what the
/// host reader reads of it: in one pass when what it reads is recognised as it passes, in two
/// when the first missed something its section table then names (a SYCL bundle entry, a kpack
/// reference). A member that is not an ELF file goes to `other` as it comes, in the one pass.
pub fn keep(size: u64, fill: &mut super::SpillFill<'_>, other: &mut dyn FnMut(&[u8])) -> crate::Result<Keeping> {
    let Some(mut keeper) = Keeper::new(size) else { return Ok(Keeping::Missed) };
    let (mut elsewhere, mut refused) = (false, false);
    let produced = fill(&mut |chunk: &[u8]| {
        if elsewhere {
            other(chunk);
        } else if !refused && !keeper.take(chunk) {
            // Only the first chunk can go elsewhere whole; a later refusal (more bytes than
            // declared) fails the fill anyway.
            if keeper.at == 0 {
                elsewhere = true;
                other(chunk);
            } else {
                refused = true;
            }
        }
    })?;
    if elsewhere {
        return Ok(Keeping::Elsewhere(produced));
    }
    let Some(kept) = keeper.finish().filter(|_| !refused) else { return Ok(Keeping::Missed) };
    if kept.covers_host() {
        return Ok(Keeping::Kept(kept));
    }
    let Some(reads) = kept.host_reads() else { return Ok(Keeping::Missed) };
    drop(kept);
    let Some(mut keeper) = Keeper::exactly(size, reads) else { return Ok(Keeping::Missed) };
    let mut whole = true;
    fill(&mut |chunk: &[u8]| whole &= keeper.take(chunk))?;
    match keeper.finish().filter(|k| whole && k.covers_host()) {
        Some(kept) => Ok(Keeping::Kept(kept)),
        None => Ok(Keeping::Missed),
    }
}

/// A start found in a chunk.
#[derive(Clone, Copy)]
struct Hit {
    at: u64,
    kind: HitKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum HitKind {
    /// The first four bytes of an offload object.
    Magic,
    /// The text `.shstrtab\0`, inside the section-name table.
    SectionNames,
}

fn is_magic(word: [u8; 4]) -> bool {
    word == nv_fatbin::MAGIC
        || word == BUNDLE_START
        || word == compressed::MAGIC
        || word == offload_binary::MAGIC
        || word == nv_fatbin::wrapper::MAGIC
        || word == HIPF
        || word == HIPK
}

/// What an object's header says of its size.
#[derive(Debug, PartialEq, Eq)]
enum Size {
    Known(u64),
    NeedAtLeast(u64),
    NotOne,
}

/// The size of the object starting `bytes`, from its header.
fn object_size(bytes: &[u8]) -> Size {
    let u16_at = |at: usize| bytes.get(at..at + 2).map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])));
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])));
    let u64_at = |at: usize| bytes.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    let need = |n: u64| if (bytes.len() as u64) < n { Some(Size::NeedAtLeast(n)) } else { None };
    let Some(magic) = bytes.get(..4) else { return Size::NeedAtLeast(4) };
    if magic == nv_fatbin::MAGIC {
        if let Some(n) = need(16) {
            return n;
        }
        return match (u16_at(4), u16_at(6), u64_at(8)) {
            (Some(1), Some(16), Some(fat)) => Size::Known(16u64.saturating_add(fat)),
            _ => Size::NotOne,
        };
    }
    if magic == offload_binary::MAGIC {
        if let Some(n) = need(16) {
            return n;
        }
        return match (u32_at(4), u64_at(8)) {
            (Some(1..=16), Some(size)) if size >= 16 => Size::Known(size),
            _ => Size::NotOne,
        };
    }
    if magic == compressed::MAGIC {
        if let Some(n) = need(16) {
            return n;
        }
        return match u16_at(4) {
            Some(2) => u32_at(8).map_or(Size::NotOne, Size::Known),
            Some(3) => u64_at(8).map_or(Size::NotOne, Size::Known),
            // Version 1 gives no size: what follows its provisional bytes is not kept.
            _ => Size::NotOne,
        };
    }
    if magic == BUNDLE_START {
        return bundle_size(bytes);
    }
    if magic == nv_fatbin::wrapper::MAGIC || magic == HIPF || magic == HIPK {
        return Size::Known(24);
    }
    Size::NotOne
}

/// A clang offload bundle's size: the end of its furthest entry.
fn bundle_size(bytes: &[u8]) -> Size {
    const MAX_ENTRIES: u64 = 4096;
    const MAX_TRIPLE: u64 = 4096;
    let magic_len = bundle::MAGIC.len();
    if bytes.len() < magic_len + 8 {
        return Size::NeedAtLeast(magic_len as u64 + 8);
    }
    if &bytes[..magic_len] != bundle::MAGIC {
        return Size::NotOne;
    }
    let u64_at = |at: usize| bytes.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    let count = u64_at(magic_len).unwrap_or(0);
    if count == 0 || count > MAX_ENTRIES {
        return Size::NotOne;
    }
    let mut at = magic_len + 8;
    let mut end = at as u64;
    for _ in 0..count {
        let (Some(offset), Some(size), Some(triple)) = (u64_at(at), u64_at(at + 8), u64_at(at + 16)) else {
            return Size::NeedAtLeast(at as u64 + 24);
        };
        if triple > MAX_TRIPLE {
            return Size::NotOne;
        }
        at += 24 + triple as usize;
        end = end.max(offset.saturating_add(size)).max(at as u64);
    }
    if bytes.len() < at {
        return Size::NeedAtLeast(at as u64);
    }
    Size::Known(end)
}

/// The fields of an ELF file header this module needs.
struct ElfHead {
    little: bool,
    is_64: bool,
    shoff: u64,
    shentsize: u64,
    shnum: u64,
    phoff: u64,
    phentsize: u64,
    phnum: u64,
}

impl ElfHead {
    fn parse(head: &[u8]) -> Option<ElfHead> {
        if !head.starts_with(&ELF_MAGIC) {
            return None;
        }
        let is_64 = *head.get(4)? == 2;
        let little = *head.get(5)? == 1;
        let read = |at: usize, width: usize| read_uint(head, at, width, little);
        let (phoff, shoff, phentsize, phnum, shentsize, shnum) = if is_64 {
            (read(32, 8)?, read(40, 8)?, read(54, 2)?, read(56, 2)?, read(58, 2)?, read(60, 2)?)
        } else {
            (read(28, 4)?, read(32, 4)?, read(42, 2)?, read(44, 2)?, read(46, 2)?, read(48, 2)?)
        };
        Some(ElfHead { little, is_64, shoff, shentsize, shnum, phoff, phentsize, phnum })
    }

    /// The file bytes of the `PT_LOAD` segments, in order and merged, where the program headers
    /// are in `head`; none otherwise (a relocatable object has none), and the whole file is
    /// searched.
    fn loaded(&self, head: &[u8]) -> Vec<Range<u64>> {
        const PT_LOAD: u64 = 1;
        let mut loaded = Vec::new();
        for i in 0..self.phnum {
            let Some(at) = i.checked_mul(self.phentsize).and_then(|o| o.checked_add(self.phoff)) else {
                return Vec::new();
            };
            let Ok(at) = usize::try_from(at) else { return Vec::new() };
            let read = |offset: usize, width: usize| read_uint(head, at + offset, width, self.little);
            let fields =
                if self.is_64 { (read(0, 4), read(8, 8), read(32, 8)) } else { (read(0, 4), read(4, 4), read(16, 4)) };
            let (Some(kind), Some(offset), Some(file_size)) = fields else { return Vec::new() };
            if kind == PT_LOAD && file_size > 0 {
                loaded.push(offset..offset.saturating_add(file_size));
            }
        }
        loaded.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<u64>> = Vec::new();
        for range in loaded {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        merged
    }
}

fn read_uint(bytes: &[u8], at: usize, width: usize, little: bool) -> Option<u64> {
    let field = bytes.get(at..at.checked_add(width)?)?;
    let mut value = 0u64;
    for i in 0..width {
        let byte = if little { field[width - 1 - i] } else { field[i] };
        value = (value << 8) | u64::from(byte);
    }
    Some(value)
}

/// The section table, the section names and the offload sections of an ELF file, as ranges.
fn elf_reads<Elf: object::read::elf::FileHeader<Endian = object::Endianness>>(input: &Kept) -> Option<Vec<Range<u64>>> {
    use object::read::elf::SectionHeader;
    let header = Elf::parse(input).ok()?;
    let endian = header.endian().ok()?;
    let table = header.sections(endian, input).ok()?;
    let shoff: u64 = header.e_shoff(endian).into();
    let entry = u64::from(header.e_shentsize(endian));
    let mut reads = alloc::vec![shoff..shoff + entry * table.len() as u64];
    let names = table.section(object::SectionIndex(header.shstrndx(endian, input).ok()? as usize)).ok()?;
    reads.extend(names.file_range(endian).map(|(offset, size)| offset..offset + size));
    for section in table.iter() {
        let Ok(name) = table.section_name(endian, section) else { continue };
        let Ok(name) = core::str::from_utf8(name) else { continue };
        if host::section_role(None, name).is_some() {
            reads.extend(section.file_range(endian).map(|(offset, size)| offset..offset + size));
        }
    }
    Some(reads)
}

/// The kept bytes of a member, read as the member: a read outside them fails and is counted.
pub struct Kept {
    arena: Arena,
    misses: Cell<u64>,
}

impl Kept {
    /// Whether the host reader reads nothing but kept bytes of this member: it can then be
    /// explored from them.
    pub fn covers_host(&self) -> bool {
        let before = self.misses.get();
        host::read_host(self).is_ok() && self.misses.get() == before
    }

    /// What the host reader reads of this library, from its kept section table and section
    /// names: the head, the table, the names and every offload section. `None` where the table
    /// or the names were not kept, or the file is not ELF.
    pub fn host_reads(&self) -> Option<Vec<Range<u64>>> {
        let mut reads = match object::FileKind::parse(self).ok()? {
            object::FileKind::Elf64 => elf_reads::<object::elf::FileHeader64<object::Endianness>>(self)?,
            object::FileKind::Elf32 => elf_reads::<object::elf::FileHeader32<object::Endianness>>(self)?,
            _ => return None,
        };
        reads.push(0..HEAD.min(self.arena.len()));
        reads.sort_by_key(|r| r.start);
        Some(reads)
    }

    /// Reads that fell outside the kept bytes so far.
    pub fn misses(&self) -> u64 {
        self.misses.get()
    }

    /// Bytes kept in all.
    pub fn kept_bytes(&self) -> u64 {
        self.arena.kept_bytes()
    }

    fn missed<T>(&self) -> Result<T, ()> {
        self.misses.set(self.misses.get() + 1);
        Err(())
    }
}

impl<'a> ReadRef<'a> for &'a Kept {
    fn len(self) -> Result<u64, ()> {
        Ok(self.arena.len())
    }

    fn read_bytes_at(self, offset: u64, size: u64) -> Result<&'a [u8], ()> {
        let Some(end) = offset.checked_add(size) else { return Err(()) };
        if end > self.arena.len() {
            return Err(());
        }
        if size == 0 {
            return Ok(&[]);
        }
        match self.arena.kept_from(offset).get(..size as usize) {
            Some(bytes) => Ok(bytes),
            None => self.missed(),
        }
    }

    fn read_bytes_at_until(self, range: Range<u64>, delimiter: u8) -> Result<&'a [u8], ()> {
        let kept = self.arena.kept_from(range.start);
        if kept.is_empty() {
            return self.missed();
        }
        let wanted = range.end.saturating_sub(range.start).min(usize::MAX as u64) as usize;
        let bytes = &kept[..kept.len().min(wanted)];
        match memchr::memchr(delimiter, bytes) {
            Some(n) => Ok(&bytes[..n]),
            // Not found within the kept range: the rest of `range` may hold it.
            None if bytes.len() < wanted => self.missed(),
            None => Err(()),
        }
    }
}

/// A member's kept bytes at their own offsets, in one allocation of the member's size that is
/// never zeroed: only the pages written are ever touched, so the memory used follows what is
/// kept (a zeroed allocation of a 965 MiB library would cost 965 MiB at once in the browser,
/// whose allocator clears what it hands out). Only written bytes are ever read.
struct Arena {
    /// Capacity: the member's size; length 0, the bytes written through [`Arena::append`].
    bytes: Vec<u8>,
    size: u64,
    /// The written ranges, in order, apart from one another.
    kept: Vec<Range<u64>>,
}

impl Arena {
    fn new(size: u64) -> Option<Arena> {
        let capacity = usize::try_from(size).ok()?;
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(capacity).ok()?;
        Some(Arena { bytes, size, kept: Vec::new() })
    }

    fn len(&self) -> u64 {
        self.size
    }

    /// The end of the last written range.
    fn end(&self) -> u64 {
        self.kept.last().map_or(0, |r| r.end)
    }

    fn kept_bytes(&self) -> u64 {
        self.kept.iter().map(|r| r.end - r.start).sum()
    }

    /// Writes `data` at `at`, at or after the end of the last written range and within the
    /// member (anything else is not written).
    fn append(&mut self, at: u64, data: &[u8]) {
        let Some(end) = at.checked_add(data.len() as u64) else { return };
        if at < self.end() || end > self.size || data.is_empty() {
            return;
        }
        // SAFETY: `at .. end` lies within the allocation (its capacity is `size`), and `data`
        // is a separate slice.
        unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), self.bytes.as_mut_ptr().add(at as usize), data.len()) };
        match self.kept.last_mut() {
            Some(last) if last.end == at => last.end = end,
            _ => self.kept.push(at..end),
        }
    }

    /// The written bytes from `start` to the end of the written range holding it; empty where
    /// `start` was not written.
    fn kept_from(&self, start: u64) -> &[u8] {
        let i = self.kept.partition_point(|r| r.end <= start);
        match self.kept.get(i) {
            // SAFETY: `start .. r.end` lies within the allocation and was written by `append`.
            Some(r) if r.start <= start => unsafe {
                core::slice::from_raw_parts(self.bytes.as_ptr().add(start as usize), (r.end - start) as usize)
            },
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{explore, Options};
    use alloc::string::String;

    /// Every ELF fixture with offload sections (the files `tests/fixtures` holds that a host
    /// reader reads sections from), by path.
    fn libraries() -> Vec<(String, Vec<u8>)> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let mut found = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(root)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let Ok(data) = std::fs::read(&path) else { continue };
                if data.starts_with(&ELF_MAGIC) && host::read_host(&data[..]).is_ok_and(|h| !h.sections.is_empty()) {
                    found.push((path.display().to_string(), data));
                }
            }
        }
        found.sort();
        found
    }

    fn kept(data: &[u8], chunk: usize) -> Kept {
        let mut keeper = Keeper::new(data.len() as u64).unwrap();
        for piece in data.chunks(chunk) {
            assert!(keeper.take(piece));
        }
        keeper.finish().unwrap()
    }

    /// What [`keep`] makes of `data` handed over `chunk` bytes at a time, and how many passes it
    /// took.
    fn kept_in_passes(data: &[u8], chunk: usize) -> (Keeping, u32) {
        let mut passes = 0;
        let mut fill = |sink: &mut dyn FnMut(&[u8])| {
            passes += 1;
            data.chunks(chunk).for_each(&mut *sink);
            Ok(data.len() as u64)
        };
        let keeping = keep(data.len() as u64, &mut fill, &mut |_| panic!("an ELF library went elsewhere")).unwrap();
        (keeping, passes)
    }

    /// A library explored from its kept bytes gives the tree it gives read whole, and reads
    /// nothing else. One pass finds what HIP, CUDA and LLVM offload sections hold; a SYCL bundle
    /// entry or a kpack reference, which no magic marks, takes a second pass that keeps what the
    /// section table names.
    #[test]
    fn a_library_explored_from_its_kept_bytes_is_explored_as_whole() {
        let libraries = libraries();
        assert!(libraries.len() >= 8, "{} libraries", libraries.len());
        let opts = Options::default();
        for (path, data) in &libraries {
            let whole = explore(&data[..], "lib", &opts);
            let unmarked = host::read_host(&data[..])
                .unwrap()
                .sections
                .iter()
                .any(|s| matches!(s.role, host::SectionRole::KpackReference | host::SectionRole::BundleEntry(_)));
            for chunk in [4093, 64 << 10] {
                let (keeping, passes) = kept_in_passes(data, chunk);
                let Keeping::Kept(kept) = keeping else { panic!("{path}: not kept ({chunk}-byte chunks)") };
                // Small fixtures lie within the kept head: their unmarked sections take one pass.
                assert!(passes == 1 || unmarked && passes == 2, "{path}: {passes} passes ({chunk}-byte chunks)");
                assert_eq!(explore(&kept, "lib", &opts), whole, "{path} ({chunk}-byte chunks)");
                assert_eq!(kept.misses(), 0, "{path}");
            }
        }
    }

    /// What is kept is the headers and the offload data, not the library.
    #[test]
    fn a_library_keeps_little_more_than_its_offload_sections() {
        for (path, data) in libraries() {
            let kept = kept(&data, 64 << 10);
            let sections: u64 = host::read_host(&data[..]).unwrap().sections.iter().map(|s| s.data.len() as u64).sum();
            let table = 64 * 64;
            assert!(
                kept.kept_bytes() <= sections + HEAD + table + 8 * LOOKBACK + 8 * TRAIL + PROVISIONAL,
                "{path}: kept {} bytes for {sections} bytes of offload sections",
                kept.kept_bytes()
            );
        }
    }

    /// Bytes that are not an ELF file are refused at once (and [`keep`] hands them all to the
    /// other sink), and a member that runs past its declared size is refused too.
    #[test]
    fn what_is_not_an_elf_file_is_refused() {
        let zip = b"PK\x03\x04 a zip, not a library, in three chunks";
        let mut fill = |sink: &mut dyn FnMut(&[u8])| {
            zip.chunks(16).for_each(&mut *sink);
            Ok(zip.len() as u64)
        };
        let mut elsewhere = Vec::new();
        let keeping = keep(zip.len() as u64, &mut fill, &mut |c| elsewhere.extend_from_slice(c)).unwrap();
        assert!(matches!(keeping, Keeping::Elsewhere(n) if n == zip.len() as u64));
        assert_eq!(elsewhere, zip);
        let mut keeper = Keeper::new(100).unwrap();
        assert!(!keeper.take(b"PK\x03\x04 a zip, not a library"));
        let mut keeper = Keeper::new(8).unwrap();
        assert!(!keeper.take(b"\x7fELF and more than eight bytes"));
        let mut keeper = Keeper::new(16).unwrap();
        assert!(keeper.take(b"\x7fELF"));
        assert!(keeper.finish().is_none(), "12 bytes short");
    }

    /// Damaged libraries (a fixture with bytes overwritten at random, magics planted at random
    /// aligned offsets, cut short) never make the keeper panic, and what it keeps reads as the
    /// damaged bytes do.
    #[test]
    fn damaged_libraries_are_kept_without_panicking() {
        let (_, library) = libraries().into_iter().find(|(p, _)| p.ends_with("libhip_3tu_compressed.so")).unwrap();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let magics: [&[u8]; 5] =
            [&nv_fatbin::MAGIC, bundle::MAGIC, &compressed::MAGIC, &offload_binary::MAGIC, SHSTRTAB_NAME];
        for round in 0..300 {
            let mut data = library.clone();
            for _ in 0..(next() % 64) {
                let at = (next() as usize) % data.len();
                data[at] = next() as u8;
            }
            for _ in 0..(next() % 8) {
                let magic = magics[(next() % 5) as usize];
                let at = ((next() as usize) % data.len()) & !7;
                let end = (at + magic.len()).min(data.len());
                data[at..end].copy_from_slice(&magic[..end - at]);
            }
            if round % 3 == 0 {
                data.truncate((next() as usize) % data.len());
            }
            let chunk = 1 + (next() as usize) % 8192;
            let mut fill = |sink: &mut dyn FnMut(&[u8])| {
                data.chunks(chunk).for_each(&mut *sink);
                Ok(data.len() as u64)
            };
            let mut elsewhere = 0u64;
            let keeping = keep(data.len() as u64, &mut fill, &mut |c| elsewhere += c.len() as u64).unwrap();
            if let Keeping::Elsewhere(n) = keeping {
                assert!(!data.starts_with(&ELF_MAGIC) && n == elsewhere && n == data.len() as u64, "round {round}");
            }
            if let Keeping::Kept(kept) = keeping {
                let whole = explore(&data[..], "lib", &Options::default());
                assert_eq!(explore(&kept, "lib", &Options::default()), whole, "round {round}");
            }
        }
    }

    #[test]
    fn object_sizes_come_from_their_headers() {
        let mut fatbin = nv_fatbin::MAGIC.to_vec();
        fatbin.extend_from_slice(&[1, 0, 16, 0]);
        fatbin.extend_from_slice(&1000u64.to_le_bytes());
        assert_eq!(object_size(&fatbin), Size::Known(1016));
        assert_eq!(object_size(&fatbin[..10]), Size::NeedAtLeast(16));
        fatbin[4] = 2;
        assert_eq!(object_size(&fatbin), Size::NotOne);
        let mut bundle = bundle::MAGIC.to_vec();
        bundle.extend_from_slice(&1u64.to_le_bytes());
        assert_eq!(object_size(&bundle), Size::NeedAtLeast(56));
        for field in [4096u64, 100, 4] {
            bundle.extend_from_slice(&field.to_le_bytes());
        }
        bundle.extend_from_slice(b"host");
        assert_eq!(object_size(&bundle), Size::Known(4196));
    }
}
