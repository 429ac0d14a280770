//! `offload._offload`: the native half of the `offload` Python package. Each function runs the
//! CLI's own code (`offload_cli::api`, `offload_cli::doctor`, `offload_cli::run`) with the GIL
//! released, and answers with the command's `--json` document as JSON text and the failure the
//! command would end with; `offload/__init__.py` turns those into a dict and `offload.Error`.
//! A panic (a bug: the readers never panic on bad input) is caught and answered as a failure,
//! so the interpreter never dies of one.

use offload_cli::api::{self, Answer, Source};
use offload_cli::doctor as doctor_cli;
use offload_cli::fail::{Failure, Outcome};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// (message, byte offset) of a failure.
type Failed = (String, Option<u64>);
/// (the document as JSON text, or `None`; the failure, or `None`).
type Reply = (Option<String>, Option<Failed>);

/// What to read: exactly one of a path and bytes (`name` names the bytes).
fn source(path: Option<PathBuf>, data: Option<Vec<u8>>, name: String) -> Outcome<Source> {
    match (path, data) {
        (Some(p), None) => Ok(Source::Path(p)),
        (None, Some(bytes)) => Ok(Source::Bytes { name, bytes }),
        _ => Err(Failure::new("expected a path or bytes, found both or neither")),
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
fn list(py: Python<'_>, path: Option<PathBuf>, data: Option<Vec<u8>>, name: String) -> Reply {
    reply(released(py, || api::list(&source(path, data, name)?)))
}

/// The `targets` of `offload list --json`.
#[pyfunction]
#[pyo3(signature = (path, data, name))]
fn targets(py: Python<'_>, path: Option<PathBuf>, data: Option<Vec<u8>>, name: String) -> Reply {
    reply(released(py, || api::targets(&source(path, data, name)?)))
}

/// `offload kernels --json [--target T ...]`.
#[pyfunction]
#[pyo3(signature = (path, data, name, only))]
fn kernels(py: Python<'_>, path: Option<PathBuf>, data: Option<Vec<u8>>, name: String, only: Vec<String>) -> Reply {
    reply(released(py, || api::kernels(&source(path, data, name)?, &only)))
}

/// `offload fit --json --gpu G ...`.
#[pyfunction]
#[pyo3(signature = (path, data, name, gpus))]
fn fit(py: Python<'_>, path: Option<PathBuf>, data: Option<Vec<u8>>, name: String, gpus: Vec<String>) -> Reply {
    reply(released(py, || api::fit(&source(path, data, name)?, &gpus)))
}

/// `offload sizes --json [--drop T ...]`.
#[pyfunction]
#[pyo3(signature = (path, data, name, drop))]
fn sizes(py: Python<'_>, path: Option<PathBuf>, data: Option<Vec<u8>>, name: String, drop: Vec<String>) -> Reply {
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
    data: Option<Vec<u8>>,
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
    old: (Option<PathBuf>, Option<Vec<u8>>, String),
    new: (Option<PathBuf>, Option<Vec<u8>>, String),
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
    let request = doctor_cli::Request { paths, gpus, python, progress: false };
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
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    Ok(())
}
