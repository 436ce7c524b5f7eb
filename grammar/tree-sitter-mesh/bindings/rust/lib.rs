//! The mesh language for [tree-sitter].
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser
//!     .set_language(&tree_sitter_mesh::LANGUAGE.into())
//!     .expect("the grammar's ABI matches the tree-sitter crate");
//! let tree = parser
//!     .parse("module web { container web { image \"nginx:1.27\" } }", None)
//!     .unwrap();
//! assert!(!tree.root_node().has_error());
//! ```
//!
//! The queries are the ones editors use: `HIGHLIGHTS_QUERY` for
//! syntax highlighting, `LOCALS_QUERY` for scopes and definitions, and
//! `FOLDS_QUERY` for folding.
//!
//! [tree-sitter]: https://tree-sitter.github.io/

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_mesh() -> *const ();
}

/// The tree-sitter [`LanguageFn`] of the mesh grammar.
///
/// Convert it with `.into()` where a `tree_sitter::Language` is wanted; it
/// does not tie callers to one version of the `tree-sitter` crate.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_mesh) };

/// The mesh grammar as a [`tree_sitter::Language`] of the `tree-sitter`
/// crate this crate depends on.
pub fn language() -> tree_sitter::Language {
    LANGUAGE.into()
}

/// The content of the [`node-types.json`] file of this grammar.
///
/// [`node-types.json`]: https://tree-sitter.github.io/tree-sitter/using-parsers/6-static-node-types
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// The syntax-highlighting query (`queries/highlights.scm`).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

/// The local-variable query (`queries/locals.scm`): scopes, definitions and
/// references of requirements, fields, nodes and instances.
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

/// The folding query (`queries/folds.scm`): every braced block.
pub const FOLDS_QUERY: &str = include_str!("../../queries/folds.scm");

#[cfg(test)]
mod tests {
    #[test]
    fn the_grammar_loads() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("Error loading the mesh grammar");
    }

    /// The parser is generated with `tree-sitter generate --abi 14`, so that
    /// editors built on tree-sitter 0.20.7 to 0.24 (Neovim 0.7 to 0.10,
    /// Helix up to 25.01) load it too. A regeneration without the flag
    /// would give ABI 15.
    #[test]
    fn the_parser_has_abi_14() {
        assert_eq!(super::language().abi_version(), 14);
    }
}
