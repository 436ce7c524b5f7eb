//! meshc: the mesh language's compiler and the features built on it.
//!
//! The compiler is package `meshc-core` (folder `core/`). Its modules are re-exported
//! here under their own names, so `meshc::check`, `meshc::db` and the rest name what they
//! always named, and this crate's modules reach them as `crate::check`. What lives here
//! is what is not compilation: `import compose`, the graph, `take`, the reference pages,
//! `migrate`, and the `meshc` binary's commands (`main.rs`, `cli/`). Like the core, these
//! modules read no file and print nothing; the binary does the I/O.

pub use meshc_core::{
    base, check, db, diagnostics, emit, fmt, fsio, functions, parallel, resolve, span, syntax,
    target,
};

pub mod doc;
pub mod graph;
pub mod import;
pub mod migrate;
pub mod take;
/// The generated workspaces of the benchmarks and of the test of threads.
#[doc(hidden)]
pub mod workload;
