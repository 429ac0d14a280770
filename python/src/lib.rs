//! `offload._offload`: the native half of the `offload` Python package. Each function runs the
//! CLI's own code (`offload_cli::api`, `offload_cli::doctor`, `offload_cli::run`) with the GIL
//! released, and answers with the command's `--json` document as JSON text and the failure the
//! command would end with; `offload/__init__.py` turns those into a dict and `offload.Error`.
//! A panic (a bug: the readers never panic on bad input) is caught and answered as a failure,
//! so the interpreter never dies of one.

use offload_cli::api::{self, Answer, SharedReader, Source};
use offload_cli::doctor as doctor_cli;
use offload_cli::fail::{Failure, Outcome};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// (message, byte offset) of a failure.
type Failed = (String, Option<u64>);
/// (the document as JSON text, or `None`; the failure, or `None`).
type Reply = (Option<String>, Option<Failed>);

/// What to read: exactly one of a path (or URL) and data: `bytes`, or a binary file object
/// that seeks, read by seek and read (`name` names the data).
fn source(path: Option<PathBuf>, data: Option<Py<PyAny>>, name: String) -> Outcome<Source> {
    match (path, data) {
        (Some(p), None) => Ok(Source::Path(p)),
        (None, Some(object)) => Python::with_gil(|py| {
            let bound = object.bind(py);
            if let Ok(bytes) = bound.downcast::<PyBytes>() {
                return Ok(Source::Bytes { name, bytes: bytes.as_bytes().to_vec() });
            }
            let reader = PyFileReader { file: object.clone_ref(py) };
            Ok(Source::Reader { name, reader: SharedReader::new(Box::new(reader)) })
        }),
        _ => Err(Failure::new("expected a path or bytes, found both or neither")),
    }
}

/// A Python binary file object read through its `seek` and `read`, the GIL taken for each call.
struct PyFileReader {
    file: Py<PyAny>,
}

impl PyFileReader {
    fn call<T>(&self, work: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<T>) -> std::io::Result<T> {
        Python::with_gil(|py| work(self.file.bind(py)).map_err(|e| std::io::Error::other(e.to_string())))
    }
}

impl std::io::Read for PyFileReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.call(|file| {
            let data = file.call_method1("read", (buf.len(),))?;
            let bytes = data.downcast::<PyBytes>()?.as_bytes();
            if bytes.len() > buf.len() {
                let message = format!("read({}) gave {} bytes", buf.len(), bytes.len());
                return Err(pyo3::exceptions::PyValueError::new_err(message));
            }
            buf[..bytes.len()].copy_from_slice(bytes);
            Ok(bytes.len())
        })
    }
}

impl std::io::Seek for PyFileReader {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        let (offset, whence) = match pos {
            std::io::SeekFrom::Start(n) => (n as i128, 0),
            std::io::SeekFrom::Current(n) => (n as i128, 1),
            std::io::SeekFrom::End(n) => (n as i128, 2),
        };
        self.call(|file| file.call_method1("seek", (offset, whence))?.extract::<u64>())
    }
}

/// Runs `work` without the GIL, a panic becoming a failure.
fn released<T: Send>(py: Python<'_>, work: impl FnOnce() -> Outcome<T> + Send) -> Outcome<T> {
    py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(Failure::new(format!("internal error (please report it with the file): {what}")))
        })
    })
}

fn reply(outcome: Outcome<Answer>) -> Reply {
    match outcome {
        Ok(a) => (Some(a.document.to_string()), a.failure.map(|f| (f.message, f.offset))),
        Err(f) => (None, Some((f.message, f.offset))),
    }
}

/// `offload list --json`.
#[pyfunction]
#[pyo3(signature = (path, data, name))]
fn list(py: Python<'_>, path: Option<PathBuf>, data: Option<Py<PyAny>>, name: String) -> Reply {
    reply(released(py, || api::list(&source(path, data, name)?)))
}

/// The `targets` of `offload list --json`.
#[pyfunction]
#[pyo3(signature = (path, data, name))]
fn targets(py: Python<'_>, path: Option<PathBuf>, data: Option<Py<PyAny>>, name: String) -> Reply {
    reply(released(py, || api::targets(&source(path, data, name)?)))
}

/// `offload kernels --json [--target T ...]`.
#[pyfunction]
#[pyo3(signature = (path, data, name, only))]
fn kernels(py: Python<'_>, path: Option<PathBuf>, data: Option<Py<PyAny>>, name: String, only: Vec<String>) -> Reply {
    reply(released(py, || api::kernels(&source(path, data, name)?, &only)))
}

/// `offload fit --json --gpu G ...`.
#[pyfunction]
#[pyo3(signature = (path, data, name, gpus))]
fn fit(py: Python<'_>, path: Option<PathBuf>, data: Option<Py<PyAny>>, name: String, gpus: Vec<String>) -> Reply {
    reply(released(py, || api::fit(&source(path, data, name)?, &gpus)))
}

/// `offload sizes --json [--drop T ...]`.
#[pyfunction]
#[pyo3(signature = (path, data, name, drop))]
fn sizes(py: Python<'_>, path: Option<PathBuf>, data: Option<Py<PyAny>>, name: String, drop: Vec<String>) -> Reply {
    reply(released(py, || api::sizes(&source(path, data, name)?, &drop)))
}

/// `offload check --json`: the policy's TOML text, required targets, the limits (registers,
/// spills, scratch, lds, min_waves) and a baseline's JSON text; the document also holds the
/// file's own `baseline`.
#[pyfunction]
#[pyo3(signature = (path, data, name, policy, require, limits, baseline))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn check(
    py: Python<'_>,
    path: Option<PathBuf>,
    data: Option<Py<PyAny>>,
    name: String,
    policy: String,
    require: Vec<String>,
    limits: (Option<u64>, Option<u64>, Option<u64>, Option<u64>, Option<u64>),
    baseline: Option<String>,
) -> Reply {
    let (registers, spills, scratch, lds, min_waves) = limits;
    let limits = api::CheckLimits { registers, spills, scratch, lds, min_waves };
    reply(released(py, || api::check(&source(path, data, name)?, &policy, &require, limits, baseline.as_deref())))
}

/// `offload diff --json OLD NEW`; each side is (path, bytes, name).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn diff(
    py: Python<'_>,
    old: (Option<PathBuf>, Option<Py<PyAny>>, String),
    new: (Option<PathBuf>, Option<Py<PyAny>>, String),
) -> Reply {
    reply(released(py, || api::diff(&source(old.0, old.1, old.2)?, &source(new.0, new.1, new.2)?)))
}

/// `offload doctor --json`: (document, exit status), or the failure (no GPU, a bad `--gpu`).
#[pyfunction]
#[pyo3(signature = (paths, gpus, python))]
fn doctor(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    gpus: Vec<String>,
    python: String,
) -> (Option<(String, u8)>, Option<Failed>) {
    let request = doctor_cli::Request { paths, gpus, python, progress: false, pip: Default::default() };
    match released(py, || doctor_cli::examine(&request)) {
        Ok(report) => (Some((doctor_cli::document(&report).to_string(), doctor_cli::exit_status(&report))), None),
        Err(f) => (None, Some((f.message, f.offset))),
    }
}

/// `offload fit --json --gpu G ... --pip REQ ...`: doctor's document for the wheels pip would
/// install, or the failure (a bad `--gpu`, requirements pip cannot resolve). `pip` is (index
/// URL, extra index URLs, Python version, platforms).
#[pyfunction]
#[pyo3(signature = (requirements, gpus, python, pip))]
#[allow(clippy::type_complexity)]
fn fit_requirements(
    py: Python<'_>,
    requirements: Vec<String>,
    gpus: Vec<String>,
    python: String,
    pip: (Option<String>, Vec<String>, Option<String>, Vec<String>),
) -> (Option<(String, u8)>, Option<Failed>) {
    let (index_url, extra_index_url, python_version, platform) = pip;
    let pip = doctor_cli::pip::PipArgs { requirements, index_url, extra_index_url, python_version, platform };
    let request = doctor_cli::Request { paths: Vec::new(), gpus, python, progress: false, pip };
    match released(py, || doctor_cli::examine(&request)) {
        Ok(report) => (Some((doctor_cli::document(&report).to_string(), doctor_cli::exit_status(&report))), None),
        Err(f) => (None, Some((f.message, f.offset))),
    }
}

/// The `offload` command line, run in this process: `args` with the program name first;
/// returns the exit status. Output closed early (`| head`) ends the process quietly, as the
/// binary does.
#[pyfunction]
fn run_cli(py: Python<'_>, args: Vec<String>) -> u8 {
    offload_cli::die_quietly_on_closed_pipe();
    let status = py.allow_threads(|| catch_unwind(|| offload_cli::run(args)).unwrap_or(2));
    use std::io::Write;
    let _ = std::io::stdout().flush();
    status
}

#[pymodule]
fn _offload(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(list, m)?)?;
    m.add_function(wrap_pyfunction!(targets, m)?)?;
    m.add_function(wrap_pyfunction!(kernels, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(sizes, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    m.add_function(wrap_pyfunction!(doctor, m)?)?;
    m.add_function(wrap_pyfunction!(fit_requirements, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    Ok(())
}
