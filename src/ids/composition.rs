//! Composition rules of a set of entry IDs, and the exact refusals of clang-offload-bundler 22.

use super::*;
use crate::util::sort;

/// A composition rule of a bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The ID cannot be split into kind, triple and target ID.
    Malformed,
    UnknownOffloadKind,
    UnknownTriple,
    /// The same ID text twice.
    DuplicateTarget,
    /// Different spellings that the bundler writes as the same entry ID.
    DuplicateEntryId,
    /// Not exactly one host entry (allowed when every entry is `hip`/`hipv4`).
    HostCount,
    /// A processor named with a feature in one entry and without it in another.
    ConflictingTargetIds,
    /// A target ID that does not follow the target-ID grammar.
    MalformedTargetId,
}

impl Rule {
    /// Whether the rule is about one entry's own ID, which a reader already sees beside that
    /// entry ([`entry_id_diagnostics`]), rather than about how entries go together.
    pub fn is_about_one_entry(self) -> bool {
        matches!(self, Rule::Malformed | Rule::UnknownOffloadKind | Rule::UnknownTriple | Rule::MalformedTargetId)
    }
}

/// A rule broken by a set of entry IDs. `entries` are indices into the checked list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    pub entries: Vec<usize>,
    pub message: String,
    /// Whether clang-offload-bundler 22 refuses to bundle because of it.
    pub rejected_by_bundler: bool,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn violation(rule: Rule, entries: Vec<usize>, message: String, rejected_by_bundler: bool) -> Violation {
    Violation { rule, entries, message, rejected_by_bundler }
}

const FORMAT_MESSAGE: &str = "Targets need to follow the format '<offload kind>-<target triple>', where '<target triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.";

/// The error clang-offload-bundler 22 prints when asked to bundle `ids` (in that order), or
/// `None` when it accepts them. Checks run in the bundler's order and the first failure wins.
pub fn bundler_error(ids: &[&str]) -> Option<String> {
    let mut seen = BTreeSet::new();
    let mut parsed = Vec::with_capacity(ids.len());
    for id in ids {
        if !seen.insert(*id) {
            return Some("Duplicate targets are not allowed".into());
        }
        let Ok(e) = EntryId::parse(id) else {
            return Some(FORMAT_MESSAGE.into());
        };
        if !e.kind_is_valid() || !e.triple_is_valid() {
            return Some(invalid_target_message(id, &e));
        }
        parsed.push(e);
    }
    for (key, tids) in &bundler_groups(parsed.iter().enumerate()) {
        if let Some((a, b)) = bundler_conflict(tids.keys().copied()) {
            return Some(format!("Cannot bundle inputs with conflicting targets: '{key}-{a}' and '{key}-{b}'"));
        }
    }
    let hosts = parsed.iter().filter(|e| e.is_host()).count();
    let hip_only = parsed.iter().all(|e| e.kind == "hip" || e.kind == "hipv4");
    (hosts != 1 && !hip_only).then(|| format!("expecting exactly one host target but got {hosts}"))
}

fn invalid_target_message(id: &str, e: &EntryId) -> String {
    let mut msg = format!("invalid target '{id}'");
    if !e.kind_is_valid() {
        msg += &format!(", unknown offloading kind '{}'", e.kind);
    }
    if !e.triple_is_valid() {
        msg += &format!(", unknown target triple '{}'", e.triple);
    }
    msg
}

/// The bundler's grouping: by kind and triple *as written*, then target ID text (empty when
/// absent), each with the index of its first entry.
fn bundler_groups<'e>(
    entries: impl Iterator<Item = (usize, &'e EntryId)>,
) -> BTreeMap<String, BTreeMap<&'e str, usize>> {
    let mut groups: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    for (i, e) in entries {
        groups.entry(e.group_key()).or_default().entry(e.target_id().unwrap_or("")).or_insert(i);
    }
    groups
}

/// LLVM 22's `getConflictTargetIDCombination`: in byte order, each ID is compared with the
/// first ID seen for its processor, and conflicts only if it names a feature that one does
/// not. A malformed ID in LLVM dereferences an empty optional; in practice the processor of
/// the previous ID is reused (observed, and reproduced here), with the features read so far.
fn bundler_conflict<'a>(tids: impl Iterator<Item = &'a str>) -> Option<(&'a str, &'a str)> {
    let mut first: BTreeMap<&str, (&str, BTreeSet<&str>)> = BTreeMap::new();
    let mut stale: Option<&str> = None;
    for id in tids {
        let parsed = llvm_format_parse(id);
        let processor = match (parsed.ok, parsed.processor, stale) {
            (true, Some(p), _) => {
                stale = Some(p);
                p
            }
            (false, _, Some(p)) => p,
            // Before any successful parse the value is stack garbage: assume it matches nothing.
            _ => continue,
        };
        let names: BTreeSet<&str> = parsed.features.iter().map(|(n, _)| *n).collect();
        match first.get(processor) {
            None => {
                first.insert(processor, (id, names));
            }
            Some((first_id, first_names)) => {
                if names.iter().any(|n| !first_names.contains(n)) {
                    return Some((first_id, id));
                }
            }
        }
    }
    None
}

/// Every composition rule `ids` breaks, documented rules included, each naming its entries
/// and saying whether clang-offload-bundler 22 refuses the bundle because of it. The list is
/// empty exactly when the bundle follows the documented rules; the bundler refuses it exactly
/// when some violation has `rejected_by_bundler`.
pub fn check_composition(ids: &[&str]) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut entries: Vec<(usize, EntryId)> = Vec::with_capacity(ids.len());
    let mut first_index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, id) in ids.iter().enumerate() {
        if let Some(&j) = first_index.get(id) {
            let msg = format!("entries {j} and {i} are both '{id}'; each entry needs its own ID");
            out.push(violation(Rule::DuplicateTarget, alloc::vec![j, i], msg, true));
            continue;
        }
        first_index.insert(id, i);
        match EntryId::parse(id) {
            Ok(e) => {
                check_entry(i, id, &e, &mut out);
                entries.push((i, e));
            }
            Err(err) => out.push(violation(
                Rule::Malformed,
                alloc::vec![i],
                format!("entry {i} '{id}' is not an entry ID: {err}"),
                true,
            )),
        }
    }
    let valid: Vec<&(usize, EntryId)> =
        entries.iter().filter(|(_, e)| e.kind_is_valid() && e.triple_is_valid()).collect();
    check_same_standardized(ids, &valid, &mut out);
    check_hosts(&valid, &mut out);
    check_conflicts(ids, &valid, &mut out);
    out
}

/// The rules a bundle read from a file breaks across its entries: [`check_composition`]
/// without the rules about one ID, which [`entry_id_diagnostics`] tells beside each entry.
pub fn composition_on_read(ids: &[&str]) -> Vec<Violation> {
    check_composition(ids).into_iter().filter(|v| !v.rule.is_about_one_entry()).collect()
}

fn check_entry(i: usize, id: &str, e: &EntryId, out: &mut Vec<Violation>) {
    if !e.kind_is_valid() {
        let msg = format!("entry {i} '{id}': offload kind '{}' is not one of host, openmp, hip, hipv4", e.kind);
        out.push(violation(Rule::UnknownOffloadKind, alloc::vec![i], msg, true));
    }
    if !e.triple_is_valid() {
        let msg = format!("entry {i} '{id}': '{}' is not an architecture LLVM 22 knows", e.triple.arch);
        out.push(violation(Rule::UnknownTriple, alloc::vec![i], msg, true));
    }
    if let Some(Err(err)) = e.parsed_target_id() {
        let msg = format!("entry {i} '{id}': malformed target ID: expected {}, found {}", err.expected, err.found);
        out.push(violation(Rule::MalformedTargetId, alloc::vec![i], msg, false));
    }
}

fn check_same_standardized(ids: &[&str], valid: &[&(usize, EntryId)], out: &mut Vec<Violation>) {
    let mut first: BTreeMap<String, usize> = BTreeMap::new();
    for (i, e) in valid.iter().map(|(i, e)| (*i, e)) {
        let standard = e.standardized();
        if let Some(&j) = first.get(&standard) {
            let msg = format!(
                "entries {j} '{}' and {i} '{}' are both written as '{standard}'; the bundler accepts this and writes two entries with one ID",
                ids[j], ids[i]
            );
            out.push(violation(Rule::DuplicateEntryId, alloc::vec![j, i], msg, false));
        } else {
            first.insert(standard, i);
        }
    }
}

fn check_hosts(valid: &[&(usize, EntryId)], out: &mut Vec<Violation>) {
    let hosts: Vec<usize> = valid.iter().filter(|(_, e)| e.is_host()).map(|(i, _)| *i).collect();
    let hip_only = valid.iter().all(|(_, e)| e.kind == "hip" || e.kind == "hipv4");
    if hosts.len() == 1 || (hosts.is_empty() && hip_only) {
        return;
    }
    let msg = if hosts.is_empty() {
        "no host entry; a bundle needs exactly one unless every entry is hip or hipv4".to_string()
    } else {
        let list: Vec<String> = hosts.iter().map(|i| i.to_string()).collect();
        format!("{} host entries (entries {}); a bundle needs exactly one", hosts.len(), list.join(", "))
    };
    out.push(violation(Rule::HostCount, hosts, msg, true));
}

/// The documented rule: for one processor, within one kind and triple, every entry names
/// the same features. Each offending entry is reported against the first for its processor.
fn check_conflicts(ids: &[&str], valid: &[&(usize, EntryId)], out: &mut Vec<Violation>) {
    let llvm_groups = bundler_groups(valid.iter().map(|(i, e)| (*i, e)));
    let refused: BTreeMap<&String, (usize, usize)> = llvm_groups
        .iter()
        .filter_map(|(key, tids)| bundler_conflict(tids.keys().copied()).map(|(a, b)| (key, (tids[a], tids[b]))))
        .collect();
    let groups: BTreeMap<usize, String> = valid.iter().map(|(i, e)| (*i, e.group_key())).collect();
    let group_of = |i: usize| groups.get(&i).cloned();
    let mut reported: BTreeSet<String> = BTreeSet::new();
    // (standardized kind-triple, processor) -> (index, feature names) of the first entry.
    let mut first: BTreeMap<(String, String), (usize, Vec<String>)> = BTreeMap::new();
    for (i, e) in valid.iter().map(|(i, e)| (*i, e)) {
        let Some(Ok(tid)) = e.parsed_target_id() else { continue };
        let prefix = e.standardized();
        let prefix = prefix.strip_suffix(e.target_id().unwrap_or("")).unwrap_or(&prefix).to_string();
        let mut names: Vec<String> = tid.features.iter().map(|(n, _)| n.clone()).collect();
        sort::sort(&mut names);
        match first.get(&(prefix.clone(), tid.processor.clone())) {
            None => {
                first.insert((prefix, tid.processor), (i, names));
            }
            Some((j, first_names)) if *first_names != names => {
                let (j, key_i) = (*j, group_of(i));
                let rejected =
                    key_i.is_some() && key_i == group_of(j) && key_i.as_ref().is_some_and(|k| refused.contains_key(k));
                if rejected {
                    reported.extend(key_i);
                }
                let msg = conflict_message(ids, j, first_names, i, &names, &tid.processor, rejected);
                out.push(violation(Rule::ConflictingTargetIds, alloc::vec![j, i], msg, rejected));
            }
            Some(_) => {}
        }
    }
    // Conflicts only LLVM's reading finds (malformed target IDs): still the bundler's refusal.
    for (key, (a, b)) in refused {
        if !reported.contains(key) {
            let msg = format!(
                "clang-offload-bundler 22 refuses entries {a} '{}' and {b} '{}' as conflicting target IDs",
                ids[a], ids[b]
            );
            out.push(violation(Rule::ConflictingTargetIds, alloc::vec![a, b], msg, true));
        }
    }
}

fn conflict_message(
    ids: &[&str],
    j: usize,
    first: &[String],
    i: usize,
    names: &[String],
    processor: &str,
    rejected: bool,
) -> String {
    let describe = |n: &[String]| {
        if n.is_empty() {
            "no feature".to_string()
        } else {
            n.join(" and ")
        }
    };
    let verdict = if rejected {
        "clang-offload-bundler 22 refuses this bundle"
    } else {
        "clang-offload-bundler 22 does not notice"
    };
    format!(
        "entries {j} '{}' and {i} '{}' set different features for {processor} ({} versus {}): for one processor every entry must set the same features, the others being Any; {verdict}",
        ids[j],
        ids[i],
        describe(first),
        describe(names)
    )
}
