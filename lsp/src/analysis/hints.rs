//! Inlay hints: beside each module requirement, the provider that answers it on each
//! assignment and by which rule, grouped by mesh; after `consumers CONTRACT` of a `for`,
//! how many consumers each instance of the module answers, mesh by mesh. They come from
//! mesh resolution ([`provider_info`], [`consumer_counts`]); a workspace that resolves
//! nothing shows none.

use super::Cursor;
use super::index::{Role, Symbol};
use super::resolution::{Answer, consumer_counts, provider_info};
use crate::state::Snapshot;
use meshc::check::semantics::LoopOver;
use meshc::db::module_source;
use meshc::syntax::ast::RequirementBody;
use tower_lsp_server::ls_types::{InlayHint, InlayHintLabel, Position, Range, Uri};

/// The inlay hints of `range` of `uri`.
pub fn inlay_hints(snap: &Snapshot, uri: &Uri, range: Range) -> Vec<InlayHint> {
    let Some(cursor) = Cursor::new(snap, uri, Position::new(0, 0)) else {
        return Vec::new();
    };
    let wanted = cursor.lines.span(range);
    let mut out = Vec::new();
    for o in &cursor.index.occurrences {
        if o.role != Role::Def || o.span.end < wanted.start || o.span.start > wanted.end {
            continue;
        }
        let Symbol::Requirement { module, name } = &o.symbol else {
            continue;
        };
        let answers = provider_info(snap, module, name);
        if answers.is_empty() {
            continue;
        }
        // After the contract's name (or the narrowing's closing brace).
        let end = module_source(&snap.db, snap.ws, module)
            .and_then(|src| {
                let r = src
                    .module()
                    .requirements()
                    .find(|r| r.name.name.as_str() == name)?;
                Some(match &r.body {
                    RequirementBody::Contract {
                        contract: Some(c),
                        block: None,
                        ..
                    } => c.span.end,
                    _ => r.span.end,
                })
            })
            .unwrap_or(o.span.end);
        let label = by_mesh(answers.iter().map(|a| {
            let text = match &a.answer {
                Answer::Provided {
                    provider_instance,
                    provider_node,
                    rule,
                } => format!(
                    "{}: {provider_instance}@{provider_node} ({rule})",
                    a.instance
                ),
                Answer::LeftOut { .. } => format!("{}: left out", a.instance),
                Answer::Absent => format!("{}: absent", a.instance),
            };
            (a.mesh.as_str(), text)
        }));
        out.push(hint(cursor.lines.position(end), format!("← {label}")));
    }
    out.extend(loop_hints(snap, &cursor, wanted));
    out
}

/// A hint of `label` at `position`, set off from the text before it.
fn hint(position: Position, label: String) -> InlayHint {
    InlayHint {
        position,
        label: InlayHintLabel::String(label),
        kind: None,
        text_edits: None,
        tooltip: None,
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

/// `mesh lab: a, b; mesh fleet: c`: texts grouped under the mesh they are in, in order.
fn by_mesh<'a>(texts: impl Iterator<Item = (&'a str, String)>) -> String {
    let mut groups: Vec<(&str, Vec<String>)> = Vec::new();
    for (mesh, text) in texts {
        match groups.last_mut() {
            Some((m, list)) if *m == mesh => list.push(text),
            _ => groups.push((mesh, vec![text])),
        }
    }
    groups
        .into_iter()
        .map(|(mesh, list)| format!("mesh {mesh}: {}", list.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// After `consumers CONTRACT` of a `for`: how many consumers each instance of the module
/// answers for CONTRACT, mesh by mesh (`mesh lab: proxy@alpha 2 consumers`). A loop over
/// a list gets none: its length is the list's, which the value beside it shows.
fn loop_hints(snap: &Snapshot, cursor: &Cursor<'_>, wanted: meshc::span::Span) -> Vec<InlayHint> {
    let mut out = Vec::new();
    let items = meshc::db::parse_file(&snap.db, cursor.file)
        .file
        .items
        .len();
    for item in 0..items {
        // The module's loops as its model names them.
        let Some(m) = meshc::db::module_names(&snap.db, cursor.file, item) else {
            continue;
        };
        if m.span.end < wanted.start || m.span.start > wanted.end {
            continue;
        }
        for f in &m.loops {
            let (LoopOver::Consumers(Some(contract)), Some(span)) = (&f.over, f.over_span) else {
                continue;
            };
            if span.end < wanted.start || span.start > wanted.end {
                continue;
            }
            let counts = consumer_counts(snap, &m.module, contract);
            if counts.is_empty() {
                continue;
            }
            let label = by_mesh(counts.iter().map(|c| {
                let noun = if c.count == 1 {
                    "consumer"
                } else {
                    "consumers"
                };
                (
                    c.mesh.as_str(),
                    format!("{}@{} {} {noun}", c.instance, c.node, c.count),
                )
            }));
            out.push(hint(cursor.lines.position(span.end), label));
        }
    }
    out
}
