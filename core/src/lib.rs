//! meshc-core: the compiler of the mesh language, and nothing else.
//!
//! The library is pure: it takes source texts and returns trees, diagnostics and
//! manifests. It reads no file, writes no file and prints nothing; the `meshc` binary
//! and the language server do the I/O. What is not compilation (`import compose`, the
//! graph, `take`, the reference pages, `migrate`) lives in package `meshc`, outside this
//! crate, which therefore cannot name it; `meshc` re-exports every module here under the
//! same name (`meshc::check`, `meshc::db`, …).

pub mod base;
pub mod check;
pub mod db;
pub mod diagnostics;
pub mod emit;
pub mod fmt;
pub mod fsio;
pub mod functions;
pub mod parallel;
pub mod resolve;
pub mod span;
pub mod syntax;
pub mod target;
