//! The `meshc-lsp` binary: the language server on stdio.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::args().any(|a| a == "--version" || a == "-V") {
        println!("meshc-lsp {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    let runtime = match meshc_lsp::runtime() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("meshc-lsp: cannot start: {e}");
            std::process::exit(1);
        }
    };
    runtime.block_on(meshc_lsp::run_stdio());
}
