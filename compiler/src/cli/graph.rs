//! `meshc graph MESH_FILE [PATH…] --format svg|dot|mermaid [--out FILE]`: the picture of
//! a resolved mesh (see `meshc::graph`).

use super::output;
use std::path::{Path, PathBuf};

/// The drawing's format.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// SVG, laid out by meshc (no Graphviz needed).
    Svg,
    /// Graphviz DOT, for `dot -Tsvg`.
    Dot,
    /// A Mermaid flowchart, for Markdown that renders Mermaid.
    Mermaid,
}

/// Draws the mesh of `mesh_file` as `meshc build` would resolve it (its lock read, never
/// written). Exit status: 0 drawn (instances left out are drawn, with why), 2 usage or
/// I/O.
pub fn run(
    mesh_file: &Path,
    paths: Vec<PathBuf>,
    format: GraphFormat,
    out: Option<PathBuf>,
    each_seat: bool,
) -> u8 {
    let (session, outcome) = match super::take::resolve(mesh_file, paths) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let registry = meshc::db::registry(&session.db, session.ws);
    let Some(at) = registry.meshes.get(&outcome.mesh) else {
        output::say(&format!("mesh `{}` could not be read", outcome.mesh));
        return 2;
    };
    let file = session.ws.files(&session.db)[at.file];
    let parsed = meshc::db::parse_file(&session.db, file);
    let meshc::syntax::ast::Item::Mesh(mesh) = &parsed.file.items[at.item] else {
        output::say(&format!("mesh `{}` could not be read", outcome.mesh));
        return 2;
    };
    let mut graph = meshc::graph::Graph::of(&outcome, mesh);
    graph.group_seats = !each_seat;
    let text = match format {
        GraphFormat::Svg => graph.svg(),
        GraphFormat::Dot => graph.dot(),
        GraphFormat::Mermaid => graph.mermaid(),
    };
    let left_out: usize = graph
        .nodes
        .iter()
        .flat_map(|n| &n.instances)
        .filter(|i| !i.left_out.is_empty())
        .count();
    if left_out > 0 {
        output::say(&format!(
            "{left_out} assignment{} left out, drawn with why; `meshc check` says more",
            if left_out == 1 { " is" } else { "s are" }
        ));
    }
    match out {
        Some(path) => {
            if let Err(e) = super::atomic::replace_file(&path, text.as_bytes()) {
                output::say(&e);
                return 2;
            }
        }
        None => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(text.as_bytes());
        }
    }
    std::mem::forget(session);
    0
}
