//! meshc-lsp: the language server of the mesh language.
//!
//! The server holds the compiler's salsa database behind one lock; edits are applied
//! under the lock, and every computation runs on a snapshot in the blocking pool, where a
//! newer edit cancels it. See `docs/lsp.md` for the features and the design.

pub mod analysis;
mod convert;
pub mod diagnostics;
pub mod frames;
mod scan;
pub mod server;
pub mod state;
pub mod stdlib;
mod timing;

pub use server::Backend;

use tower_lsp_server::{LspService, Server};

/// The runtime the server runs on, with the allocator set as the server runs it: what a
/// resolution frees stays for the next one (`meshc_alloc::keep_freed_memory`). Call it
/// before any other thread starts (the allocator's setting is read by every thread
/// without a lock): first thing in `main`, as the binary and the latency benchmark do.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    meshc_alloc::keep_freed_memory();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}

/// Runs the server on stdin and stdout until the client says `exit`.
pub async fn run_stdio() {
    // A panic's message may quote source text (a failed slice shows the string); say only
    // where it happened, so no file content reaches a log.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_else(|| "an unknown place".into());
        eprintln!("meshc-lsp: internal error at {at}; the request failed, the server goes on");
    }));
    let (service, socket) = LspService::new(Backend::new);
    // Every frame passes the guard first (see `frames`): a malformed one is answered
    // with its JSON-RPC error instead of ending the server.
    let (to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let stdout = std::sync::Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
    tokio::spawn(frames::guard_input(
        tokio::io::stdin(),
        to_server,
        stdout.clone(),
    ));
    let forward = tokio::spawn(frames::forward_output(from_server, stdout));
    Server::new(server_in, server_out, socket)
        .serve(service)
        .await;
    // The server's last answers (to `shutdown`) are written before the process ends;
    // then it ends at once, without waiting for the guard's read of stdin (a blocking
    // read the runtime would otherwise wait for).
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), forward).await;
    std::process::exit(0);
}
