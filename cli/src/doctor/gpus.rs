//! The GPUs `doctor` answers for: those named with `--gpu`, or this machine's, found as the
//! runtimes find them. AMD GPUs are the KFD topology's nodes with a `gfx_target_version`
//! (`/sys/class/kfd/kfd/topology/nodes/N/properties`; `OFFLOAD_SYSFS_ROOT` stands for `/` in
//! tests), NVIDIA GPUs are `nvidia-smi --query-gpu=compute_cap`'s lines. The environment the
//! runtimes read is honoured: `ROCR_VISIBLE_DEVICES`, then `HIP_VISIBLE_DEVICES` (AMD),
//! `CUDA_VISIBLE_DEVICES` (NVIDIA), and `HSA_OVERRIDE_GFX_VERSION`, with which ROCr reports
//! every AMD GPU as the version it names, so the HIP runtime loads that processor's images.

use offload::report::fit::parse_gpu;
use offload::report::targets::Vendor;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One GPU asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gpu {
    /// The GPU as found or asked (`gfx1031`, `sm_86`), canonical.
    pub name: String,
    /// The processor whose images the runtime loads on it: `name`, or the one
    /// `HSA_OVERRIDE_GFX_VERSION` names.
    pub loads_as: String,
    pub vendor: Vendor,
    /// Where it was found: `--gpu`, `KFD node 2`, `nvidia-smi GPU 0`.
    pub found_by: String,
    /// `HSA_OVERRIDE_GFX_VERSION=10.3.0` when that override decides what loads.
    pub override_by: Option<String>,
}

/// The environment variables the runtimes read, as this process sees them.
pub struct Environment {
    pub sysfs_root: PathBuf,
    pub hsa_override: Option<String>,
    pub rocr_visible: Option<String>,
    pub hip_visible: Option<String>,
    pub cuda_visible: Option<String>,
}

impl Environment {
    pub fn current() -> Self {
        let var = |name: &str| std::env::var(name).ok();
        Environment {
            sysfs_root: var("OFFLOAD_SYSFS_ROOT").map_or_else(|| PathBuf::from("/"), PathBuf::from),
            hsa_override: var("HSA_OVERRIDE_GFX_VERSION"),
            rocr_visible: var("ROCR_VISIBLE_DEVICES"),
            hip_visible: var("HIP_VISIBLE_DEVICES"),
            cuda_visible: var("CUDA_VISIBLE_DEVICES"),
        }
    }
}

/// The GPUs to answer for, and notes on how they were found (what the environment hid, what
/// could not be asked). `asked` empty: this machine's. An `Err` says what is wrong with a
/// `--gpu` or with `HSA_OVERRIDE_GFX_VERSION`.
pub fn gpus(asked: &[String], env: &Environment) -> Result<(Vec<Gpu>, Vec<String>), String> {
    let mut notes = Vec::new();
    let overridden = match &env.hsa_override {
        Some(v) => Some((override_processor(v)?, format!("HSA_OVERRIDE_GFX_VERSION={v}"))),
        None => None,
    };
    let mut found = Vec::new();
    if asked.is_empty() {
        found.extend(amd_gpus(env, &mut notes));
        found.extend(nvidia_gpus(env, &mut notes));
    } else {
        for a in asked {
            let name = parse_gpu(a).map_err(|e| format!("--gpu: expected {e}"))?;
            found.push(Gpu {
                loads_as: name.clone(),
                vendor: vendor(&name),
                name,
                found_by: "--gpu".into(),
                override_by: None,
            });
        }
    }
    // ROCr reports every AMD agent as the overriding version, whatever it is.
    if let Some((processor, by)) = overridden {
        for g in found.iter_mut().filter(|g| g.vendor == Vendor::Amd) {
            g.loads_as = processor.clone();
            g.override_by = Some(by.clone());
        }
    }
    Ok((found, notes))
}

fn vendor(gpu: &str) -> Vendor {
    if gpu.starts_with("sm_") {
        Vendor::Nvidia
    } else {
        Vendor::Amd
    }
}

/// `gfx` + major + minor and stepping in hex: how ROCr and LLVM spell a version
/// (`9.0.10` and 90010 are `gfx90a`; `10.3.0` and 100300 are `gfx1030`).
fn processor_of(major: u32, minor: u32, stepping: u32) -> String {
    format!("gfx{major}{minor:x}{stepping:x}")
}

/// The processor `HSA_OVERRIDE_GFX_VERSION` (`major.minor.stepping`, decimal) names.
pub fn override_processor(value: &str) -> Result<String, String> {
    let parts: Vec<Option<u32>> = value.trim().split('.').map(|p| p.parse().ok()).collect();
    let [Some(major), Some(minor), Some(stepping)] = parts[..] else {
        return Err(format!("HSA_OVERRIDE_GFX_VERSION: expected major.minor.stepping (10.3.0), found '{value}'"));
    };
    let name = processor_of(major, minor, stepping);
    parse_gpu(&name).map_err(|e| format!("HSA_OVERRIDE_GFX_VERSION={value} names {name}: expected {e}"))
}

/// The processor of a KFD `gfx_target_version` (major * 10000 + minor * 100 + stepping).
pub fn kfd_processor(version: u64) -> Option<String> {
    let (major, minor, stepping) = (version / 10000, (version / 100) % 100, version % 100);
    parse_gpu(&processor_of(major as u32, minor as u32, stepping as u32)).ok()
}

/// A KFD node's `properties`: `name value` lines.
fn property(properties: &str, key: &str) -> Option<u64> {
    properties.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

/// The AMD GPUs of the KFD topology, in node order, less those the visible-devices variables
/// hide. CPU nodes have `gfx_target_version 0`.
fn amd_gpus(env: &Environment, notes: &mut Vec<String>) -> Vec<Gpu> {
    let dir = env.sysfs_root.join("sys/class/kfd/kfd/topology/nodes");
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut nodes: Vec<(u64, PathBuf)> =
        entries.flatten().filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path()))).collect();
    nodes.sort();
    // (GPU, its ROCr UUID `GPU-<unique_id in hex>`) for every GPU node.
    let mut all = Vec::new();
    for (node, path) in nodes {
        let Ok(properties) = std::fs::read_to_string(path.join("properties")) else { continue };
        let version = property(&properties, "gfx_target_version").unwrap_or(0);
        if version == 0 {
            continue;
        }
        let found_by = format!("KFD node {node}");
        match kfd_processor(version) {
            Some(name) => {
                let uuid = property(&properties, "unique_id").map(|id| format!("GPU-{id:016x}"));
                all.push((
                    Gpu { loads_as: name.clone(), vendor: Vendor::Amd, name, found_by, override_by: None },
                    uuid,
                ));
            }
            None => notes.push(format!(
                "{found_by}: gfx_target_version {version} names no AMD GPU LLVM 22 knows; not answered for"
            )),
        }
    }
    let total = all.len();
    let mut visible = all;
    for var in [("ROCR_VISIBLE_DEVICES", &env.rocr_visible), ("HIP_VISIBLE_DEVICES", &env.hip_visible)] {
        if let (name, Some(value)) = var {
            visible = select(visible, value, |(_, uuid)| uuid.as_deref());
            notes.push(format!("{name}={value}: {} of {total} AMD GPUs visible", visible.len()));
        }
    }
    visible.into_iter().map(|(g, _)| g).collect()
}

/// The devices a `*_VISIBLE_DEVICES` list keeps, in its order: indices into `devices` or
/// UUIDs (`GPU-...`, when `uuid` gives them). As the CUDA and ROCm runtimes do, an entry that
/// names no device ends the list; an empty value hides every device.
fn select<T: Clone>(devices: Vec<T>, value: &str, uuid: impl Fn(&T) -> Option<&str>) -> Vec<T> {
    let mut kept = Vec::new();
    for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let found = match entry.parse::<usize>() {
            Ok(i) => devices.get(i),
            Err(_) => devices.iter().find(|d| uuid(d).is_some_and(|u| u.eq_ignore_ascii_case(entry))),
        };
        match found {
            Some(d) => kept.push(d.clone()),
            None => break,
        }
    }
    kept
}

/// The NVIDIA GPUs `nvidia-smi` lists (`8.6` is `sm_86`), less those `CUDA_VISIBLE_DEVICES`
/// hides. No `nvidia-smi` on PATH: no NVIDIA GPU, said in a note only when it fails.
fn nvidia_gpus(env: &Environment, notes: &mut Vec<String>) -> Vec<Gpu> {
    let output = match Command::new("nvidia-smi").args(["--query-gpu=compute_cap", "--format=csv,noheader"]).output() {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            notes.push(format!("nvidia-smi: cannot run it: {e}"));
            return Vec::new();
        }
    };
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        let why = if why.trim().is_empty() { text.trim().to_string() } else { why.trim().to_string() };
        notes.push(format!("nvidia-smi failed ({}): {why}", output.status));
        return Vec::new();
    }
    let mut all = Vec::new();
    for (index, line) in text.lines().map(str::trim).filter(|l| !l.is_empty()).enumerate() {
        let found_by = format!("nvidia-smi GPU {index}");
        match compute_capability(line) {
            Some(name) => {
                all.push(Gpu { loads_as: name.clone(), vendor: Vendor::Nvidia, name, found_by, override_by: None })
            }
            None => {
                notes.push(format!("{found_by}: expected a compute capability (8.6), found '{line}'; not answered for"))
            }
        }
    }
    match &env.cuda_visible {
        Some(value) => {
            let total = all.len();
            // nvidia-smi gives no UUIDs here: UUID entries select nothing and end the list.
            let visible = select(all, value, |_| None);
            notes.push(format!("CUDA_VISIBLE_DEVICES={value}: {} of {total} NVIDIA GPUs visible", visible.len()));
            visible
        }
        None => all,
    }
}

/// `8.6` → `sm_86`, a GPU LLVM 22 knows.
pub fn compute_capability(text: &str) -> Option<String> {
    let (major, minor) = text.trim().split_once('.')?;
    let (major, minor): (u32, u32) = (major.parse().ok()?, minor.parse().ok()?);
    parse_gpu(&format!("sm_{major}{minor}")).ok()
}

/// The root under which the KFD topology is read (for messages).
pub fn topology(env: &Environment) -> PathBuf {
    Path::new(&env.sysfs_root).join("sys/class/kfd/kfd/topology/nodes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_name_processors_as_rocr_does() {
        assert_eq!(kfd_processor(90010).as_deref(), Some("gfx90a"));
        assert_eq!(kfd_processor(110000).as_deref(), Some("gfx1100"));
        assert_eq!(kfd_processor(90402).as_deref(), Some("gfx942"));
        assert_eq!(kfd_processor(1), None);
        assert_eq!(override_processor("10.3.0").as_deref(), Ok("gfx1030"));
        assert_eq!(override_processor("9.0.10").as_deref(), Ok("gfx90a"));
        assert!(override_processor("10.3").unwrap_err().contains("expected major.minor.stepping"));
        assert_eq!(compute_capability("8.6").as_deref(), Some("sm_86"));
        assert_eq!(compute_capability("eight"), None);
    }

    #[test]
    fn visible_devices_select_in_order_and_stop_at_an_unknown_one() {
        fn uuid<'a>(d: &'a (&'static str, Option<&'static str>)) -> Option<&'a str> {
            d.1
        }
        fn names(v: Vec<(&'static str, Option<&'static str>)>) -> Vec<&'static str> {
            v.into_iter().map(|d| d.0).collect()
        }
        let devices = vec![("a", Some("GPU-01")), ("b", None), ("c", None)];
        assert_eq!(names(select(devices.clone(), "2,0", uuid)), ["c", "a"]);
        assert_eq!(names(select(devices.clone(), "1,7,0", uuid)), ["b"]);
        assert_eq!(names(select(devices.clone(), "gpu-01", uuid)), ["a"]);
        assert!(select(devices, "", uuid).is_empty());
    }
}
