//! Host containers: ELF (32/64-bit, either byte order), COFF/PE and Mach-O files that carry
//! offload data in sections, read through the `object` crate.
//!
//! | container | section                               | holds                                    |
//! |-----------|---------------------------------------|------------------------------------------|
//! | ELF, COFF | `.llvm.offloading`                    | LLVM offload binaries, 8-byte aligned    |
//! | ELF, COFF | `.hip_fatbin`                         | a clang offload bundle or compressed bundles, 4096-aligned |
//! | COFF      | `.hip_fat` (short-name variants)      | the same, where the name is cut to 8 bytes |
//! | ELF, COFF | `.nv_fatbin`, `__nv_relfatbin`, `.nv_fatb` | NVIDIA fatbin containers back to back ([`crate::format::nv_fatbin`]) |
//! | ELF, COFF | `.nvFatBinSegment` (`.nvFatBi` cut)   | the fatbin wrappers (`__fatBinC_Wrapper_t`) |
//! | ELF, COFF | `.hipFatBinSegment` (`.hipFatB` cut)  | the HIP fatbin wrappers, `HIPF` or, kpack'd, `HIPK` ([`crate::format::kpack::wrapper`]) |
//! | ELF, COFF | `.rocm_kpack_ref` (`.kpackrf` in COFF) | a kpack'd binary's reference to its `.kpack` archives ([`crate::format::kpack::reference`]) |
//! | ELF       | `__CLANG_OFFLOAD_BUNDLE__<entry id>`  | one entry of a bundled object            |
//! | Mach-O    | `__LLVM,__offloading`                 | LLVM offload binaries                    |
//! | Mach-O    | `__HIP,__hip_fatbin`                  | bundle or compressed bundles             |
//! | Mach-O    | `__NV_CUDA,__nv_fatbin`, `__nv_relfatbin` | NVIDIA fatbin                        |
//! | Mach-O    | `__NV_CUDA,__fatbin`                  | the fatbin wrappers                      |
//! | Mach-O    | `__HIP,__fatbin`                      | the HIP fatbin wrappers                  |
//!
//! Only the section table and the sections above are read, so with a lazily read input (the
//! CLI's file cache, the app's sliced reads) a large library costs little more than its headers.
//! For ELF that means reading the section table ourselves: `object`'s whole-file reader also
//! reads both symbol tables (31 MiB of TensorFlow's 965 MiB `libtensorflow_cc.so.2`).

use crate::error::{Error, Result};
use crate::util::window::Window;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use object::{Object, ObjectSection, ReadRef};

pub mod elf_rel;

/// What an offload section holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionRole {
    /// LLVM offload binaries, concatenated.
    OffloadBinaries,
    /// HIP fat binary: a bundle, or compressed bundles back to back.
    HipFatbin,
    /// NVIDIA fatbin containers.
    NvFatbin,
    /// NVIDIA fatbin wrappers (`__fatBinC_Wrapper_t`).
    NvFatbinWrapper,
    /// HIP fatbin wrappers (`__CudaFatBinaryWrapper`, magic `HIPF` or, kpack'd, `HIPK`).
    HipFatbinWrapper,
    /// A kpack'd binary's reference to the `.kpack` archives holding its device code.
    KpackReference,
    /// One entry of a bundled object; the entry ID follows the bundle magic in the name.
    BundleEntry(String),
}

/// The role of a section from its (segment and) name, or `None` for ordinary sections.
pub fn section_role(segment: Option<&str>, name: &str) -> Option<SectionRole> {
    if let Some(id) = name.strip_prefix("__CLANG_OFFLOAD_BUNDLE__") {
        return Some(SectionRole::BundleEntry(id.to_string()));
    }
    match (segment, name) {
        (Some("__LLVM"), "__offloading") | (None, ".llvm.offloading") => Some(SectionRole::OffloadBinaries),
        (Some("__HIP"), "__hip_fatbin") | (None, ".hip_fatbin" | ".hip_fat" | ".hipfatb") => {
            Some(SectionRole::HipFatbin)
        }
        (Some("__NV_CUDA"), "__nv_fatbin" | "__nv_relfatbin")
        | (None, ".nv_fatbin" | "__nv_relfatbin" | ".nv_fatb") => Some(SectionRole::NvFatbin),
        (Some("__NV_CUDA"), "__fatbin") | (None, ".nvFatBinSegment" | ".nvFatBi") => Some(SectionRole::NvFatbinWrapper),
        (Some("__HIP"), "__fatbin") | (None, ".hipFatBinSegment" | ".hipFatB") => Some(SectionRole::HipFatbinWrapper),
        (None, ".rocm_kpack_ref" | ".kpackrf") => Some(SectionRole::KpackReference),
        _ => None,
    }
}

/// An offload section found in a host file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffloadSection<'a> {
    /// The name as shown to users, `segment,section` for Mach-O.
    pub name: String,
    pub role: SectionRole,
    /// Index in the section table.
    pub index: usize,
    /// Where the section's bytes lie in the file.
    pub file_offset: u64,
    pub data: &'a [u8],
    /// The section's virtual address (0 in relocatable objects).
    pub address: u64,
}

/// A host file and its offload sections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostFile<'a> {
    /// For example "ELF 64-bit little-endian x86_64 relocatable".
    pub description: String,
    pub format: object::BinaryFormat,
    pub sections: Vec<OffloadSection<'a>>,
}

/// Whether `head` (a file, or just its first 64 bytes) looks like a container `object` can read.
pub fn is_host_file(head: &[u8]) -> bool {
    matches!(
        object::FileKind::parse(head),
        Ok(object::FileKind::Elf32
            | object::FileKind::Elf64
            | object::FileKind::Coff
            | object::FileKind::CoffBig
            | object::FileKind::Pe32
            | object::FileKind::Pe64
            | object::FileKind::MachO32
            | object::FileKind::MachO64)
    )
}

/// Reads a host file's headers and its offload sections.
pub fn read_host<'a, R: ReadRef<'a>>(input: R) -> Result<HostFile<'a>> {
    read_host_window(Window::whole(&input))
}

/// [`read_host`] through a [`Window`], compiled once whatever the caller's reader.
fn read_host_window<'a>(input: Window<'_, 'a>) -> Result<HostFile<'a>> {
    match object::FileKind::parse(input) {
        Ok(object::FileKind::Elf64) => read_elf::<object::elf::FileHeader64<object::Endianness>>(input),
        Ok(object::FileKind::Elf32) => read_elf::<object::elf::FileHeader32<object::Endianness>>(input),
        _ => read_other(input),
    }
}

/// An ELF file's offload sections, read from its section table alone. `object::File::parse`
/// would also read both symbol tables whole (31 MiB of a framework's 965 MiB library, where the
/// offload data is what is asked for): a lazily read input then holds them, and a large member
/// inflated on the page would have to keep them.
fn read_elf<'a, Elf: object::read::elf::FileHeader<Endian = object::Endianness>>(
    input: Window<'_, 'a>,
) -> Result<HostFile<'a>> {
    use object::read::elf::SectionHeader;
    let header = Elf::parse(input).map_err(|e| unreadable_host(input, e))?;
    let endian = header.endian().map_err(|e| unreadable_host(input, e))?;
    let table = header.sections(endian, input).map_err(|e| unreadable_host(input, e))?;
    let mut sections = Vec::new();
    for (index, section) in table.enumerate().skip(1) {
        let Ok(name) = table.section_name(endian, section) else { continue };
        let Ok(name) = core::str::from_utf8(name) else { continue };
        let Some(role) = section_role(None, name) else { continue };
        let Some((file_offset, size)) = section.file_range(endian) else { continue };
        if size == 0 && file_offset > input.len().unwrap_or(0) {
            continue;
        }
        let data = section.data(endian, input).map_err(|e| {
            Error::new(file_offset, "offload section", format!("{size} bytes of section `{name}`"), e.to_string())
        })?;
        let address = section.sh_addr(endian).into();
        sections.push(OffloadSection { name: name.to_string(), role, index: index.0, file_offset, data, address });
    }
    Ok(HostFile { description: elf_description(input), format: object::BinaryFormat::Elf, sections })
}

/// How [`describe`] words an ELF file, from its file header alone: `object` reads it from a
/// copy of the header that lists no sections nor segments, so that it reads nothing else.
fn elf_description(input: Window<'_, '_>) -> String {
    let Ok(head) = input.read_bytes_at(0, 64) else { return "ELF".to_string() };
    let mut head = head.to_vec();
    let is_64 = head.get(4) == Some(&2);
    // e_phoff, e_shoff, e_phnum, e_shnum and e_shstrndx, for either class.
    let zeroed: &[(usize, usize)] = if is_64 { &[(32, 16), (56, 2), (60, 4)] } else { &[(28, 8), (44, 2), (48, 4)] };
    for &(at, len) in zeroed {
        if let Some(field) = head.get_mut(at..at + len) {
            field.fill(0);
        }
    }
    match object::File::parse(&head[..]) {
        Ok(file) => describe(&file),
        Err(_) => "ELF".to_string(),
    }
}

/// A COFF, PE or Mach-O file's offload sections, through `object`'s generic reader.
fn read_other<'a>(input: Window<'_, 'a>) -> Result<HostFile<'a>> {
    let file = object::File::parse(input).map_err(|e| unreadable_host(input, e))?;
    let mut sections = Vec::new();
    for section in file.sections() {
        let name = match section.name() {
            Ok(n) => n,
            Err(_) => continue,
        };
        let segment = match file.format() {
            object::BinaryFormat::MachO => section.segment_name().ok().flatten(),
            _ => None,
        };
        let Some(role) = section_role(segment, name) else { continue };
        let Some((file_offset, size)) = section.file_range() else { continue };
        if size == 0 && file_offset > input.len().unwrap_or(0) {
            // An empty section may claim any offset; there is nothing to show, and a span past
            // the end of the file would mislead.
            continue;
        }
        let data = section.data().map_err(|e| {
            Error::new(file_offset, "offload section", format!("{size} bytes of section `{name}`"), e.to_string())
        })?;
        let shown = match segment {
            Some(seg) => format!("{seg},{name}"),
            None => name.to_string(),
        };
        sections.push(OffloadSection {
            name: shown,
            role,
            index: section.index().0,
            file_offset,
            data,
            address: section.address(),
        });
    }
    Ok(HostFile { description: describe(&file), format: file.format(), sections })
}

fn unreadable_host<'a, R: ReadRef<'a>>(input: R, e: object::Error) -> Error {
    let head = input.read_bytes_at(0, 16).unwrap_or(&[]);
    crate::image::elf::ident_error(head)
        .or_else(|| elf_section_table_past_end(input))
        .unwrap_or_else(|| Error::new(0, "host file headers", "a readable ELF, COFF or Mach-O file", e.to_string()))
}

/// A cut-off ELF (an interrupted download, a partial copy) loses its section header table,
/// which linkers put at the end; say so, pointing at the header field, instead of relaying the
/// reader's generic complaint.
fn elf_section_table_past_end<'a, R: ReadRef<'a>>(input: R) -> Option<Error> {
    use object::read::elf::FileHeader;
    let len = input.len().ok()?;
    let (field_at, shoff, table_size) = match object::FileKind::parse(input).ok()? {
        object::FileKind::Elf64 => {
            let h = object::elf::FileHeader64::<object::Endianness>::parse(input).ok()?;
            let endian = h.endian().ok()?;
            (0x28, h.e_shoff(endian), u64::from(h.e_shentsize(endian)) * u64::from(h.e_shnum(endian)))
        }
        object::FileKind::Elf32 => {
            let h = object::elf::FileHeader32::<object::Endianness>::parse(input).ok()?;
            let endian = h.endian().ok()?;
            (0x20, u64::from(h.e_shoff(endian)), u64::from(h.e_shentsize(endian)) * u64::from(h.e_shnum(endian)))
        }
        _ => return None,
    };
    let end = shoff.checked_add(table_size);
    if end.is_some_and(|end| end <= len) {
        return None;
    }
    Some(Error::new(
        field_at,
        "ELF file header, section header table offset",
        format!("a section header table within the {len}-byte file"),
        format!(
            "{table_size} bytes of section headers at offset {shoff}, past the end: the file is truncated or its header is damaged"
        ),
    ))
}

fn describe<'a, R: ReadRef<'a>>(file: &object::File<'a, R>) -> String {
    let format = match file.format() {
        object::BinaryFormat::Elf => "ELF",
        object::BinaryFormat::Coff => "COFF",
        object::BinaryFormat::Pe => "PE",
        object::BinaryFormat::MachO => "Mach-O",
        _ => "object",
    };
    let bits = if file.is_64() { "64-bit" } else { "32-bit" };
    let endian = if file.is_little_endian() { "little-endian" } else { "big-endian" };
    let kind = match file.kind() {
        object::ObjectKind::Relocatable => "relocatable",
        object::ObjectKind::Executable => "executable",
        object::ObjectKind::Dynamic => "shared library",
        object::ObjectKind::Core => "core",
        _ => "file",
    };
    let arch = format!("{:?}", file.architecture()).to_ascii_lowercase();
    format!("{format} {bits} {endian} {arch} {kind}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::RefCell;

    /// A slice that notes every range read of it.
    struct Noted<'a> {
        data: &'a [u8],
        reads: RefCell<Vec<(u64, u64)>>,
    }

    impl<'a> ReadRef<'a> for &'a Noted<'a> {
        fn len(self) -> core::result::Result<u64, ()> {
            Ok(self.data.len() as u64)
        }

        fn read_bytes_at(self, offset: u64, size: u64) -> core::result::Result<&'a [u8], ()> {
            self.reads.borrow_mut().push((offset, size));
            self.data.read_bytes_at(offset, size)
        }

        fn read_bytes_at_until(
            self,
            range: core::ops::Range<u64>,
            delimiter: u8,
        ) -> core::result::Result<&'a [u8], ()> {
            let found = self.data.read_bytes_at_until(range.clone(), delimiter)?;
            self.reads.borrow_mut().push((range.start, found.len() as u64));
            Ok(found)
        }
    }

    /// An ELF library's symbol tables are not read (a framework's are tens of MiB), and it is
    /// described as `object` describes it having read it whole.
    #[test]
    fn an_elf_file_is_read_from_its_section_table_alone() {
        let data =
            std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/libhip_3tu_compressed.so")).unwrap();
        let noted = Noted { data: &data, reads: RefCell::new(Vec::new()) };
        let host = read_host(&noted).unwrap();
        assert_eq!(host.description, describe(&object::File::parse(&data[..]).unwrap()));
        assert_eq!(host.description, "ELF 64-bit little-endian x86_64 shared library");
        assert!(host.sections.iter().any(|s| s.role == SectionRole::HipFatbin));
        // .dynsym at 0x238 (0x1f8 bytes) and .symtab at 0x4120 (0x390 bytes), by llvm-readelf -S.
        let symbols = [(0x238u64, 0x1f8u64), (0x4120, 0x390)];
        for &(offset, size) in noted.reads.borrow().iter() {
            for &(at, len) in &symbols {
                assert!(
                    offset + size <= at || offset >= at + len,
                    "read {size} bytes at {offset:#x}, in a symbol table"
                );
            }
        }
    }

    #[test]
    fn section_names_map_to_roles() {
        assert_eq!(section_role(None, ".llvm.offloading"), Some(SectionRole::OffloadBinaries));
        assert_eq!(section_role(Some("__LLVM"), "__offloading"), Some(SectionRole::OffloadBinaries));
        assert_eq!(section_role(None, ".hip_fatbin"), Some(SectionRole::HipFatbin));
        assert_eq!(section_role(Some("__HIP"), "__hip_fatbin"), Some(SectionRole::HipFatbin));
        assert_eq!(section_role(None, ".nv_fatbin"), Some(SectionRole::NvFatbin));
        assert_eq!(section_role(None, "__nv_relfatbin"), Some(SectionRole::NvFatbin));
        assert_eq!(section_role(Some("__NV_CUDA"), "__nv_fatbin"), Some(SectionRole::NvFatbin));
        assert_eq!(section_role(None, ".nvFatBinSegment"), Some(SectionRole::NvFatbinWrapper));
        assert_eq!(section_role(Some("__NV_CUDA"), "__fatbin"), Some(SectionRole::NvFatbinWrapper));
        assert_eq!(
            section_role(None, "__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a"),
            Some(SectionRole::BundleEntry("hip-amdgcn-amd-amdhsa--gfx90a".into()))
        );
        assert_eq!(section_role(None, ".hipFatBinSegment"), Some(SectionRole::HipFatbinWrapper));
        assert_eq!(section_role(Some("__HIP"), "__fatbin"), Some(SectionRole::HipFatbinWrapper));
        assert_eq!(section_role(None, ".rocm_kpack_ref"), Some(SectionRole::KpackReference));
        assert_eq!(section_role(None, ".kpackrf"), Some(SectionRole::KpackReference));
        assert_eq!(section_role(None, ".text"), None);
        assert_eq!(section_role(Some("__TEXT"), "__offloading"), None);
    }

    #[test]
    fn garbage_is_a_clear_error() {
        let e = read_host(&b"\x7fELF\x02\x01\x01garbage"[..]).unwrap_err();
        assert_eq!(e.context, "host file headers");
    }
}
