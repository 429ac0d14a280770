//! The kpack reference a kpack'd host binary carries: section `.rocm_kpack_ref` (ELF; `.kpackrf`
//! in COFF, where section names are cut to 8 bytes), one MessagePack map that the HIP fatbin
//! wrappers point at (`wrapper`, magic `HIPK`).
//!
//! | key | value |
//! |-----|-------|
//! | `kpack_search_paths` | archive paths relative to the binary's directory (`../.kpack/blas_@GFXARCH@.kpack`); `@GFXARCH@` stands for the GPU's architecture, which the loader fills in (with the GPU's full target ID first, then with fewer features) |
//! | `kernel_name` | the binary's key in the archives' TOC without its index (`stage/lib/libfoo.so`); the loader appends `#<code object index>` from the wrapper |
//!
//! The loader reads the map from the start of the section and ignores bytes after it.

use crate::error::{Error, Result};
use crate::image::msgpack::{self, MpValue};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::At;

const CONTEXT: &str = "kpack reference (.rocm_kpack_ref)";
/// What the loader puts in place of the architecture in a search path.
pub const ARCH_PLACEHOLDER: &str = "@GFXARCH@";

/// A decoded `.rocm_kpack_ref`; offsets are in the section's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference<'a> {
    pub kernel_name: At<&'a str>,
    pub search_paths: Vec<At<&'a str>>,
    /// The bytes of the map (any after it are not part of the reference).
    pub size: u64,
}

impl Reference<'_> {
    /// The TOC key of the code objects of wrapper `index`.
    pub fn key(&self, index: u64) -> String {
        format!("{}#{index}", self.kernel_name.value)
    }
}

/// Reads the reference at the start of `data`, as the loader does: both keys are required and
/// there must be at least one search path.
pub fn read(data: &[u8]) -> Result<Reference<'_>> {
    let map = msgpack::parse(data)?;
    if !matches!(map.value, MpValue::Map(_)) {
        return Err(Error::new(0, CONTEXT, "a msgpack map", map.type_name()));
    }
    let name = map.get("kernel_name").ok_or_else(|| Error::new(0, CONTEXT, "a `kernel_name` key", "none"))?;
    let kernel_name = match name.as_str() {
        Some(value) => At { value, offset: name.offset, size: name.size },
        None => return Err(Error::new(name.offset, CONTEXT, "`kernel_name` as a string", name.type_name())),
    };
    let paths =
        map.get("kpack_search_paths").ok_or_else(|| Error::new(0, CONTEXT, "a `kpack_search_paths` key", "none"))?;
    let items = paths
        .as_array()
        .ok_or_else(|| Error::new(paths.offset, CONTEXT, "`kpack_search_paths` as a list", paths.type_name()))?;
    // Like the loader, entries that are not strings are skipped.
    let search_paths: Vec<At<&str>> =
        items.iter().filter_map(|p| Some(At { value: p.as_str()?, offset: p.offset, size: p.size })).collect();
    if search_paths.is_empty() {
        return Err(Error::new(paths.offset, CONTEXT, "at least one search path (a string)", "none"));
    }
    Ok(Reference { kernel_name, search_paths, size: map.size })
}

/// The reference of a host file, if it has a kpack reference section: what a caller that can
/// read files needs to find the archives next to the binary, as the loader does.
pub fn in_host_file<'a, R: object::ReadRef<'a>>(input: R) -> Option<Result<Reference<'a>>> {
    let file = crate::format::host::read_host(input).ok()?;
    let section = file.sections.iter().find(|s| s.role == crate::format::host::SectionRole::KpackReference)?;
    Some(read(section.data).map_err(|e| e.shifted(section.file_offset)))
}

/// The architecture a file name gives a search path's last component: `kp_gfx90a.kpack` for
/// `../.kpack/kp_@GFXARCH@.kpack` gives `gfx90a`; a path without the placeholder matches its
/// own name and gives an empty string. `None` when the name does not match.
pub fn match_file_name<'n>(search_path: &str, name: &'n str) -> Option<&'n str> {
    let pattern = last_component(search_path);
    let name = last_component(name);
    match pattern.split_once(ARCH_PLACEHOLDER) {
        None => (pattern == name).then_some(""),
        Some((before, after)) => {
            let middle = name.strip_prefix(before)?.strip_suffix(after)?;
            (!middle.is_empty()).then_some(middle)
        }
    }
}

/// The last component of a path written with `/` or `\`.
pub fn last_component(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// `search_path` resolved against the directory of `binary` (both relative, `/`-separated),
/// `..` and `.` folded: where the loader looks, relative to the same root as `binary`.
pub fn resolve(binary: &str, search_path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let absolute = search_path.starts_with('/');
    let dir = if absolute { "" } else { binary.rsplit_once(['/', '\\']).map_or("", |(d, _)| d) };
    for part in dir.split(['/', '\\']).chain(search_path.split(['/', '\\'])) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if absolute || (binary.starts_with('/') && !dir.is_empty()) {
        format!("/{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_match_the_placeholder() {
        assert_eq!(match_file_name("../.kpack/kp_@GFXARCH@.kpack", "kp_gfx90a.kpack"), Some("gfx90a"));
        assert_eq!(
            match_file_name("../.kpack/kp_@GFXARCH@.kpack", "/x/.kpack/kp_gfx942:xnack+.kpack"),
            Some("gfx942:xnack+")
        );
        assert_eq!(match_file_name("../.kpack/kp_@GFXARCH@.kpack", "other_gfx90a.kpack"), None);
        assert_eq!(match_file_name("../.kpack/kp_@GFXARCH@.kpack", "kp_.kpack"), None);
        assert_eq!(match_file_name("blas.kpack", "dir/blas.kpack"), Some(""));
    }

    #[test]
    fn search_paths_resolve_against_the_binary() {
        assert_eq!(resolve("stage/lib/libkp.so", "../.kpack/kp_@GFXARCH@.kpack"), "stage/.kpack/kp_@GFXARCH@.kpack");
        assert_eq!(resolve("libkp.so", ".kpack/a.kpack"), ".kpack/a.kpack");
        assert_eq!(resolve("/opt/rocm/lib/libkp.so", "../.kpack/a.kpack"), "/opt/rocm/.kpack/a.kpack");
        assert_eq!(resolve("lib/x.so", "/abs/a.kpack"), "/abs/a.kpack");
        assert_eq!(resolve("x.so", "../a.kpack"), "../a.kpack");
    }

    #[test]
    fn a_reference_needs_both_keys() {
        // {"kernel_name": "k"}
        let mut data = alloc::vec![0x81, 0xab];
        data.extend_from_slice(b"kernel_name");
        data.extend_from_slice(&[0xa1, b'k']);
        let e = read(&data).unwrap_err();
        assert!(e.expected.contains("kpack_search_paths"), "{e}");
        assert!(read(&[0x91, 0x01]).unwrap_err().expected.contains("map"));
        assert!(read(&[]).is_err());
    }
}
