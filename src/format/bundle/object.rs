//! Bundled objects: a host object file that carries each bundle entry as a section named
//! `__CLANG_OFFLOAD_BUNDLE__<entry id>`, what `clang-offload-bundler --type=o` makes when its
//! host input is an object file (and what clang's driver makes for `-fgpu-rdc -c`).
//!
//! clang-offload-bundler 22 builds and reads them through llvm-objcopy; this module writes and
//! reads the same bytes (ELF hosts; see [`crate::format::host::elf_rel`] for llvm-objcopy's layout).
//!
//! | part | contents |
//! |---|---|
//! | the host object's own sections | unchanged (re-laid out as llvm-objcopy lays out any object it rewrites) |
//! | one section per `--targets` entry, in that order, after the host's sections | name `__CLANG_OFFLOAD_BUNDLE__<entry id>`, type `SHT_PROGBITS`, flags `SHF_EXCLUDE` only (llvm-objcopy's `readonly,exclude`), alignment 1, address 0 |
//! | a device entry's section | the device input's bytes, as they are (`--compress` does not apply: LLVM 22 writes the compressed bundle first and then lets llvm-objcopy replace the output file, so the sections are never compressed) |
//! | the host entry's section | one zero byte: the host code is the object itself |
//!
//! Reading (`--list`, `--unbundle`): every section whose name starts with the magic is an entry,
//! in section-table order. A section holding exactly one zero byte is the host entry; unbundling
//! it yields the object with every `__CLANG_OFFLOAD_BUNDLE__*` section removed (llvm-objcopy
//! `--remove-section`), any other section yields its bytes as they are.

use crate::error::{Error, Result};
use crate::format::host::elf_rel::{RelocatableElf, SHF_EXCLUDE};
use crate::format::host::{self, OffloadSection, SectionRole};
use crate::ids;
use crate::tree::{Node, NodeKind, Severity, Span};
use crate::util::bytes::human_size;
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The prefix of every bundle entry section name.
pub const SECTION_PREFIX: &str = "__CLANG_OFFLOAD_BUNDLE__";

/// What the host entry's section holds.
pub const HOST_PLACEHOLDER: [u8; 1] = [0];

/// Whether a bundle entry section's bytes are the host placeholder, which clang-offload-bundler
/// recognises by content (one zero byte), not by the entry ID.
pub fn is_host_placeholder(data: &[u8]) -> bool {
    data == HOST_PLACEHOLDER
}

/// One entry of a bundled object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The entry ID, as written after the prefix in the section name.
    pub id: String,
    /// Index of the section in the file's section table.
    pub section_index: usize,
    /// Where the section's bytes are in the file.
    pub file_offset: u64,
    pub data: &'a [u8],
}

/// The bundle entries of a host object (ELF, COFF or Mach-O), in section-table order: the order
/// `clang-offload-bundler --list` prints. Empty when the object has none.
pub fn entries(data: &[u8]) -> Result<Vec<Entry<'_>>> {
    let file = host::read_host(data)?;
    Ok(file
        .sections
        .into_iter()
        .filter_map(|s| match s.role {
            SectionRole::BundleEntry(id) => {
                Some(Entry { id, section_index: s.index, file_offset: s.file_offset, data: s.data })
            }
            _ => None,
        })
        .collect())
}

/// The tree of a bundled object: one `bundle` node (field `layout: "object sections"`) whose
/// children are the entry sections as `bundle-entry` nodes, in section order. The node spans
/// from the first entry section's bytes to the end of the last one's. The host entry gets a child
/// saying what its placeholder byte means; the explorer fills in what device entries hold.
/// `None` when `sections` has no bundle entry section.
pub fn tree_node(sections: &[OffloadSection<'_>]) -> Option<Node> {
    let entries: Vec<(&OffloadSection, &str)> = sections
        .iter()
        .filter_map(|s| match &s.role {
            SectionRole::BundleEntry(id) => Some((s, id.as_str())),
            _ => None,
        })
        .collect();
    let start = entries.iter().map(|(s, _)| s.file_offset).min()?;
    let end = entries.iter().map(|(s, _)| s.file_offset.saturating_add(s.data.len() as u64)).max()?;
    let mut node = Node::new(
        NodeKind::Bundle,
        format!("bundled object, {} entries (sections {SECTION_PREFIX}*)", entries.len()),
        Span::new(0, start, end - start),
    );
    node.field("layout", "object sections", None);
    node.field("entry_count", entries.len() as u64, None);
    for (s, id) in &entries {
        node.children.push(entry_node(s, id));
    }
    let ids: Vec<&str> = entries.iter().map(|(_, id)| *id).collect();
    for v in ids::composition_on_read(&ids) {
        node.diag(Severity::Warning, v.to_string(), None);
    }
    if !entries.iter().any(|(s, _)| is_host_placeholder(s.data)) {
        node.diag(
            Severity::Note,
            "no section holds the one-byte host placeholder, so clang-offload-bundler finds no host entry",
            None,
        );
    }
    Some(node)
}

fn entry_node(s: &OffloadSection<'_>, id: &str) -> Node {
    let span = Span::new(0, s.file_offset, s.data.len() as u64);
    let mut node =
        Node::new(NodeKind::BundleEntry, format!("{id} (section {}, {})", s.name, human_size(span.size)), span);
    node.editable("id", id, None);
    node.field("section", s.name.as_str(), None);
    node.field("index", s.index as u64, None);
    node.field("size", span.size, None);
    ids::annotate_entry_id(&mut node, id);
    if is_host_placeholder(s.data) {
        let mut host =
            Node::new(NodeKind::Image, "host placeholder (one zero byte: the host code is this object)", span);
        host.field("format", "host placeholder", None);
        node.children.push(host);
    }
    node
}

/// What goes into one entry section when writing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryData<'a> {
    /// The host entry: the placeholder byte.
    Host,
    /// A device entry's bytes.
    Device(&'a [u8]),
}

/// Writes a bundled object: `host` (an ELF relocatable object) with one section per entry, in
/// the order given, byte-identical to `clang-offload-bundler --type=o` 22.
pub fn write(host: &[u8], entries: &[(&str, EntryData<'_>)]) -> Result<Vec<u8>> {
    let mut elf = relocatable_host(host)?;
    for (id, data) in entries {
        let bytes: Cow<[u8]> = match data {
            EntryData::Host => Cow::Borrowed(&HOST_PLACEHOLDER[..]),
            EntryData::Device(d) => Cow::Borrowed(d),
        };
        elf.add_section(format!("{SECTION_PREFIX}{id}").into_bytes(), bytes, SHF_EXCLUDE);
    }
    elf.write()
}

/// The host object inside a bundled object: the object with every `__CLANG_OFFLOAD_BUNDLE__*`
/// section removed, byte-identical to what clang-offload-bundler 22 unbundles for the host.
pub fn host_object(bundled: &[u8]) -> Result<Vec<u8>> {
    let mut elf = relocatable_host(bundled)?;
    elf.remove_sections(|name| name.starts_with(SECTION_PREFIX.as_bytes()))?;
    elf.write()
}

/// The object as an ELF relocatable object, or an error saying why it cannot be one.
fn relocatable_host(data: &[u8]) -> Result<RelocatableElf<'_>> {
    if !data.starts_with(b"\x7fELF") {
        let what = match object::FileKind::parse(data) {
            Ok(kind) => format!("a {kind:?} file"),
            Err(_) => String::from("not an object file"),
        };
        return Err(Error::new(
            0,
            "bundled object host",
            "an ELF relocatable object (COFF and Mach-O bundled objects are read, not written)",
            what,
        ));
    }
    let elf = RelocatableElf::parse(data)?;
    if !elf.is_relocatable() {
        return Err(Error::new(
            16,
            "bundled object host",
            "an ELF relocatable object (ET_REL)",
            "another ELF file type",
        ));
    }
    Ok(elf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_is_one_zero_byte() {
        assert!(is_host_placeholder(&[0]));
        assert!(!is_host_placeholder(&[]));
        assert!(!is_host_placeholder(&[0, 0]));
        assert!(!is_host_placeholder(&[1]));
    }

    #[test]
    fn non_elf_hosts_are_refused_with_what_they_are() {
        let e = write(b"not an object at all", &[]).unwrap_err();
        assert_eq!(e.context, "bundled object host");
        assert_eq!(e.found, "not an object file");
    }
}
