//! Editing an explored file: an [`Edit`] names a node of the file's [`Tree`] by its path of
//! child indices from the root and says what to change; [`apply`] returns the whole file
//! written again.
//!
//! An edit rewrites the innermost container that holds what changes (a bundle, a text bundle,
//! an offload binary, a compressed bundle, an archive), then puts the new container back into
//! each container around it, up to the file:
//!
//! | outer container | how the inner bytes go back in |
//! |---|---|
//! | binary or text bundle | the entry holding them gets its new bytes; entries are laid out again at the bundle's alignment when sizes change |
//! | offload binary | the entry's image gets its new bytes; the binary is laid out as LLVM lays it out |
//! | compressed bundle | the decompressed bundle gets its new bytes and is compressed again with the same method and format version (level: the method's default) |
//! | archive | the member gets its new bytes; the archive is written again in GNU format |
//! | NVIDIA fatbin container | the entry gets its new data, stored as before (compressed with the same method, or plain); the container is written again |
//! | section of a relocatable object, or a raw file | later containers move by a multiple of their alignment |
//! | section of a linked file | later containers keep their addresses: the new bytes must fit before the next container ([`EditError::DoesNotFit`] hands back the payload alone); the host section keeps its size ([`crate::replace`]) |
//!
//! Paths survive re-exploring the result wherever the structure stays the same, which is what
//! lets the web page mark edited nodes and keep its selection.

use crate::codec::Method;
use crate::error::Error;
use crate::format::archive::ar::{self, NewMember};
use crate::format::bundle::binary::{self, Bundle, BundleEntry};
use crate::format::bundle::compressed::{self, CompressedBundle};
use crate::format::bundle::text::{self, TextBundle, TextEntry};
use crate::format::offload_binary::{self, ImageKind, OffloadBinary, OffloadEntry, OffloadKind};
use crate::ids::{EntryId, TargetId, Triple};
use crate::replace;
use crate::tree::{Node, NodeKind, Severity, Span, Tree, Value};
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

mod drop_targets;
mod nv_fatbin;

pub use drop_targets::{drop_targets, names_target, Dropped};

/// Child indices from the root of a [`Tree`] to a node.
pub type NodePath = Vec<usize>;

/// One change to a file.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Edit {
    /// A bundle entry's ID (binary or text bundle).
    SetEntryId {
        node: NodePath,
        id: String,
    },
    /// An offload entry's string: `Some` sets or adds the key, `None` removes it.
    SetString {
        node: NodePath,
        key: String,
        value: Option<String>,
    },
    SetImageKind {
        node: NodePath,
        kind: u16,
    },
    SetOffloadKind {
        node: NodePath,
        kind: u16,
    },
    SetFlags {
        node: NodePath,
        flags: u32,
    },
    /// Removes a bundle entry or an offload entry (a version 1 offload binary goes as a whole).
    RemoveEntry {
        node: NodePath,
    },
    /// Moves a bundle entry or an offload entry to position `to` among its container's entries.
    MoveEntry {
        node: NodePath,
        to: usize,
    },
    /// Adds an entry at the end of a bundle, a text bundle or an offload binary; for a version 1
    /// offload binary, a new version 1 binary after the last one in its section or file.
    AddEntry {
        container: NodePath,
        entry: NewEntry,
    },
    /// Puts `data` in place of a node's bytes: an image, an entry, a member, a whole container.
    ReplaceContent {
        node: NodePath,
        #[cfg_attr(feature = "serde", serde(with = "serde_bytes"))]
        data: Vec<u8>,
    },
    /// Compresses a bundle into a compressed bundle, or compresses a compressed bundle again
    /// with another method, level or format version.
    Compress {
        node: NodePath,
        method: Method,
        level: Option<i32>,
        version: u16,
    },
    /// Replaces a compressed bundle by the bundle it holds.
    Decompress {
        node: NodePath,
    },
    /// Removes every image of the named targets everywhere in the file (see [`drop_targets`]:
    /// a target name, an entry ID, or an AMD processor for all its feature variants).
    DropTargets {
        targets: Vec<String>,
    },
    /// Writes an offload binary of version 2 or 3 (one binary, several entries, perhaps
    /// compressed) as version 1 binaries back to back, one per entry: what LLVM 22 and earlier
    /// read.
    OffloadBinaryToV1 {
        node: NodePath,
    },
}

/// An entry to add. Bundles use `id`; offload binaries use the rest.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NewEntry {
    pub id: String,
    pub strings: Vec<(String, String)>,
    pub image_kind: u16,
    pub offload_kind: u16,
    pub flags: u32,
    #[cfg_attr(feature = "serde", serde(with = "serde_bytes"))]
    pub data: Vec<u8>,
}

/// The file after an edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edited {
    pub bytes: Vec<u8>,
    /// The node to mark as edited in the new file's tree (the same path as the edited node
    /// when it still exists, otherwise its container).
    pub mark: NodePath,
    /// What a user should know about how the file was written.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditError {
    /// The edit cannot be made.
    Invalid(String),
    /// The new container does not fit where the old one was in a linked file; `payload` is
    /// the new container alone, which can still be saved on its own.
    DoesNotFit { message: String, payload: Vec<u8>, payload_kind: NodeKind },
}

impl core::fmt::Display for EditError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EditError::Invalid(m) | EditError::DoesNotFit { message: m, .. } => f.write_str(m),
        }
    }
}

impl From<Error> for EditError {
    fn from(e: Error) -> Self {
        EditError::Invalid(e.to_string())
    }
}

type EditResult<T> = core::result::Result<T, EditError>;

fn invalid<T>(message: impl Into<String>) -> EditResult<T> {
    Err(EditError::Invalid(message.into()))
}

/// Applies `edit` to `input`, whose tree is `tree` (explored with decompressed spaces kept in
/// full wherever the edit reaches into them).
pub fn apply(input: &[u8], tree: &Tree, edit: &Edit) -> EditResult<Edited> {
    let cx = Context { input, tree };
    let (path, change) = match edit {
        Edit::SetEntryId { node, id } => (node, cx.set_entry_id(node, id)?),
        Edit::SetString { node, key, value } => {
            (node, cx.edit_offload_entry(node, |e| set_string(e, key, value.as_deref()))?)
        }
        Edit::SetImageKind { node, kind } => (node, cx.edit_offload_entry(node, |e| set_image_kind(e, *kind))?),
        Edit::SetOffloadKind { node, kind } => (node, cx.edit_offload_entry(node, |e| set_offload_kind(e, *kind))?),
        Edit::SetFlags { node, flags } => (
            node,
            cx.edit_offload_entry(node, |e| {
                e.flags = *flags;
                Ok(())
            })?,
        ),
        Edit::RemoveEntry { node } => (node, cx.remove_entry(node)?),
        Edit::MoveEntry { node, to } => (node, cx.move_entry(node, *to)?),
        Edit::AddEntry { container, entry } => (container, cx.add_entry(container, entry)?),
        Edit::ReplaceContent { node, data } => (node, cx.replace_content(node, data)?),
        Edit::Compress { node, method, level, version } => (node, cx.compress(node, *method, *level, *version)?),
        Edit::Decompress { node } => (node, cx.decompress(node)?),
        Edit::OffloadBinaryToV1 { node } => (node, cx.offload_binary_to_v1(node)?),
        // Several removals, each explored again: not one change to one container.
        Edit::DropTargets { targets } => return drop_targets_edit(input, tree, targets),
    };
    let chain = cx.chain(&change.container)?;
    let mut notes = change.notes;
    let bytes = cx.put_back(&chain, change.bytes, &mut notes)?;
    let mark = if change.keeps_node { path.clone() } else { change.container };
    Ok(Edited { bytes, mark, notes })
}

/// [`Edit::DropTargets`]: the file without the named targets, with a note of what went. The
/// file's name (for re-exploring between removals) is its tree's first space's.
fn drop_targets_edit(input: &[u8], tree: &Tree, targets: &[String]) -> EditResult<Edited> {
    let name = tree.spaces.first().map_or("", |s| s.label.as_str());
    let dropped = drop_targets(input, name, targets, &crate::explore::Options::default())?;
    let mut notes = alloc::vec![format!(
        "removed {} image{} of {}: {}",
        dropped.removed.len(),
        if dropped.removed.len() == 1 { "" } else { "s" },
        targets.join(", "),
        dropped.removed.join(", ")
    )];
    notes.extend(dropped.notes);
    Ok(Edited { bytes: dropped.bytes, mark: NodePath::new(), notes })
}

/// The ID clang-offload-bundler 22 writes for `id`, with its target ID in canonical form
/// (features sorted): what the page offers as the one-click fix. `None` when `id` cannot be
/// split into an entry ID at all.
pub fn canonical_entry_id(id: &str) -> Option<String> {
    let parsed = EntryId::parse(id).ok()?;
    let standard = parsed.standardized();
    match parsed.parsed_target_id() {
        Some(Ok(target)) => {
            let prefix = standard.strip_suffix(parsed.target_id().unwrap_or(""))?;
            Some(format!("{prefix}{}", target.canonical()))
        }
        _ => Some(standard),
    }
}

/// Why `id` cannot be written as a bundle entry ID, or `None` when it can: the rules the
/// bundler applies when it reads the ID back (see [`crate::ids::entry_id_diagnostics`]
/// for the warnings shown beside an ID).
pub fn entry_id_problem(id: &str) -> Option<String> {
    if id.is_empty() {
        return Some("an entry ID cannot be empty".into());
    }
    if id.bytes().any(|b| b == 0 || b == b'\n') {
        return Some("an entry ID cannot hold a NUL byte or a line break".into());
    }
    let parsed = match EntryId::parse(id) {
        Ok(p) => p,
        Err(e) => return Some(format!("'{id}' is not an entry ID: expected {}, found {}", e.expected, e.found)),
    };
    if !parsed.kind_is_valid() {
        return Some(format!(
            "'{}' is not an offload kind the bundler accepts: expected one of {}",
            parsed.kind,
            crate::ids::OFFLOAD_KINDS.join(", ")
        ));
    }
    if !parsed.triple_is_valid() {
        return Some(format!("'{}' is not a target triple LLVM knows", parsed.triple_text()));
    }
    match parsed.parsed_target_id() {
        Some(Err(e)) => Some(format!("the target ID is malformed: expected {}, found {}", e.expected, e.found)),
        _ => None,
    }
}

/// Why `value` cannot be the offload entry string `key`, or `None` when it can. `triple` must
/// be a triple LLVM knows and `arch` a processor or target ID (`gfx90a:xnack+`, `sm_90`).
pub fn string_problem(key: &str, value: &str) -> Option<String> {
    if key.is_empty() {
        return Some("a key cannot be empty".into());
    }
    if key.contains('\0') || value.contains('\0') {
        return Some("keys and values are NUL-terminated strings: they cannot hold a NUL byte".into());
    }
    match key {
        "triple" if !Triple::parse(value).is_valid() => {
            Some(format!("'{value}' is not a target triple LLVM knows (expected <arch>-<vendor>-<os>[-<environment>], such as amdgcn-amd-amdhsa)"))
        }
        "arch" if value.is_empty() => Some("the arch cannot be empty".into()),
        "arch" => match TargetId::parse(value) {
            Err(e) => Some(format!("'{value}' is not a processor or target ID: expected {}, found {}", e.expected, e.found)),
            Ok(_) => None,
        },
        _ => None,
    }
}

fn set_string(entry: &mut OffloadEntry, key: &str, value: Option<&str>) -> EditResult<()> {
    match value {
        Some(value) => {
            if let Some(problem) = string_problem(key, value) {
                return invalid(problem);
            }
            entry.set(key, value);
        }
        None => {
            if entry.remove(key).is_none() {
                return invalid(format!("the entry has no string '{key}' to remove"));
            }
        }
    }
    Ok(())
}

fn set_image_kind(entry: &mut OffloadEntry, kind: u16) -> EditResult<()> {
    if !ImageKind(kind).is_known() {
        return invalid(format!("image kind {kind} is not one LLVM defines (0 to 6)"));
    }
    entry.image_kind = ImageKind(kind);
    Ok(())
}

fn set_offload_kind(entry: &mut OffloadEntry, kind: u16) -> EditResult<()> {
    // LLVM 22 writes bit flags (OpenMP 1, CUDA 2, HIP 4, SYCL 8); older LLVM wrote 3 for HIP.
    if kind == 0 || kind > 0xf {
        return invalid(format!(
            "offload kind {kind} is not one LLVM writes (bit flags: OpenMP 1, CUDA 2, HIP 4, SYCL 8)"
        ));
    }
    entry.offload_kind = OffloadKind(kind);
    Ok(())
}

/// New bytes for one container.
struct Change {
    /// Path of the container the bytes replace.
    container: NodePath,
    bytes: Vec<u8>,
    notes: Vec<String>,
    /// Whether the edited node is still at its path (false when it was removed or moved).
    keeps_node: bool,
}

impl Change {
    fn new(container: &[usize], bytes: Vec<u8>) -> Change {
        Change { container: container.to_vec(), bytes, notes: Vec::new(), keeps_node: true }
    }
}

struct Context<'a> {
    input: &'a [u8],
    tree: &'a Tree,
}

/// Nodes that are containers with their own layout; every other node is a part of one. An
/// archive member holding an object file is the host of that object's sections.
fn is_container(node: &Node) -> bool {
    is_host(node)
        || matches!(
            node.kind,
            NodeKind::File
                | NodeKind::Section
                | NodeKind::OffloadBinary
                | NodeKind::Bundle
                | NodeKind::TextBundle
                | NodeKind::CompressedBundle
                | NodeKind::Archive
                | NodeKind::Fatbin
        )
}

/// The bytes a node stands for: an archive member's data (its node also spans its header).
fn content_span(node: &Node) -> Span {
    match node.kind {
        NodeKind::ArchiveMember => {
            node.fields.iter().find(|f| f.name == "data_offset").and_then(|f| f.span).unwrap_or(node.span)
        }
        _ => node.span,
    }
}

fn is_host(node: &Node) -> bool {
    matches!(node.kind, NodeKind::File | NodeKind::ArchiveMember)
        && node.children.iter().any(|c| c.kind == NodeKind::Section)
}

impl<'a> Context<'a> {
    /// The nodes from the root to `path`.
    fn chain(&self, path: &[usize]) -> EditResult<Vec<&'a Node>> {
        let mut node = &self.tree.root;
        let mut chain = vec![node];
        for (depth, &i) in path.iter().enumerate() {
            node = match node.children.get(i) {
                Some(n) => n,
                None => {
                    return invalid(format!(
                        "there is no node at {path:?} (level {depth} has {} children)",
                        node.children.len()
                    ))
                }
            };
            chain.push(node);
        }
        Ok(chain)
    }

    fn node(&self, path: &[usize]) -> EditResult<&'a Node> {
        Ok(self.chain(path)?.pop().unwrap_or(&self.tree.root))
    }

    /// The bytes of `node`, which must be all there (a large compressed bundle explored only
    /// by its header has none).
    fn bytes_of(&self, node: &Node) -> EditResult<&'a [u8]> {
        match self.tree.bytes(self.input, content_span(node)) {
            Some(b) => Ok(b),
            None => invalid(format!(
                "the bytes of '{}' are not at hand: it lies in a compressed bundle that was only listed; raise the full-decompression limit or turn on 'verify all' in Settings and open the file again",
                node.label
            )),
        }
    }

    /// The container holding the node at `path`, its path, and the node's index among the
    /// container's entries of `kind`.
    fn entry_in_container(&self, path: &[usize], kind: NodeKind) -> EditResult<(NodePath, &'a Node, usize)> {
        let chain = self.chain(path)?;
        let node = chain[chain.len() - 1];
        if node.kind != kind || path.is_empty() {
            return invalid(format!(
                "expected a {} node, found '{}' ({})",
                kind.as_str(),
                node.label,
                node.kind.as_str()
            ));
        }
        let parent = chain[chain.len() - 2];
        let own = path[path.len() - 1];
        let index = parent.children[..own].iter().filter(|c| c.kind == kind).count();
        Ok((path[..path.len() - 1].to_vec(), parent, index))
    }

    fn set_entry_id(&self, path: &[usize], id: &str) -> EditResult<Change> {
        if let Some(problem) = entry_id_problem(id) {
            return invalid(problem);
        }
        let (container, parent, index) = self.entry_in_container(path, NodeKind::BundleEntry)?;
        let bytes = self.bytes_of(parent)?;
        let rewritten = match parent.kind {
            NodeKind::TextBundle => edit_text_bundle(bytes, |b| {
                if b.entries.iter().enumerate().any(|(i, e)| i != index && e.id == id) {
                    return invalid(format!("another entry already has the ID '{id}'"));
                }
                let entry = &mut b.entries[index];
                entry.id = id.to_string();
                entry.end_id = None;
                Ok(())
            })?,
            _ => edit_bundle(bytes, &parent.label, |b| {
                if b.entries.iter().enumerate().any(|(i, e)| i != index && e.id == id) {
                    return invalid(format!("another entry already has the ID '{id}'"));
                }
                b.entries[index].id = id.to_string();
                b.entries[index].raw_id = None;
                Ok(())
            })?,
        };
        Ok(Change::new(&container, rewritten))
    }

    fn edit_offload_entry(
        &self,
        path: &[usize],
        change: impl FnOnce(&mut OffloadEntry) -> EditResult<()>,
    ) -> EditResult<Change> {
        let (container, parent, index) = self.entry_in_container(path, NodeKind::OffloadEntry)?;
        let bytes = edit_offload_binary(self.bytes_of(parent)?, |b| change(&mut b.entries[index]))?;
        Ok(Change::new(&container, bytes))
    }

    fn remove_entry(&self, path: &[usize]) -> EditResult<Change> {
        let node = self.node(path)?;
        let mut change = match node.kind {
            NodeKind::BundleEntry => {
                let (container, parent, index) = self.entry_in_container(path, NodeKind::BundleEntry)?;
                let bytes = self.bytes_of(parent)?;
                let rewritten = match parent.kind {
                    NodeKind::TextBundle => edit_text_bundle(bytes, |b| {
                        b.entries.remove(index);
                        Ok(())
                    })?,
                    _ => edit_bundle(bytes, &parent.label, |b| {
                        b.entries.remove(index);
                        Ok(())
                    })?,
                };
                Change::new(&container, rewritten)
            }
            NodeKind::OffloadEntry => {
                let (container, parent, index) = self.entry_in_container(path, NodeKind::OffloadEntry)?;
                let binary = offload_binary::parse(self.bytes_of(parent)?)?;
                if binary.version == 1 || binary.entries.len() == 1 {
                    return self.remove_binary(&container);
                }
                Change::new(
                    &container,
                    edit_offload_binary(self.bytes_of(parent)?, |b| {
                        b.entries.remove(index);
                        Ok(())
                    })?,
                )
            }
            NodeKind::OffloadBinary => return self.remove_binary(path),
            NodeKind::FatbinEntry => return self.remove_fatbin_entry(path),
            other => {
                return invalid(format!(
                    "only bundle entries, offload entries and fatbin entries can be removed, not a {} node",
                    other.as_str()
                ))
            }
        };
        change.keeps_node = false;
        Ok(change)
    }

    /// Removes a whole offload binary from the section or file it is in, with the padding up
    /// to the next one.
    fn remove_binary(&self, path: &[usize]) -> EditResult<Change> {
        let (parent_path, own) = path.split_at(path.len().saturating_sub(1));
        let parent = self.node(parent_path)?;
        let own = own.first().copied().unwrap_or(0);
        let region = self.region(parent)?;
        let range = region.slot_of_child(own);
        let bytes = region.rebuild(None, range)?;
        let mut change = Change::new(parent_path, bytes);
        change.keeps_node = false;
        Ok(change)
    }

    fn move_entry(&self, path: &[usize], to: usize) -> EditResult<Change> {
        let node = self.node(path)?;
        let kind = node.kind;
        if !matches!(kind, NodeKind::BundleEntry | NodeKind::OffloadEntry) {
            return invalid(format!(
                "only bundle entries and offload entries can be moved, not a {} node",
                kind.as_str()
            ));
        }
        let (container, parent, index) = self.entry_in_container(path, kind)?;
        let bytes = self.bytes_of(parent)?;
        let reorder = |len: usize| -> EditResult<()> {
            if to >= len {
                return invalid(format!("position {to} is past the last of the {len} entries"));
            }
            Ok(())
        };
        let rewritten = match parent.kind {
            NodeKind::TextBundle => edit_text_bundle(bytes, |b| {
                reorder(b.entries.len())?;
                let e = b.entries.remove(index);
                b.entries.insert(to, e);
                Ok(())
            })?,
            NodeKind::Bundle => edit_bundle(bytes, &parent.label, |b| {
                reorder(b.entries.len())?;
                let e = b.entries.remove(index);
                b.entries.insert(to, e);
                Ok(())
            })?,
            _ => {
                let binary = offload_binary::parse(bytes)?;
                if binary.version == 1 {
                    return self.move_binary(&container, to);
                }
                edit_offload_binary(bytes, |b| {
                    reorder(b.entries.len())?;
                    let e = b.entries.remove(index);
                    b.entries.insert(to, e);
                    Ok(())
                })?
            }
        };
        let mut change = Change::new(&container, rewritten);
        change.keeps_node = index == to;
        Ok(change)
    }

    /// Moves a version 1 offload binary among the binaries of its section or file.
    fn move_binary(&self, path: &[usize], to: usize) -> EditResult<Change> {
        let (parent_path, own) = path.split_at(path.len().saturating_sub(1));
        let own = own.first().copied().unwrap_or(0);
        let parent = self.node(parent_path)?;
        let region = self.region(parent)?;
        let binaries: Vec<usize> = region.containers.iter().map(|(i, _, _)| *i).collect();
        let from = binaries.iter().position(|&i| i == own).unwrap_or(0);
        if to >= binaries.len() {
            return invalid(format!("position {to} is past the last of the {} offload binaries", binaries.len()));
        }
        if region.fixed {
            return invalid("containers in a linked file keep their addresses: they cannot be reordered");
        }
        let mut order: Vec<usize> = (0..binaries.len()).collect();
        let moved = order.remove(from);
        order.insert(to, moved);
        let first = region.slot_of(0).start;
        let last = region.slot_of(binaries.len() - 1).end;
        let mut out = region.bytes[..first].to_vec();
        for &k in &order {
            out.extend_from_slice(&region.bytes[region.slot_of(k)]);
        }
        out.extend_from_slice(&region.bytes[last..]);
        let mut change = Change::new(parent_path, out);
        change.keeps_node = false;
        Ok(change)
    }

    fn add_entry(&self, path: &[usize], entry: &NewEntry) -> EditResult<Change> {
        let node = self.node(path)?;
        let bytes = self.bytes_of(node)?;
        let rewritten = match node.kind {
            NodeKind::Bundle | NodeKind::TextBundle => {
                if let Some(problem) = entry_id_problem(&entry.id) {
                    return invalid(problem);
                }
                if node.kind == NodeKind::TextBundle {
                    edit_text_bundle(bytes, |b| {
                        if b.entries.iter().any(|e| e.id == entry.id) {
                            return invalid(format!("the bundle already has an entry '{}'", entry.id));
                        }
                        b.entries.push(TextEntry {
                            id: entry.id.clone(),
                            data: Cow::Owned(entry.data.clone()),
                            before: Cow::Borrowed(&[]),
                            end_id: None,
                        });
                        Ok(())
                    })?
                } else {
                    edit_bundle(bytes, &node.label, |b| {
                        if b.entries.iter().any(|e| e.id == entry.id) {
                            return invalid(format!("the bundle already has an entry '{}'", entry.id));
                        }
                        b.entries.push(BundleEntry {
                            id: entry.id.clone(),
                            offset: 0,
                            data: Cow::Owned(entry.data.clone()),
                            raw_id: None,
                        });
                        Ok(())
                    })?
                }
            }
            NodeKind::OffloadBinary => {
                let new = new_offload_entry(entry)?;
                let binary = offload_binary::parse(bytes)?;
                if binary.version == 1 {
                    return self.add_binary(&path[..path.len().saturating_sub(1)], new);
                }
                edit_offload_binary(bytes, |b| {
                    b.entries.push(new);
                    Ok(())
                })?
            }
            NodeKind::Section | NodeKind::File => return self.add_binary(path, new_offload_entry(entry)?),
            other => {
                return invalid(format!(
                    "entries are added to bundles, offload binaries and offload sections, not to a {} node",
                    other.as_str()
                ))
            }
        };
        let mut change = Change::new(path, rewritten);
        change.keeps_node = true;
        Ok(change)
    }

    /// Appends a version 1 offload binary holding `entry` to a section or file of offload
    /// binaries.
    fn add_binary(&self, path: &[usize], entry: OffloadEntry<'_>) -> EditResult<Change> {
        let node = self.node(path)?;
        let region = self.region(node)?;
        if region.containers.iter().any(|(_, _, kind)| *kind != NodeKind::OffloadBinary) {
            return invalid(format!(
                "'{}' holds containers other than offload binaries: an offload binary is not added there",
                node.label
            ));
        }
        let binary = OffloadBinary::v1(entry).write_canonical()?;
        let end = region.containers.last().map_or(0, |(i, _, _)| region.slot_of_child(*i).end);
        let mut out = region.bytes[..end].to_vec();
        out.resize(out.len().next_multiple_of(8), 0);
        out.extend_from_slice(&binary);
        let tail = &region.bytes[end..];
        if region.fixed && tail.iter().any(|&b| b != 0) {
            return invalid("a linked file's section has no room after its last container for another offload binary");
        }
        if region.fixed {
            if out.len() > region.bytes.len() {
                return Err(EditError::DoesNotFit {
                    message: format!(
                        "the new offload binary ({} bytes) does not fit in the linked file's section: {} bytes over",
                        binary.len(),
                        out.len() - region.bytes.len()
                    ),
                    payload: binary,
                    payload_kind: NodeKind::OffloadBinary,
                });
            }
            out.resize(region.bytes.len(), 0);
        } else {
            out.extend_from_slice(tail);
        }
        Ok(Change::new(path, out))
    }

    fn replace_content(&self, path: &[usize], data: &[u8]) -> EditResult<Change> {
        let node = self.node(path)?;
        // A fatbin entry's image (in place, or in its decompressed payload) is stored again the
        // way the entry stored it.
        if node.kind != NodeKind::Fatbin {
            if let Some(entry) = self.enclosing_fatbin_entry(path) {
                return self.replace_fatbin_image(&entry, data);
            }
        }
        // An offload entry's record is not its image: the image is its child.
        if node.kind == NodeKind::OffloadEntry {
            let image = node.children.iter().position(|c| c.kind == NodeKind::Image);
            return match image {
                Some(i) => {
                    let mut child = path.to_vec();
                    child.push(i);
                    self.replace_content(&child, data)
                }
                None => invalid("the offload entry has no image to replace"),
            };
        }
        if path.is_empty() {
            return Ok(Change::new(path, data.to_vec()));
        }
        let chain = self.chain(path)?;
        // The innermost container above the node takes the new bytes at the node's place.
        let Some(at) = chain[..chain.len() - 1].iter().rposition(|n| is_container(n)) else {
            return invalid("nothing holds this node");
        };
        let container_path = &path[..at];
        let bytes = self.put_into(chain[at], node, data)?;
        Ok(Change::new(container_path, bytes))
    }

    /// An offload binary of version 2 or 3 as version 1 binaries, one per entry, in order.
    fn offload_binary_to_v1(&self, path: &[usize]) -> EditResult<Change> {
        let node = self.node(path)?;
        if node.kind != NodeKind::OffloadBinary {
            return invalid(format!("expected an offload binary, found '{}' ({})", node.label, node.kind.as_str()));
        }
        let binary = offload_binary::parse(self.bytes_of(node)?)?;
        if binary.version == 1 {
            return invalid("the offload binary is version 1 already");
        }
        let bytes = offload_binary::write_v1_sequence(&binary.entries)?;
        let mut change = Change::new(path, bytes);
        change.notes.push(format!(
            "offload binary version {} with {} entr{} written as {} version 1 binar{} (what LLVM 22 and earlier read)",
            binary.version,
            binary.entries.len(),
            if binary.entries.len() == 1 { "y" } else { "ies" },
            binary.entries.len(),
            if binary.entries.len() == 1 { "y" } else { "ies" },
        ));
        Ok(change)
    }

    fn compress(&self, path: &[usize], method: Method, level: Option<i32>, version: u16) -> EditResult<Change> {
        let node = self.node(path)?;
        if node.kind == NodeKind::FatbinEntry {
            return self.compress_fatbin_entry(path, method);
        }
        let bundle_bytes = match node.kind {
            NodeKind::Bundle => {
                let bytes = self.bytes_of(node)?;
                if !binary::is_bundle(bytes) {
                    return invalid("the entries of a bundled object are sections of the object: they are not compressed as a bundle");
                }
                bytes.to_vec()
            }
            NodeKind::CompressedBundle => self.decompressed(node)?,
            other => {
                return invalid(format!(
                    "only bundles and compressed bundles are compressed, not a {} node",
                    other.as_str()
                ))
            }
        };
        let mut change = Change::new(path, compressed::compress(&bundle_bytes, method, level, version)?);
        change.notes.push(format!(
            "compressed with {} level {}, format version {version}",
            method.name(),
            level.unwrap_or_else(|| method.default_level())
        ));
        Ok(change)
    }

    fn decompress(&self, path: &[usize]) -> EditResult<Change> {
        let node = self.node(path)?;
        if node.kind == NodeKind::FatbinEntry {
            return self.recompress_fatbin_entry(path, crate::format::nv_fatbin::Compression::None);
        }
        if node.kind != NodeKind::CompressedBundle {
            return invalid(format!(
                "only compressed bundles and fatbin entries are decompressed, not a {} node",
                node.kind.as_str()
            ));
        }
        Ok(Change::new(path, self.decompressed(node)?))
    }

    /// The bundle a compressed bundle holds, hash checked.
    fn decompressed(&self, node: &Node) -> EditResult<Vec<u8>> {
        let bytes = self.bytes_of(node)?;
        let cb = CompressedBundle::parse(bytes)?;
        let bundle = cb.decompress(u64::MAX)?;
        let computed = crate::codec::truncated_md5(&bundle);
        if computed != cb.header.hash {
            return Err(compressed::hash_mismatch(&cb.header, computed).into());
        }
        Ok(bundle)
    }

    /// Puts `new` (the new bytes of `target`, a node inside `container`) into `container`'s
    /// bytes.
    fn put_into(&self, container: &'a Node, target: &Node, new: &[u8]) -> EditResult<Vec<u8>> {
        if target.span.space != container.span.space {
            // Only a compressed bundle opens a new byte space: the new bytes go into its
            // decompressed bundle, which is compressed again.
            if container.kind != NodeKind::CompressedBundle {
                return invalid(format!("'{}' keeps its contents compressed: they are not rewritten", container.label));
            }
            let space = self.tree.spaces.get(target.span.space as usize).and_then(|s| s.data.as_deref()).unwrap_or(&[]);
            let full = self.tree.spaces.get(target.span.space as usize).map_or(0, |s| s.size);
            if space.len() as u64 != full {
                return invalid("the decompressed bundle is not at hand in full: turn on 'verify all' in Settings and open the file again");
            }
            let inner = splice(space, range_of(target.span.offset, target.span.size), new);
            let cb = CompressedBundle::parse(self.bytes_of(container)?)?;
            return Ok(compressed::compress(&inner, cb.header.method, None, cb.header.version)?);
        }
        let bytes = self.bytes_of(container)?;
        let target_span = content_span(target);
        let at = within(
            range_of(target_span.offset.saturating_sub(content_span(container).offset), target_span.size),
            bytes.len(),
        );
        match container.kind {
            NodeKind::Bundle => edit_bundle(bytes, &container.label, |b| {
                let (i, local) = entry_holding(b.entries.iter().map(|e| (e.offset, e.data.len() as u64)), &at)?;
                b.entries[i].data = Cow::Owned(splice(&b.entries[i].data, local, new));
                Ok(())
            }),
            NodeKind::TextBundle => {
                let comment = text::detect_comment(bytes).unwrap_or_default();
                let (_, layouts) = TextBundle::parse(bytes, &comment)?;
                edit_text_bundle(bytes, |b| {
                    let (i, local) = entry_holding(layouts.iter().map(|l| (l.content.0, l.content.1 - l.content.0)), &at)?;
                    b.entries[i].data = Cow::Owned(splice(&b.entries[i].data, local, new));
                    Ok(())
                })
            }
            NodeKind::OffloadBinary => {
                let parsed = offload_binary::parse(bytes)?;
                let layout = parsed.layout().ok_or_else(|| EditError::Invalid("the offload binary has no layout".into()))?;
                if layout.compressed.is_some() {
                    return invalid("the images of a compressed offload binary (version 3) are not rewritten");
                }
                let images: Vec<(u64, u64)> = layout.entries.iter().map(|e| (e.raw.image_offset, e.raw.image_size)).collect();
                edit_offload_binary(bytes, |b| {
                    let (i, local) = entry_holding(images.into_iter(), &at)?;
                    let image = splice(&b.entries[i].image, local, new);
                    b.entries[i].image = Cow::Owned(image);
                    Ok(())
                })
            }
            NodeKind::Archive => self.put_into_archive(bytes, &at, new),
            NodeKind::Section | NodeKind::File => {
                let region = self.region(container)?;
                region.rebuild(Some(new), at)
            }
            NodeKind::CompressedBundle => invalid("a compressed bundle's header and payload are rewritten by compressing its bundle again: edit the bundle inside it"),
            other => invalid(format!("a {} node is not a container", other.as_str())),
        }
    }

    fn put_into_archive(&self, bytes: &[u8], at: &Range<usize>, new: &[u8]) -> EditResult<Vec<u8>> {
        let ar = ar::read(bytes)?.complete()?;
        if ar.thin {
            return invalid("a thin archive's members are other files: they are not rewritten");
        }
        if !ar.members.iter().any(|m| m.data_offset as usize <= at.start && at.end as u64 <= m.data_offset + m.size) {
            return invalid(format!("no member of the archive holds bytes {}..{}", at.start, at.end));
        }
        let members: Vec<(String, Vec<u8>)> = ar
            .members
            .iter()
            .map(|m| {
                let range = range_of(m.data_offset, m.size);
                let data = bytes.get(range.clone()).unwrap_or(&[]);
                let data = if range.start <= at.start && at.end <= range.end {
                    splice(data, at.start - range.start..at.end - range.start, new)
                } else {
                    data.to_vec()
                };
                (m.name.clone(), data)
            })
            .collect();
        let new_members: Vec<NewMember> =
            members.iter().map(|(name, data)| NewMember { name: name.clone(), data }).collect();
        Ok(ar::write_gnu(&new_members)?)
    }

    /// The offload containers laid out one after another in a section or a raw file.
    fn region(&self, node: &'a Node) -> EditResult<Region<'a>> {
        if !matches!(node.kind, NodeKind::Section | NodeKind::File) {
            return invalid(format!("expected a section or a file, found a {} node", node.kind.as_str()));
        }
        if node.kind == NodeKind::File && node.children.iter().any(|c| c.kind == NodeKind::Section) {
            return invalid("the containers of a host file are in its sections");
        }
        let bytes = self.bytes_of(node)?;
        let containers = node
            .children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.span.space == node.span.space && is_container(c))
            .map(|(i, c)| {
                (i, within(range_of(c.span.offset.saturating_sub(node.span.offset), c.span.size), bytes.len()), c.kind)
            })
            .collect();
        let fixed = node.kind == NodeKind::Section && replace::keeps_section_size(self.host_of(node)?);
        Ok(Region { bytes, containers, fixed, label: node.label.clone() })
    }

    /// The bytes of the object file whose section `section` is: the file, or an archive member.
    fn host_of(&self, section: &Node) -> EditResult<&'a [u8]> {
        fn parent_of<'n>(n: &'n Node, child: &Node) -> Option<&'n Node> {
            if n.children.iter().any(|c| core::ptr::eq(c, child)) {
                return Some(n);
            }
            n.children.iter().find_map(|c| parent_of(c, child))
        }
        match parent_of(&self.tree.root, section) {
            Some(host) => self.bytes_of(host),
            None => invalid(format!("'{}' is in no object file", section.label)),
        }
    }

    /// Writes the file again with `new` as the bytes of the innermost node of `chain`, putting
    /// each new container into the one around it.
    fn put_back(&self, chain: &[&Node], mut new: Vec<u8>, notes: &mut Vec<String>) -> EditResult<Vec<u8>> {
        let mut level = chain.len() - 1;
        while level > 0 {
            let target = chain[level];
            let Some(at) = chain[..level].iter().rposition(|n| is_container(n)) else {
                break;
            };
            let container = chain[at];
            new = if target.kind == NodeKind::Section {
                self.put_into_host(self.bytes_of(container)?, target, &new, notes)?
            } else {
                if container.kind == NodeKind::Archive {
                    notes.push(
                        "the archive was written again in GNU format, without a symbol table (llvm-ranlib adds one)"
                            .into(),
                    );
                }
                self.put_into(container, target, &new).map_err(|e| name_payload(e, target.kind))?
            };
            level = at;
        }
        Ok(new)
    }

    fn put_into_host(
        &self,
        host: &[u8],
        section: &Node,
        payload: &[u8],
        notes: &mut Vec<String>,
    ) -> EditResult<Vec<u8>> {
        let name = section.text("name").unwrap_or("");
        match replace::replace_section(host, name, payload) {
            Ok(r) => {
                if r.in_place {
                    notes.push(format!(
                        "written in place in the linked file's section {} ({} bytes kept)",
                        r.section, r.old_size
                    ));
                } else {
                    notes.push(format!("section {} is now {} bytes (was {})", r.section, r.new_size, r.old_size));
                }
                Ok(r.bytes)
            }
            Err(e) => Err(EditError::Invalid(e.to_string())),
        }
    }
}

/// A "does not fit" says what its payload is: the kind of the container that did not fit.
fn name_payload(e: EditError, kind: NodeKind) -> EditError {
    match e {
        EditError::DoesNotFit { message, payload, payload_kind: NodeKind::Unknown } => {
            EditError::DoesNotFit { message, payload, payload_kind: kind }
        }
        other => other,
    }
}

/// The offload containers of a section or a raw file.
struct Region<'a> {
    bytes: &'a [u8],
    /// (child index, range in `bytes`, kind) of every container, in file order.
    containers: Vec<(usize, Range<usize>, NodeKind)>,
    /// In a linked file containers keep their offsets.
    fixed: bool,
    label: String,
}

impl Region<'_> {
    /// The bytes from the `k`th container to the next one (or its own end for the last).
    fn slot_of(&self, k: usize) -> Range<usize> {
        let start = self.containers[k].1.start;
        let end = self.containers.get(k + 1).map_or(self.containers[k].1.end, |(_, r, _)| r.start);
        start..end.max(start)
    }

    fn slot_of_child(&self, child: usize) -> Range<usize> {
        let k = self.containers.iter().position(|(i, _, _)| *i == child).unwrap_or(0);
        self.slot_of(k)
    }

    /// The region with `at` replaced by the new bytes of `replaced` (a child index and its
    /// bytes; none to remove `at`). Later containers move by a multiple of their alignment,
    /// or, in a linked file, stay where they are.
    fn rebuild(&self, replaced: Option<&[u8]>, at: Range<usize>) -> EditResult<Vec<u8>> {
        let new: &[u8] = replaced.unwrap_or(&[]);
        let next_container = self.containers.iter().find(|(_, r, _)| r.start >= at.end && r.start > at.start);
        let next = next_container.map(|(_, r, _)| r.start);
        if self.fixed {
            let room = next.unwrap_or(self.bytes.len()) - at.start;
            if replaced.is_none() && next.is_some() {
                return invalid("a container in the middle of a linked file's section is found by its address: it cannot be removed (remove the entries inside it instead)");
            }
            if new.len() > room {
                return Err(EditError::DoesNotFit {
                    message: format!(
                        "the new bytes ({}) do not fit in the {room} bytes this container has in the linked file's {}: {} bytes over. Addresses are fixed after linking; save the new container on its own instead",
                        new.len(),
                        self.label,
                        new.len() - room
                    ),
                    payload: new.to_vec(),
                    // Filled in by the caller, which knows what the bytes are.
                    payload_kind: NodeKind::Unknown,
                });
            }
            let mut out = self.bytes.to_vec();
            out[at.start..at.start + room].fill(0);
            out[at.start..at.start + new.len()].copy_from_slice(new);
            return Ok(out);
        }
        let mut out = self.bytes[..at.start].to_vec();
        out.extend_from_slice(new);
        if let Some((_, next_range, next_kind)) = next_container {
            let next = next_range.start;
            // Keep the next container at its alignment: pad the change to a multiple of it.
            // LLVM reads offload binaries back to back, each at the end of the one before
            // (its header's size, a multiple of 8), so there the step is 8 and no gap may
            // appear; bundles and compressed bundles (4096 apart in .hip_fatbin) keep the
            // alignment their offset has.
            let align = if *next_kind == NodeKind::OffloadBinary {
                offload_binary::ALIGNMENT as usize
            } else if *next_kind == NodeKind::Fatbin {
                // Fatbin containers follow one another at 8-byte steps, with no gap.
                8
            } else {
                alignment_of(next).min(4096)
            };
            let old_len = next - at.start;
            let mut padded = new.len();
            while (padded as i128 - old_len as i128).rem_euclid(align as i128) != 0 {
                padded += 1;
            }
            out.resize(at.start + padded, 0);
            out.extend_from_slice(&self.bytes[next..]);
        } else {
            out.extend_from_slice(&self.bytes[at.end..]);
        }
        Ok(out)
    }
}

/// The largest power of two dividing `offset` (4096 at most; 4096 for offset 0).
fn alignment_of(offset: usize) -> usize {
    if offset == 0 {
        4096
    } else {
        (1usize << offset.trailing_zeros()).min(4096)
    }
}

/// A span's range as indices; a span that cannot be indexed gives an empty range past any
/// buffer, which the slicing helpers below refuse or clamp.
fn range_of(offset: u64, size: u64) -> Range<usize> {
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    start..start.saturating_add(usize::try_from(size).unwrap_or(usize::MAX))
}

/// `r` cut to `0..len`.
fn within(r: Range<usize>, len: usize) -> Range<usize> {
    let start = r.start.min(len);
    start..r.end.clamp(start, len)
}

/// `data` with `at` replaced by `new`. Spans come from the explorer, which keeps them inside
/// their byte space; `at` is cut to `data` all the same, so that no input can make this panic.
fn splice(data: &[u8], at: Range<usize>, new: &[u8]) -> Vec<u8> {
    let at = within(at, data.len());
    let mut out = Vec::with_capacity(data.len() - at.len() + new.len());
    out.extend_from_slice(&data[..at.start]);
    out.extend_from_slice(new);
    out.extend_from_slice(&data[at.end..]);
    out
}

/// Which of the entries `(offset, size)` holds `at`, and `at` relative to that entry.
fn entry_holding(entries: impl Iterator<Item = (u64, u64)>, at: &Range<usize>) -> EditResult<(usize, Range<usize>)> {
    for (i, (offset, size)) in entries.enumerate() {
        let r = range_of(offset, size);
        if r.start <= at.start && at.end <= r.end {
            return Ok((i, at.start - r.start..at.end - r.start));
        }
    }
    invalid(format!("no entry holds bytes {}..{}", at.start, at.end))
}

/// Parses a bundle, lets `change` edit it, and writes it: in place when every entry keeps its
/// size and the header still fits before the first entry, otherwise laid out again at the
/// bundle's alignment.
fn edit_bundle(bytes: &[u8], label: &str, change: impl FnOnce(&mut Bundle) -> EditResult<()>) -> EditResult<Vec<u8>> {
    if !binary::is_bundle(bytes) {
        return invalid(format!(
            "'{label}' is a bundled object (one section per entry): its entries are rewritten with `offload bundle --type=o`, not in the page"
        ));
    }
    let mut b = Bundle::parse(bytes)?;
    let before: Vec<(String, u64, usize)> = b.entries.iter().map(|e| (e.id.clone(), e.offset, e.data.len())).collect();
    let align = bundle_alignment(&b);
    change(&mut b)?;
    let same_sizes = b.entries.len() == before.len()
        && b.entries.iter().zip(&before).all(|(e, (_, off, len))| e.offset == *off && e.data.len() == *len);
    let header_fits = b.entries.iter().filter(|e| !e.data.is_empty()).all(|e| e.offset >= b.header_size());
    if !(same_sizes && header_fits) {
        b.relayout(align)?;
    }
    Ok(b.write()?)
}

/// The alignment the bundler was given: the largest power of two (up to 4096) dividing every
/// non-empty entry's offset.
fn bundle_alignment(b: &Bundle) -> u64 {
    b.entries.iter().filter(|e| !e.data.is_empty()).map(|e| alignment_of(e.offset as usize) as u64).min().unwrap_or(1)
}

fn edit_text_bundle(bytes: &[u8], change: impl FnOnce(&mut TextBundle) -> EditResult<()>) -> EditResult<Vec<u8>> {
    let comment = text::detect_comment(bytes)
        .ok_or_else(|| EditError::Invalid("the text bundle's comment marker was not found".into()))?;
    let (mut b, _) = TextBundle::parse(bytes, &comment)?;
    change(&mut b)?;
    Ok(b.write())
}

fn edit_offload_binary(bytes: &[u8], change: impl FnOnce(&mut OffloadBinary) -> EditResult<()>) -> EditResult<Vec<u8>> {
    let mut b = offload_binary::parse(bytes)?;
    change(&mut b)?;
    if b.entries.is_empty() {
        return invalid("an offload binary needs at least one entry: remove the binary instead");
    }
    Ok(b.write()?)
}

fn new_offload_entry(entry: &NewEntry) -> EditResult<OffloadEntry<'static>> {
    let mut new = OffloadEntry::new(ImageKind(0), OffloadKind(1), entry.data.clone());
    set_image_kind(&mut new, entry.image_kind)?;
    set_offload_kind(&mut new, entry.offload_kind)?;
    new.flags = entry.flags;
    for (k, v) in &entry.strings {
        set_string(&mut new, k, Some(v))?;
    }
    if new.triple().is_none() || new.arch().is_none() {
        return invalid("a new offload entry needs a 'triple' and an 'arch'");
    }
    Ok(new)
}

/// Where a view's selection belongs in `after`, the file once `edit` (made on `before`, and
/// answered with `mark`) is applied: a moved entry at its new place, so that "Move down" twice
/// moves the same entry twice; an added entry; otherwise the edited node's path, which after a
/// removal holds the entry that took its place (the container's, `mark`, when none did).
pub fn selection_after(edit: &Edit, before: &Tree, after: &Tree, mark: &[usize]) -> NodePath {
    let followed = match edit {
        Edit::MoveEntry { node, to } => moved_to(before, after, node, *to),
        Edit::AddEntry { container, .. } => added_in(after, container),
        Edit::RemoveEntry { node }
        | Edit::SetEntryId { node, .. }
        | Edit::SetString { node, .. }
        | Edit::SetImageKind { node, .. }
        | Edit::SetOffloadKind { node, .. }
        | Edit::SetFlags { node, .. }
        | Edit::ReplaceContent { node, .. }
        | Edit::Compress { node, .. }
        | Edit::Decompress { node }
        | Edit::OffloadBinaryToV1 { node } => Some(node.clone()),
        // Images everywhere in the file went: the selection goes back to the file.
        Edit::DropTargets { .. } => None,
    };
    followed.filter(|p| after.node_at(p).is_some()).unwrap_or_else(|| mark.to_vec())
}

/// The child index of the `n`th child of `kind` under the node at `parent`.
fn nth_of_kind(tree: &Tree, parent: &[usize], kind: NodeKind, n: usize) -> Option<usize> {
    let children = &tree.node_at(parent)?.children;
    let mut of_kind = children.iter().enumerate().filter(|(_, c)| c.kind == kind);
    of_kind.nth(n).map(|(i, _)| i)
}

fn last_of_kind(tree: &Tree, parent: &[usize], kind: NodeKind) -> Option<usize> {
    let children = &tree.node_at(parent)?.children;
    children.iter().rposition(|c| c.kind == kind)
}

fn joined(path: &[usize], tail: &[usize]) -> NodePath {
    path.iter().chain(tail).copied().collect()
}

/// A version 1 offload binary holds one entry and moves, or is added, as a whole.
fn is_v1_binary(node: &Node) -> bool {
    node.kind == NodeKind::OffloadBinary && node.get("version") == Some(&Value::Uint(1))
}

fn moved_to(before: &Tree, after: &Tree, path: &[usize], to: usize) -> Option<NodePath> {
    let (&own, parent) = path.split_last()?;
    let node = before.node_at(path)?;
    if node.kind == NodeKind::OffloadEntry && is_v1_binary(before.node_at(parent)?) {
        let (_, section) = parent.split_last()?;
        let binary = nth_of_kind(after, section, NodeKind::OffloadBinary, to)?;
        return Some(joined(section, &[binary, own]));
    }
    Some(joined(parent, &[nth_of_kind(after, parent, node.kind, to)?]))
}

fn added_in(after: &Tree, container: &[usize]) -> Option<NodePath> {
    let node = after.node_at(container)?;
    let in_last_binary = |section: &[usize]| -> Option<NodePath> {
        let binary = last_of_kind(after, section, NodeKind::OffloadBinary)?;
        let inside = joined(section, &[binary]);
        let entry = last_of_kind(after, &inside, NodeKind::OffloadEntry)?;
        Some(joined(&inside, &[entry]))
    };
    match node.kind {
        NodeKind::Bundle | NodeKind::TextBundle => {
            Some(joined(container, &[last_of_kind(after, container, NodeKind::BundleEntry)?]))
        }
        NodeKind::OffloadBinary if is_v1_binary(node) => in_last_binary(container.split_last()?.1),
        NodeKind::OffloadBinary => Some(joined(container, &[last_of_kind(after, container, NodeKind::OffloadEntry)?])),
        _ => in_last_binary(container),
    }
}

/// Error messages in `after` that `before` did not have: an edit that adds one is refused.
pub fn new_errors(before: &Tree, after: &Tree) -> Vec<String> {
    new_diagnostics(before, after, Severity::Error)
}

/// Messages of `severity` in `after` that `before` did not have, each with its node's label.
/// New warnings do not refuse an edit (some follow from what the user asked, such as offload
/// kind 3 or an entry without a triple), but the page shows them with the edit's result.
pub fn new_diagnostics(before: &Tree, after: &Tree, severity: Severity) -> Vec<String> {
    let old: Vec<&str> = before.root.diagnostics_of(severity).into_iter().map(|(_, d)| d.message.as_str()).collect();
    after
        .root
        .diagnostics_of(severity)
        .into_iter()
        .filter(|(_, d)| !old.contains(&d.message.as_str()))
        .map(|(n, d)| format!("{}: {}", n.label, d.message))
        .collect()
}
