//! Edits of NVIDIA fatbin entries: remove an entry, decompress or compress one, or put new data
//! in one. Each rewrites the entry's container ([`Container::write_new`]); [`super::apply`] then
//! puts the container back into its section or file like any other container (in a linked
//! library the section keeps its size and later containers their addresses).
//!
//! The images of a concatenated entry (`nvcc --concat`) share one payload: that entry is
//! removed, decompressed or compressed as a whole.

use super::{invalid, Change, Context, EditError, EditResult, NodePath};
use crate::codec::Method;
use crate::format::nv_fatbin::{payload, Compression, Container, KIND_PTX};
use crate::tree::{Node, NodeKind};
use crate::util::bytes::human_size;
use alloc::format;
use alloc::vec::Vec;

/// Largest decompressed entry an edit reads back (the explorer's default limit).
const READ_BACK_LIMIT: u64 = 4 << 30;

impl<'a> Context<'a> {
    /// The container holding the fatbin entry at `path`: its path, its node and the entry's index.
    fn fatbin_entry(&self, path: &[usize]) -> EditResult<(NodePath, &'a Node, usize)> {
        let chain = self.chain(path)?;
        let node = chain[chain.len() - 1];
        if node.kind != NodeKind::FatbinEntry || path.is_empty() {
            return invalid(format!("expected a fatbin-entry node, found '{}' ({})", node.label, node.kind.as_str()));
        }
        let parent = chain[chain.len() - 2];
        if parent.kind != NodeKind::Fatbin {
            return invalid("the images of a concatenated entry (nvcc --concat) share one payload: remove, decompress or compress the concatenated entry as a whole");
        }
        let own = path[path.len() - 1];
        let index = parent.children[..own].iter().filter(|c| c.kind == NodeKind::FatbinEntry).count();
        Ok((path[..path.len() - 1].to_vec(), parent, index))
    }

    /// The container at `container`, changed by `change`, written and read back.
    fn edit_fatbin(
        &self,
        container: &Node,
        change: impl FnOnce(&mut Container) -> EditResult<()>,
    ) -> EditResult<Vec<u8>> {
        let bytes = self.bytes_of(container)?;
        let (mut c, _) = Container::parse(bytes)?;
        change(&mut c)?;
        let out = c.write_new()?;
        // Read back what was written: the container, and every entry's data.
        let (back, _) = Container::parse(&out)
            .map_err(|e| EditError::Invalid(format!("internal error: the new fatbin does not read back: {e}")))?;
        for e in &back.entries {
            payload::entry_data(e, READ_BACK_LIMIT).map_err(|err| {
                EditError::Invalid(format!("internal error: an entry of the new fatbin does not decompress: {err}"))
            })?;
        }
        Ok(out)
    }

    /// Removes a fatbin entry (a container left without entries stays, empty: in a linked
    /// library its address is registered with the CUDA runtime).
    pub(super) fn remove_fatbin_entry(&self, path: &[usize]) -> EditResult<Change> {
        let (container, node, index) = self.fatbin_entry(path)?;
        let label = self.node(path)?.label.clone();
        let bytes = self.edit_fatbin(node, |c| {
            c.entries.remove(index);
            Ok(())
        })?;
        let mut change = Change::new(&container, bytes);
        change.keeps_node = false;
        change.notes.push(format!("removed {label}"));
        Ok(change)
    }

    /// Stores a fatbin entry's data with `compression` (`None` decompresses it).
    pub(super) fn recompress_fatbin_entry(&self, path: &[usize], compression: Compression) -> EditResult<Change> {
        let (container, node, index) = self.fatbin_entry(path)?;
        let mut note = None;
        let bytes = self.edit_fatbin(node, |c| {
            let e = &c.entries[index];
            let data = payload::entry_data(e, READ_BACK_LIMIT)?;
            let before = e.stored().len() as u64;
            let new = e.with_data(&data, compression)?;
            note = Some(match compression {
                Compression::None => format!("decompressed: {} → {}", human_size(before), human_size(new.payload_size)),
                c => format!(
                    "compressed with {}: {} → {}",
                    c.name(),
                    human_size(before),
                    human_size(u64::from(new.compressed_size))
                ),
            });
            c.entries[index] = new;
            Ok(())
        })?;
        let mut change = Change::new(&container, bytes);
        change.notes.extend(note);
        Ok(change)
    }

    /// Compresses a fatbin entry: zstd, what nvcc 12.8 and later write (`--compress-mode=size`).
    pub(super) fn compress_fatbin_entry(&self, path: &[usize], method: Method) -> EditResult<Change> {
        if method != Method::Zstd {
            return invalid(format!(
                "fatbin entries are compressed with zstd (or LZ4, by older toolkits), not {}",
                method.name()
            ));
        }
        self.recompress_fatbin_entry(path, Compression::Zstd)
    }

    /// Puts `data` in as the image of the fatbin entry at `path`, stored as before (compressed
    /// with the same method, or plain). PTX gets the NUL nvcc ends it with.
    pub(super) fn replace_fatbin_image(&self, path: &[usize], data: &[u8]) -> EditResult<Change> {
        let (container, node, index) = self.fatbin_entry(path)?;
        let bytes = self.edit_fatbin(node, |c| {
            let e = &c.entries[index];
            let mut image = data.to_vec();
            if e.kind == KIND_PTX && image.last() != Some(&0) {
                image.push(0);
            }
            c.entries[index] = e.with_data(&image, e.compression())?;
            Ok(())
        })?;
        Ok(Change::new(&container, bytes))
    }

    /// The path of the fatbin entry a node at `path` is part of (itself, or its payload and
    /// image below it), when there is one.
    pub(super) fn enclosing_fatbin_entry(&self, path: &[usize]) -> Option<NodePath> {
        let chain = self.chain(path).ok()?;
        let at = chain.iter().rposition(|n| n.kind == NodeKind::FatbinEntry)?;
        Some(path[..at].to_vec())
    }
}
