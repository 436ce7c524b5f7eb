//! The `meshc-lsp` binary: the language server on stdio.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--version" || a == "-V") {
        println!("meshc-lsp {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    meshc_lsp::run_stdio().await;
}
