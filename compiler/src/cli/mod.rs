//! The command line's I/O: reading workspaces, writing files, printing diagnostics.

pub mod atomic;
pub mod output;
pub mod workspace;
