//! The HIP fatbin wrapper (`__CudaFatBinaryWrapper` in clang's HIP code generation), which host
//! code hands to `__hipRegisterFatBinary`. clang puts one per translation unit in
//! `.hipFatBinSegment` (ELF; `.hipFatB` in COFF; `__HIP,__fatbin` in Mach-O); a linked library's
//! section holds them back to back, in the order of the bundles in `.hip_fatbin`.
//!
//! # Byte layout (64-bit hosts; pointers are 4 bytes on 32-bit hosts)
//!
//! | offset | size | field | meaning |
//! |-------:|-----:|-------|---------|
//! | 0  | 4 | magic | `0x48495046` (`46 50 49 48`, "FPIH" in the file): `HIPF`, device code in `.hip_fatbin`; `0x4B504948` (`48 49 50 4B`, "HIPK"): kpack'd, device code in a `.kpack` archive |
//! | 4  | 4 | version | 1 |
//! | 8  | 8 | binary | `HIPF`: address of the fatbin in `.hip_fatbin`; `HIPK`: address of the `.rocm_kpack_ref` map (in a linked file, usually 0 with a relocation that fills it) |
//! | 16 | 8 | reserved | `HIPF`: 0; `HIPK`: the code object index (low 32 bits), the `#N` of the archive key |
//!
//! rocm-kpack's transform rewrites `HIPF` to `HIPK`, points `binary` at the reference and writes
//! the wrapper's position in the section as its index.

use crate::error::Result;
use crate::util::bytes::wrapper_records;
use alloc::format;
use alloc::vec::Vec;

/// `HIPF` as the u32 the runtime compares (bytes `46 50 49 48`).
pub const HIPF: u32 = 0x4849_5046;
/// `HIPK` as the u32 the runtime compares (bytes `48 49 50 4B`).
pub const HIPK: u32 = 0x4B50_4948;

/// One wrapper record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrapper {
    pub magic: u32,
    pub version: u32,
    pub binary: u64,
    pub reserved: u64,
}

impl Wrapper {
    pub fn is_kpack(&self) -> bool {
        self.magic == HIPK
    }

    /// The code object index of a `HIPK` wrapper: the low 32 bits of `reserved`.
    pub fn code_object_index(&self) -> u64 {
        self.reserved & 0xFFFF_FFFF
    }

    /// `HIPF`, `HIPK`, or the magic in hex.
    pub fn magic_name(&self) -> alloc::string::String {
        match self.magic {
            HIPF => "HIPF".into(),
            HIPK => "HIPK".into(),
            m => format!("{m:#010x}"),
        }
    }
}

/// Bytes of one record with `pointer`-byte pointers (8 or 4).
pub fn record_size(pointer: u64) -> u64 {
    8 + 2 * pointer
}

/// The wrapper records of a section. A tail too short for a record is an error at its offset.
pub fn parse_all(data: &[u8], pointer: u64) -> Result<Vec<Wrapper>> {
    let records = wrapper_records(data, pointer, "HIP fatbin wrapper (__CudaFatBinaryWrapper)")?;
    Ok(records
        .into_iter()
        .map(|w| Wrapper { magic: w.magic, version: w.version, binary: w.first, reserved: w.second })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_magics_and_the_index() {
        let mut data = Vec::new();
        data.extend_from_slice(b"FPIH\x01\0\0\0");
        data.extend_from_slice(&[0; 16]);
        data.extend_from_slice(b"HIPK\x01\0\0\0");
        data.extend_from_slice(&[0; 8]);
        data.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0]);
        let w = parse_all(&data, 8).unwrap();
        assert_eq!((w[0].magic_name().as_str(), w[0].is_kpack()), ("HIPF", false));
        assert_eq!((w[1].magic_name().as_str(), w[1].code_object_index()), ("HIPK", 3));
        let e = parse_all(&data[..30], 8).unwrap_err();
        assert_eq!(e.offset, 24);
    }
}
