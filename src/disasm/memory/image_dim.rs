//! Images of GFX10 and GFX11 (MIMG) and GFX12 (VIMAGE, VSAMPLE), whose address count follows
//! the `DIM` field: 2 dwords plus the non-sequential-address (NSA) dwords on GFX10 and GFX11, 3
//! dwords on GFX12. Field positions are in [`LAYOUTS`] (and the generator's docstring,
//! `scripts/disasm/gen_image_dim.py`).
//!
//! Printed as `name vdata, vaddr, srsrc[, ssamp] [dmask:…] dim:… [modifiers]`. The address is one
//! tuple without NSA, a bracketed list with it (GFX11 and GFX12: the last slot a tuple for the
//! rest; GFX12: one address bare). What each opcode's data and address widths are for every
//! `DMASK`/`TFE`/`LWE`/`D16` and `DIM`/`A16`/NSA size, when llvm-objdump keeps an opcode's first
//! decoding instead (fields asking for a form the opcode does not have), the modifier names and
//! order, the register names of the resource and sampler fields and the bits that must be zero
//! are all in [`image_dim_tables`], generated from llvm-mc 22.

use alloc::format;
use alloc::string::String;
use core::fmt::Write;

use super::flat::cache_policy;
use super::{bits, data_role, done_with, image_dim_tables as t, vector, DimFamily};
use crate::disasm::operands::{File, RegisterOperands, Role};
use crate::disasm::{Class, Decoded, Isa, Words};

/// A field: (dword, shift, width).
type Field = (usize, u32, u32);

/// Where an encoding's fields are.
struct Layout {
    dwords: usize,
    /// The opcode's pieces, low bits first.
    op: &'static [Field],
    dim: Field,
    dmask: Field,
    vdata: Field,
    srsrc: Field,
    ssamp: Option<Field>,
    /// The NSA field: GFX10 the count of extra dwords, GFX11 whether there is one.
    nsa: Option<Field>,
    /// Where each address register number is: (dword, shift).
    slots: &'static [(usize, u32)],
    /// The last slot used holds a tuple for the remaining addresses (GFX11, GFX12).
    tuple_last: bool,
    /// A slot that must be zero when the address count leaves it unused (VIMAGE's fifth, in
    /// dword 1; llvm-objdump ignores the others).
    zero_when_unused: Option<usize>,
    /// A slot that must be zero when no address form of the opcode reaches it (VSAMPLE's fourth,
    /// the top byte of dword 2, for the opcodes with at most three addresses).
    zero_when_never_used: Option<usize>,
}

const GFX10: Layout = Layout {
    dwords: 2,
    op: &[(0, 18, 7), (0, 0, 1)],
    dim: (0, 3, 3),
    dmask: (0, 8, 4),
    vdata: (1, 8, 8),
    srsrc: (1, 16, 5),
    ssamp: Some((1, 21, 5)),
    nsa: Some((0, 1, 2)),
    slots: &[
        (1, 0),
        (2, 0),
        (2, 8),
        (2, 16),
        (2, 24),
        (3, 0),
        (3, 8),
        (3, 16),
        (3, 24),
        (4, 0),
        (4, 8),
        (4, 16),
        (4, 24),
    ],
    tuple_last: false,
    zero_when_unused: None,
    zero_when_never_used: None,
};
const GFX11: Layout = Layout {
    dwords: 2,
    op: &[(0, 18, 8)],
    dim: (0, 2, 3),
    dmask: (0, 8, 4),
    vdata: (1, 8, 8),
    srsrc: (1, 16, 5),
    ssamp: Some((1, 26, 5)),
    nsa: Some((0, 0, 1)),
    slots: &[(1, 0), (2, 0), (2, 8), (2, 16), (2, 24)],
    tuple_last: true,
    zero_when_unused: None,
    zero_when_never_used: None,
};
const VIMAGE: Layout = Layout {
    dwords: 3,
    op: &[(0, 14, 8)],
    dim: (0, 0, 3),
    dmask: (0, 22, 4),
    vdata: (1, 0, 8),
    srsrc: (1, 9, 9),
    ssamp: None,
    nsa: None,
    slots: &[(2, 0), (2, 8), (2, 16), (2, 24), (1, 24)],
    tuple_last: true,
    zero_when_unused: Some(4),
    zero_when_never_used: None,
};
const VSAMPLE: Layout = Layout {
    dwords: 3,
    op: &[(0, 14, 8)],
    dim: (0, 0, 3),
    dmask: (0, 22, 4),
    vdata: (1, 0, 8),
    srsrc: (1, 9, 9),
    ssamp: Some((1, 23, 9)),
    nsa: None,
    slots: &[(2, 0), (2, 8), (2, 16), (2, 24)],
    tuple_last: true,
    zero_when_unused: None,
    zero_when_never_used: Some(3),
};

/// The `DIM` values as llvm-objdump names them.
const DIMS: [&str; 8] = [
    "SQ_RSRC_IMG_1D",
    "SQ_RSRC_IMG_2D",
    "SQ_RSRC_IMG_3D",
    "SQ_RSRC_IMG_CUBE",
    "SQ_RSRC_IMG_1D_ARRAY",
    "SQ_RSRC_IMG_2D_ARRAY",
    "SQ_RSRC_IMG_2D_MSAA",
    "SQ_RSRC_IMG_2D_MSAA_ARRAY",
];

/// A data or address entry that stands for the opcode's first decoding.
const FIRST_DECODING: u8 = 0x80;

fn family(isa: Isa, top: u32) -> Option<(&'static Layout, &'static DimFamily)> {
    Some(match (isa, top) {
        (Isa::Gfx1010, 0x3C) => (&GFX10, &t::GFX10_GFX1010),
        (Isa::Gfx1030, 0x3C) => (&GFX10, &t::GFX10_GFX1030),
        (Isa::Gfx1100, 0x3C) => (&GFX11, &t::GFX11_GFX1100),
        (Isa::Gfx1150, 0x3C) => (&GFX11, &t::GFX11_GFX1150),
        (Isa::Gfx1200, 0x34) => (&VIMAGE, &t::VIMAGE_GFX1200),
        (Isa::Gfx1200, 0x39) => (&VSAMPLE, &t::VSAMPLE_GFX1200),
        _ => return None,
    })
}

/// Reads a field out of up to five dwords.
fn field(dwords: &[u32; 5], (dword, shift, width): Field) -> u32 {
    bits(dwords[dword], shift, width)
}

pub(super) fn decode(isa: Isa, words: &Words<'_>) -> Option<Decoded> {
    let first = words.get(0)?;
    let (layout, fam) = family(isa, first >> 26)?;
    let mut dwords = [0u32; 5];
    for (i, slot) in dwords.iter_mut().enumerate().take(layout.dwords) {
        *slot = words.get(i)?;
    }
    let mut code = 0;
    let mut shift = 0;
    for &piece in layout.op {
        code |= field(&dwords, piece) << shift;
        shift += piece.2;
    }
    let at = fam.ops.binary_search_by_key(&code, |op| u32::from(op.0)).ok()?;
    let op = fam.ops.get(at)?;
    let nsa = layout.nsa.map_or(0, |f| field(&dwords, f));
    let size = layout.dwords + nsa as usize;
    for (i, slot) in dwords.iter_mut().enumerate().take(size).skip(layout.dwords) {
        *slot = words.get(i)?;
    }
    let set = |&(dword, bit): &(u8, u8)| dwords.get(usize::from(dword)).is_some_and(|w| w >> bit & 1 != 0);
    if fam.spare.iter().any(set) {
        return None;
    }
    let modifiers: u32 = fam.mods.iter().enumerate().map(|(i, &(d, b, _))| u32::from(set(&(d, b))) << i).sum();
    let unnamed: u32 = fam.unnamed.iter().enumerate().map(|(i, place)| u32::from(set(place)) << i).sum();
    if u64::from(modifiers) & (op.2 >> 20) & 0xFFF != 0 || u64::from(unnamed) & (op.2 >> 32) & 0xFF != 0 {
        return None;
    }
    let role = |i: usize| fam.roles.get(i).map_or(0, |&r| if r < 15 { modifiers >> r & 1 } else { 0 });
    let dmask = field(&dwords, layout.dmask);
    let dim = field(&dwords, layout.dim);
    let data = *t::RULES
        .get((op.2 >> 1 & 0x3F) as usize)?
        .get((dmask | role(0) << 4 | role(1) << 5 | role(2) << 6) as usize)?;
    let forms = t::ADDRESSES.get((op.2 >> 8 & 0xFF) as usize)?;
    let address = *forms.get((dim | role(3) << 3 | nsa << 4) as usize)?;
    if let Some(index) = layout.zero_when_never_used {
        let widest = forms.iter().filter(|&&count| count < FIRST_DECODING).max().copied().unwrap_or(0);
        let &(dword, shift) = layout.slots.get(index)?;
        if usize::from(widest) <= index && bits(dwords[dword], shift, 8) != 0 {
            return None;
        }
    }
    if data == 0 || address == 0 {
        return None;
    }
    let vdata = field(&dwords, layout.vdata);
    let (mut width, mut count) = (u32::from(data), u32::from(address));
    // The opcode's first decoding, whose data and address widths llvm-objdump resizes to what
    // the fields ask for; a resized tuple that would run past v255 (data, or a one-tuple
    // address) is not found, and the first decoding is kept. A tuple already of the first
    // decoding's width is not resized, so its running past v255 changes nothing.
    let first = op.3 >> (8 * nsa) & 0xFF;
    let (first_width, first_count) = (first & 7, first >> 3);
    let vaddr = layout.slots.first().map_or(0, |&(d, s)| bits(dwords[d], s, 8));
    let tuple_address = layout.nsa.is_some() && nsa == 0;
    // Likewise the tuple in the last address slot (GFX11 NSA, GFX12).
    let slots = layout.slots.len() as u32;
    let last_tuple_past = !tuple_address && layout.tuple_last && count > slots && {
        let last = layout.slots.get(slots as usize - 1).map_or(0, |&(d, s)| bits(dwords[d], s, 8));
        last + count - (slots - 1) > 256
    };
    let address_past = (tuple_address && vaddr + count > 256) || last_tuple_past;
    if data == FIRST_DECODING
        || address == FIRST_DECODING
        || (vdata + width > 256 && width != first_width)
        || (address_past && count != first_count)
    {
        if first == 0 {
            return None;
        }
        (width, count) = (first_width, first_count);
    }
    let spaces = if op.2 >> (16 + nsa) & 1 != 0 { "  " } else { " " };
    let mut text = format!("{}{spaces}{}, ", op.1, vector(false, vdata, width)?);
    // VDATA by what the operation does: an atomic returns into it with `glc` (GFX12: a
    // returning `th`); addresses and descriptors are read.
    let mut registers = RegisterOperands::default();
    let returns = match fam.mods.iter().position(|&(_, _, name)| name == "glc") {
        Some(at) => modifiers >> at & 1 != 0,
        None => layout.nsa.is_none() && bits(dwords[1], 20, 1) != 0,
    };
    registers.push_vector(File::Vgpr, vdata, width, data_role(op.1, returns, false));
    addresses(&mut text, layout, &dwords, nsa, count, &mut registers)?;
    text.push_str(", ");
    let srsrc = field(&dwords, layout.srsrc);
    scalar(&mut text, fam.srsrc, fam.vgpr_classes[0], 8, srsrc)?;
    descriptor_registers(&mut registers, isa, layout.srsrc, srsrc, 8);
    let ssamp = layout.ssamp.map_or(0, |f| field(&dwords, f));
    if op.2 & 1 != 0 {
        text.push_str(", ");
        scalar(&mut text, fam.ssamp, fam.vgpr_classes[1], 4, ssamp)?;
        if let Some(f) = layout.ssamp {
            descriptor_registers(&mut registers, isa, f, ssamp, 4);
        }
    } else if ssamp != 0 {
        return None;
    }
    if dmask != 0 {
        let _ = write!(text, " dmask:{dmask:#x}");
    }
    text.push_str(" dim:");
    text.push_str(DIMS.get(dim as usize)?);
    for (i, &(_, _, name)) in fam.mods.iter().enumerate() {
        if layout.nsa.is_none() && i == usize::from(fam.roles[4]) {
            cache_policy(&mut text, op.1, bits(dwords[1], 20, 3), bits(dwords[1], 18, 2));
        }
        if modifiers >> i & 1 != 0 {
            text.push(' ');
            text.push_str(name);
        }
    }
    if layout.nsa.is_none() && usize::from(fam.roles[4]) >= fam.mods.len() {
        cache_policy(&mut text, op.1, bits(dwords[1], 20, 3), bits(dwords[1], 18, 2));
    }
    done_with(text, size, Class::VectorMemory, registers)
}

/// The SGPRs of a resource (`width` 8) or sampler (4) descriptor field, read: a 5-bit field
/// (GFX10, GFX11) counts SGPRs by four, GFX12's 9-bit field names the first SGPR, and from 256
/// on a VGPR tuple (which llvm-objdump prints with a complaint).
fn descriptor_registers(registers: &mut RegisterOperands, isa: Isa, place: Field, value: u32, width: u32) {
    match value {
        256.. => registers.push_vector(File::Vgpr, value - 256, width, Role::Read),
        _ if place.2 == 9 => registers.push_scalar(isa.generation(), value, width, Role::Read),
        _ => registers.push_scalar(isa.generation(), value * 4, width, Role::Read),
    }
}

/// A VGPR address operand of `count` registers, read.
fn address_operand(registers: &mut RegisterOperands, first: u32, count: u32) -> Option<String> {
    registers.push_vector(File::Vgpr, first, count, Role::Read);
    vector(false, first, count)
}

/// The address operand: one tuple without NSA (GFX10, GFX11); otherwise a list of the slots'
/// registers, the last slot a tuple for the rest where the layout says so, a single address bare
/// on GFX12 (whose slots past the count are ignored).
fn addresses(
    text: &mut String,
    layout: &Layout,
    dwords: &[u32; 5],
    nsa: u32,
    count: u32,
    registers: &mut RegisterOperands,
) -> Option<()> {
    let slot = |i: usize| layout.slots.get(i).map(|&(d, s)| bits(dwords[d], s, 8));
    if layout.nsa.is_some() && nsa == 0 {
        text.push_str(&address_operand(registers, slot(0)?, count)?);
        return Some(());
    }
    let available = layout.slots.len() as u32;
    let used = if layout.tuple_last { count.min(available) } else { count };
    if let Some(index) = layout.zero_when_unused.filter(|&i| i as u32 >= used) {
        if slot(index)? != 0 {
            return None;
        }
    }
    if layout.nsa.is_none() && count == 1 {
        text.push_str(&address_operand(registers, slot(0)?, 1)?);
        return Some(());
    }
    text.push('[');
    for i in 0..used {
        if i > 0 {
            text.push_str(", ");
        }
        let width = if i + 1 == used { count - i } else { 1 };
        text.push_str(&address_operand(registers, slot(i as usize)?, width)?);
    }
    text.push(']');
    Some(())
}

/// A resource or sampler operand: the generated name of `value`, or from 256 on (GFX12's 9-bit
/// fields) the VGPR tuple with llvm-objdump's complaint about its class.
fn scalar(text: &mut String, names: &'static [&'static str], class: &str, width: u32, value: u32) -> Option<()> {
    if value >= 256 && !class.is_empty() {
        let first = value - 256;
        let _ =
            write!(text, "v[{first}:{}]/*Invalid register, operand has '{class}' register class*/", first + width - 1);
        return Some(());
    }
    text.push_str(named(names, value)?);
    Some(())
}

/// The name of a register-tuple field's value, or `None` where llvm-objdump rejects it.
fn named(names: &'static [&'static str], value: u32) -> Option<&'static str> {
    names.get(value as usize).copied().filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(isa: Isa, words: &[u32]) -> Option<String> {
        let bytes: alloc::vec::Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        decode(isa, &Words::new(&bytes, 0)).map(|d| d.text)
    }

    /// As llvm-objdump 22 prints them (tests/disasm/images_*.s and llvm-mc probes).
    #[test]
    fn image_words() {
        // GFX11 NSA: four single addresses, the fifth slot a tuple for the rest.
        assert_eq!(
            text(Isa::Gfx1100, &[0xF0700F09, 0x10020014, 0x1C1A1816]).as_deref(),
            Some("image_sample_d  v[0:3], [v20, v22, v24, v26, v[28:32]], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D")
        );
        // GFX12 VSAMPLE: four slots.
        assert_eq!(
            text(Isa::Gfx1200, &[0xE7C70002, 0x08001000, 0x1A181614]).as_deref(),
            Some("image_sample_d v[0:3], [v20, v22, v24, v[26:31]], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D")
        );
        // GFX10: one NSA dword cannot hold the nine addresses of a 3D derivative sample, so
        // llvm-objdump keeps the opcode's first decoding.
        assert_eq!(
            text(Isa::Gfx1030, &[0xF0880F12, 0x00612814, 0x1C1B1A19]).as_deref(),
            Some("image_sample_d  v40, [v20, v25, v26, v27, v28], s[4:11], s[12:15] dmask:0xf dim:SQ_RSRC_IMG_3D")
        );
        // A word cut short by the end of the code decodes to nothing.
        assert_eq!(text(Isa::Gfx1030, &[0xF0880F12, 0x00612814]), None);
        assert_eq!(text(Isa::Gfx90a, &[0xF0880F12, 0x00612814, 0x1C1B1A19]), None);
    }
}
