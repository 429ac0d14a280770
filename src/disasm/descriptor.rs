//! The kernel descriptor: the 64 bytes at `<kernel>.kd` (in `.rodata`) that tell the packet
//! processor how to launch a kernel, printed as the `.amdhsa_*` directives
//! `llvm-objdump -D --disassemble-symbols=<kernel>.kd` of LLVM 22 prints.
//!
//! Layout (little-endian; AMDGPUUsage, "Kernel Descriptor"):
//!
//! | bytes | field |
//! |---|---|
//! | 0–3 | `group_segment_fixed_size` |
//! | 4–7 | `private_segment_fixed_size` |
//! | 8–11 | `kernarg_size` |
//! | 12–15 | reserved, zero |
//! | 16–23 | `kernel_code_entry_byte_offset` (signed; not printed) |
//! | 24–43 | reserved, zero |
//! | 44–47 | `compute_pgm_rsrc3` (GFX90A+ and GFX10+; zero before) |
//! | 48–51 | `compute_pgm_rsrc1` |
//! | 52–55 | `compute_pgm_rsrc2` |
//! | 56–57 | `kernel_code_properties` |
//! | 58–59 | `kernarg_preload`: length in bits 6:0, offset in bits 15:7 |
//! | 60–63 | reserved, zero |
//!
//! `compute_pgm_rsrc1`: 5:0 granulated VGPR count, 9:6 granulated SGPR count (GFX9; zero on
//! GFX10+), 11:10 priority (zero), 13:12 and 15:14 float round modes, 17:16 and 19:18 float
//! denorm modes, 20 priv (zero), 21 DX10 clamp (GFX12: workgroup round-robin), 22 debug mode
//! (zero), 23 IEEE mode (ignored on GFX12), 24 bulky and 25 cdbg_user (zero), 26 FP16 overflow,
//! 28:27 reserved, 29 WGP mode, 30 memory ordered, 31 forward progress (GFX10+; reserved on GFX9).
//!
//! `compute_pgm_rsrc2`: 0 private segment (scratch), 5:1 user SGPR count and 6 trap handler (not
//! printed), 7–9 workgroup ids x/y/z, 10 workgroup info, 12:11 workitem id VGPRs, 13 and 14
//! exception enables (zero), 23:15 granulated LDS size (zero), 24–30 exception traps, 31 zero.
//!
//! `compute_pgm_rsrc3`: GFX90A/GFX942/GFX950 5:0 accumulation offset, 16 TG split. GFX10 3:0
//! shared VGPR count; GFX11 adds 9:4 instruction prefetch size, 10 trap on start, 11 trap on end,
//! 31 image op; GFX12 drops the shared VGPR count, widens the prefetch size to 11:4 and adds 13
//! GLG enable.
//!
//! `kernel_code_properties`: 0–6 the user SGPRs enabled (private segment buffer, dispatch ptr,
//! queue ptr, kernarg segment ptr, dispatch id, flat scratch init, private segment size), 9:7
//! reserved, 10 wavefront size 32 (GFX10+; reserved on GFX9), 11 uses dynamic stack, 15:12
//! reserved.
//!
//! What llvm-objdump prints was read from its output on descriptors with each bit set in turn:
//! the directives it prints, their order, how register counts are derived from the granules, and
//! the message it gives when a bit that must be zero is set — then it prints no directives but
//! `; error decoding NAME.kd: MESSAGE` and the 64 bytes as `.byte` lines.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::{Generation, Isa};
use crate::error::{Error, Result};
use crate::image::amdgpu::{processor_name, EF_AMDGPU_MACH};
use crate::image::elf::Elf;

const CONTEXT: &str = "AMDGPU kernel descriptor";
/// Bytes in a kernel descriptor.
pub const SIZE: usize = 64;
const STT_OBJECT: u8 = 1;

/// A kernel descriptor's fields, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelDescriptor {
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    /// Bytes 12–15, which must be zero.
    pub reserved_12: u32,
    /// From the descriptor's address to the kernel's first instruction.
    pub kernel_code_entry_byte_offset: i64,
    /// Bytes 24–43, which must be zero.
    pub reserved_24: [u8; 20],
    pub compute_pgm_rsrc3: u32,
    pub compute_pgm_rsrc1: u32,
    pub compute_pgm_rsrc2: u32,
    pub kernel_code_properties: u16,
    pub kernarg_preload: u16,
    /// Bytes 60–63, which must be zero.
    pub reserved_60: u32,
}

/// How a family lays out the fields that changed between generations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rsrc3 {
    /// gfx900, gfx906, gfx908: must be zero.
    Absent,
    /// gfx90a, gfx942, gfx950: accumulation offset and TG split.
    Accum,
    Gfx10,
    Gfx11,
    Gfx12,
}

fn rsrc3_layout(isa: Isa) -> Rsrc3 {
    match isa {
        Isa::Gfx803 | Isa::Gfx810 | Isa::Gfx900 | Isa::Gfx906 | Isa::Gfx908 => Rsrc3::Absent,
        Isa::Gfx90a | Isa::Gfx942 | Isa::Gfx950 => Rsrc3::Accum,
        Isa::Gfx1010 | Isa::Gfx1030 => Rsrc3::Gfx10,
        Isa::Gfx1100 | Isa::Gfx1150 => Rsrc3::Gfx11,
        Isa::Gfx1200 => Rsrc3::Gfx12,
    }
}

/// Processors whose scratch is reached through architected flat scratch: no private segment
/// buffer or flat scratch init user SGPRs, and `enable_private_segment` instead of the wave
/// offset SGPR.
fn architected_flat_scratch(isa: Isa) -> bool {
    matches!(isa, Isa::Gfx942 | Isa::Gfx950 | Isa::Gfx1100 | Isa::Gfx1150 | Isa::Gfx1200)
}

fn is_gfx9(isa: Isa) -> bool {
    matches!(rsrc3_layout(isa), Rsrc3::Absent | Rsrc3::Accum)
}

/// Bits `hi:lo` of `value`.
fn bits(value: u32, hi: u32, lo: u32) -> u32 {
    let width = hi - lo + 1;
    let mask = if width >= 32 { u32::MAX } else { (1u32 << width) - 1 };
    (value >> lo) & mask
}

fn bit(value: u32, at: u32) -> u32 {
    (value >> at) & 1
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

impl KernelDescriptor {
    /// Reads the fields of a 64-byte descriptor.
    pub fn parse(bytes: &[u8]) -> Result<KernelDescriptor> {
        let Some(bytes) = bytes.get(..SIZE).filter(|_| bytes.len() == SIZE) else {
            return Err(Error::new(0, CONTEXT, "64 bytes", format!("{} bytes", bytes.len())));
        };
        let mut entry = [0u8; 8];
        entry.copy_from_slice(&bytes[16..24]);
        let mut reserved_24 = [0u8; 20];
        reserved_24.copy_from_slice(&bytes[24..44]);
        Ok(KernelDescriptor {
            group_segment_fixed_size: u32_at(bytes, 0),
            private_segment_fixed_size: u32_at(bytes, 4),
            kernarg_size: u32_at(bytes, 8),
            reserved_12: u32_at(bytes, 12),
            kernel_code_entry_byte_offset: i64::from_le_bytes(entry),
            reserved_24,
            compute_pgm_rsrc3: u32_at(bytes, 44),
            compute_pgm_rsrc1: u32_at(bytes, 48),
            compute_pgm_rsrc2: u32_at(bytes, 52),
            kernel_code_properties: u16::from_le_bytes([bytes[56], bytes[57]]),
            kernarg_preload: u16::from_le_bytes([bytes[58], bytes[59]]),
            reserved_60: u32_at(bytes, 60),
        })
    }

    /// Whether the kernel runs in waves of 32 (GFX10+).
    pub fn wavefront_size32(&self, isa: Isa) -> bool {
        !is_gfx9(isa) && bit(self.kernel_code_properties.into(), 10) == 1
    }

    /// `.amdhsa_next_free_vgpr` as llvm-objdump derives it: the granule count times the
    /// allocation granule (8 on GFX90A+ and on GFX10+ in wave32, 4 otherwise).
    pub fn next_free_vgpr(&self, isa: Isa) -> u32 {
        let granule = match rsrc3_layout(isa) {
            Rsrc3::Absent => 4,
            Rsrc3::Accum => 8,
            _ if self.wavefront_size32(isa) => 8,
            _ => 4,
        };
        (bits(self.compute_pgm_rsrc1, 5, 0) + 1) * granule
    }

    /// `.amdhsa_next_free_sgpr`: from the granule count on GFX9; GFX10+ allocate every SGPR and
    /// llvm-objdump prints 8.
    pub fn next_free_sgpr(&self, isa: Isa) -> u32 {
        if is_gfx9(isa) {
            (bits(self.compute_pgm_rsrc1, 9, 6) + 1) * 8
        } else {
            8
        }
    }

    /// The `.amdhsa_kernel NAME` … `.end_amdhsa_kernel` block llvm-objdump 22 prints for this
    /// descriptor (each line ends with a newline), or the message it gives when a bit that must
    /// be zero is set.
    pub fn directives(&self, isa: Isa, name: &str) -> core::result::Result<String, String> {
        let mut out = Directives { text: format!(".amdhsa_kernel {name}\n") };
        out.field("group_segment_fixed_size", self.group_segment_fixed_size);
        out.field("private_segment_fixed_size", self.private_segment_fixed_size);
        out.field("kernarg_size", self.kernarg_size);
        reserved(self.reserved_12, u32::MAX, "kernel descriptor reserved bits in range (127:96) set")?;
        if self.reserved_24.iter().any(|&b| b != 0) {
            return Err(String::from("kernel descriptor reserved bits in range (351:192) set"));
        }
        self.print_rsrc3(isa, &mut out)?;
        self.print_rsrc1(isa, &mut out)?;
        self.print_rsrc2(isa, &mut out)?;
        self.print_code_properties(isa, &mut out)?;
        let preload = u32::from(self.kernarg_preload);
        if bits(preload, 6, 0) != 0 {
            out.field("user_sgpr_kernarg_preload_length", bits(preload, 6, 0));
        }
        if bits(preload, 15, 7) != 0 {
            out.field("user_sgpr_kernarg_preload_offset", bits(preload, 15, 7));
        }
        reserved(self.reserved_60, u32::MAX, "kernel descriptor reserved bits in range (511:480) set")?;
        out.text.push_str(".end_amdhsa_kernel\n");
        Ok(out.text)
    }

    fn print_rsrc3(&self, isa: Isa, out: &mut Directives) -> core::result::Result<(), String> {
        let rsrc3 = self.compute_pgm_rsrc3;
        match rsrc3_layout(isa) {
            Rsrc3::Absent => {
                reserved(rsrc3, u32::MAX, "kernel descriptor COMPUTE_PGM_RSRC3 must be all zero before gfx9")
            }
            Rsrc3::Accum => {
                out.field("accum_offset", (bits(rsrc3, 5, 0) + 1) * 4);
                reserved(
                    rsrc3,
                    0xffc0,
                    "kernel descriptor COMPUTE_PGM_RSRC3 reserved bits in range (15:6) set, must be zero on gfx90a",
                )?;
                out.field("tg_split", bit(rsrc3, 16));
                reserved(
                    rsrc3,
                    0xfffe_0000,
                    "kernel descriptor COMPUTE_PGM_RSRC3 reserved bits in range (31:17) set, must be zero on gfx90a",
                )
            }
            Rsrc3::Gfx10 => {
                self.print_shared_vgpr_count(isa, out);
                reserved(
                    rsrc3,
                    0xff0,
                    "kernel descriptor COMPUTE_PGM_RSRC3 reserved bits in range (11:4) set, must be zero on gfx10",
                )?;
                reserved_gfx10_plus(rsrc3, true)?;
                reserved(
                    rsrc3,
                    1 << 31,
                    "kernel descriptor COMPUTE_PGM_RSRC3 reserved bit (31) set, must be zero on gfx10",
                )
            }
            Rsrc3::Gfx11 => {
                self.print_shared_vgpr_count(isa, out);
                out.field("inst_pref_size", bits(rsrc3, 9, 4));
                out.comment("TRAP_ON_START", bit(rsrc3, 10));
                out.comment("TRAP_ON_END", bit(rsrc3, 11));
                reserved_gfx10_plus(rsrc3, true)?;
                out.comment("IMAGE_OP", bit(rsrc3, 31));
                Ok(())
            }
            Rsrc3::Gfx12 => {
                reserved(
                    rsrc3,
                    0xf,
                    "kernel descriptor COMPUTE_PGM_RSRC3 reserved bits in range (3:0) set, must be zero on gfx12+",
                )?;
                out.field("inst_pref_size", bits(rsrc3, 11, 4));
                out.comment("GLG_EN", bit(rsrc3, 13));
                reserved_gfx10_plus(rsrc3, false)?;
                out.comment("IMAGE_OP", bit(rsrc3, 31));
                Ok(())
            }
        }
    }

    /// GFX10 and GFX11: a directive in wave64; in wave32, where the assembler does not accept
    /// it, a comment.
    fn print_shared_vgpr_count(&self, isa: Isa, out: &mut Directives) {
        let count = bits(self.compute_pgm_rsrc3, 3, 0);
        if self.wavefront_size32(isa) {
            out.comment("SHARED_VGPR_COUNT", count);
        } else {
            out.field("shared_vgpr_count", count);
        }
    }

    fn print_rsrc1(&self, isa: Isa, out: &mut Directives) -> core::result::Result<(), String> {
        let rsrc1 = self.compute_pgm_rsrc1;
        let layout = rsrc3_layout(isa);
        out.field("next_free_vgpr", self.next_free_vgpr(isa));
        // What the granules cannot tell apart is printed as zero.
        out.field("reserve_vcc", 0);
        if !architected_flat_scratch(isa) {
            out.field("reserve_flat_scratch", 0);
        }
        out.field("reserve_xnack_mask", 0);
        if !is_gfx9(isa) {
            reserved(
                rsrc1,
                0x3c0,
                "kernel descriptor COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT reserved bits in range (9:6) set, \
                 must be zero on gfx10+",
            )?;
        }
        out.field("next_free_sgpr", self.next_free_sgpr(isa));
        reserved(rsrc1, 0xc00, "kernel descriptor COMPUTE_PGM_RSRC1_PRIORITY reserved bits in range (11:10) set")?;
        out.field("float_round_mode_32", bits(rsrc1, 13, 12));
        out.field("float_round_mode_16_64", bits(rsrc1, 15, 14));
        out.field("float_denorm_mode_32", bits(rsrc1, 17, 16));
        out.field("float_denorm_mode_16_64", bits(rsrc1, 19, 18));
        reserved(rsrc1, 1 << 20, "kernel descriptor COMPUTE_PGM_RSRC1_PRIV reserved bit (20) set")?;
        if layout != Rsrc3::Gfx12 {
            out.field("dx10_clamp", bit(rsrc1, 21));
        }
        reserved(rsrc1, 1 << 22, "kernel descriptor COMPUTE_PGM_RSRC1_DEBUG_MODE reserved bit (22) set")?;
        if layout != Rsrc3::Gfx12 {
            out.field("ieee_mode", bit(rsrc1, 23));
        }
        reserved(rsrc1, 1 << 24, "kernel descriptor COMPUTE_PGM_RSRC1_BULKY reserved bit (24) set")?;
        reserved(rsrc1, 1 << 25, "kernel descriptor COMPUTE_PGM_RSRC1_CDBG_USER reserved bit (25) set")?;
        if isa.generation() == Generation::Gfx8 {
            reserved(
                rsrc1,
                1 << 26,
                "kernel descriptor COMPUTE_PGM_RSRC1 reserved bit (26) set, must be zero pre-gfx9",
            )?;
        } else {
            out.field("fp16_overflow", bit(rsrc1, 26));
        }
        reserved(rsrc1, 1 << 27, "kernel descriptor COMPUTE_PGM_RSRC1 reserved bit (27) set")?;
        reserved(rsrc1, 1 << 28, "kernel descriptor COMPUTE_PGM_RSRC1 reserved bit (28) set")?;
        if is_gfx9(isa) {
            return reserved(
                rsrc1,
                0xe000_0000,
                "kernel descriptor COMPUTE_PGM_RSRC1 reserved bits in range (31:29) set",
            );
        }
        out.field("workgroup_processor_mode", bit(rsrc1, 29));
        out.field("memory_ordered", bit(rsrc1, 30));
        out.field("forward_progress", bit(rsrc1, 31));
        if layout == Rsrc3::Gfx12 {
            out.field("round_robin_scheduling", bit(rsrc1, 21));
        }
        Ok(())
    }

    fn print_rsrc2(&self, isa: Isa, out: &mut Directives) -> core::result::Result<(), String> {
        let rsrc2 = self.compute_pgm_rsrc2;
        if architected_flat_scratch(isa) {
            out.field("enable_private_segment", bit(rsrc2, 0));
        } else {
            out.field("system_sgpr_private_segment_wavefront_offset", bit(rsrc2, 0));
        }
        out.field("system_sgpr_workgroup_id_x", bit(rsrc2, 7));
        out.field("system_sgpr_workgroup_id_y", bit(rsrc2, 8));
        out.field("system_sgpr_workgroup_id_z", bit(rsrc2, 9));
        out.field("system_sgpr_workgroup_info", bit(rsrc2, 10));
        out.field("system_vgpr_workitem_id", bits(rsrc2, 12, 11));
        reserved(
            rsrc2,
            1 << 13,
            "kernel descriptor COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_ADDRESS_WATCH reserved bit (13) set",
        )?;
        reserved(rsrc2, 1 << 14, "kernel descriptor COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_MEMORY reserved bit (14) set")?;
        reserved(
            rsrc2,
            0x00ff_8000,
            "kernel descriptor COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE reserved bits in range (23:15) set",
        )?;
        out.field("exception_fp_ieee_invalid_op", bit(rsrc2, 24));
        out.field("exception_fp_denorm_src", bit(rsrc2, 25));
        out.field("exception_fp_ieee_div_zero", bit(rsrc2, 26));
        out.field("exception_fp_ieee_overflow", bit(rsrc2, 27));
        out.field("exception_fp_ieee_underflow", bit(rsrc2, 28));
        out.field("exception_fp_ieee_inexact", bit(rsrc2, 29));
        out.field("exception_int_div_zero", bit(rsrc2, 30));
        reserved(rsrc2, 1 << 31, "kernel descriptor COMPUTE_PGM_RSRC2 reserved bit (31) set")
    }

    fn print_code_properties(&self, isa: Isa, out: &mut Directives) -> core::result::Result<(), String> {
        let properties = u32::from(self.kernel_code_properties);
        let architected = architected_flat_scratch(isa);
        if !architected {
            out.field("user_sgpr_private_segment_buffer", bit(properties, 0));
        }
        out.field("user_sgpr_dispatch_ptr", bit(properties, 1));
        out.field("user_sgpr_queue_ptr", bit(properties, 2));
        out.field("user_sgpr_kernarg_segment_ptr", bit(properties, 3));
        out.field("user_sgpr_dispatch_id", bit(properties, 4));
        if !architected {
            out.field("user_sgpr_flat_scratch_init", bit(properties, 5));
        }
        out.field("user_sgpr_private_segment_size", bit(properties, 6));
        reserved(properties, 0x380, "kernel descriptor reserved bits in range (457:455) set")?;
        if is_gfx9(isa) {
            reserved(properties, 1 << 10, "kernel descriptor reserved bit (458) set, must be zero on gfx9")?;
        } else {
            out.field("wavefront_size32", bit(properties, 10));
        }
        out.field("uses_dynamic_stack", bit(properties, 11));
        reserved(properties, 0xf000, "kernel descriptor reserved bits in range (463:460) set")
    }
}

/// The `compute_pgm_rsrc3` bits GFX10+ families keep zero (bit 13 only up to GFX11, since GFX12
/// gives it a meaning), in the order they are checked.
fn reserved_gfx10_plus(rsrc3: u32, bit_13_reserved: bool) -> core::result::Result<(), String> {
    reserved(rsrc3, 1 << 12, "kernel descriptor COMPUTE_PGM_RSRC3 reserved bit (12) set, must be zero on gfx10+")?;
    if bit_13_reserved {
        reserved(
            rsrc3,
            1 << 13,
            "kernel descriptor COMPUTE_PGM_RSRC3 reserved bit (13) set, must be zero on gfx10 or gfx11",
        )?;
    }
    reserved(
        rsrc3,
        0x003f_c000,
        "kernel descriptor COMPUTE_PGM_RSRC3 reserved bits in range (21:14) set, must be zero on gfx10+",
    )?;
    reserved(
        rsrc3,
        0x7fc0_0000,
        "kernel descriptor COMPUTE_PGM_RSRC3 reserved bits in range (30:22) set, must be zero on gfx10+",
    )
}

/// `Err(message)` when any bit of `mask` is set in `value`.
fn reserved(value: u32, mask: u32, message: &str) -> core::result::Result<(), String> {
    if value & mask == 0 {
        Ok(())
    } else {
        Err(String::from(message))
    }
}

/// The directive lines being written.
struct Directives {
    text: String,
}

impl Directives {
    fn field(&mut self, name: &str, value: u32) {
        let _ = writeln!(self.text, "\t.amdhsa_{name} {value}");
    }

    /// A value llvm-objdump shows without a directive to set it.
    fn comment(&mut self, name: &str, value: u32) {
        let _ = writeln!(self.text, "\t; {name} {value}");
    }
}

/// The `.amdhsa_kernel NAME` … `.end_amdhsa_kernel` block of the descriptor `bytes` (64) of
/// kernel `name` (without `.kd`), or an error carrying llvm-objdump's message.
pub fn directives(isa: Isa, name: &str, bytes: &[u8]) -> Result<String> {
    let descriptor = KernelDescriptor::parse(bytes)?;
    descriptor.directives(isa, name).map_err(|message| {
        Error::new(field_offset(&message), CONTEXT, "zero in the bits a kernel descriptor reserves", message)
    })
}

/// The offset of the field one of llvm-objdump's messages is about (it names the field, or the
/// reserved bits by their bit range in the descriptor).
fn field_offset(message: &str) -> u64 {
    let fields = [
        ("COMPUTE_PGM_RSRC3", 44),
        ("COMPUTE_PGM_RSRC1", 48),
        ("COMPUTE_PGM_RSRC2", 52),
        ("(127:96)", 12),
        ("(351:192)", 24),
        ("(511:480)", 60),
    ];
    // What is left are the kernel_code_properties bits 455–463.
    fields.iter().find(|(name, _)| message.contains(name)).map_or(56, |&(_, offset)| offset)
}

/// What llvm-objdump 22 prints after the `<NAME.kd>:` line for the descriptor symbol `symbol`
/// (`NAME.kd`) at `address` holding `bytes`, when the symbol is the first thing in its section:
/// the directives, or — when the descriptor is not 64 aligned bytes or sets a bit that must be
/// zero — the reason and the bytes. [`DescriptorSymbol::objdump_text`] is the general case.
pub fn objdump_text(isa: Isa, symbol: &str, address: u64, bytes: &[u8]) -> String {
    descriptor_text(isa, symbol, address, bytes, bytes)
}

/// `failed_region` is what llvm-objdump dumps as `.byte` lines when decoding fails: it takes
/// them from the start of the section rather than from the symbol (seen on every descriptor
/// after the first), as many as the symbol covers.
fn descriptor_text(isa: Isa, symbol: &str, address: u64, bytes: &[u8], failed_region: &[u8]) -> String {
    let name = symbol.strip_suffix(".kd").unwrap_or(symbol);
    let decoded = if bytes.len() != SIZE || address % SIZE as u64 != 0 {
        Err(String::from("kernel descriptor must be 64-byte aligned"))
    } else {
        KernelDescriptor::parse(bytes).map_err(|e| e.found).and_then(|d| d.directives(isa, name))
    };
    match decoded {
        Ok(text) => text,
        Err(message) => {
            let mut out = format!("; error decoding {symbol}: {message}\n; decoding failed region as bytes\n");
            for byte in failed_region.iter().take(bytes.len()) {
                let _ = writeln!(out, "\t.byte\t {byte:#X}");
            }
            out
        }
    }
}

/// A `<kernel>.kd` symbol of a code object and the bytes it covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorSymbol<'a> {
    /// The symbol's name, `.kd` included.
    pub symbol: String,
    pub address: u64,
    pub bytes: &'a [u8],
    /// The bytes of the section holding it, from its start.
    pub section_bytes: &'a [u8],
}

impl DescriptorSymbol<'_> {
    /// The kernel's name: the symbol without `.kd`.
    pub fn kernel(&self) -> &str {
        self.symbol.strip_suffix(".kd").unwrap_or(&self.symbol)
    }

    /// What llvm-objdump 22 prints after this symbol's `<NAME.kd>:` line.
    pub fn objdump_text(&self, isa: Isa) -> String {
        descriptor_text(isa, &self.symbol, self.address, self.bytes, self.section_bytes)
    }
}

/// The family of an AMDGPU code object, from its `e_flags`.
pub fn code_object_isa(elf: &Elf) -> Result<Isa> {
    let processor = processor_name(elf.flags & EF_AMDGPU_MACH)
        .ok_or_else(|| Error::new(48, CONTEXT, "a known EF_AMDGPU_MACH", format!("e_flags {:#x}", elf.flags)))?;
    Isa::for_processor(processor).ok_or_else(|| {
        Error::new(48, CONTEXT, "a GFX8, GFX9, GFX10, GFX11 or GFX12 processor", String::from(processor))
    })
}

/// Every `.kd` object symbol of the code object `data` whose bytes are in the file, by address
/// (a symbol listed in both `.symtab` and `.dynsym` once).
pub fn descriptor_symbols(data: &[u8]) -> Result<Vec<DescriptorSymbol<'_>>> {
    let elf = Elf::parse(data)?;
    let mut found: Vec<DescriptorSymbol<'_>> = Vec::new();
    for symbol in elf.symbols.iter().filter(|s| s.st_type == STT_OBJECT && s.name.ends_with(".kd")) {
        let Some(section) = elf.sections.iter().find(|s| s.index == symbol.section) else { continue };
        let Some(section_data) = section.data else { continue };
        let Some(start) = symbol.value.checked_sub(section.addr).and_then(|o| usize::try_from(o).ok()) else {
            continue;
        };
        let Some(bytes) = usize::try_from(symbol.size)
            .ok()
            .and_then(|size| start.checked_add(size))
            .and_then(|end| section_data.get(start..end))
        else {
            continue;
        };
        if !found.iter().any(|f| f.symbol == symbol.name && f.address == symbol.value) {
            found.push(DescriptorSymbol {
                symbol: String::from(symbol.name),
                address: symbol.value,
                bytes,
                section_bytes: section_data,
            });
        }
    }
    found.sort_by(|a, b| a.address.cmp(&b.address).then_with(|| a.symbol.cmp(&b.symbol)));
    Ok(found)
}

/// Every kernel descriptor of the code object `data`, decoded: the kernel's name (without
/// `.kd`) and its fields. Symbols that do not cover 64 bytes are left out.
pub fn kernel_descriptors(data: &[u8]) -> Result<Vec<(String, KernelDescriptor)>> {
    let symbols = descriptor_symbols(data)?;
    Ok(symbols
        .iter()
        .filter_map(|s| KernelDescriptor::parse(s.bytes).ok().map(|d| (String::from(s.kernel()), d)))
        .collect())
}

/// The descriptors of the code object `data` as llvm-objdump 22 prints them with
/// `-D --disassemble-symbols=<every .kd>`, each after its `ADDRESS <NAME.kd>:` line.
pub fn objdump_descriptors(data: &[u8]) -> Result<String> {
    let elf = Elf::parse(data)?;
    let isa = code_object_isa(&elf)?;
    let mut out = String::new();
    for symbol in descriptor_symbols(data)? {
        let _ = write!(out, "\n{:016x} <{}>:\n", symbol.address, symbol.symbol);
        out.push_str(&symbol.objdump_text(isa));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zero_text(isa: Isa) -> String {
        objdump_text(isa, "k.kd", 0, &[0u8; SIZE])
    }

    #[test]
    fn a_zero_descriptor_prints_the_family_directives() {
        let gfx90a = zero_text(Isa::Gfx90a);
        assert!(gfx90a.starts_with(".amdhsa_kernel k\n\t.amdhsa_group_segment_fixed_size 0\n"));
        assert!(gfx90a.contains("\t.amdhsa_accum_offset 4\n\t.amdhsa_tg_split 0\n\t.amdhsa_next_free_vgpr 8\n"));
        assert!(gfx90a.ends_with("\t.amdhsa_uses_dynamic_stack 0\n.end_amdhsa_kernel\n"));
        let gfx1100 = zero_text(Isa::Gfx1100);
        assert!(gfx1100.contains("\t; TRAP_ON_START 0\n"));
        assert!(gfx1100.contains("\t.amdhsa_enable_private_segment 0\n"));
        assert!(!gfx1100.contains("flat_scratch"));
        let gfx1200 = zero_text(Isa::Gfx1200);
        assert!(gfx1200.contains("\t.amdhsa_forward_progress 0\n\t.amdhsa_round_robin_scheduling 0\n"));
        assert!(!gfx1200.contains("ieee_mode"));
    }

    #[test]
    fn a_reserved_bit_prints_the_bytes() {
        let mut bytes = [0u8; SIZE];
        bytes[63] = 0x80;
        let text = objdump_text(Isa::Gfx900, "k.kd", 0x40, &bytes);
        assert!(text.starts_with("; error decoding k.kd: kernel descriptor reserved bits in range (511:480) set\n"));
        assert!(text.ends_with("\t.byte\t 0x0\n\t.byte\t 0x80\n"));
        assert_eq!(text.lines().count(), 2 + SIZE);
    }

    #[test]
    fn a_failed_descriptor_dumps_the_start_of_its_section() {
        let section: Vec<u8> = (0..128u8).collect();
        let symbol = DescriptorSymbol {
            symbol: String::from("k.kd"),
            address: 64,
            bytes: &section[64..],
            section_bytes: &section,
        };
        let text = symbol.objdump_text(Isa::Gfx90a);
        assert!(text.contains("decoding failed region as bytes\n\t.byte\t 0x0\n\t.byte\t 0x1\n"));
        assert!(text.ends_with("\t.byte\t 0x3F\n"));
    }

    #[test]
    fn a_short_or_misaligned_descriptor_is_an_error_not_a_panic() {
        assert!(objdump_text(Isa::Gfx90a, "k.kd", 0, &[0u8; 12]).contains("must be 64-byte aligned"));
        assert!(objdump_text(Isa::Gfx90a, "k.kd", 4, &[0u8; SIZE]).contains("must be 64-byte aligned"));
        assert!(directives(Isa::Gfx90a, "k", &[0u8; 63]).is_err());
        let mut bytes = [0u8; SIZE];
        bytes[55] = 0x80;
        let error = directives(Isa::Gfx90a, "k", &bytes).unwrap_err();
        assert_eq!(
            (error.offset, error.found.as_str()),
            (52, "kernel descriptor COMPUTE_PGM_RSRC2 reserved bit (31) set")
        );
    }

    #[test]
    fn register_counts_follow_the_granules() {
        let mut bytes = [0u8; SIZE];
        bytes[48] = 0x41; // VGPR granules 1, SGPR granules 1
        let d = KernelDescriptor::parse(&bytes).unwrap();
        assert_eq!((d.next_free_vgpr(Isa::Gfx900), d.next_free_sgpr(Isa::Gfx900)), (8, 16));
        assert_eq!(d.next_free_vgpr(Isa::Gfx90a), 16);
        bytes[48] = 0x01;
        bytes[57] = 0x04; // wavefront_size32
        let d = KernelDescriptor::parse(&bytes).unwrap();
        assert_eq!((d.next_free_vgpr(Isa::Gfx1100), d.next_free_sgpr(Isa::Gfx1100)), (16, 8));
    }
}
