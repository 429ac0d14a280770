//! Every container the tool writes is read back before it is saved: a file we cannot read
//! ourselves is never handed out. A failure here is our bug, reported as one, and nothing is
//! written.

use crate::fail::{Failure, Outcome};
use offload::format::archive::ar as archive;
use offload::format::bundle::{binary as bundle, compressed, object as bundled_object, text as text_bundle};

/// What a written buffer must read back as.
pub enum Written<'a> {
    /// A binary bundle with these entry IDs, in this order.
    Bundle(&'a [String]),
    /// A text bundle with this line comment and these entry IDs.
    TextBundle(&'a str, &'a [String]),
    /// A compressed bundle holding exactly these bytes.
    Compressed(&'a [u8]),
    /// A bundled object with these entry IDs, in section order.
    BundledObject(&'a [String]),
    /// An ar archive with these member names.
    Archive(&'a [String]),
}

pub fn reads_back(bytes: &[u8], what: Written) -> Outcome<()> {
    let found: Result<Vec<String>, String> = match &what {
        Written::Bundle(_) => bundle::Bundle::parse(bytes)
            .map(|b| b.entries.into_iter().map(|e| e.id).collect())
            .map_err(|e| e.to_string()),
        Written::TextBundle(comment, _) => text_bundle::TextBundle::parse(bytes, comment)
            .map(|(b, _)| b.entries.into_iter().map(|e| e.id).collect())
            .map_err(|e| e.to_string()),
        Written::Compressed(plain) => compressed_holds(bytes, plain).map(|()| Vec::new()),
        Written::BundledObject(_) => {
            bundled_object::entries(bytes).map(|es| es.into_iter().map(|e| e.id).collect()).map_err(|e| e.to_string())
        }
        Written::Archive(_) => archive::read(bytes)
            .and_then(archive::Archive::complete)
            .map(|ar| ar.members.into_iter().map(|m| m.name).collect())
            .map_err(|e| e.to_string()),
    };
    let expected: &[String] = match what {
        Written::Bundle(ids) | Written::TextBundle(_, ids) | Written::BundledObject(ids) | Written::Archive(ids) => ids,
        Written::Compressed(_) => &[],
    };
    match found {
        Ok(names) if names == expected => Ok(()),
        Ok(names) => Err(bug(format!("it reads back as {names:?} instead of {expected:?}"))),
        Err(e) => Err(bug(e)),
    }
}

/// A bundle about to be written from its layout (its entries' bytes copied from files): its
/// header must read back with these IDs and sizes, at the planned offsets, each entry within the
/// bundle's size.
pub fn layout_reads_back(layout: &bundle::Layout, ids: &[String], sizes: &[u64]) -> Outcome<()> {
    let header = bundle::read_header(&layout.header).map_err(bug)?;
    let read: Vec<(&str, u64, u64)> = header.entries.iter().map(|e| (e.id.as_str(), e.offset, e.size)).collect();
    let planned: Vec<(&str, u64, u64)> =
        ids.iter().zip(&layout.offsets).zip(sizes).map(|((id, &offset), &size)| (id.as_str(), offset, size)).collect();
    if read != planned {
        return Err(bug(format!("its header reads back as {read:?} instead of {planned:?}")));
    }
    for e in &header.entries {
        e.range_in(layout.size).map_err(bug)?;
    }
    Ok(())
}

fn compressed_holds(bytes: &[u8], plain: &[u8]) -> Result<(), String> {
    let cb = compressed::CompressedBundle::parse(bytes).map_err(|e| e.to_string())?;
    let back = cb.decompress(plain.len() as u64).map_err(|e| e.to_string())?;
    if back != plain {
        return Err("it does not decompress to what was compressed".into());
    }
    Ok(())
}

fn bug(why: impl std::fmt::Display) -> Failure {
    Failure::new(format!("internal error: the file made does not read back ({why}); nothing written"))
}
