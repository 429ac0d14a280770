//! `--pip REQ...`: the set of wheels pip would install for some requirements, before installing
//! anything. pip's own resolver answers (`pip install --dry-run --ignore-installed --report -`
//! with `--only-binary=:all:` and the platform options: pip reads only the wheels' metadata),
//! and each wheel of its report is then read by URL ([`crate::remote`]), only where it can hold
//! device code, and answered for as one library of its distribution.

use super::scan::Distribution;
use crate::fail::{Failure, Outcome};
use clap::Args;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

#[derive(Args, Clone, Debug, Default)]
pub struct PipArgs {
    /// Answer for the wheels pip would install for these requirements (`torch==2.8.0`,
    /// `vllm`, `pkg[extra]>=1`), read by URL without installing or downloading them whole;
    /// repeat for several, or list them after one `--pip`.
    #[arg(long = "pip", value_name = "REQ", num_args = 1..)]
    pub requirements: Vec<String>,
    /// The package index pip resolves against (pip's `--index-url`).
    #[arg(long, value_name = "URL", requires = "requirements")]
    pub index_url: Option<String>,
    /// Another package index (pip's `--extra-index-url`); repeat for several.
    #[arg(long, value_name = "URL", requires = "requirements")]
    pub extra_index_url: Vec<String>,
    /// The Python version the wheels are for (`3.12`; pip's `--python-version`), instead of the
    /// interpreter's.
    #[arg(long, value_name = "VERSION", requires = "requirements")]
    pub python_version: Option<String>,
    /// A platform the wheels are for (`manylinux_2_28_x86_64`; pip's `--platform`); repeat
    /// for several. By default the interpreter's.
    #[arg(long, value_name = "PLATFORM", requires = "requirements")]
    pub platform: Vec<String>,
}

impl PipArgs {
    pub fn asked(&self) -> bool {
        !self.requirements.is_empty()
    }
}

/// One wheel of pip's answer.
pub struct Wheel {
    pub name: String,
    pub version: String,
    /// Its URL, or a local path (pip's `file://` URLs: a `--find-links` directory).
    pub location: PathBuf,
}

/// The wheels pip would install for `args`' requirements, as `python -m pip` resolves them.
pub fn resolve(args: &PipArgs, python: &str) -> Outcome<Vec<Wheel>> {
    let target = std::env::temp_dir().join(format!("offload-pip-target-{}", std::process::id()));
    let mut command = Command::new(python);
    command.args(["-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--report", "-"]);
    command.args(["--only-binary=:all:", "--disable-pip-version-check", "--no-input", "--target"]);
    command.arg(&target);
    if let Some(url) = &args.index_url {
        command.args(["--index-url", url]);
    }
    for url in &args.extra_index_url {
        command.args(["--extra-index-url", url]);
    }
    if let Some(version) = &args.python_version {
        command.args(["--python-version", version]);
    }
    for platform in &args.platform {
        command.args(["--platform", platform]);
    }
    command.args(&args.requirements);
    let output = command.output().map_err(|e| Failure::new(format!("--pip: cannot run `{python} -m pip`: {e}")));
    // pip makes nothing in a dry run; the directory goes whatever happened.
    let _ = std::fs::remove_dir_all(&target);
    let output = output?;
    let asked = args.requirements.join(" ");
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = tail[tail.len().saturating_sub(6)..].join(" / ");
        return Err(Failure::new(format!(
            "--pip {asked}: expected pip to resolve the requirements, found {}: {tail}",
            output.status.code().map_or("pip killed by a signal".to_string(), |c| format!("pip's exit status {c}"))
        )));
    }
    let report: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        Failure::new(format!("--pip {asked}: expected pip's installation report (JSON) on its output, found {e}"))
    })?;
    wheels(&report).map_err(|e| Failure::new(format!("--pip {asked}: pip's report: {e}")))
}

/// The wheels of a pip installation report (`{"install": [{"metadata": {name, version},
/// "download_info": {url}}]}`).
pub fn wheels(report: &Value) -> Result<Vec<Wheel>, String> {
    let install = report["install"].as_array().ok_or("expected an `install` list, found none")?;
    install
        .iter()
        .map(|item| {
            let name = item["metadata"]["name"].as_str().ok_or("expected metadata.name in each item")?;
            let version = item["metadata"]["version"].as_str().unwrap_or("").to_string();
            let url = item["download_info"]["url"].as_str().ok_or("expected download_info.url in each item")?;
            let location = match url.strip_prefix("file://") {
                Some(path) => PathBuf::from(percent_decoded(path)),
                None => PathBuf::from(url),
            };
            Ok(Wheel { name: name.to_string(), version, location })
        })
        .collect()
}

/// `%20` and the like of a `file://` URL's path, decoded (bytes that do not decode are kept).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The wheels as doctor's libraries (each its own distribution's) and distributions.
pub fn as_libraries(wheels: Vec<Wheel>) -> (Vec<(PathBuf, Option<usize>)>, Vec<Distribution>) {
    let mut libraries = Vec::new();
    let mut distributions = Vec::new();
    for (i, w) in wheels.into_iter().enumerate() {
        libraries.push((w.location, Some(i)));
        distributions.push(Distribution { name: w.name, version: w.version });
    }
    (libraries, distributions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_gives_its_wheels() {
        let report = serde_json::json!({"install": [
            {"metadata": {"name": "gpu-app", "version": "1.0"}, "download_info": {"url": "http://127.0.0.1:1/pypi-files/gpu_app-1.0-py3-none-any.whl"}},
            {"metadata": {"name": "local", "version": "2"}, "download_info": {"url": "file:///tmp/a%20b/local-2-py3-none-any.whl"}},
        ]});
        let found = wheels(&report).unwrap_or_default();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].location, PathBuf::from("http://127.0.0.1:1/pypi-files/gpu_app-1.0-py3-none-any.whl"));
        assert_eq!(found[1].location, PathBuf::from("/tmp/a b/local-2-py3-none-any.whl"));
        assert!(wheels(&serde_json::json!({})).is_err());
    }
}
