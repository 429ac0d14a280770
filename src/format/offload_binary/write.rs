//! Writing versions 1, 2 and 3 byte-identically to LLVM.

use super::*;

pub(super) fn write_error(expected: impl Into<String>, found: impl Into<String>) -> Error {
    Error::new(0, CTX_WRITE, expected, found)
}

/// Writes a version 1 binary exactly as LLVM 22's `OffloadBinary::write` does.
pub fn write_v1(entry: &OffloadEntry<'_>) -> Result<Vec<u8>> {
    write_uncompressed(1, core::slice::from_ref(entry))
}

/// Writes a version 2 binary (LLVM main's layout with a 32-byte header).
pub fn write_v2(entries: &[OffloadEntry<'_>]) -> Result<Vec<u8>> {
    write_uncompressed(2, entries)
}

/// Writes a version 3 binary as LLVM main does, compressed when `compression` is given.
pub fn write_v3(entries: &[OffloadEntry<'_>], compression: Option<Compression>) -> Result<Vec<u8>> {
    let plain = write_uncompressed(3, entries)?;
    match compression {
        None => Ok(plain),
        Some(c) => compress_v3(plain, c),
    }
}

/// Several version 1 binaries back to back, as LLVM 22's `llvm-offload-binary` writes them.
pub fn write_v1_sequence(entries: &[OffloadEntry<'_>]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for entry in entries {
        out.extend_from_slice(&write_v1(entry)?);
    }
    Ok(out)
}

/// A string map as LLVM's MapVector holds it: a repeated key keeps its first position and takes
/// the last value.
fn map_vector(strings: &[(String, String)]) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(strings.len());
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (k, v) in strings {
        match index.get(k.as_str()) {
            Some(&at) => out[at].1 = v,
            None => {
                index.insert(k, out.len());
                out.push((k, v));
            }
        }
    }
    out
}

/// Keys are read back up to their NUL (and v1 values too), so they cannot contain one.
fn check_writable(version: u32, entries: &[OffloadEntry<'_>]) -> Result<()> {
    if entries.is_empty() {
        return Err(write_error("at least one entry", "none"));
    }
    for (k, v) in entries.iter().flat_map(|e| e.strings.iter()) {
        if k.contains('\0') || (version == 1 && v.contains('\0')) {
            let what = if k.contains('\0') { "key" } else { "value" };
            return Err(write_error("strings without NUL bytes", format!("a NUL in the {what} of \"{k}\"")));
        }
    }
    Ok(())
}

fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// LLVM's layout: header, entries, string entries, string table, zeros to 8, images back to
/// back, zeros to 8.
fn write_uncompressed(version: u32, entries: &[OffloadEntry<'_>]) -> Result<Vec<u8>> {
    check_writable(version, entries)?;
    let maps: Vec<Vec<(&str, &str)>> = entries.iter().map(|e| map_vector(&e.strings)).collect();
    let table = StringTable::build(maps.iter().flatten().flat_map(|(k, v)| [k.as_bytes(), v.as_bytes()]));
    let header_len = header_size(version);
    let record_size = string_entry_size(version);
    let count = entries.len() as u64;
    let string_count: u64 = maps.iter().map(|m| m.len() as u64).sum();
    let strings_at = header_len + ENTRY_SIZE * count;
    let table_at = strings_at + record_size * string_count;
    let data_size = align_to_entry(table_at + table.len());
    let images: u64 = entries.iter().map(|e| e.image.len() as u64).sum();
    let size = align_to_entry(data_size + images);

    let mut out = Vec::with_capacity(size as usize);
    out.extend_from_slice(&MAGIC);
    put_u32(&mut out, version);
    put_u64(&mut out, size);
    put_u64(&mut out, header_len);
    put_u64(&mut out, if version == 1 { ENTRY_SIZE } else { count });
    if version >= 3 {
        put_u64(&mut out, 0);
    }
    let (mut string_at, mut image_at) = (strings_at, data_size);
    for (entry, map) in entries.iter().zip(&maps) {
        put_u16(&mut out, entry.image_kind.0);
        put_u16(&mut out, entry.offload_kind.0);
        put_u32(&mut out, entry.flags);
        put_u64(&mut out, string_at);
        put_u64(&mut out, map.len() as u64);
        put_u64(&mut out, image_at);
        put_u64(&mut out, entry.image.len() as u64);
        string_at += record_size * map.len() as u64;
        image_at += entry.image.len() as u64;
    }
    let offset_of = |s: &str| table_at + table.offset(s.as_bytes()).unwrap_or(0);
    for (k, v) in maps.iter().flatten() {
        put_u64(&mut out, offset_of(k));
        put_u64(&mut out, offset_of(v));
        if version >= 2 {
            put_u64(&mut out, v.len() as u64);
        }
    }
    out.extend_from_slice(table.bytes());
    out.resize(data_size as usize, 0);
    for entry in entries {
        out.extend_from_slice(&entry.image);
    }
    out.resize(size as usize, 0);
    Ok(out)
}

/// Compresses everything after the 40-byte header, as LLVM main does: size becomes header plus
/// payload, inflated size the uncompressed size, zeros follow to a multiple of 8.
fn compress_v3(plain: Vec<u8>, compression: Compression) -> Result<Vec<u8>> {
    let payload = crate::codec::compress(compression.method.method(), compression.level, &plain[40..])?;
    let size = 40 + payload.len() as u64;
    let mut out = Vec::with_capacity(align_to_entry(size) as usize);
    out.extend_from_slice(&plain[..40]);
    out[8..16].copy_from_slice(&size.to_le_bytes());
    out[32..40].copy_from_slice(&(plain.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    out.resize(align_to_entry(size) as usize, 0);
    Ok(out)
}
