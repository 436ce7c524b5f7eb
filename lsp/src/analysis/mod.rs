//! The language features, each computed on a [`Snapshot`] outside the state's lock. Every
//! function here reads the database and returns protocol values; none writes an input.

pub mod actions;
pub mod completion;
pub mod fixes;
pub mod formatting;
pub mod hints;
pub mod hover;
pub mod index;
pub mod navigate;
pub mod outline;
pub mod resolution;
pub mod tokens;

use crate::convert::Lines;
use crate::state::Snapshot;
use index::{FileIndex, Occurrence, Role, Symbol, file_index};
use meshc::check::semantics::{ModuleNames, Resolved};
use meshc::db::{SourceFile, module_names, module_semantics, parse_file, registry};
use meshc::span::{FilePath, Span};
use std::sync::Arc;
use tower_lsp_server::ls_types::{Location, Position, Uri};

/// A position in an open file, with what is needed to read around it.
pub struct Cursor<'a> {
    pub path: FilePath,
    pub file: SourceFile,
    pub lines: Lines<'a>,
    pub offset: u32,
    pub index: Arc<FileIndex>,
}

impl<'a> Cursor<'a> {
    /// The cursor at `pos` of the file `uri` names, if the workspace holds it.
    pub fn new(snap: &'a Snapshot, uri: &Uri, pos: Position) -> Option<Cursor<'a>> {
        let (path, file) = snap.file(uri)?;
        let lines = Lines::of(&snap.db, file, snap.unit);
        let offset = lines.offset(pos);
        Some(Cursor {
            index: file_index(&snap.db, snap.ws, file),
            path,
            file,
            lines,
            offset,
        })
    }

    /// The symbol occurrence under the cursor.
    pub fn occurrence(&self) -> Option<&Occurrence> {
        self.index.at(self.offset)
    }

    /// The file's text.
    pub fn text(&self) -> &'a str {
        self.lines.text
    }

    /// The reference under the cursor as the semantic model of its module resolved it
    /// (`db::module_semantics`), with the module's names (`db::module_names`).
    pub fn resolved(&self, snap: &Snapshot) -> Option<(Resolved, Arc<ModuleNames>)> {
        let items = parse_file(&snap.db, self.file).file.items.len();
        (0..items).find_map(|item| {
            let names = module_names(&snap.db, self.file, item)?;
            if !(names.span.start <= self.offset && self.offset <= names.span.end) {
                return None;
            }
            let model = module_semantics(&snap.db, snap.ws, self.file, item);
            Some((model.at(self.offset)?.clone(), names))
        })
    }
}

/// Every occurrence of `symbol` in the workspace, the standard library first, files in
/// path order.
pub fn occurrences(snap: &Snapshot, symbol: &Symbol) -> Vec<(FilePath, SourceFile, Occurrence)> {
    let mut out = Vec::new();
    for file in snap.ws.files(&snap.db) {
        salsa::Database::unwind_if_revision_cancelled(&snap.db);
        let ix = file_index(&snap.db, snap.ws, *file);
        for o in ix.of(symbol) {
            out.push((file.path(&snap.db).clone(), *file, o.clone()));
        }
    }
    out
}

/// Where `symbol` is declared. Global names are looked up in the registry, so only the
/// declaring file is indexed.
pub fn definitions(snap: &Snapshot, symbol: &Symbol) -> Vec<(FilePath, SourceFile, Span)> {
    let reg = registry(&snap.db, snap.ws);
    let owner: Option<FilePath> = match symbol {
        Symbol::Contract(c) | Symbol::Field { contract: c, .. } => {
            reg.contracts.get(c).map(|c| c.file.clone())
        }
        Symbol::Module(m)
        | Symbol::Requirement { module: m, .. }
        | Symbol::Container { module: m, .. }
        | Symbol::LoopVar { module: m, .. } => {
            reg.modules.get(m).map(|at| reg.files[at.file].clone())
        }
        Symbol::Mesh(m) | Symbol::Node { mesh: m, .. } | Symbol::Instance { mesh: m, .. } => {
            reg.meshes.get(m).map(|at| reg.files[at.file].clone())
        }
        Symbol::Seat(s) => reg.seats.get(s).map(|s| s.file.clone()),
    };
    let Some(path) = owner else {
        return Vec::new();
    };
    let Some(file) = snap.file_at(&path) else {
        return Vec::new();
    };
    let ix = file_index(&snap.db, snap.ws, file);
    ix.of(symbol)
        .filter(|o| o.role == Role::Def)
        .map(|o| (path.clone(), file, o.span))
        .collect()
}

/// The protocol location of `span` in `file`.
pub fn location(snap: &Snapshot, path: &str, file: SourceFile, span: Span) -> Option<Location> {
    let uri = snap.uri_of(path)?;
    let lines = Lines::of(&snap.db, file, snap.unit);
    Some(Location::new(uri, lines.range(span)))
}

/// Whether `symbol` is declared by the standard library (which no rename may change).
pub fn is_std_symbol(snap: &Snapshot, symbol: &Symbol) -> bool {
    let reg = registry(&snap.db, snap.ws);
    match symbol {
        Symbol::Contract(c) | Symbol::Field { contract: c, .. } => {
            reg.contracts.get(c).is_some_and(|c| c.std)
        }
        Symbol::Seat(_) => true,
        _ => false,
    }
}
