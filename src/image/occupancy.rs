//! Occupancy of AMDGPU kernels: how many waves of a kernel one SIMD (LLVM: "EU") can hold at
//! once, computed from the kernel's metadata as LLVM 22's AMDGPU backend computes the value
//! clang prints with `-Rpass-analysis=kernel-resource-usage` ("Occupancy [waves/SIMD]: N").
//!
//! The occupancy is the smallest of four limits (`AMDGPUAsmPrinter`'s `createOccupancy`, with
//! `GCNSubtarget::computeOccupancy` as its starting value):
//!
//! | limit | from | LLVM |
//! |---|---|---|
//! | the processor's wave slots | processor | `IsaInfo::getMaxWavesPerEU` |
//! | work-groups that fit on a CU (or WGP), by LDS and by barriers | `lds_size`, `max_flat_workgroup_size`, `wavefront_size`, `workgroup_processor_mode` | `AMDGPUSubtarget::getOccupancyWithWorkGroupSizes` (the maximum of its range) |
//! | SGPRs (before GFX10 only) | `sgpr_count` | `IsaInfo::getOccupancyWithNumSGPRs` |
//! | VGPRs (AGPRs included) | `vgpr_count` | `IsaInfo::getNumWavesPerEUWithNumVGPRs` |
//!
//! `vgpr_count` in the metadata is already what LLVM counts against the register file
//! (`getTotalNumVGPRs`): on gfx90a, gfx942 and gfx950 the architectural VGPRs rounded up to 4
//! plus the AGPRs; on gfx908 the larger of the two.
//!
//! # The processors' numbers (LLVM 22: `AMDGPUBaseInfo.cpp`, `AMDGPU.td`)
//!
//! | processors | waves per SIMD | VGPRs per SIMD lane (wave32 / wave64) | allocation granule (wave32 / wave64) | LDS per CU |
//! |---|---|---|---|---|
//! | gfx6 (gfx600–gfx602) | 10 | 256 | 4 | 32 KiB |
//! | gfx7, gfx8, gfx9 (but not the three below) | 10 | 256 | 4 | 64 KiB |
//! | gfx90a, gfx942, gfx9-4-generic (`gfx90a-insts`) | 8 | 512 | 8 | 64 KiB |
//! | gfx950 | 8 | 512 | 8 | 160 KiB |
//! | gfx10.1 (gfx1010–gfx1013, gfx10-1-generic) | 20 | 1024 / 512 | 8 / 4 | 64 KiB, ×2 in WGP mode |
//! | gfx10.3 (gfx1030–gfx1036, gfx10-3-generic), gfx11 without 1.5× VGPRs (gfx1102, gfx1103, gfx1150, gfx1152, gfx1153, gfx11-generic) | 16 | 1024 / 512 | 16 / 8 | 64 KiB, ×2 in WGP mode |
//! | 1.5× VGPRs: gfx1100, gfx1101, gfx1151, gfx1200, gfx1201, gfx12-generic | 16 | 1536 / 768 | 24 / 12 | 64 KiB, ×2 in WGP mode |
//!
//! The SGPR limit (`getOccupancyWithNumSGPRs`) before GFX10: gfx8 and gfx9 hold 10 waves up to
//! 80 SGPRs, 9 up to 88, 8 up to 100, else 7; gfx6 and gfx7 hold 10 up to 48, 9 up to 56,
//! 8 up to 64, 7 up to 72, 6 up to 80, else 5. From GFX10 on SGPRs never limit occupancy.
//!
//! Work-groups on a CU (`getMaxWorkGroupsPerCU`): a one-wave work-group takes no barrier, so as
//! many fit as there are wave slots; otherwise as many as the wave slots hold, at most 16 (32 on
//! a GFX10+ WGP). A CU has 4 SIMDs; a GFX10+ WGP has 4 in WGP mode (the default: metadata
//! `workgroup_processor_mode` is 1) and 2 in CU mode. LDS divides among the work-groups that
//! share it: LLVM counts the work-groups that fit its `LocalMemorySize` (64 KiB, doubled in WGP
//! mode) without rounding the size to the allocation granule.
//!
//! The metadata names the largest flat work-group size but not the smallest, which LLVM also
//! uses; HIP and OpenMP kernels have 1 unless `amdgpu_flat_work_group_size(min, max)` says
//! otherwise, and 1 is taken here.
//!
//! gfx1250 and gfx1251 (new register-file and LDS rules) are not modelled: their kernels get
//! no `occupancy`, rather than a wrong one.

use crate::tree::{Node, Value};
use alloc::string::String;
use alloc::vec::Vec;

/// What limits a kernel's occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Limit {
    /// Nothing: the processor's wave slots.
    WaveSlots,
    /// The work-groups that fit on a CU: its wave slots and barriers, for the work-group size.
    WorkGroupSize,
    /// The work-groups whose LDS fits on a CU.
    Lds,
    Sgprs,
    /// VGPRs and AGPRs together.
    Vgprs,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::WaveSlots => "none",
            Limit::WorkGroupSize => "work-group size",
            Limit::Lds => "LDS",
            Limit::Sgprs => "SGPRs",
            Limit::Vgprs => "VGPRs",
        }
    }
}

/// The register file, LDS and wave slots of one processor, in one wave size and mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hardware {
    /// Wave slots per SIMD (`getMaxWavesPerEU`).
    pub max_waves: u32,
    /// VGPRs per lane a SIMD holds, for this wave size (`getTotalNumVGPRs`).
    pub total_vgprs: u32,
    /// VGPRs are allocated in blocks of this many (`getVGPRAllocGranule`).
    pub vgpr_granule: u32,
    /// LDS bytes the work-groups of one CU (or WGP) share (`getLocalMemorySize`).
    pub lds_bytes: u32,
    /// SIMDs per CU, or per WGP in WGP mode (`getEUsPerCU`).
    pub simds: u32,
    /// Barriers per CU (or WGP): how many multi-wave work-groups can be resident.
    pub barriers: u32,
    pub wave_size: u32,
    /// Which SGPR table applies: `None` from GFX10 on (SGPRs do not limit).
    pub sgpr_table: Option<SgprTable>,
}

/// The two SGPR tables of `getOccupancyWithNumSGPRs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SgprTable {
    /// gfx6, gfx7.
    SeaIslands,
    /// gfx8, gfx9.
    VolcanicIslands,
}

/// What a kernel's metadata says that occupancy depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelResources {
    pub vgprs: u32,
    pub sgprs: u32,
    pub lds_bytes: u32,
    pub max_workgroup_size: u32,
    pub wave_size: u32,
    /// GFX10+: whether the kernel runs in WGP mode (the metadata's `workgroup_processor_mode`);
    /// `None` when the metadata does not say, which is WGP mode, LLVM's default.
    pub wgp_mode: Option<bool>,
}

/// A kernel's occupancy and what sets it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Occupancy {
    /// Waves per SIMD.
    pub waves: u32,
    /// The processor's wave slots per SIMD.
    pub max_waves: u32,
    /// The limits that give `waves` (several when they tie); `[WaveSlots]` when none is lower.
    pub limited_by: Vec<Limit>,
    /// Each limit's own number of waves per SIMD, in [`Limit`] order (wave slots, work-group
    /// size, LDS, SGPRs, VGPRs).
    pub limits: Vec<(Limit, u32)>,
}

impl Occupancy {
    /// `VGPRs`, `LDS, VGPRs`, or `none`.
    pub fn limited_by_text(&self) -> String {
        let names: Vec<&str> = self.limited_by.iter().map(|l| l.as_str()).collect();
        names.join(", ")
    }
}

/// The kind of GFX10+ register file a processor has.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rdna {
    /// gfx10.1: 20 waves, granule 8 (wave32).
    Gfx101,
    /// gfx10.3 and later: 16 waves, granule 16 (wave32).
    Gfx103,
    /// 1.5× VGPRs: 16 waves, 1536 VGPRs, granule 24 (wave32).
    Vgprs1_5x,
}

/// The processors of each kind, by LLVM 22's `AMDGPU.td` (`FeatureGFX90AInsts`,
/// `FeatureGFX10_3Insts`, `Feature1_5xVGPRs`, `FeatureLocalMemorySize*`).
fn classify(processor: &str) -> Option<Kind> {
    Some(match processor {
        "gfx600" | "gfx601" | "gfx602" => Kind::Gcn { lds: 32768, table: SgprTable::SeaIslands },
        "gfx700" | "gfx701" | "gfx702" | "gfx703" | "gfx704" | "gfx705" => {
            Kind::Gcn { lds: 65536, table: SgprTable::SeaIslands }
        }
        "gfx801" | "gfx802" | "gfx803" | "gfx805" | "gfx810" | "gfx9-generic" | "gfx900" | "gfx902" | "gfx904"
        | "gfx906" | "gfx908" | "gfx909" | "gfx90c" => Kind::Gcn { lds: 65536, table: SgprTable::VolcanicIslands },
        "gfx90a" | "gfx9-4-generic" | "gfx942" => Kind::Gfx90a { lds: 65536 },
        "gfx950" => Kind::Gfx90a { lds: 163840 },
        "gfx10-1-generic" | "gfx1010" | "gfx1011" | "gfx1012" | "gfx1013" => Kind::Rdna(Rdna::Gfx101),
        "gfx10-3-generic" | "gfx1030" | "gfx1031" | "gfx1032" | "gfx1033" | "gfx1034" | "gfx1035" | "gfx1036"
        | "gfx11-generic" | "gfx1102" | "gfx1103" | "gfx1150" | "gfx1152" | "gfx1153" => Kind::Rdna(Rdna::Gfx103),
        "gfx1100" | "gfx1101" | "gfx1151" | "gfx12-generic" | "gfx1200" | "gfx1201" => Kind::Rdna(Rdna::Vgprs1_5x),
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum Kind {
    /// gfx6 to gfx9 without `gfx90a-insts`: 10 waves, 256 VGPRs.
    Gcn {
        lds: u32,
        table: SgprTable,
    },
    /// `gfx90a-insts`: 8 waves, 512 VGPRs (AGPRs share them).
    Gfx90a {
        lds: u32,
    },
    Rdna(Rdna),
}

/// The hardware numbers LLVM 22 uses for `processor` in this wave size and mode; `None` for a
/// processor it does not model here (gfx1250, gfx1251, unknown names).
pub fn hardware(processor: &str, wave_size: u32, wgp_mode: bool) -> Option<Hardware> {
    let wave32 = wave_size == 32;
    let hw = match classify(processor)? {
        Kind::Gcn { lds, table } => Hardware {
            max_waves: 10,
            total_vgprs: 256,
            vgpr_granule: 4,
            lds_bytes: lds,
            simds: 4,
            barriers: 16,
            wave_size: 64,
            sgpr_table: Some(table),
        },
        Kind::Gfx90a { lds } => Hardware {
            max_waves: 8,
            total_vgprs: 512,
            vgpr_granule: 8,
            lds_bytes: lds,
            simds: 4,
            barriers: 16,
            wave_size: 64,
            sgpr_table: Some(SgprTable::VolcanicIslands),
        },
        Kind::Rdna(rdna) => {
            let (max_waves, total32, granule32) = match rdna {
                Rdna::Gfx101 => (20, 1024, 8),
                Rdna::Gfx103 => (16, 1024, 16),
                Rdna::Vgprs1_5x => (16, 1536, 24),
            };
            let halve = |n: u32| if wave32 { n } else { n / 2 };
            Hardware {
                max_waves,
                total_vgprs: halve(total32),
                vgpr_granule: halve(granule32),
                // "Per CU" means per the block a work-group's waves share: a WGP in WGP mode.
                lds_bytes: if wgp_mode { 131072 } else { 65536 },
                simds: if wgp_mode { 4 } else { 2 },
                barriers: if wgp_mode { 32 } else { 16 },
                wave_size: if wave32 { 32 } else { 64 },
                sgpr_table: None,
            }
        }
    };
    // Before GFX10 every processor runs wave64 only: a metadata wave size that says otherwise
    // is not one LLVM wrote.
    (hw.wave_size == wave_size).then_some(hw)
}

/// The occupancy of a kernel with `resources` on `processor`, as LLVM 22 computes it; `None`
/// when the processor is not modelled or the metadata's wave size does not fit it.
pub fn occupancy(processor: &str, resources: &KernelResources) -> Option<Occupancy> {
    let hw = hardware(processor, resources.wave_size, resources.wgp_mode.unwrap_or(true))?;
    let max_flat = resources.max_workgroup_size.clamp(1, 1024);
    let no_lds = waves_by_workgroups(&hw, 0, max_flat);
    let with_lds = waves_by_workgroups(&hw, resources.lds_bytes, max_flat);
    let limits = alloc::vec![
        (Limit::WaveSlots, hw.max_waves),
        (Limit::WorkGroupSize, no_lds),
        (Limit::Lds, with_lds),
        (Limit::Sgprs, waves_by_sgprs(&hw, resources.sgprs.max(1))),
        (Limit::Vgprs, waves_by_vgprs(&hw, resources.vgprs.max(1))),
    ];
    let waves = limits.iter().map(|&(_, w)| w).min().unwrap_or(1);
    let limited_by = if waves == hw.max_waves {
        alloc::vec![Limit::WaveSlots]
    } else {
        // LDS limits only what the work-group size alone does not.
        limits
            .iter()
            .filter(|&&(l, w)| w == waves && l != Limit::WaveSlots && !(l == Limit::Lds && no_lds == waves))
            .map(|&(l, _)| l)
            .collect()
    };
    Some(Occupancy { waves, max_waves: hw.max_waves, limited_by, limits })
}

/// The occupancy on `processor` of an AMDGPU `kernel` node (its metadata fields `vgpr_count`,
/// `sgpr_count`, `wavefront_size`, `lds_size`, `max_flat_workgroup_size`,
/// `workgroup_processor_mode`); `None` when a register count or the wave size is missing.
pub fn of_kernel_node(kernel: &Node, processor: &str) -> Option<Occupancy> {
    let number = |name: &str| match kernel.get(name) {
        Some(Value::Uint(n)) => Some(u32::try_from(*n).unwrap_or(u32::MAX)),
        _ => None,
    };
    let resources = KernelResources {
        vgprs: number("vgpr_count")?,
        sgprs: number("sgpr_count")?,
        lds_bytes: number("lds_size").unwrap_or(0),
        // LLVM's default when a kernel names no size (`getMaxFlatWorkGroupSize`).
        max_workgroup_size: number("max_flat_workgroup_size").unwrap_or(1024),
        wave_size: number("wavefront_size")?,
        wgp_mode: number("workgroup_processor_mode").map(|m| m != 0),
    };
    occupancy(processor, &resources)
}

/// `getNumWavesPerEUWithNumVGPRs`: the register file divided by the kernel's VGPRs rounded up
/// to the allocation granule.
fn waves_by_vgprs(hw: &Hardware, vgprs: u32) -> u32 {
    if vgprs < hw.vgpr_granule {
        return hw.max_waves;
    }
    let rounded = vgprs.div_ceil(hw.vgpr_granule).saturating_mul(hw.vgpr_granule);
    (hw.total_vgprs / rounded).clamp(1, hw.max_waves)
}

/// `getOccupancyWithNumSGPRs`.
fn waves_by_sgprs(hw: &Hardware, sgprs: u32) -> u32 {
    let steps: &[(u32, u32)] = match hw.sgpr_table {
        None => return hw.max_waves,
        Some(SgprTable::VolcanicIslands) => &[(80, 10), (88, 9), (100, 8)],
        Some(SgprTable::SeaIslands) => &[(48, 10), (56, 9), (64, 8), (72, 7), (80, 6)],
    };
    let last = if hw.sgpr_table == Some(SgprTable::VolcanicIslands) { 7 } else { 5 };
    let waves = steps.iter().find(|&&(most, _)| sgprs <= most).map_or(last, |&(_, w)| w);
    waves.min(hw.max_waves)
}

/// `getMaxWorkGroupsPerCU`: work-groups of `size` work-items resident on one CU, by wave slots
/// and barriers.
fn workgroups_per_cu(hw: &Hardware, size: u32) -> u32 {
    let slots = hw.max_waves * hw.simds;
    let waves = size.div_ceil(hw.wave_size);
    if waves <= 1 {
        return slots; // a one-wave work-group takes no barrier
    }
    (slots / waves).min(hw.barriers)
}

/// The maximum of `getOccupancyWithWorkGroupSizes` for flat work-group sizes 1 to `max_size`:
/// the most waves per SIMD that the work-groups resident on a CU give, by wave slots, barriers
/// and `lds` bytes of LDS per work-group. Follows LLVM step by step, since its rounding is
/// what clang reports.
fn waves_by_workgroups(hw: &Hardware, lds: u32, max_size: u32) -> u32 {
    let by_lds = hw.lds_bytes / lds.max(1);
    if by_lds == 0 {
        return 1;
    }
    let props = |size: u32| {
        let waves_per_group = size.div_ceil(hw.wave_size);
        let groups = workgroups_per_cu(hw, size).min(by_lds);
        (waves_per_group, groups, waves_per_group * groups)
    };
    let min_size = 1;
    let (min_waves_per_group, max_groups, mut max_waves_per_cu) = props(min_size);
    let (_, _, min_waves_per_cu) = props(max_size);
    if min_waves_per_cu >= max_waves_per_cu {
        max_waves_per_cu = min_waves_per_cu;
    } else {
        // A work-group size between the two may fill the wave slots the smallest leaves free.
        let slots = hw.max_waves * hw.simds;
        let leftover_per_group = slots.saturating_sub(max_groups * min_waves_per_group) / max_groups;
        if leftover_per_group > 0 {
            let largest_waves_per_group = (max_size - 1) / hw.wave_size + 1;
            let extra = leftover_per_group.min(largest_waves_per_group - min_waves_per_group);
            max_waves_per_cu += max_groups * extra;
        }
    }
    max_waves_per_cu.div_ceil(hw.simds).clamp(1, hw.max_waves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(vgprs: u32, sgprs: u32, lds_bytes: u32, max_workgroup_size: u32, wave_size: u32) -> KernelResources {
        KernelResources { vgprs, sgprs, lds_bytes, max_workgroup_size, wave_size, wgp_mode: None }
    }

    fn waves(processor: &str, k: KernelResources) -> (u32, String) {
        let o = occupancy(processor, &k).unwrap();
        (o.waves, o.limited_by_text())
    }

    // The expected values below are what clang-22 -Rpass-analysis=kernel-resource-usage printed
    // for kernels with these resources (tests/images/occupancy.hip); tests/occupancy.rs checks
    // the same live.

    #[test]
    fn few_resources_reach_the_wave_slots() {
        assert_eq!(waves("gfx906", kernel(17, 12, 1024, 1024, 64)), (10, "none".into()));
        assert_eq!(waves("gfx90a", kernel(18, 12, 1024, 1024, 64)), (8, "none".into()));
        assert_eq!(waves("gfx1100", kernel(10, 18, 1024, 1024, 32)), (16, "none".into()));
    }

    #[test]
    fn vgprs_are_rounded_to_the_granule() {
        // gfx90a: 113 VGPRs (71 + 41 AGPRs, rounded) → 120 of 512 → 4.
        assert_eq!(waves("gfx90a", kernel(113, 10, 0, 1024, 64)), (4, "VGPRs".into()));
        // gfx906: 71 → 72 of 256 → 3.
        assert_eq!(waves("gfx906", kernel(71, 10, 0, 1024, 64)), (3, "VGPRs".into()));
        // gfx1201 has 1.5× VGPRs: 164 → 168 of 1536 → 9; gfx1102 does not: 128 of 1024 → 8.
        assert_eq!(waves("gfx1201", kernel(164, 4, 0, 1024, 32)), (9, "VGPRs".into()));
        assert_eq!(waves("gfx1102", kernel(128, 4, 0, 1024, 32)), (8, "VGPRs".into()));
        // Wave64 on gfx1100 halves the register file and the granule: 164 → 168 of 768 → 4.
        assert_eq!(waves("gfx1100", kernel(164, 4, 0, 1024, 64)), (4, "VGPRs".into()));
    }

    #[test]
    fn sgprs_limit_only_before_gfx10() {
        assert_eq!(waves("gfx906", kernel(2, 99, 0, 1024, 64)), (8, "SGPRs".into()));
        assert_eq!(waves("gfx906", kernel(2, 105, 0, 1024, 64)), (7, "SGPRs".into()));
        assert_eq!(waves("gfx700", kernel(3, 62, 0, 1024, 64)), (8, "SGPRs".into()));
        assert_eq!(waves("gfx700", kernel(3, 87, 0, 1024, 64)), (5, "SGPRs".into()));
        assert_eq!(waves("gfx1100", kernel(2, 101, 0, 1024, 32)), (16, "none".into()));
    }

    #[test]
    fn lds_shared_by_the_work_groups_of_a_cu() {
        // gfx906, 24000 bytes: two work-groups of up to 16 waves → 32 waves → 8 per SIMD.
        assert_eq!(waves("gfx906", kernel(4, 10, 24000, 1024, 64)), (8, "LDS".into()));
        // 40000 bytes: one work-group of up to 16 waves → 4 per SIMD.
        assert_eq!(waves("gfx906", kernel(4, 10, 40000, 1024, 64)), (4, "LDS".into()));
        // More than the CU has (gfx6: 32 KiB): 1.
        assert_eq!(waves("gfx600", kernel(4, 10, 40000, 1024, 64)), (1, "LDS".into()));
        // One-wave work-groups of 8000 bytes: 8 per CU → 2 per SIMD.
        assert_eq!(waves("gfx906", kernel(4, 10, 8000, 64, 64)), (2, "LDS".into()));
        // gfx950 has 160 KiB: 20 such work-groups → 5 per SIMD.
        assert_eq!(waves("gfx950", kernel(4, 10, 8000, 64, 64)), (5, "LDS".into()));
    }

    #[test]
    fn wgp_mode_doubles_the_lds_and_cu_mode_halves_the_simds() {
        let mut k = kernel(4, 4, 8000, 32, 32);
        // WGP: 131072 / 8000 = 16 one-wave groups over 4 SIMDs → 4.
        assert_eq!(waves("gfx1100", k), (4, "LDS".into()));
        // CU mode: 65536 / 8000 = 8 groups over 2 SIMDs → 4.
        k.wgp_mode = Some(false);
        assert_eq!(waves("gfx1100", k), (4, "LDS".into()));
        // 128-item groups of 20000 bytes: 3 fit in CU mode, of up to 4 waves, over 2 SIMDs → 6.
        k.lds_bytes = 20000;
        k.max_workgroup_size = 128;
        assert_eq!(waves("gfx1100", k), (6, "LDS".into()));
        // Wave64 (WGP mode): 6 groups of up to 2 waves over 4 SIMDs → 3.
        let k = KernelResources { wave_size: 64, wgp_mode: Some(true), ..k };
        assert_eq!(waves("gfx1100", k), (3, "LDS".into()));
    }

    #[test]
    fn unmodelled_processors_and_wrong_wave_sizes_give_nothing() {
        assert!(occupancy("gfx1250", &kernel(8, 8, 0, 1024, 32)).is_none());
        assert!(occupancy("sm_80", &kernel(8, 8, 0, 1024, 32)).is_none());
        assert!(occupancy("gfx90a", &kernel(8, 8, 0, 1024, 32)).is_none());
    }

    #[test]
    fn hostile_values_do_not_overflow() {
        let k = kernel(u32::MAX, u32::MAX, u32::MAX, u32::MAX, 64);
        assert_eq!(occupancy("gfx90a", &k).unwrap().waves, 1);
        let k = kernel(0, 0, 0, 0, 32);
        assert_eq!(occupancy("gfx1201", &k).unwrap().waves, 16);
    }
}
