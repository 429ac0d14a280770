//! What the remote tests share (`remote.rs`, `remote_stream.rs`): scripts/remote_server.py on a
//! directory of test files, its byte counts, and the comparison of a command's answer for a URL
//! with its answer for the local copy.

use super::{ours, root, s};
use crate::support::Scratch;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The test server on a directory of test files; killed when dropped.
pub struct Server {
    child: Child,
    pub url: String,
    files: Scratch,
}

impl Server {
    /// Serves `files` (filled by the caller) with the server's `flags`.
    pub fn serve(files: Scratch, flags: &[&str]) -> Server {
        let mut child = Command::new("python3")
            .arg(root().join("scripts/remote_server.py"))
            .args(["--quiet", "--root"])
            .arg(files.dir())
            .args(flags)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the test server starts");
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first).unwrap();
        assert!(first.starts_with("http://127.0.0.1:"), "the server printed {first:?}");
        Server { child, url: first.trim().to_string(), files }
    }

    /// The local copy of a served file.
    pub fn local(&self, name: &str) -> PathBuf {
        self.files.path(name)
    }

    pub fn get(&self, path: &str) -> Value {
        let mut response = ureq::get(format!("{}{path}", self.url)).call().expect("the server answers");
        serde_json::from_slice(&response.body_mut().read_to_vec().unwrap()).unwrap()
    }

    pub fn reset(&self) {
        self.get("_stats/reset");
    }

    /// Byte ranges of `file` the server sent since the last reset.
    pub fn ranges(&self, file: &str) -> Vec<(u64, u64)> {
        let stats = self.get("_stats");
        let Some(ranges) = stats["paths"][file]["ranges"].as_array() else { return Vec::new() };
        ranges.iter().map(|r| (r[0].as_u64().unwrap(), r[1].as_u64().unwrap())).collect()
    }

    /// Bytes of `file` the CLI fetched (not pip, which reads files of its own).
    pub fn bytes(&self, file: &str) -> u64 {
        self.get("_stats")["paths"][file]["agents"]["offload"].as_u64().unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes the remote tests' wheels (scripts/make_test_wheels.py) into `files`, with `args`.
pub fn make_test_wheels(files: &Scratch, args: &[&std::ffi::OsStr]) {
    let made = Command::new("python3")
        .arg(root().join("scripts/make_test_wheels.py"))
        .arg(files.dir())
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(made.status.success(), "make_test_wheels.py: {}", String::from_utf8_lossy(&made.stderr));
}

/// `offload ARGS` : (exit code, stdout, stderr).
pub fn offload(args: &[String]) -> (i32, String, String) {
    offload_with(args, &[])
}

/// `offload ARGS` with `env`: (exit code, stdout, stderr).
pub fn offload_with(args: &[String], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(ours()).args(args).envs(env.iter().copied()).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The JSON answer of a command, without the keys that name the file as given.
pub fn answer(args: &[String]) -> (i32, Value) {
    let (code, stdout, stderr) = offload(args);
    let mut value: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stdout} {stderr}"));
    strip_file_names(&mut value);
    (code, value)
}

/// `value` without the keys that name the file as given (`file`, `old`, `new`).
pub fn strip_file_names(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in ["file", "old", "new"] {
                if map.get(key).is_some_and(Value::is_string) {
                    map.remove(key);
                }
            }
            map.values_mut().for_each(strip_file_names);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_file_names),
        _ => {}
    }
}

/// `command` with its `{}` standing for `file`.
pub fn with_file(command: &[&str], file: &str) -> Vec<String> {
    command.iter().map(|a| if *a == "{}" { file.to_string() } else { a.to_string() }).collect()
}

/// Every command of `commands` answers for `url` as for the local copy `local`.
pub fn same_answers(commands: &[&[&str]], local: &Path, url: &str) {
    for command in commands {
        let here = answer(&with_file(command, &s(local)));
        let there = answer(&with_file(command, url));
        assert_eq!(here, there, "{command:?}: {url} answers otherwise than {}", local.display());
    }
}
