//! Inlay hints: beside each module requirement, the provider that answers it on each
//! assignment and by which rule. They come from mesh resolution ([`provider_info`]); a
//! workspace that resolves nothing shows none.

use super::Cursor;
use super::index::{Role, Symbol};
use super::resolution::{Answer, provider_info};
use crate::state::Snapshot;
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
                let r = src.module().requirements().find(|r| r.name.name == name)?;
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
        let label = answers
            .iter()
            .map(|a| match &a.answer {
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
            })
            .collect::<Vec<_>>()
            .join(", ");
        out.push(InlayHint {
            position: cursor.lines.position(end),
            label: InlayHintLabel::String(format!("← {label}")),
            kind: None,
            text_edits: None,
            tooltip: None,
            padding_left: Some(true),
            padding_right: None,
            data: None,
        });
    }
    out
}
