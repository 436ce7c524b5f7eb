//! The front end's syntax: tokens, the tree, the parser and positions.

pub mod ast;
pub mod keywords;
pub mod lexer;
pub use crate::base::line_index;
pub mod parser;
pub mod spans;
pub mod string;

pub use parser::{Parsed, parse};
