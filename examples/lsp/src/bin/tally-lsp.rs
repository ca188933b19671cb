//! `tally-lsp`: the Tally language server, speaking LSP on stdin and stdout.
//!
//! ```text
//! tally-lsp [--stdio]     # editors pass --stdio; stdio is the only transport
//! ```
//!
//! stdout carries only protocol messages; the log goes to stderr (and to the
//! editor's log, as `window/logMessage`). The process exits with code 0
//! after `shutdown` and `exit`, 1 when `exit` or the end of stdin comes
//! without `shutdown`.

use typed_rpc_lsp::server::TallyServer;

fn main() {
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--stdio" => {}
            "--help" | "-h" => {
                println!(
                    "usage: tally-lsp [--stdio]\n\nThe Tally language server, on stdin and stdout."
                );
                return;
            }
            other => {
                eprintln!("tally-lsp: unknown argument `{other}` (usage: tally-lsp [--stdio])");
                std::process::exit(2);
            }
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    eprintln!("tally-lsp {}: serving stdio", env!("CARGO_PKG_VERSION"));
    let code = runtime.block_on(TallyServer::new().serve_stdio());
    // Not a return: the runtime's drop would wait for the thread blocked
    // reading stdin.
    std::process::exit(code);
}
