//! The `offload` command: everything is in the library (`lib.rs`), which the Python module's
//! console script runs too.

use std::process::ExitCode;

fn main() -> ExitCode {
    offload_cli::die_quietly_on_closed_pipe();
    ExitCode::from(offload_cli::run(std::env::args().collect()))
}
