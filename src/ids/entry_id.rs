//! Bundle entry IDs: parsing, standardizing as the bundler writes them, compatibility for unbundling.

use super::*;

/// The offload kinds clang-offload-bundler 22 accepts (`cuda`, `sycl` are refused).
pub const OFFLOAD_KINDS: &[&str] = &["host", "openmp", "hip", "hipv4"];

/// A bundle entry ID, taken apart as clang-offload-bundler 22 takes it apart.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EntryId {
    pub kind: String,
    pub triple: Triple,
    /// Everything after the fifth `-`, as written; `None` when the ID has only five fields.
    pub last: Option<String>,
    /// Byte offsets of kind, arch, vendor, os, environment and `last` in the parsed text.
    pub(super) offsets: [usize; 6],
}

impl EntryId {
    /// Splits an entry ID as the bundler does. Fails only where the bundler fails to split
    /// (fewer than four `-`); kinds and triples it would refuse later are reported by
    /// [`EntryId::kind_is_valid`] and [`EntryId::triple_is_valid`].
    pub fn parse(s: &str) -> Result<EntryId> {
        let mut offsets = [0usize; 6];
        let mut fields: Vec<&str> = Vec::with_capacity(6);
        let mut start = 0;
        for (n, piece) in s.splitn(6, '-').enumerate() {
            offsets[n] = start;
            fields.push(piece);
            start += piece.len() + 1;
        }
        if fields.len() < 5 {
            return Err(Error::new(
                s.len() as u64,
                ENTRY_ID_CONTEXT,
                "<offload kind>-<arch>-<vendor>-<os>-<env>[-<target id>] (at least four '-')",
                format!("{} '-' in '{s}'", fields.len() - 1),
            ));
        }
        Ok(EntryId {
            kind: fields[0].into(),
            triple: Triple {
                arch: fields[1].into(),
                vendor: fields[2].into(),
                os: fields[3].into(),
                environment: fields[4].into(),
            },
            last: fields.get(5).map(|l| l.to_string()),
            offsets,
        })
    }

    pub fn is_host(&self) -> bool {
        self.kind == "host"
    }

    /// Whether clang-offload-bundler 22 accepts the offload kind (case-sensitive).
    pub fn kind_is_valid(&self) -> bool {
        OFFLOAD_KINDS.contains(&self.kind.as_str())
    }

    pub fn triple_is_valid(&self) -> bool {
        self.triple.is_valid()
    }

    /// The target ID as the bundler keeps it: the last field when the text before its
    /// first `:` is a processor LLVM 22 knows. Kept verbatim, even when malformed.
    pub fn target_id(&self) -> Option<&str> {
        let last = self.last.as_deref()?;
        let processor = last.split(':').next().unwrap_or("");
        known_processor(processor).map(|_| last)
    }

    /// The last field when the bundler throws it away (unknown processor).
    pub fn ignored_field(&self) -> Option<&str> {
        // An empty last field is what the bundler itself writes after a host triple.
        self.last.as_deref().filter(|l| !l.is_empty() && self.target_id().is_none())
    }

    /// The target ID, parsed (syntax only); `None` when the entry has none.
    pub fn parsed_target_id(&self) -> Option<Result<TargetId>> {
        let at = self.offsets[5] as u64;
        self.target_id().map(|t| TargetId::parse(t).map_err(|e| e.shifted(at)))
    }

    /// The ID clang-offload-bundler 22 writes for this one: `<kind>-<triple>-<target id>`
    /// with a 4-field normalized triple (3 fields and an empty environment for `amdhsa`),
    /// the target ID verbatim or empty. `host-x86_64-unknown-linux-gnu` gives
    /// `host-x86_64-unknown-linux-gnu-`; `hip-amdgcn-amd-amdhsa-gfx906` gives
    /// `hip-amdgcn-amd-amdhsa--` (the processor was read as the environment).
    pub fn standardized(&self) -> String {
        let triple = if self.triple.is_amdhsa() {
            let mut t = self.triple.normalize(TripleForm::Three);
            t.push('-');
            t
        } else {
            self.triple.normalize(TripleForm::Four)
        };
        format!("{}-{}-{}", self.kind, triple, self.target_id().unwrap_or(""))
    }

    /// The triple as written, without a trailing `-` for an empty environment.
    pub fn triple_text(&self) -> String {
        let t = self.triple.to_string();
        match t.strip_suffix('-') {
            Some(short) => short.into(),
            None => t,
        }
    }

    /// `kind-arch-vendor-os-env` as written: the bundler's key for grouping target IDs.
    pub(super) fn group_key(&self) -> String {
        format!("{}-{}", self.kind, self.triple)
    }
}

/// An entry ID as clang-offload-bundler 22 reads it from a file, whatever its shape: it
/// never refuses what it reads (the strict grammar of [`EntryId::parse`] applies to
/// `--targets`). The text before the first `:` is cut at its last `-`; when that last piece is
/// a processor LLVM knows, it starts the target ID and the kind and triple come before it;
/// otherwise the whole text before `:` is `<kind>-<triple>` and there is no target ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadEntryId<'a> {
    pub kind: &'a str,
    pub triple: &'a str,
    pub target_id: Option<&'a str>,
}

impl<'a> ReadEntryId<'a> {
    pub fn new(id: &'a str) -> ReadEntryId<'a> {
        let before_features = id.split(':').next().unwrap_or(id);
        if let Some((head, last)) = before_features.rsplit_once('-') {
            if known_processor(last).is_some() {
                let (kind, triple) = head.split_once('-').unwrap_or((head, ""));
                let at = before_features.len() - last.len();
                return ReadEntryId { kind, triple: triple.trim_end_matches('-'), target_id: Some(&id[at..]) };
            }
        }
        let (kind, triple) = before_features.split_once('-').unwrap_or((before_features, ""));
        ReadEntryId { kind, triple: triple.trim_end_matches('-'), target_id: None }
    }
}

/// Whether bundle entry `entry` serves a request for `requested` when unbundling, as
/// clang-offload-bundler 22 decides without `--hip-openmp-compatible`. See the module
/// documentation for the rule and its direction.
pub fn compatible(entry: &EntryId, requested: &EntryId) -> bool {
    compatible_with(entry, requested, false)
}

/// [`compatible`], with `hip_openmp_compatible` standing for `--hip-openmp-compatible`
/// (then `hip*` kinds and `openmp` serve each other).
pub fn compatible_with(entry: &EntryId, requested: &EntryId, hip_openmp_compatible: bool) -> bool {
    let entry_tid = entry.target_id().unwrap_or("");
    let requested_tid = requested.target_id().unwrap_or("");
    if entry.kind == requested.kind && entry.triple.is_compatible_with(&requested.triple) && entry_tid == requested_tid
    {
        return true;
    }
    if !kinds_compatible(&entry.kind, &requested.kind, hip_openmp_compatible)
        || !entry.triple.is_compatible_with(&requested.triple)
    {
        return false;
    }
    let (Some(ours), Some(theirs)) =
        (target_id_for(&entry.triple, entry_tid), target_id_for(&requested.triple, requested_tid))
    else {
        return false;
    };
    ours.processor == theirs.processor
        && ours.features.len() <= theirs.features.len()
        && ours.features.iter().all(|(name, on)| theirs.features.iter().any(|(n, o)| n == name && o == on))
}

fn kinds_compatible(entry: &str, requested: &str, hip_openmp: bool) -> bool {
    let hip = |k: &str| k == "hip" || k == "hipv4";
    if entry == requested || (hip(entry) && hip(requested)) {
        return true;
    }
    // Bytes, not a string slice: a kind may start with a multi-byte character.
    let starts_hip = |k: &str| k.as_bytes().get(..3).is_some_and(|p| p.eq_ignore_ascii_case(b"hip"));
    hip_openmp && ((starts_hip(entry) && requested == "openmp") || (entry == "openmp" && starts_hip(requested)))
}

/// A target ID as LLVM's `parseTargetID` reads it for a triple, quirks included: empty IDs
/// and unknown processors fail; on `amdgcn` the processor is canonicalized and features
/// must be supported; elsewhere any feature fails.
struct LlvmTargetId<'a> {
    pub(super) processor: &'a str,
    pub(super) features: Vec<(&'a str, bool)>,
}

fn target_id_for<'a>(triple: &Triple, tid: &'a str) -> Option<LlvmTargetId<'a>> {
    let parsed = llvm_format_parse(tid);
    if !parsed.ok {
        return None;
    }
    let processor = parsed.processor?;
    let (processor, allowed) = if triple.is_amdgcn() {
        let canonical = canonical_amdgcn_processor(processor)?;
        (canonical, amdgcn_features(canonical))
    } else if parse_arch(&triple.arch) == Some("r600") {
        // r600 names (cypress, ...) are never offload architectures, so never kept as IDs.
        return None;
    } else {
        (processor, NONE)
    };
    if processor.is_empty() || parsed.features.iter().any(|(f, _)| !allowed.contains(f)) {
        return None;
    }
    Some(LlvmTargetId { processor, features: parsed.features })
}

/// LLVM's format-only target-ID parse, reproduced with its quirks: an empty ID is a valid
/// empty processor; a trailing `:` adds nothing; `:+` is a feature with an empty name; an
/// empty feature between two colons fails. On failure the features read so far are kept,
/// because the bundler's conflict check goes on using them.
pub(super) struct LlvmParse<'a> {
    pub(super) processor: Option<&'a str>,
    pub(super) features: Vec<(&'a str, bool)>,
    pub(super) ok: bool,
}

pub(super) fn llvm_format_parse(tid: &str) -> LlvmParse<'_> {
    let mut out = LlvmParse { processor: None, features: Vec::new(), ok: false };
    if tid.is_empty() {
        out.processor = Some("");
        out.ok = true;
        return out;
    }
    let (processor, mut rest) = tid.split_once(':').unwrap_or((tid, ""));
    if processor.is_empty() {
        return out;
    }
    let mut seen = BTreeSet::new();
    while !rest.is_empty() {
        let (piece, next) = rest.split_once(':').unwrap_or((rest, ""));
        let on = match piece.as_bytes().last() {
            Some(b'+') => true,
            Some(b'-') => false,
            _ => return out,
        };
        let name = &piece[..piece.len() - 1];
        if !seen.insert(name) {
            return out;
        }
        out.features.push((name, on));
        rest = next;
    }
    out.processor = Some(processor);
    out.ok = true;
    out
}

/// The entry of `entries` that serves `requested`: the one with exactly the requested ID (as
/// the bundler writes it), else the first compatible one in the order given. Unparsable IDs
/// are skipped.
///
/// clang-offload-bundler 22 has no exact-match preference: it takes the first compatible
/// entry in the order it reads them, which is file order for text bundles and a hash order
/// for binary bundles. With entries `gfx90a`, `gfx90a:xnack+` and a request for
/// `gfx90a:xnack+` it extracts `gfx90a` (text bundle in that order, and binary bundles in
/// either order), where this function returns `gfx90a:xnack+`.
pub fn find_entry<'a>(entries: &[&'a str], requested: &EntryId, hip_openmp_compatible: bool) -> Option<&'a str> {
    let exact = requested.standardized();
    entries.iter().copied().find(|id| *id == exact).or_else(|| {
        entries
            .iter()
            .copied()
            .find(|id| EntryId::parse(id).is_ok_and(|e| compatible_with(&e, requested, hip_openmp_compatible)))
    })
}
