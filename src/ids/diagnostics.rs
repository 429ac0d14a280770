//! Diagnostics of entry IDs for the annotated tree.

use super::*;

/// What a reader of entry ID `id` should know. Nothing here is an error: clang-offload-bundler
/// 22 reads every ID it finds in a file as written (see [`ReadEntryId`]); what its
/// `--targets` would refuse is a note, IDs whose target ID is lost or can never be matched
/// are warnings, non-canonical target IDs and non-standard spellings notes and warnings. The
/// strict rules for IDs we write are [`crate::edit::entry_id_problem`]. `span` is where the ID
/// text is, if known; each diagnostic points at the part of the ID it is about.
pub fn entry_id_diagnostics(id: &str, span: Option<Span>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let at = |offset: usize, len: usize| span.map(|s| s.sub(offset as u64, len as u64));
    let e = match EntryId::parse(id) {
        Ok(e) => e,
        Err(err) => {
            out.push(diagnostic(Severity::Note, read_as_written(id, &err), span));
            return out;
        }
    };
    let mut push = |severity, message: String, where_: Option<Span>| out.push(diagnostic(severity, message, where_));
    if !e.kind_is_valid() {
        let msg = format!(
            "offload kind '{}' is read as written; clang-offload-bundler 22 accepts only {} in --targets",
            e.kind,
            OFFLOAD_KINDS.join(", ")
        );
        push(Severity::Note, msg, at(e.offsets[0], e.kind.len()));
    }
    if !e.triple_is_valid() {
        let msg = format!(
            "'{}' is not an architecture LLVM 22 knows; clang-offload-bundler 22 reads this entry as written but refuses it in --targets",
            e.triple.arch
        );
        push(Severity::Warning, msg, at(e.offsets[1], e.triple.arch.len()));
    }
    let env_span = at(e.offsets[4], e.triple.environment.len());
    if let Some(msg) = processor_in_environment(&e) {
        push(Severity::Warning, msg, env_span);
    }
    let last_span = e.last.as_ref().and_then(|l| at(e.offsets[5], l.len()));
    if let Some(ignored) = e.ignored_field() {
        let msg = format!(
            "'{ignored}' does not start with a processor LLVM 22 knows{}; clang-offload-bundler 22 drops it and writes '{}'",
            did_you_mean(ignored.split(':').next().unwrap_or("")),
            e.standardized()
        );
        push(Severity::Warning, msg, last_span);
    }
    for (severity, msg) in target_id_findings(&e) {
        push(severity, msg, last_span);
    }
    let standard = e.standardized();
    if standard != id && e.kind_is_valid() && e.triple_is_valid() {
        push(Severity::Note, format!("clang-offload-bundler 22 writes this ID as '{standard}'"), span);
    }
    out
}

/// The note for an ID that does not have the five fields the bundler writes
/// (`host-x86_64-unknown-linux` from older ROCm, `sycl-spir64` from Intel's compilers).
fn read_as_written(id: &str, err: &Error) -> String {
    let read = ReadEntryId::new(id);
    let target = read.target_id.map(|t| format!(", target ID '{t}'")).unwrap_or_default();
    format!(
        "'{id}' is read as offload kind '{}', triple '{}'{target}: it does not have the fields clang-offload-bundler 22 writes and accepts in --targets (expected {}, found {})",
        read.kind, read.triple, err.expected, err.found
    )
}

fn diagnostic(severity: Severity, message: String, span: Option<Span>) -> Diagnostic {
    Diagnostic { severity, message, span }
}

/// `hip-amdgcn-amd-amdhsa-gfx906`: five fields, so the processor lands in the environment.
fn processor_in_environment(e: &EntryId) -> Option<String> {
    let env = &e.triple.environment;
    let processor = env.split(':').next().unwrap_or("");
    if e.last.is_some() || known_processor(processor).is_none() {
        return None;
    }
    let triple = format!("{}-{}-{}", e.triple.arch, e.triple.vendor, e.triple.os);
    Some(format!(
        "'{env}' is read as the environment of a 3-field triple, so this entry has no target ID (clang-offload-bundler 22 writes '{}'); write '{}-{triple}--{env}'",
        e.standardized(),
        e.kind
    ))
}

fn did_you_mean(processor: &str) -> String {
    if let Some(p) = PROCESSORS.iter().find(|p| p.name.eq_ignore_ascii_case(processor)) {
        return format!(" (did you mean '{}'?)", p.name);
    }
    if let Some(c) = canonical_amdgcn_processor(processor) {
        return format!(" ('{processor}' is an old name of {c}, which the bundler does not accept)");
    }
    String::new()
}

/// Problems of a kept target ID: malformed, features the processor lacks, a processor for
/// another kind of triple, non-canonical order.
fn target_id_findings(e: &EntryId) -> Vec<(Severity, String)> {
    let mut out = Vec::new();
    let Some(text) = e.target_id() else { return out };
    let tid = match TargetId::parse(text) {
        Ok(t) => t,
        Err(err) => {
            let msg = format!(
                "target ID '{text}' is malformed (expected {}, found {}); the bundler keeps it verbatim but only an identical request finds it",
                err.expected, err.found
            );
            out.push((Severity::Warning, msg));
            return out;
        }
    };
    if let Some(msg) = processor_mismatch(e, &tid) {
        out.push((Severity::Warning, msg));
    }
    if !tid.is_canonical() {
        out.push((
            Severity::Warning,
            format!("target ID '{text}' is not canonical (features in alphabetical order): '{}'", tid.canonical()),
        ));
    }
    out
}

fn processor_mismatch(e: &EntryId, tid: &TargetId) -> Option<String> {
    let p = known_processor(&tid.processor)?;
    let amdgcn = e.triple.is_amdgcn();
    if amdgcn && canonical_amdgcn_processor(p.name).is_none() {
        return Some(format!(
            "'{}' is not an AMD GPU, but the triple is amdgcn; only an identical request finds this entry",
            p.name
        ));
    }
    if !amdgcn && !tid.features.is_empty() {
        return Some(format!(
            "target features are only understood on amdgcn triples; only an identical request finds '{tid}'"
        ));
    }
    let unsupported: Vec<&str> =
        tid.features.iter().map(|(n, _)| n.as_str()).filter(|n| amdgcn && !p.features.contains(n)).collect();
    (!unsupported.is_empty()).then(|| {
        format!(
            "{} has no feature {} (it supports {}); only an identical request finds this entry",
            p.name,
            unsupported.join(", "),
            list_or_none(p.features)
        )
    })
}

/// Adds to a bundle-entry node the fields of its ID (`offload_kind`, `triple`, `target_id`,
/// `processor`, `features`) and the diagnostics of [`entry_id_diagnostics`]. Diagnostics
/// point into the span of the node's `id` field when it has one.
pub fn annotate_entry_id(node: &mut Node, id: &str) {
    let id_span = node.fields.iter().find(|f| f.name == "id").and_then(|f| f.span);
    let (kind, triple, target_id) = match EntryId::parse(id) {
        Ok(e) => (e.kind.clone(), e.triple_text(), e.target_id().map(String::from)),
        Err(_) => {
            let read = ReadEntryId::new(id);
            (read.kind.into(), read.triple.into(), read.target_id.map(String::from))
        }
    };
    node.field("offload_kind", kind, None);
    node.field("triple", triple, None);
    if let Some(tid) = target_id {
        node.field("target_id", tid.as_str(), None);
        let (processor, features) = tid.split_once(':').unwrap_or((&tid, ""));
        node.field("processor", processor, None);
        node.field("features", features, None);
    }
    node.diagnostics.extend(entry_id_diagnostics(id, id_span));
}
