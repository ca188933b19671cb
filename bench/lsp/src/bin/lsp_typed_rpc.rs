//! Tally on typed-rpc: the `tally-lsp` server of `examples/lsp`, as it
//! ships (turns declared, the lifecycle layer, `$/cancelRequest`), on a
//! current-thread runtime as `tally-lsp` runs it.

use typed_rpc_lsp::server::TallyServer;

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let code = runtime.block_on(TallyServer::new().serve_stdio());
    std::process::exit(code);
}
