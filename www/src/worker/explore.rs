//! Exploring a file: read through a cache of slices of its `Blob` (only what the explorer
//! needs is read, however large the file), explored by the core, flattened into the page's
//! document; the tree and the file are kept for what the page asks next.

use crate::wire::doc::Doc;
use crate::wire::messages::Report;
use crate::wire::settings::Settings;
use crate::worker::kept::{BlobReader, Explored};
use crate::worker::outbox::report;
use object::read::{ReadCache, ReadRef};
use offload::explore::explore;
use offload::tree::Span;
use std::cell::RefCell;
use web_sys::Blob;

/// Explores `file` within the limits of `settings` and returns the page's document, keeping
/// in `kept` what later requests need.
pub(crate) fn explore_file(name: &str, file: Blob, settings: &Settings, kept: &RefCell<Option<Explored>>) -> Doc {
    let started = js_sys::Date::now();
    report(Report::Progress { stage: "reading and decompressing".into(), bytes_read: 0 });
    let cache = ReadCache::new(BlobReader::new(file.clone()));
    let tree = explore(&cache, name, &settings.options());
    report(Report::Progress { stage: "preparing the views".into(), bytes_read: file.size() as u64 });
    // Raw bytes of small fields: of the file through the same cache, else held in the tree.
    let read_raw = |span: Span| -> Option<Vec<u8>> {
        if span.space == 0 {
            (&cache).read_bytes_at(span.offset, span.size).ok().map(<[u8]>::to_vec)
        } else {
            tree.bytes(&[], span).map(<[u8]>::to_vec)
        }
    };
    let mut doc = Doc::from_tree(&tree, &read_raw);
    doc.explore_us = ((js_sys::Date::now() - started) * 1000.0) as u64;
    *kept.borrow_mut() = Some(Explored { tree, file, name: name.to_string(), settings: *settings });
    doc
}
