//! The `irinorm` binary: parse the command line, run it, map the outcome to
//! an exit status (0 ok, 1 rejected lines with `--strict` / `compare` not
//! equivalent, 2 usage or I/O error, 130 interrupted). A closed stdout
//! (`| head`) is not an error: it ends quietly with status 0.
//!
//! Flags become plain configurations of [`irinorm::batch`] here and in
//! `cmd/`; the library never sees a flag.

mod cli;
mod cmd;
mod term;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // SIGINT, SIGTERM, SIGHUP: remove our temporary files (atomic outputs,
    // spill directory) and exit 130 — never a partial output, never a
    // leftover file.
    let _ = ctrlc::set_handler(|| {
        irinorm::batch::remove_temp_files();
        let _ = writeln!(std::io::stderr(), "irinorm: interrupted");
        std::process::exit(130);
    });
    let cli = cli::Cli::parse();
    match cmd::run(cli) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        // Interrupted: the handler is removing the temporary files and
        // exits 130; a worker that noticed first must not exit 2.
        Err(_) if irinorm::batch::stopping() => {
            irinorm::batch::remove_temp_files();
            std::process::exit(130)
        }
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "irinorm: {}",
                term::escape(&e.to_string())
            );
            ExitCode::from(2)
        }
    }
}
