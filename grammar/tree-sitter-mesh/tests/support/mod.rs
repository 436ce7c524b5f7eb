//! Helpers shared by the integration tests: the parser, the repository root,
//! and error reporting with file and position.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tree_sitter::{Node, Parser, Tree};

/// A parser set to the mesh grammar.
pub fn parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_mesh::LANGUAGE.into())
        .expect("the generated parser's ABI matches the tree-sitter crate");
    parser
}

/// Parses `source`; a parse never returns `None` without a timeout or
/// cancellation, which these tests do not set.
pub fn parse(source: &str) -> Tree {
    parser()
        .parse(source, None)
        .expect("parse returned no tree")
}

/// The crate's own directory (grammar/tree-sitter-mesh).
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository root: the nearest ancestor of the crate holding `.git`,
/// else the directory two levels up (grammar/tree-sitter-mesh lives there).
pub fn repository_root() -> PathBuf {
    let start = crate_dir();
    for dir in start.ancestors() {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
    }
    start
        .parent()
        .and_then(Path::parent)
        .expect("the crate lives two levels below the repository root")
        .to_path_buf()
}

/// Every ERROR and MISSING node of a tree, as `line:column: what` with
/// 1-based line and column (the column counts bytes).
pub fn syntax_errors(tree: &Tree, source: &str) -> Vec<String> {
    let mut found = Vec::new();
    collect_errors(tree.root_node(), source, &mut found);
    found
}

fn collect_errors(node: Node, source: &str, found: &mut Vec<String>) {
    if !node.has_error() {
        return;
    }
    let position = node.start_position();
    let at = format!("{}:{}", position.row + 1, position.column + 1);
    if node.is_missing() {
        found.push(format!("{at}: missing `{}`", node.kind()));
        return;
    }
    if node.is_error() {
        let text = &source[node.byte_range()];
        let excerpt: String = text.chars().take(60).collect();
        found.push(format!("{at}: syntax error at {excerpt:?}"));
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_errors(child, source, found);
    }
}
