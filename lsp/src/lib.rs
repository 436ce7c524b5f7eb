//! meshc-lsp: the language server of the mesh language.
//!
//! The server holds the compiler's salsa database behind one lock; edits are applied
//! under the lock, and every computation runs on a snapshot in the blocking pool, where a
//! newer edit cancels it. See `docs/lsp.md` for the features and the design.

pub mod analysis;
mod convert;
pub mod diagnostics;
mod scan;
pub mod server;
pub mod state;
pub mod stdlib;

pub use server::Backend;

use tower_lsp_server::{LspService, Server};

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
    Server::new(tokio::io::stdin(), tokio::io::stdout(), socket)
        .serve(service)
        .await;
}
