//! What is inside a device image: one module per image format, each describing the image as a
//! node of the annotated tree (its fields, and one `kernel` child per kernel it names).
//!
//! - [`amdgpu`]: AMDGPU code objects (ELF header, `NT_AMDGPU_METADATA` note, kernels).
//! - [`cubin`]: CUDA cubins (architecture, `.nv.info` attributes, kernels and device functions).
//! - [`ptx`], [`spirv`], [`bitcode`]: PTX text, SPIR-V modules and LLVM bitcode (header fields,
//!   entry points, defined functions).
//! - [`occupancy`]: waves per SIMD of AMDGPU kernels, as LLVM's AMDGPU backend computes them.
//! - [`elf`], [`msgpack`]: the readers they share.
//!
//! [`describe`] recognises an image by its magic and hands it to its module. It never fails:
//! what cannot be read becomes a diagnostic on the image's node.

pub mod amdgpu;
pub mod bitcode;
pub mod cubin;
pub mod elf;
pub mod msgpack;
pub mod occupancy;
pub mod ptx;
pub mod spirv;

use crate::tree::{Node, NodeKind, Severity, Span};

/// Most kernel (and kernel argument) nodes one image gets: a hostile image could name millions
/// in a few megabytes, and each node costs far more memory than the bytes that name it.
pub const MAX_KERNEL_NODES: usize = 1 << 16;

/// Cuts `node`'s kernel children to [`MAX_KERNEL_NODES`], saying so.
fn limit_kernels(node: &mut Node) {
    let kernels = node.children.iter().filter(|c| c.kind == NodeKind::Kernel).count();
    if kernels > MAX_KERNEL_NODES {
        node.children.truncate(MAX_KERNEL_NODES);
        let message = format!("{kernels} kernels: only the first {MAX_KERNEL_NODES} are shown");
        node.diag(Severity::Error, message, None);
    }
}
use alloc::format;
use alloc::string::String;

/// Whether `head` (the first bytes of a file) starts an ELF device image: an AMDGPU code object
/// or a CUDA cubin, which are device code rather than hosts of offload sections.
pub fn is_device_elf(head: &[u8]) -> bool {
    head.starts_with(b"\x7fELF") && matches!(identify_elf(head).0, amdgpu::FORMAT | cubin::FORMAT)
}

/// What kind of device image `data` is, from its magic: (format, label detail).
pub fn identify(data: &[u8]) -> Option<(&'static str, String)> {
    if data.is_empty() {
        return Some(("empty", String::new()));
    }
    if data.starts_with(b"\x7fELF") {
        return Some(identify_elf(data));
    }
    if data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Some(("LLVM bitcode", String::new()));
    }
    if data.starts_with(&[0x03, 0x02, 0x23, 0x07]) || data.starts_with(&[0x07, 0x23, 0x02, 0x03]) {
        return Some(("SPIR-V module", String::new()));
    }
    if data.starts_with(&[0x50, 0xED, 0x55, 0xBA]) {
        return Some(("NVIDIA fatbin", String::new()));
    }
    let head = &data[..data.len().min(4096)];
    if core::str::from_utf8(head).is_ok()
        && head.windows(8).any(|w| w == b".version")
        && head.windows(7).any(|w| w == b".target")
    {
        return Some((ptx::FORMAT, ptx::target_of(head).map(|t| format!(" {t}")).unwrap_or_default()));
    }
    None
}

fn identify_elf(data: &[u8]) -> (&'static str, String) {
    let little = data.get(5) == Some(&1);
    let machine =
        data.get(18..20)
            .map(|b| if little { u16::from_le_bytes([b[0], b[1]]) } else { u16::from_be_bytes([b[0], b[1]]) });
    match machine {
        Some(amdgpu::EM_AMDGPU) => {
            let flags = data.get(48..52).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).unwrap_or(0);
            (amdgpu::FORMAT, amdgpu::label_detail(flags))
        }
        Some(cubin::EM_CUDA) => {
            let at = if data.get(4) == Some(&1) { 36 } else { 48 };
            let flags = data.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            let detail = match (data.get(8), flags) {
                (Some(&abi), Some(flags)) => format!(" {}", cubin::sm_name(abi, flags)),
                _ => String::new(),
            };
            (cubin::FORMAT, detail)
        }
        _ => ("ELF object", String::new()),
    }
}

/// `code_bytes` and `code_hash` (16 hex digits): what [`elf::Elf::code_digest`] says of the
/// image's instructions, so that reports over a tree whose bytes were dropped can still tell
/// which images hold the same code ([`crate::report::check::advisor`]).
fn add_code_digest(elf: &elf::Elf<'_>, node: &mut Node) {
    if let Some((size, hash)) = elf.code_digest() {
        node.field("code_bytes", size, None);
        node.field("code_hash", format!("{hash:016x}"), None);
    }
}

/// The node of a device image lying at `span`: its format, what its format module reads from
/// it, and its kernels; `None` when the bytes are no image format we know.
pub fn describe(data: &[u8], span: Span) -> Option<Node> {
    let (format, detail) = identify(data)?;
    let mut node = Node::new(NodeKind::Image, format!("{format}{detail}"), span);
    node.field("format", format, None);
    if format == "ELF object" {
        if let Some(e) = elf::ident_error(data) {
            node.diag(Severity::Error, format!("unreadable ELF: {e}"), Some(span.sub(e.offset, 1)));
        }
    }
    if format == amdgpu::FORMAT || format == cubin::FORMAT {
        match elf::Elf::parse(data) {
            Ok(elf) => {
                if format == amdgpu::FORMAT {
                    amdgpu::describe(&elf, &mut node, span);
                } else {
                    cubin::describe(&elf, &mut node, span);
                }
                add_code_digest(&elf, &mut node);
            }
            Err(e) => {
                node.diag(Severity::Error, format!("unreadable ELF: {e}"), Some(span.sub(e.offset, 1)));
            }
        }
    }
    match format {
        bitcode::FORMAT => bitcode::describe(data, &mut node, span),
        spirv::FORMAT => spirv::describe(data, &mut node, span),
        ptx::FORMAT => ptx::describe(data, &mut node, span),
        _ => {}
    }
    limit_kernels(&mut node);
    node.shrink_to_fit();
    Some(node)
}
