//! The fatbin wrapper `__fatBinC_Wrapper_t` (NVIDIA's `fatbinary_section.h`), which host code
//! hands to `__cudaRegisterFatBinary`. nvcc puts it in `.nvFatBinSegment` (ELF; `.nvFatBi` when
//! a COFF name is cut to 8 bytes) or `__NV_CUDA,__fatbin` (Mach-O); a linked library's section
//! holds one per registered fatbin.
//!
//! # Byte layout (64-bit hosts; pointers are 4 bytes on 32-bit hosts)
//!
//! | offset | size | field | meaning |
//! |-------:|-----:|-------|---------|
//! | 0  | 4 | magic | `B1 43 62 46` (`0x466243B1`) |
//! | 4  | 4 | version | 1: `data` points at a fatbin; 2 (link version): also a list of prelinked fatbins |
//! | 8  | 8 | data | address of the fatbin container (0 in an object: a relocation fills it) |
//! | 16 | 8 | filename or fatbins | version 1: an offline file name (usually 0); version 2: address of the array of prelinked fatbins |

use crate::error::Result;
use crate::tree::{Node, NodeKind, Severity, Span};
use crate::util::bytes::{wrapper_records, WrapperRecord};
use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

/// `0x466243B1`, little-endian.
pub const MAGIC: [u8; 4] = [0xB1, 0x43, 0x62, 0x46];

/// One wrapper record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrapper {
    pub magic: u32,
    pub version: u32,
    pub data: u64,
    pub filename_or_fatbins: u64,
}

/// Whether `data` starts with a wrapper's magic.
pub fn is_wrapper(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// The wrapper records of a section, `pointer` bytes per pointer (8 or 4). A tail too short
/// for a record is an error at its offset.
pub fn parse_all(data: &[u8], pointer: u64) -> Result<Vec<Wrapper>> {
    let records = wrapper_records(data, pointer, "fatbin wrapper (__fatBinC_Wrapper_t)")?;
    let wrapper =
        |w: WrapperRecord| Wrapper { magic: w.magic, version: w.version, data: w.first, filename_or_fatbins: w.second };
    Ok(records.into_iter().map(wrapper).collect())
}

/// The nodes of a wrapper section lying at `span`; `resolve` says what an address points at
/// (a container of a fatbin section), when it can tell.
pub fn nodes(
    data: &[u8],
    span: Span,
    pointer: u64,
    resolve: &dyn Fn(u64) -> Option<alloc::string::String>,
) -> Vec<Node> {
    let wrappers = match parse_all(data, pointer) {
        Ok(w) => w,
        Err(e) => {
            let mut n = Node::new(NodeKind::Unknown, "unreadable fatbin wrapper", span);
            n.diag(Severity::Error, e.to_string(), Some(span.sub(e.offset, 0)));
            return alloc::vec![n];
        }
    };
    let record = 8 + 2 * pointer;
    wrappers
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let at = span.sub(i as u64 * record, record);
            let mut n = Node::new(NodeKind::FatbinWrapper, format!("fatbin wrapper, version {}", w.version), at);
            n.field("magic", format!("{:#x}", w.magic), Some(at.sub(0, 4)));
            n.field("version", u64::from(w.version), Some(at.sub(4, 4)));
            n.field("data", format!("{:#x}", w.data), Some(at.sub(8, pointer)));
            n.field("filename_or_fatbins", format!("{:#x}", w.filename_or_fatbins), Some(at.sub(8 + pointer, pointer)));
            if w.magic.to_le_bytes() != MAGIC {
                n.diag(
                    Severity::Warning,
                    format!("magic {:#x} is not the wrapper's 0x466243b1", w.magic),
                    Some(at.sub(0, 4)),
                );
            }
            if w.data == 0 {
                n.diag(
                    Severity::Note,
                    "the fatbin address is 0: in an object file a relocation fills it at link time",
                    None,
                );
            } else if let Some(target) = resolve(w.data) {
                n.field("points_to", target, None);
            }
            n
        })
        .collect()
}
