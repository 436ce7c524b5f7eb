//! The command line's I/O: reading workspaces, writing files, printing diagnostics.

pub mod atomic;
pub mod engine;
pub mod import;
pub mod migrate;
pub mod output;
pub mod render;
pub mod survey;
pub mod take;
pub mod workspace;
