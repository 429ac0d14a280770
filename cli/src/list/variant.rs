//! Wheel variants (PEP 825): the properties a variant wheel declares in its
//! `*.dist-info/variant.json`, beside what its binaries hold. A declared NVIDIA `sm_arch` (`90`,
//! `90_real`: a cubin for sm_90; `90_virtual`: PTX for compute_90) or an AMD `gfx…` value with
//! no such image in the wheel is flagged: installers choose variants by these declarations, not
//! by the bytes.
//!
//! `variant.json` maps each variant label to namespaces, features and their values:
//! `{"variants": {"LABEL": {"nvidia": {"sm_arch": ["86_real", "90_real"]}}}}`. The wheel's own
//! label is the last field of its file name (`name-1.0-py3-none-linux_x86_64-LABEL.whl`); a
//! file declaring one variant needs no label.

use offload::format::package::{self, zip, Compression, Kind};
use offload::report::targets::Target;
use serde_json::{json, Value};

/// Most bytes a `variant.json` may inflate to.
const MAX_VARIANT_JSON: u64 = 1 << 20;
/// Bytes of a zip local header before its name.
const LOCAL_SIZE: u64 = 30;

/// One declared property and whether the binaries bear it out (`None`: not a property about
/// device code).
pub struct Property {
    pub namespace: String,
    pub feature: String,
    pub value: String,
    pub has_code: Option<bool>,
}

/// What a variant wheel declares.
pub struct Declared {
    pub label: String,
    pub properties: Vec<Property>,
}

/// The variant the wheel `name` (its bytes `input`) declares, checked against `targets`;
/// `None` when it is no variant wheel; `Err` when its `variant.json` does not read.
pub fn declared<'a, R: object::ReadRef<'a>>(
    input: R,
    name: &str,
    targets: &[Target],
) -> Option<Result<Declared, String>> {
    let len = input.len().ok()?;
    let head = input.read_bytes_at(0, len.min(512)).ok()?;
    if package::detect(head) != Some(Kind::Zip) {
        return None;
    }
    // Local headers are not read: only the one of `variant.json`.
    let listing = zip::read_skipping(input, true).ok()?;
    let member = listing.members.iter().find(|m| {
        let mut parts = m.name.split('/');
        matches!((parts.next(), parts.next(), parts.next()), (Some(d), Some("variant.json"), None) if d.ends_with(".dist-info"))
    })?;
    Some(read_member(input, member).and_then(|text| parse(&text, name, targets)))
}

/// The bytes of a small member, from its own local header.
fn read_member<'a, R: object::ReadRef<'a>>(input: R, m: &package::Member) -> Result<Vec<u8>, String> {
    let at = m.header.0;
    let local = input
        .read_bytes_at(at, LOCAL_SIZE)
        .map_err(|()| format!("{}: local header unreadable at byte {at}", m.name))?;
    let field = |o: usize| u64::from(u16::from_le_bytes([local[o], local[o + 1]]));
    let data = at + LOCAL_SIZE + field(26) + field(28);
    let stored = input
        .read_bytes_at(data, m.stored_size)
        .map_err(|()| format!("{}: {} stored bytes unreadable at byte {data}", m.name, m.stored_size))?;
    match m.compression {
        Compression::Stored => Ok(stored.to_vec()),
        Compression::Deflate => {
            offload::codec::inflate_raw(stored, m.size, MAX_VARIANT_JSON).map_err(|e| format!("{}: {e}", m.name))
        }
        Compression::Unsupported(method) => Err(format!("{}: compression method {method} not read", m.name)),
    }
}

fn parse(text: &[u8], wheel: &str, targets: &[Target]) -> Result<Declared, String> {
    let doc: Value = serde_json::from_slice(text).map_err(|e| format!("variant.json: expected JSON, found {e}"))?;
    let variants = doc["variants"].as_object().ok_or("variant.json: expected a `variants` object, found none")?;
    let from_name = wheel.strip_suffix(".whl").and_then(|stem| stem.rsplit('-').next()).unwrap_or("");
    let (label, namespaces) = match variants.get(from_name) {
        Some(found) => (from_name.to_string(), found),
        None if variants.len() == 1 => variants.iter().next().map(|(l, v)| (l.clone(), v)).ok_or("no variant")?,
        None => {
            return Err(format!(
                "variant.json: declares {} variants and none is the file name's label `{from_name}`",
                variants.len()
            ))
        }
    };
    let mut properties = Vec::new();
    for (namespace, features) in namespaces.as_object().into_iter().flatten() {
        for (feature, values) in features.as_object().into_iter().flatten() {
            for value in values.as_array().into_iter().flatten().filter_map(Value::as_str) {
                let has_code = bears_out(namespace, feature, value, targets);
                properties.push(Property {
                    namespace: namespace.clone(),
                    feature: feature.clone(),
                    value: value.to_string(),
                    has_code,
                });
            }
        }
    }
    Ok(Declared { label, properties })
}

/// Whether the images hold code for a declared property: an NVIDIA `sm_arch` (a cubin for
/// `N`/`N_real`/`sm_N`, PTX for `N_virtual`/`compute_N`) or a `gfx…` processor; `None` for any
/// other property.
fn bears_out(namespace: &str, feature: &str, value: &str, targets: &[Target]) -> Option<bool> {
    let value = value.trim().to_ascii_lowercase();
    if value.starts_with("gfx") {
        return Some(targets.iter().any(|t| t.processor == value || t.processor.starts_with(&format!("{value}:"))));
    }
    if namespace != "nvidia" || feature != "sm_arch" {
        return None;
    }
    let (number, ptx) = match value.split_once('_') {
        Some((n, "virtual")) => (n.to_string(), true),
        Some((n, "real")) => (n.to_string(), false),
        Some(("sm", n)) => (n.to_string(), false),
        Some(("compute", n)) => (n.to_string(), true),
        _ => (value.clone(), false),
    };
    let sm = format!("sm_{number}");
    Some(targets.iter().any(|t| t.processor == sm && t.target_id.contains(if ptx { "PTX" } else { "cubin" })))
}

impl Declared {
    pub fn json(&self) -> Value {
        let properties: Vec<Value> = self
            .properties
            .iter()
            .map(|p| json!({"namespace": p.namespace, "feature": p.feature, "value": p.value, "has_code": p.has_code}))
            .collect();
        json!({"label": self.label, "properties": properties})
    }

    /// `variant cu86 declares: nvidia :: sm_arch :: 86_real (code found), ...`, and a line per
    /// declared target without code.
    pub fn text(&self) -> String {
        let mut out = format!("\nvariant {} declares:\n", self.label);
        for p in &self.properties {
            let said = match p.has_code {
                Some(true) => "code found",
                Some(false) => "NO CODE for it in the wheel",
                None => "not about device code",
            };
            out += &format!("  {} :: {} :: {}  ({said})\n", p.namespace, p.feature, p.value);
        }
        let missing = self.properties.iter().filter(|p| p.has_code == Some(false)).count();
        if missing > 0 {
            out += &format!("  warning: {missing} declared target(s) have no device code in this wheel\n");
        }
        out
    }
}
