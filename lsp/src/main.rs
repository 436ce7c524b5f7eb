//! The `meshc-lsp` binary: the language server on stdio.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::args().any(|a| a == "--version" || a == "-V") {
        println!("meshc-lsp {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    // Before the runtime starts its threads (the setting is read by every thread without
    // a lock): what a resolution frees stays for the next one (meshc-alloc).
    meshc_alloc::keep_freed_memory();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("meshc-lsp: cannot start: {e}");
            std::process::exit(1);
        }
    };
    runtime.block_on(meshc_lsp::run_stdio());
}
