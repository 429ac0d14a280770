//! What LLVM 22's `llvm-offload-binary -o out --image=key=value,...` writes, reproduced exactly,
//! including the order of the string map.
//!
//! The tool collects an `--image` argument's `key=value` pairs in a `DenseMap<StringRef,
//! StringRef>` (a repeated key joins its values with a comma), then copies them into the entry's
//! string map while iterating the DenseMap, so the stored order is the hash table's bucket order:
//! open addressing with quadratic probing over a power-of-two table (64 buckets at first, doubled
//! when an insert would fill three quarters), bucket = low bits of the 32-bit truncation of
//! LLVM's `hash_value(StringRef)` (`hash_combine_range` with its fixed seed in release builds).
//! `file` (which may list several files, one entry each) and `kind` (offload kind by name) are not
//! stored. The image kind comes from the file: bitcode magic, else the extension.

use super::{write_v1, ImageKind, OffloadBinary, OffloadEntry, OffloadKind};
use crate::error::{Error, Result};
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

/// One `--image` argument, decoded the way the tool decodes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageSpec {
    /// The `file` values, one entry each.
    pub files: Vec<String>,
    pub offload_kind: OffloadKind,
    /// The other keys, in the order the tool stores them.
    pub strings: Vec<(String, String)>,
}

/// Decodes an `--image` value such as `file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip`:
/// split at every `,`, then each piece at its first `=` (a piece without one is a key with an
/// empty value).
pub fn parse_image_spec(spec: &str) -> ImageSpec {
    let pairs: Vec<(&str, &str)> = spec.split(',').map(|arg| arg.split_once('=').unwrap_or((arg, ""))).collect();
    spec_from_pairs(&pairs)
}

/// Decodes already split `key=value` pairs the way the tool does: a repeated key joins its
/// values with `,`; the keys other than `file` and `kind` keep the tool's map order.
pub fn spec_from_pairs<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) -> ImageSpec {
    let mut keys: Vec<&str> = Vec::new();
    let mut values: Vec<String> = Vec::new();
    for (key, value) in pairs {
        let (key, value) = (key.as_ref(), value.as_ref());
        match keys.iter().position(|k| *k == key) {
            Some(i) => {
                values[i].push(',');
                values[i].push_str(value);
            }
            None => {
                keys.push(key);
                values.push(value.into());
            }
        }
    }
    let mut spec = ImageSpec { files: Vec::new(), offload_kind: OffloadKind::NONE, strings: Vec::new() };
    for i in dense_map_order(&keys) {
        match keys[i] {
            "file" => spec.files = values[i].split(',').map(String::from).collect(),
            "kind" => spec.offload_kind = OffloadKind::from_llvm_name(&values[i]),
            key => spec.strings.push((key.into(), values[i].clone())),
        }
    }
    spec
}

/// The v1 binary the tool writes for one `--image` whose `key=value` pairs are `pairs` and
/// whose file holds `image` (the `file` value only chooses the image kind, by extension).
pub fn package_image<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)], image: &[u8]) -> Result<OffloadBinary<'static>> {
    let spec = spec_from_pairs(pairs);
    if spec.files.len() > 1 {
        let found = alloc::format!("{} files", spec.files.len());
        return Err(Error::new(0, "llvm-offload-binary --image", "one 'file' for one image", found));
    }
    let file = spec.files.first().map_or("", String::as_str);
    let entry = OffloadEntry {
        image_kind: image_kind_for(file, image),
        offload_kind: spec.offload_kind,
        flags: 0,
        strings: spec.strings,
        image: Cow::Owned(image.to_vec()),
    };
    Ok(OffloadBinary::v1(entry))
}

/// The image kind the tool gives a file: bitcode when it starts with a bitcode magic (clang
/// uses `.o` for LTO bitcode), otherwise by extension (`o`, `bc`, `cubin`, `fatbin`, `s`),
/// otherwise none. LLVM 22 does not map `spv` (LLVM main does): such files get none.
pub fn image_kind_for(path: &str, contents: &[u8]) -> ImageKind {
    let bitcode = contents.starts_with(b"BC\xC0\xDE") || contents.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
    if bitcode {
        return ImageKind::BITCODE;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if name != "." && name != ".." => match ImageKind::from_extension(&name[dot + 1..]) {
            ImageKind::SPIRV => ImageKind::NONE,
            kind => kind,
        },
        _ => ImageKind::NONE,
    }
}

/// The entries for the `--image` arguments, one per file, reading files with `read`.
pub fn entries<F>(specs: &[&str], mut read: F) -> Result<Vec<OffloadEntry<'static>>>
where
    F: FnMut(&str) -> Result<Vec<u8>>,
{
    let mut out = Vec::new();
    for spec in specs.iter().map(|s| parse_image_spec(s)) {
        if spec.files.is_empty() {
            return Err(Error::new(0, "llvm-offload-binary --image", "a 'file' key", "none"));
        }
        for file in &spec.files {
            let image = read(file)?;
            out.push(OffloadEntry {
                image_kind: image_kind_for(file, &image),
                offload_kind: spec.offload_kind,
                flags: 0,
                strings: spec.strings.clone(),
                image: Cow::Owned(image),
            });
        }
    }
    Ok(out)
}

/// The bytes `llvm-offload-binary -o out --image=... --image=...` (LLVM 22) writes: one v1
/// binary per file, back to back.
pub fn package<F>(specs: &[&str], read: F) -> Result<Vec<u8>>
where
    F: FnMut(&str) -> Result<Vec<u8>>,
{
    let mut out = Vec::new();
    for entry in entries(specs, read)? {
        out.extend_from_slice(&write_v1(&entry)?);
    }
    Ok(out)
}

/// The iteration order of an LLVM `DenseMap<StringRef, _>` after inserting `keys` (distinct)
/// in order: indices into `keys`, in bucket order.
pub fn dense_map_order(keys: &[&str]) -> Vec<usize> {
    let mut buckets: Vec<Option<usize>> = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let wanted = needed_buckets(i + 1, buckets.len());
        if wanted != buckets.len() {
            buckets = rehash(&buckets, keys, wanted);
        }
        place(&mut buckets, i, key);
    }
    buckets.into_iter().flatten().collect()
}

/// Bucket count after the grow check LLVM runs before inserting the `entries`-th key.
fn needed_buckets(entries: usize, buckets: usize) -> usize {
    if entries * 4 >= buckets * 3 {
        round_up_buckets(buckets * 2)
    } else if buckets - entries <= buckets / 8 {
        round_up_buckets(buckets)
    } else {
        buckets
    }
}

/// At least 64, else the next power of two above `min - 1` (as 32-bit arithmetic does it).
fn round_up_buckets(min: usize) -> usize {
    let below = (min as u32).wrapping_sub(1) as u64;
    let next = (below + 1).next_power_of_two() as u32 as usize;
    next.max(64)
}

fn rehash(old: &[Option<usize>], keys: &[&str], size: usize) -> Vec<Option<usize>> {
    let mut buckets = alloc::vec![None; size];
    for &i in old.iter().flatten() {
        place(&mut buckets, i, keys[i]);
    }
    buckets
}

/// Puts key `i` in the first free bucket of its probe sequence: hash, then +1, +2, +3...
fn place(buckets: &mut [Option<usize>], i: usize, key: &str) {
    let mask = buckets.len() - 1;
    let mut bucket = (crate::util::llvm_hash::hash_bytes(key.as_bytes()) as u32 as usize) & mask;
    let mut step = 1;
    while buckets[bucket].is_some() {
        bucket = (bucket + step) & mask;
        step += 1;
    }
    buckets[bucket] = Some(i);
}
