//! The device-specific archive of one target out of a heterogeneous device archive: what
//! `offload unbundle --type=a --targets=<target>` writes, made in the worker (which can read
//! the whole file); the core reads it back before it is offered.

use offload::format::archive::device::{read_members, summary, unbundle, write_device_archive};
use offload::ids::EntryId;

/// The device-specific archive of `target` out of the heterogeneous archive `input`, or why
/// there is none.
pub fn device_archive(input: &[u8], target: &str, max_decompressed: u64) -> Result<Vec<u8>, String> {
    let id = EntryId::parse(target).map_err(|e| format!("invalid target '{target}': {e}"))?;
    if id.is_host() {
        return Err(format!("'{target}' is a host target; a device archive is made for a device target"));
    }
    let members = read_members(input, max_decompressed).map_err(|e| e.to_string())?;
    let per_target = unbundle(&members, std::slice::from_ref(&id), false).map_err(|e| e.to_string())?;
    let found = per_target.first().map(Vec::as_slice).unwrap_or(&[]);
    if found.is_empty() {
        return Err(format!(
            "no compatible code object for {target} in the archive (it has: {})",
            summary(&members, 8)
        ));
    }
    write_device_archive(found).map_err(|e| format!("cannot write the device archive: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::doc::explore_bytes;
    use offload::format::archive::ar::{self, Archive};
    use offload::tree::Span;

    const ARCHIVE: &[u8] = include_bytes!("../../../tests/fixtures/hip_rdc_archive.a");

    #[test]
    fn device_archives_hold_the_targets_code_objects() {
        let bytes = device_archive(ARCHIVE, "hip-amdgcn-amd-amdhsa--gfx90a", 1 << 30).unwrap();
        let ar = ar::read(&bytes[..]).and_then(Archive::complete).unwrap();
        let names: Vec<&str> = ar.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["rdc_a-gfx90a.bc", "rdc_c-gfx90a.bc"]);
        // Each member is the gfx90a entry of its object, as the explorer finds it there.
        let doc = explore_bytes(ARCHIVE, "hip_rdc_archive.a");
        let gfx90a = doc.targets.iter().filter(|t| t.target.target_id.ends_with("gfx90a"));
        let entries: Vec<Span> = gfx90a.map(|t| t.target.span).collect();
        for (m, span) in ar.members.iter().zip(entries) {
            assert_eq!(m.data(&bytes[..]).unwrap(), &ARCHIVE[span.offset as usize..span.end() as usize]);
        }
        let missing = device_archive(ARCHIVE, "hip-amdgcn-amd-amdhsa--gfx1030", 1 << 30).unwrap_err();
        assert!(
            missing.contains("no compatible code object for hip-amdgcn-amd-amdhsa--gfx1030")
                && missing.contains("rdc_a.o"),
            "{missing}"
        );
        assert!(device_archive(ARCHIVE, "host-x86_64-pc-linux-gnu", 1 << 30).unwrap_err().contains("host target"));
        assert!(device_archive(&ARCHIVE[..100], "hip-amdgcn-amd-amdhsa--gfx90a", 1 << 30).is_err());
    }
}
