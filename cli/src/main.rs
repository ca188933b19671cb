//! `typed-rpc`: call any JSON-RPC 2.0 server from a shell.
//!
//! ```text
//! typed-rpc call URL METHOD [PARAMS...]     one call; its result on stdout
//! typed-rpc call --stream URL METHOD ...    a streaming call; each item as it comes
//! typed-rpc batch URL FILE                  the calls of FILE as one batch
//! typed-rpc methods URL | --openrpc FILE    the methods of an OpenRPC document
//! ```
//!
//! The exit code tells the layer a call failed in (see [`exit`]).

mod args;
mod batch_file;
mod connect;
mod exit;
mod openrpc;
mod output;
mod params;
mod run;
mod stream;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::output::Style;

fn main() -> ExitCode {
    // Usage errors exit here with code 2, `--help` and `--version` with 0.
    let cli = Cli::parse();
    let style = match &cli.command {
        Command::Call(args) => Style::compact_if(args.output.compact),
        Command::Batch(args) => Style::compact_if(args.output.compact),
        Command::Methods(_) => Style::Pretty,
    };
    // One connection at a time: a thread of our own is all it needs.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("typed-rpc: cannot start the async runtime: {err}");
            return ExitCode::from(exit::OTHER);
        }
    };
    match runtime.block_on(run::run(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            failure.report(style);
            ExitCode::from(failure.exit_code())
        }
    }
}
