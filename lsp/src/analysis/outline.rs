//! Document symbols (the outline of one file, nested) and workspace symbols (the global
//! names of every file, filtered by a query).

use crate::convert::Lines;
use crate::state::Snapshot;
use meshc::db::parse_file;
use meshc::span::Span;
use meshc::syntax::ast::{ContainerEntryKind, Item, MeshEntry, ModuleEntry};
use tower_lsp_server::ls_types::{
    DocumentSymbol, Location, OneOf, SymbolKind, Uri, WorkspaceSymbol,
};

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be written.
fn symbol(
    lines: &Lines<'_>,
    name: &str,
    detail: Option<String>,
    kind: SymbolKind,
    span: Span,
    name_span: Span,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    // The selection must lie inside the whole range, even in a tree recovered from errors.
    let span = span.to(name_span);
    DocumentSymbol {
        name: if name.is_empty() {
            "?".into()
        } else {
            name.into()
        },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: lines.range(span),
        selection_range: lines.range(name_span),
        children: (!children.is_empty()).then_some(children),
    }
}

/// The outline of the file `uri` names.
pub fn document_symbols(snap: &Snapshot, uri: &Uri) -> Option<Vec<DocumentSymbol>> {
    let (_, file) = snap.file(uri)?;
    let parsed = parse_file(&snap.db, file);
    let lines = Lines::of(&snap.db, file, snap.unit);
    // Details quote the source: places that may hold a secret are masked.
    let masked = meshc::db::masked_text(&snap.db, snap.ws, file);
    let quote = |span: Span| masked.text.get(masked.range(span.range()));
    let mut out = Vec::new();
    for item in &parsed.file.items {
        match item {
            Item::Contract(c) => {
                let fields = c
                    .fields
                    .iter()
                    .map(|f| {
                        let detail =
                            f.ty.as_ref()
                                .and_then(|t| quote(t.span).map(str::to_string));
                        symbol(
                            &lines,
                            &f.name.name,
                            detail,
                            SymbolKind::FIELD,
                            f.span,
                            f.name.span,
                            vec![],
                        )
                    })
                    .collect();
                let detail = c.kind.as_ref().map(|k| format!("for {}", k.name));
                out.push(symbol(
                    &lines,
                    &c.name.name,
                    detail,
                    SymbolKind::STRUCT,
                    c.span,
                    c.name.span,
                    fields,
                ));
            }
            Item::Module(m) => {
                let mut children = Vec::new();
                for e in &m.entries {
                    match e {
                        ModuleEntry::Requires(r) => {
                            let detail =
                                quote(r.span)
                                    .and_then(|t| t.split_once(':'))
                                    .map(|(_, rest)| {
                                        rest.lines()
                                            .next()
                                            .unwrap_or("")
                                            .trim()
                                            .trim_end_matches('{')
                                            .trim()
                                            .to_string()
                                    });
                            children.push(symbol(
                                &lines,
                                &r.name.name,
                                detail,
                                SymbolKind::PROPERTY,
                                r.span,
                                r.name.span,
                                vec![],
                            ));
                        }
                        ModuleEntry::Container(c) => {
                            let env: Vec<DocumentSymbol> = c
                                .entries
                                .iter()
                                .flat_map(|e| match &e.kind {
                                    ContainerEntryKind::Env(entries) => &entries[..],
                                    _ => &[],
                                })
                                .map(|e| {
                                    symbol(
                                        &lines,
                                        &e.key.name,
                                        None,
                                        SymbolKind::VARIABLE,
                                        e.span,
                                        e.key.span,
                                        vec![],
                                    )
                                })
                                .collect();
                            children.push(symbol(
                                &lines,
                                &c.name.name,
                                Some("container".into()),
                                SymbolKind::OBJECT,
                                c.span,
                                c.name.span,
                                env,
                            ));
                        }
                        ModuleEntry::Provides(p) => {
                            let answers = p
                                .answers
                                .iter()
                                .map(|a| {
                                    symbol(
                                        &lines,
                                        &a.field.name,
                                        None,
                                        SymbolKind::FIELD,
                                        a.span,
                                        a.field.span,
                                        vec![],
                                    )
                                })
                                .collect();
                            children.push(symbol(
                                &lines,
                                &format!("provides {}", p.contract.name),
                                None,
                                SymbolKind::INTERFACE,
                                p.span,
                                p.contract.span,
                                answers,
                            ));
                        }
                        ModuleEntry::Slug(..) => {}
                    }
                }
                out.push(symbol(
                    &lines,
                    &m.name.name,
                    Some("module".into()),
                    SymbolKind::MODULE,
                    m.span,
                    m.name.span,
                    children,
                ));
            }
            Item::Mesh(m) => {
                let mut children = Vec::new();
                for e in &m.entries {
                    match e {
                        MeshEntry::Node(n) => children.push(symbol(
                            &lines,
                            &n.name.name,
                            Some("node".into()),
                            SymbolKind::OBJECT,
                            n.span,
                            n.name.span,
                            vec![],
                        )),
                        MeshEntry::Seat(s) => {
                            let detail = s.instance.as_ref().map(|i| format!("= {}", i.name));
                            children.push(symbol(
                                &lines,
                                &format!("seat {}", s.seat.name),
                                detail,
                                SymbolKind::KEY,
                                s.span,
                                s.seat.span,
                                vec![],
                            ));
                        }
                        MeshEntry::Assign(a) => {
                            let inst = a.instance_name();
                            let detail = Some(format!(
                                "{} on {}",
                                a.module.name,
                                a.node.as_ref().map_or("?", |n| n.name.as_str())
                            ));
                            children.push(symbol(
                                &lines,
                                &inst.name,
                                detail,
                                SymbolKind::CLASS,
                                a.span,
                                inst.span,
                                vec![],
                            ));
                        }
                    }
                }
                out.push(symbol(
                    &lines,
                    &m.name.name,
                    Some("mesh".into()),
                    SymbolKind::NAMESPACE,
                    m.span,
                    m.name.span,
                    children,
                ));
            }
            Item::Seat(s) => {
                let detail = s.contract.as_ref().map(|c| format!("delivers {}", c.name));
                out.push(symbol(
                    &lines,
                    &s.name.name,
                    detail,
                    SymbolKind::KEY,
                    s.span,
                    s.name.span,
                    vec![],
                ));
            }
        }
    }
    Some(out)
}

/// Whether every character of `query` appears in `name` in order (case-insensitive).
fn fuzzy(query: &str, name: &str) -> bool {
    let mut chars = name.chars().flat_map(char::to_lowercase);
    query
        .chars()
        .flat_map(char::to_lowercase)
        .all(|q| chars.any(|c| c == q))
}

/// The workspace's contracts, modules, meshes, nodes and requirements matching `query`.
pub fn workspace_symbols(snap: &Snapshot, query: &str) -> Vec<WorkspaceSymbol> {
    const LIMIT: usize = 512;
    let mut out = Vec::new();
    for file in snap.ws.files(&snap.db) {
        salsa::Database::unwind_if_revision_cancelled(&snap.db);
        let path = file.path(&snap.db);
        let Some(uri) = snap.uri_of(path) else {
            continue;
        };
        let parsed = parse_file(&snap.db, *file);
        let lines = Lines::of(&snap.db, *file, snap.unit);
        let mut push = |name: &str, container: Option<&str>, kind: SymbolKind, span: Span| {
            if out.len() < LIMIT && fuzzy(query, name) {
                out.push(WorkspaceSymbol {
                    name: name.to_string(),
                    kind,
                    tags: None,
                    container_name: container.map(str::to_string),
                    location: OneOf::Left(Location::new(uri.clone(), lines.range(span))),
                    data: None,
                });
            }
        };
        for item in &parsed.file.items {
            match item {
                Item::Contract(c) => push(&c.name.name, None, SymbolKind::STRUCT, c.name.span),
                Item::Module(m) => {
                    push(&m.name.name, None, SymbolKind::MODULE, m.name.span);
                    for r in m.requirements() {
                        push(
                            &r.name.name,
                            Some(&m.name.name),
                            SymbolKind::PROPERTY,
                            r.name.span,
                        );
                    }
                }
                Item::Mesh(m) => {
                    push(&m.name.name, None, SymbolKind::NAMESPACE, m.name.span);
                    for n in m.nodes() {
                        push(
                            &n.name.name,
                            Some(&m.name.name),
                            SymbolKind::OBJECT,
                            n.name.span,
                        );
                    }
                    for a in m.assigns() {
                        if a.instance.is_some() {
                            let i = a.instance_name();
                            push(&i.name, Some(&m.name.name), SymbolKind::CLASS, i.span);
                        }
                    }
                }
                Item::Seat(s) => push(&s.name.name, None, SymbolKind::KEY, s.name.span),
            }
        }
    }
    out
}
