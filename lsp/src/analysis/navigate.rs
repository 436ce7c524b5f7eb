//! Go to definition, find references, document highlights and rename. All of them start
//! from the symbol under the cursor and compare symbols by name across files.

use super::index::{Occurrence, Role, Symbol, file_index};
use super::{Cursor, definitions, is_std_symbol, location, occurrences};
use crate::convert::Lines;
use crate::state::Snapshot;
use meshc::db::{SourceFile, parse_file};
use meshc::span::{FilePath, Span};
use meshc::syntax::ast::{Item, MeshEntry};
use meshc::syntax::string::is_ident;
use std::collections::{BTreeMap, HashMap};
use tower_lsp_server::ls_types::{
    DocumentHighlight, DocumentHighlightKind, Location, Position, PrepareRenameResponse, TextEdit,
    Uri, WorkspaceEdit,
};

/// Where the symbol under the cursor is declared.
pub fn definition(snap: &Snapshot, uri: &Uri, pos: Position) -> Vec<Location> {
    let Some(cursor) = Cursor::new(snap, uri, pos) else {
        return Vec::new();
    };
    let Some(occ) = cursor.occurrence() else {
        return Vec::new();
    };
    definitions(snap, &occ.symbol)
        .into_iter()
        .filter_map(|(path, file, span)| location(snap, &path, file, span))
        .collect()
}

/// Every place the symbol under the cursor is written.
pub fn references(
    snap: &Snapshot,
    uri: &Uri,
    pos: Position,
    include_declaration: bool,
) -> Vec<Location> {
    let Some(cursor) = Cursor::new(snap, uri, pos) else {
        return Vec::new();
    };
    let Some(occ) = cursor.occurrence() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (path, file, o) in occurrences(snap, &occ.symbol) {
        if o.role == Role::Def && !include_declaration {
            continue;
        }
        out.extend(location(snap, &path, file, o.span));
    }
    out
}

/// The occurrences of the symbol under the cursor in its own file.
pub fn highlights(snap: &Snapshot, uri: &Uri, pos: Position) -> Vec<DocumentHighlight> {
    let Some(cursor) = Cursor::new(snap, uri, pos) else {
        return Vec::new();
    };
    let Some(occ) = cursor.occurrence() else {
        return Vec::new();
    };
    cursor
        .index
        .of(&occ.symbol)
        .map(|o| DocumentHighlight {
            range: cursor.lines.range(o.span),
            kind: Some(match o.role {
                Role::Def => DocumentHighlightKind::WRITE,
                Role::Ref => DocumentHighlightKind::READ,
            }),
        })
        .collect()
}

/// Why a rename is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameRefused(pub String);

/// The occurrence a rename at the cursor changes: `None` where there is no name, a refusal
/// for a name of the standard library.
fn renamable(snap: &Snapshot, cursor: &Cursor<'_>) -> Result<Option<Occurrence>, RenameRefused> {
    let Some(occ) = cursor.occurrence().cloned() else {
        return Ok(None);
    };
    if is_std_symbol(snap, &occ.symbol) || cursor.file == snap.std_file {
        return Err(RenameRefused(format!(
            "`{}` belongs to the standard library and cannot be renamed",
            occ.symbol.name()
        )));
    }
    Ok(Some(occ))
}

/// The range and current name of what a rename at the cursor would change.
pub fn prepare_rename(
    snap: &Snapshot,
    uri: &Uri,
    pos: Position,
) -> Result<Option<PrepareRenameResponse>, RenameRefused> {
    let Some(cursor) = Cursor::new(snap, uri, pos) else {
        return Ok(None);
    };
    let Some(occ) = renamable(snap, &cursor)? else {
        return Ok(None);
    };
    Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
        range: cursor.lines.range(occ.span),
        placeholder: occ.symbol.name().to_string(),
    }))
}

/// Renames the symbol under the cursor everywhere it is written.
pub fn rename(
    snap: &Snapshot,
    uri: &Uri,
    pos: Position,
    new_name: &str,
) -> Result<Option<WorkspaceEdit>, RenameRefused> {
    let Some(cursor) = Cursor::new(snap, uri, pos) else {
        return Ok(None);
    };
    let Some(occ) = renamable(snap, &cursor)? else {
        return Ok(None);
    };
    if !is_ident(new_name) {
        return Err(RenameRefused(format!(
            "`{new_name}` is not a name of the language (letters, digits, `_`, inner single `-`)"
        )));
    }
    if new_name != occ.symbol.name()
        && let Some(taken) = renamed(&occ.symbol, new_name)
        && !definitions(snap, &taken).is_empty()
    {
        return Err(RenameRefused(format!(
            "`{new_name}` is already {}; renaming `{}` to it would make two of one name",
            what(&occ.symbol),
            occ.symbol.name()
        )));
    }
    let mut edits: BTreeMap<FilePath, (SourceFile, Vec<(Span, String)>)> = BTreeMap::new();
    let mut add = |path: FilePath, file: SourceFile, span: Span, text: String| {
        edits
            .entry(path)
            .or_insert_with(|| (file, Vec::new()))
            .1
            .push((span, text));
    };
    let symbol = occ.symbol.clone();
    for (path, file, o) in occurrences(snap, &symbol) {
        if o.implicit {
            // `assign postgres to beta` names its instance by the module: keep the module
            // and name the instance explicitly.
            if let Some(at) = implicit_instance_insert(snap, file, o.span) {
                add(
                    path,
                    file,
                    Span::new(at as usize, at as usize),
                    format!(" as {new_name}"),
                );
            }
            continue;
        }
        add(path, file, o.span, new_name.to_string());
    }
    if let Symbol::Module(old) = &symbol {
        // An instance named by its module follows the module's new name: its pins and
        // seats are renamed with it.
        for (_, file, o) in occurrences(snap, &symbol) {
            let ix = file_index(&snap.db, snap.ws, file);
            let implicit: Vec<Symbol> = ix
                .occurrences
                .iter()
                .filter(|i| i.implicit && i.span == o.span && i.symbol.name() == old)
                .map(|i| i.symbol.clone())
                .collect();
            for inst in implicit {
                for (p, f, r) in occurrences(snap, &inst) {
                    if r.role == Role::Ref {
                        add(p, f, r.span, new_name.to_string());
                    }
                }
            }
        }
    }
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for (path, (file, mut list)) in edits {
        let Some(uri) = snap.uri_of(&path) else {
            continue;
        };
        list.sort_by_key(|(s, _)| (s.start, s.end));
        list.dedup();
        let lines = Lines::of(&snap.db, file, snap.unit);
        changes.insert(
            uri,
            list.into_iter()
                .map(|(span, text)| TextEdit::new(lines.range(span), text))
                .collect(),
        );
    }
    Ok(Some(WorkspaceEdit::new(changes)))
}

/// The symbol `symbol` would become under the name `new`, in the same scope (a
/// requirement of the same module, a field of the same contract, a node of the same
/// mesh…); `None` for a loop variable, whose declaration is its own scope.
fn renamed(symbol: &Symbol, new: &str) -> Option<Symbol> {
    let new = new.to_string();
    Some(match symbol {
        Symbol::Contract(_) => Symbol::Contract(new),
        Symbol::Field { contract, .. } => Symbol::Field {
            contract: contract.clone(),
            field: new,
        },
        Symbol::Module(_) => Symbol::Module(new),
        Symbol::Requirement { module, .. } => Symbol::Requirement {
            module: module.clone(),
            name: new,
        },
        Symbol::Mesh(_) => Symbol::Mesh(new),
        Symbol::Node { mesh, .. } => Symbol::Node {
            mesh: mesh.clone(),
            node: new,
        },
        Symbol::Instance { mesh, node, .. } => Symbol::Instance {
            mesh: mesh.clone(),
            node: node.clone(),
            name: new,
        },
        Symbol::Seat(_) => Symbol::Seat(new),
        Symbol::Container { module, .. } => Symbol::Container {
            module: module.clone(),
            name: new,
        },
        Symbol::LoopVar { .. } => return None,
    })
}

/// What kind of name `symbol` is, and where, for a refusal.
fn what(symbol: &Symbol) -> String {
    match symbol {
        Symbol::Contract(_) => "a contract".into(),
        Symbol::Field { contract, .. } => format!("a field of contract `{contract}`"),
        Symbol::Module(_) => "a module".into(),
        Symbol::Requirement { module, .. } => format!("a requirement of module `{module}`"),
        Symbol::Mesh(_) => "a mesh".into(),
        Symbol::Node { mesh, .. } => format!("a node of mesh `{mesh}`"),
        Symbol::Instance { mesh, .. } => format!("an instance of mesh `{mesh}`"),
        Symbol::Seat(_) => "a seat".into(),
        Symbol::Container { module, .. } => format!("a container or job of module `{module}`"),
        Symbol::LoopVar { .. } => "a loop variable".into(),
    }
}

/// Where ` as NAME` goes in the assignment whose module name is at `module_span`: after
/// the node's name, else after the module's.
fn implicit_instance_insert(snap: &Snapshot, file: SourceFile, module_span: Span) -> Option<u32> {
    let parsed = parse_file(&snap.db, file);
    for item in &parsed.file.items {
        let Item::Mesh(m) = item else { continue };
        for e in &m.entries {
            if let MeshEntry::Assign(a) = e
                && a.module.span == module_span
            {
                return Some(a.node.as_ref().map_or(a.module.span.end, |n| n.span.end));
            }
        }
    }
    None
}
