//! The command line's I/O: reading workspaces, writing files, printing diagnostics.

pub mod apply;
pub mod atomic;
pub mod doc;
pub mod engine;
pub mod graph;
pub mod import;
pub mod manual;
pub mod migrate;
pub mod output;
pub mod owned;
pub mod render;
pub mod root;
pub mod secrets;
pub mod survey;
pub mod swarm;
pub mod take;
pub mod workspace;
