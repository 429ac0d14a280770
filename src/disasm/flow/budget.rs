//! What a kernel is allocated, to set its register peak beside: the metadata's `vgpr_count`,
//! `agpr_count` and `sgpr_count` (what LLVM counts against the register file, `vcc` and the
//! other special SGPRs included) and the occupancy they give ([`crate::image::occupancy`]);
//! without metadata, the kernel descriptor's granulated counts (`.amdhsa_next_free_vgpr`,
//! and `.amdhsa_next_free_sgpr` before GFX10, where it is meaningful).

use alloc::string::String;
use alloc::vec::Vec;

use crate::disasm::descriptor::kernel_descriptors;
use crate::disasm::{Generation, Isa};
use crate::image::occupancy::{occupancy, KernelResources};
use crate::tree::{Node, NodeKind, Span, Value};

/// Where the allocation was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Source {
    Metadata,
    Descriptor,
}

/// A kernel's registers as allocated, and the occupancy they give.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Allocation {
    /// The kernel's symbol (without `.kd`).
    pub kernel: String,
    pub source: Source,
    /// VGPRs (on gfx90a, gfx942, gfx950 the architectural VGPRs rounded up to 4 plus the AGPRs).
    pub vgprs: Option<u32>,
    pub agprs: Option<u32>,
    pub sgprs: Option<u32>,
    pub wave_size: u32,
    /// Waves per SIMD.
    pub occupancy: Option<u32>,
    pub max_waves: Option<u32>,
    pub limited_by: Option<String>,
    pub lds_bytes: u32,
    pub max_workgroup_size: u32,
}

/// The allocation of every kernel of the code object `data` (processor `processor`): from its
/// metadata where it has one, else from its descriptors.
pub fn allocations(data: &[u8], processor: &str, isa: Isa) -> Vec<Allocation> {
    let from_metadata = metadata_allocations(data);
    if !from_metadata.is_empty() {
        return from_metadata;
    }
    let Ok(descriptors) = kernel_descriptors(data) else { return Vec::new() };
    descriptors
        .into_iter()
        .map(|(kernel, d)| {
            let wave_size = if d.wavefront_size32(isa) { 32 } else { 64 };
            let sgprs = (isa.generation() == Generation::Gfx9).then(|| d.next_free_sgpr(isa));
            let resources = KernelResources {
                vgprs: d.next_free_vgpr(isa),
                sgprs: sgprs.unwrap_or(0),
                lds_bytes: d.group_segment_fixed_size,
                max_workgroup_size: 1024,
                wave_size,
                wgp_mode: None,
            };
            let occ = occupancy(processor, &resources);
            Allocation {
                kernel,
                source: Source::Descriptor,
                vgprs: Some(resources.vgprs),
                agprs: None,
                sgprs,
                wave_size,
                occupancy: occ.as_ref().map(|o| o.waves),
                max_waves: occ.as_ref().map(|o| o.max_waves),
                limited_by: occ.map(|o| o.limited_by_text()),
                lds_bytes: resources.lds_bytes,
                max_workgroup_size: 1024,
            }
        })
        .collect()
}

fn metadata_allocations(data: &[u8]) -> Vec<Allocation> {
    let Some(image) = crate::image::describe(data, Span::new(0, 0, data.len() as u64)) else { return Vec::new() };
    let mut kernels = Vec::new();
    collect_kernels(&image, &mut kernels);
    kernels.iter().filter_map(|k| allocation_of(k)).collect()
}

fn collect_kernels<'n>(node: &'n Node, out: &mut Vec<&'n Node>) {
    if node.kind == NodeKind::Kernel {
        out.push(node);
    }
    for child in &node.children {
        collect_kernels(child, out);
    }
}

fn allocation_of(kernel: &Node) -> Option<Allocation> {
    let number = |name: &str| match kernel.get(name) {
        Some(Value::Uint(n)) => Some(u32::try_from(*n).unwrap_or(u32::MAX)),
        _ => None,
    };
    let symbol = kernel.text("symbol").or_else(|| kernel.text("name"))?;
    Some(Allocation {
        kernel: String::from(symbol.strip_suffix(".kd").unwrap_or(symbol)),
        source: Source::Metadata,
        vgprs: number("vgpr_count"),
        agprs: number("agpr_count"),
        sgprs: number("sgpr_count"),
        wave_size: number("wavefront_size").unwrap_or(64),
        occupancy: number("occupancy"),
        max_waves: number("max_waves_per_simd"),
        limited_by: kernel.text("occupancy_limited_by").map(String::from),
        lds_bytes: number("lds_size").unwrap_or(0),
        max_workgroup_size: number("max_flat_workgroup_size").unwrap_or(1024),
    })
}

/// The occupancy the kernel would have if it were allocated exactly its peak registers (the
/// rest of its resources as they are): what lowering the allocation to the peak could give.
pub fn occupancy_at(
    processor: &str,
    isa: Isa,
    allocation: &Allocation,
    vgprs: u32,
    agprs: u32,
    sgprs: u32,
) -> Option<u32> {
    let total = match isa {
        // AGPRs share the file after the architectural VGPRs rounded up to 4.
        Isa::Gfx90a | Isa::Gfx942 | Isa::Gfx950 if agprs > 0 => vgprs.div_ceil(4) * 4 + agprs,
        Isa::Gfx908 => vgprs.max(agprs),
        _ => vgprs,
    };
    let resources = KernelResources {
        vgprs: total,
        sgprs,
        lds_bytes: allocation.lds_bytes,
        max_workgroup_size: allocation.max_workgroup_size,
        wave_size: allocation.wave_size,
        wgp_mode: None,
    };
    occupancy(processor, &resources).map(|o| o.waves)
}
