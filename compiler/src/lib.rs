//! meshc: the compiler of the mesh language.
//!
//! The library is pure: it takes source texts and returns trees, diagnostics and
//! manifests. It reads no file, writes no file and prints nothing; the `meshc` binary
//! and the language server do the I/O.

pub mod base;
pub mod check;
pub mod db;
pub mod diagnostics;
pub mod doc;
pub mod emit;
pub mod fmt;
pub mod fsio;
pub mod functions;
pub mod graph;
pub mod import;
pub mod migrate;
pub mod parallel;
pub mod resolve;
pub mod span;
pub mod syntax;
pub mod take;
pub mod target;
/// The generated workspaces of the benchmarks and of the test of threads.
#[doc(hidden)]
pub mod workload;
