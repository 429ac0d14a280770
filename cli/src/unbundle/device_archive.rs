//! `offload unbundle --type=a`: one device-specific archive per target out of a heterogeneous
//! device archive, with the options and meanings of `clang-offload-bundler --type=a
//! --unbundle`. The rules (which entries, which names) are in the core's
//! `format::archive::device`.

use crate::bundler::BundlerArgs;
use crate::fail::{Failure, Outcome};
use crate::io::{read_all, write_atomic};
use offload::format::archive::device::{self, Extracted, MemberEntries};
use offload::ids::EntryId;
use std::path::Path;

/// Members named in an error message before "and N more".
const SUMMARY_MEMBERS: usize = 20;

/// Lists the entry IDs of the archive at `path`, or writes one device-specific archive per
/// `--targets` entry.
pub fn run(a: &BundlerArgs, path: &Path) -> Outcome<()> {
    let data = read_all(path)?;
    let members = device::read_members(&data, a.decompress_limit())
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    if a.list {
        for id in distinct_ids(&members) {
            println!("{id}");
        }
        return Ok(());
    }
    if a.check_input_archive {
        check_composition(path, &members)?;
    }
    let outputs = a.unbundle_outputs()?;
    let targets = device_targets(&a.targets)?;
    let per_target = device::unbundle(&members, &targets, a.hip_openmp_compatible)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    let missing: Vec<&str> =
        a.targets.iter().zip(&per_target).filter(|(_, found)| found.is_empty()).map(|(t, _)| t.as_str()).collect();
    if !missing.is_empty() && !a.allow_missing_bundles {
        return Err(Failure::new(format!(
            "{}: no compatible code object for {} in the archive (it has: {}); nothing written",
            path.display(),
            missing.join(" and "),
            device::summary(&members, SUMMARY_MEMBERS)
        )));
    }
    // Every archive is made and read back before any is written: a failure writes nothing.
    let archives: Vec<Vec<u8>> = per_target.iter().map(|found| lay_out(found)).collect::<Outcome<_>>()?;
    for ((out, bytes), (target, found)) in outputs.iter().zip(&archives).zip(a.targets.iter().zip(&per_target)) {
        write_atomic(out, bytes)?;
        if a.verbose {
            report(target, out, found);
        }
    }
    Ok(())
}

/// The requested targets, parsed. Host targets are refused: a device-specific archive is
/// for one device, and the host code of a heterogeneous archive is the archive itself.
fn device_targets(targets: &[String]) -> Outcome<Vec<EntryId>> {
    targets
        .iter()
        .map(|t| {
            let id = EntryId::parse(t).map_err(|e| Failure::new(format!("invalid target '{t}': {e}")))?;
            if id.is_host() {
                return Err(Failure::new(format!(
                    "'{t}' is a host target; --type=a makes device-specific archives, one per device target (the host objects are the input archive itself)"
                )));
            }
            Ok(id)
        })
        .collect()
}

/// The device archive for one target; the core reads it back before handing it out.
fn lay_out(found: &[Extracted]) -> Outcome<Vec<u8>> {
    device::write_device_archive(found)
        .map_err(|e| Failure::new(format!("cannot write the device archive: {e}; nothing written")))
}

/// `--check-input-archive`: every rule broken, each with its member, or nothing.
fn check_composition(path: &Path, members: &[MemberEntries]) -> Outcome<()> {
    let violations = device::composition_violations(members);
    if violations.is_empty() {
        return Ok(());
    }
    let members_hit = {
        let mut names: Vec<&str> = violations.iter().map(|(m, _)| *m).collect();
        names.dedup();
        names.len()
    };
    let mut message = format!(
        "{}: --check-input-archive: {} composition rule{} broken in {members_hit} member{}; nothing written",
        path.display(),
        violations.len(),
        if violations.len() == 1 { "" } else { "s" },
        if members_hit == 1 { "" } else { "s" },
    );
    for (member, v) in &violations {
        message += &format!("\n  member `{member}`: {v}");
    }
    Err(Failure::new(message))
}

/// The entry IDs found in the archive, each once, in the order first found.
fn distinct_ids<'m>(members: &'m [MemberEntries]) -> Vec<&'m str> {
    let mut ids: Vec<&str> = Vec::new();
    for id in members.iter().flat_map(|m| m.entries.iter().map(|e| e.id.as_str())) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

fn report(target: &str, out: &Path, found: &[Extracted]) {
    eprintln!("{target}: {} ({} members)", out.display(), found.len());
    for e in found {
        eprintln!("  {} <- {} {} ({} bytes)", e.name, e.parent, e.entry_id, e.data.len());
    }
}
