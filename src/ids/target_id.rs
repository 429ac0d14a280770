//! Target IDs: a processor and its `+`/`-` features, parsed, checked and put in canonical order.

use super::*;
use crate::util::sort;

/// The value a target ID gives a feature: `+` or `-`. A feature that is absent means "any".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FeatureSetting {
    On,
    Off,
}

impl FeatureSetting {
    pub fn sign(self) -> char {
        match self {
            FeatureSetting::On => '+',
            FeatureSetting::Off => '-',
        }
    }

    fn from_sign(c: char) -> Option<Self> {
        match c {
            '+' => Some(FeatureSetting::On),
            '-' => Some(FeatureSetting::Off),
            _ => None,
        }
    }
}

/// A processor and its explicitly set features, in the order written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TargetId {
    pub processor: String,
    pub features: Vec<(String, FeatureSetting)>,
}

/// One `:feature±` as found in the text, with its byte offset.
struct RawFeature<'a> {
    name: &'a str,
    setting: FeatureSetting,
    offset: usize,
}

/// Splits and checks the syntax of a target ID: a processor, then features each ending in a
/// sign, each named once. Offsets in errors are byte offsets in `s`.
fn parse_raw(s: &str) -> Result<(&str, Vec<RawFeature<'_>>)> {
    let (processor, rest) = match s.split_once(':') {
        Some((p, r)) => (p, Some(r)),
        None => (s, None),
    };
    if processor.is_empty() {
        let found = if s.is_empty() { "an empty target ID" } else { "':'" };
        return Err(Error::new(0, TARGET_ID_CONTEXT, "a processor name", found));
    }
    let mut features = Vec::new();
    if let Some(rest) = rest {
        let mut offset = processor.len() + 1;
        for piece in rest.split(':') {
            features.push(parse_feature(piece, offset)?);
            offset += piece.len() + 1;
        }
    }
    check_unique(&features)?;
    Ok((processor, features))
}

fn parse_feature(piece: &str, offset: usize) -> Result<RawFeature<'_>> {
    let expected = "a feature name followed by '+' or '-'";
    let Some(last) = piece.chars().last() else {
        return Err(Error::new(offset as u64, TARGET_ID_CONTEXT, expected, "nothing after ':'"));
    };
    let Some(setting) = FeatureSetting::from_sign(last) else {
        let at = offset + piece.len() - last.len_utf8();
        return Err(Error::new(at as u64, TARGET_ID_CONTEXT, expected, format!("'{piece}' without a sign")));
    };
    let name = &piece[..piece.len() - 1];
    if name.is_empty() {
        return Err(Error::new(offset as u64, TARGET_ID_CONTEXT, expected, format!("only '{last}'")));
    }
    Ok(RawFeature { name, setting, offset })
}

/// Each feature may appear once. Sorting keeps this O(n log n) on hostile input.
fn check_unique(features: &[RawFeature<'_>]) -> Result<()> {
    let mut order: Vec<usize> = (0..features.len()).collect();
    sort::sort_by(&mut order, |&a, &b| features[a].name.cmp(features[b].name).then(a.cmp(&b)));
    let repeat = order.windows(2).filter(|w| features[w[0]].name == features[w[1]].name).map(|w| w[1]).min();
    match repeat {
        None => Ok(()),
        Some(i) => Err(Error::new(
            features[i].offset as u64,
            TARGET_ID_CONTEXT,
            "each feature at most once",
            format!("'{}' a second time", features[i].name),
        )),
    }
}

impl TargetId {
    /// Parses the syntax only (like LLVM's format check): a non-empty processor and features
    /// that each end in `+` or `-` and appear once. Processor and feature names are not
    /// checked; see [`TargetId::parse_amdgpu`] for that. Unlike LLVM this also refuses an
    /// empty feature (`gfx906:`, `gfx906::xnack+`, `gfx906:+`), which LLVM accepts or reads
    /// out of bounds.
    pub fn parse(s: &str) -> Result<TargetId> {
        let (processor, raw) = parse_raw(s)?;
        Ok(TargetId { processor: processor.into(), features: raw.iter().map(|f| (f.name.into(), f.setting)).collect() })
    }

    /// Parses as LLVM's `parseTargetID` does for an `amdgcn` triple, the check clang's driver
    /// applies to `--offload-arch`: the processor must be an AMD GPU LLVM 22 knows (an alias
    /// such as `fiji` becomes its canonical name, `gfx803`) and each feature one it supports.
    pub fn parse_amdgpu(s: &str) -> Result<TargetId> {
        let (processor, raw) = parse_raw(s)?;
        let Some(canonical) = canonical_amdgcn_processor(processor) else {
            return Err(Error::new(
                0,
                TARGET_ID_CONTEXT,
                "an AMD GPU processor LLVM 22 knows",
                format!("'{processor}'"),
            ));
        };
        let supported = amdgcn_features(canonical);
        if let Some(f) = raw.iter().find(|f| !supported.contains(&f.name)) {
            return Err(Error::new(
                f.offset as u64,
                TARGET_ID_CONTEXT,
                format!("a feature {canonical} supports ({})", list_or_none(supported)),
                format!("'{}'", f.name),
            ));
        }
        Ok(TargetId { processor: canonical.into(), features: raw.iter().map(|f| (f.name.into(), f.setting)).collect() })
    }

    /// The setting of `feature`, `None` meaning "any".
    pub fn feature(&self, feature: &str) -> Option<FeatureSetting> {
        self.features.iter().find(|(n, _)| n == feature).map(|&(_, s)| s)
    }

    /// The canonical form: features sorted by name, byte-wise, as LLVM's
    /// `getCanonicalTargetID` orders them (`gfx90a:sramecc-:xnack+`). The processor is kept
    /// as written; [`TargetId::parse_amdgpu`] maps aliases to canonical names.
    pub fn canonical(&self) -> String {
        let mut sorted: Vec<&(String, FeatureSetting)> = self.features.iter().collect();
        sort::sort_by(&mut sorted, |a, b| a.0.cmp(&b.0));
        let mut out = self.processor.clone();
        for (name, setting) in sorted {
            out.push(':');
            out.push_str(name);
            out.push(setting.sign());
        }
        out
    }

    /// Whether the features are in canonical (byte-wise sorted) order.
    pub fn is_canonical(&self) -> bool {
        self.features.windows(2).all(|w| w[0].0 < w[1].0)
    }

    /// Whether a code object built for `self` can serve a request for `requested` (LLVM's
    /// `isCompatibleTargetID`): same processor, and every feature `self` sets is set the same
    /// way in `requested`. Features `self` leaves out ("any") accept anything.
    pub fn is_compatible_with(&self, requested: &TargetId) -> bool {
        // A map keeps this linear-logarithmic however many features hostile input lists.
        let wanted: BTreeMap<&str, FeatureSetting> = requested.features.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        self.processor == requested.processor && self.features.iter().all(|(n, s)| wanted.get(n.as_str()) == Some(s))
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.processor)?;
        for (name, setting) in &self.features {
            write!(f, ":{name}{}", setting.sign())?;
        }
        Ok(())
    }
}

pub(super) fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}
