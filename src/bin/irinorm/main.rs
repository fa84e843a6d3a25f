//! The `irinorm` binary: parse the command line, run it, map the outcome to
//! an exit status (0 ok, 1 rejected lines with `--strict` / `compare` not
//! equivalent, 2 usage or I/O error). A closed stdout (`| head`) is not an
//! error: it ends quietly with status 0.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use irinorm::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match irinorm::pipeline::run(cli) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "irinorm: {e}");
            ExitCode::from(2)
        }
    }
}
