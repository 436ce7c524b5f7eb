//! What every layer of the core may use and which uses no other layer: hashing, line
//! indexing, the template functions (pure text functions the checker, the resolver and
//! the node's renderer apply alike) and the standard library's text. Byte spans and file paths are `crate::span`,
//! which belongs here too.

pub mod fx_hash;
pub mod line_index;
pub mod name_map;
pub mod process;
pub mod template_functions;
pub mod visible;

/// The standard contracts and seats, embedded in the binary.
pub const STDLIB_TEXT: &str = include_str!("../../../stdlib-contracts/std.mesh");

/// The path the standard library's diagnostics and locations name.
pub const STDLIB_PATH: &str = "<std>/std.mesh";
