//! `offload check --sarif FILE`: a SARIF 2.1.0 log (OASIS), which code-scanning UIs show: one
//! run of the tool `offload`, its rules (each [`Rule`] with its description), and a result per
//! finding — errors as `error`, improvements as `note` — located in the file checked
//! (`artifactLocation.uri`) and, logically, in its library and kernel.

use offload::report::check::{FileCheck, Finding, Level, Rule};
use serde_json::{json, Value};

pub fn log(files: &[FileCheck]) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.id(),
                "shortDescription": {"text": r.description()},
                "defaultConfiguration": {"level": "error"},
            })
        })
        .collect();
    let results: Vec<Value> = files
        .iter()
        .flat_map(|f| f.checks.iter().flat_map(move |c| c.findings.iter().map(move |x| result(&f.file, x))))
        .collect();
    let artifacts: Vec<Value> = files.iter().map(|f| json!({"location": {"uri": uri(&f.file)}})).collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "offload", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "artifacts": artifacts,
            "results": results,
        }],
    })
}

/// A path as a relative URI reference: `/` separators, and the characters a URI cannot hold
/// as they are percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:@!$&'()*+,;=".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn result(file: &str, f: &Finding) -> Value {
    let index = Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or(0);
    let mut logical = vec![json!({"name": f.library, "kind": "module"})];
    if let Some(k) = &f.kernel {
        logical.push(json!({
            "name": k.demangled,
            "fullyQualifiedName": format!("{}!{}", f.library, k.demangled),
            "decoratedName": k.name,
            "kind": "function",
        }));
    }
    let mut properties = json!({"library": f.library});
    if let Some(t) = &f.target {
        properties["target"] = json!(t);
    }
    json!({
        "ruleId": f.rule.id(),
        "ruleIndex": index,
        "level": if f.level == Level::Error { "error" } else { "note" },
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": {"artifactLocation": {"uri": uri(file)}},
            "logicalLocations": logical,
        }],
        "properties": properties,
    })
}
