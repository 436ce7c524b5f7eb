//! Code actions: a quick fix for every "did you mean `x`?" the checker suggests, the
//! structural fixes of E0302 and E0512 (`fixes.rs`), and the rewrite of a legacy
//! placeholder (`${binding:db.host}`) into the form it stands for.
//! Both are computed from the server's own diagnostics and tree, never from text the client
//! sends back, so they work with any client.

use super::{Cursor, fixes};
use crate::diagnostics::{Presentation, file_diagnostics, to_lsp};
use crate::state::Snapshot;
use meshc::db::{module_names, parse_file};
use meshc::diagnostics::Code;
use meshc::span::Span;
use std::collections::HashMap;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Position, Range, TextEdit, Uri, WorkspaceEdit,
};

/// The suggestion in a help line: `x` from "did you mean `x`?".
pub fn suggestion(help: &str) -> Option<&str> {
    let at = help.find("did you mean `")? + "did you mean `".len();
    let len = help[at..].find('`')?;
    Some(&help[at..at + len])
}

fn overlaps(a: Span, b: Span) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// The code actions for `range` of `uri`.
pub fn code_actions(
    snap: &Snapshot,
    uri: &Uri,
    range: Range,
    how: Presentation,
) -> Vec<CodeActionOrCommand> {
    let Some(cursor) = Cursor::new(snap, uri, Position::new(0, 0)) else {
        return Vec::new();
    };
    let lines = &cursor.lines;
    // A fix is offered anywhere on the lines of its diagnostic, not only inside its span:
    // editors ask with the cursor's position, which is rarely on the misspelt word.
    let wanted = lines.span(Range::new(
        Position::new(range.start.line, 0),
        Position::new(range.end.line, u32::MAX),
    ));
    let text = cursor.text();
    let mut out = Vec::new();
    let diags = file_diagnostics(snap, cursor.file);
    let edit = |span: Span, new: String| {
        let mut changes = HashMap::new();
        changes.insert(uri.clone(), vec![TextEdit::new(lines.range(span), new)]);
        Some(WorkspaceEdit::new(changes))
    };
    // A title quotes the word it replaces: never one written where a secret may be.
    let secret = meshc::db::secret_spans(&snap.db, snap.ws, cursor.file);
    for d in diags.iter().filter(|d| overlaps(d.span, wanted)) {
        let Some(fix) = d.help.as_deref().and_then(suggestion) else {
            continue;
        };
        // E0324 suggests a function as called, `lower(x)`, at the misspelt name: the fix
        // writes the name and keeps the arguments written.
        let fix = match d.code {
            Code::E0324 => fix.split('(').next().unwrap_or(fix),
            _ => fix,
        };
        if secret.iter().any(|s| overlaps(*s, d.span)) {
            continue;
        }
        // The primary range holds the misspelt word (a name, or a number like `0750`).
        let Some(old) = text
            .get(d.span.range())
            .filter(|t| !t.is_empty() && !t.contains(char::is_whitespace))
        else {
            continue;
        };
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Replace `{old}` with `{fix}`"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: to_lsp(snap, d, how).map(|d| vec![d]),
            edit: edit(d.span, fix.to_string()),
            is_preferred: Some(true),
            ..CodeAction::default()
        }));
    }
    // Structural fixes: E0302 (deliver as a secret file, or mark `exposed`) and E0512
    // (take the secret operator value out of the mesh). Titles name keys and references,
    // never a value.
    let structural: Vec<_> = diags
        .iter()
        .filter(|d| matches!(d.code, Code::E0302 | Code::E0512) && overlaps(d.span, wanted))
        .collect();
    if !structural.is_empty() {
        let parsed = parse_file(&snap.db, cursor.file);
        for d in structural {
            let found = match d.code {
                Code::E0302 => fixes::secret_in_env(&cursor.path, text, &parsed.file, d.span),
                _ => fixes::secret_operator_value(text, &parsed.file, d.span)
                    .into_iter()
                    .collect(),
            };
            // An edit laid out by the formatter may carry neighbouring text again: never
            // one that holds a secret written in the file.
            let holds_secret = |new: &str| {
                secret.iter().any(|s| {
                    text.get(s.range())
                        .is_some_and(|t| !t.is_empty() && new.contains(t))
                })
            };
            let found = found.into_iter().filter(|f| !holds_secret(&f.new_text));
            for (n, fix) in found.enumerate() {
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: to_lsp(snap, d, how).map(|d| vec![d]),
                    edit: edit(fix.span, fix.new_text),
                    is_preferred: Some(n == 0 && d.code == Code::E0512),
                    ..CodeAction::default()
                }));
            }
        }
    }
    let rewrites = legacy_rewrites(snap, &cursor);
    for (span, new) in rewrites.iter().filter(|(s, _)| overlaps(*s, wanted)) {
        let old = text.get(span.range()).unwrap_or_default();
        let diag = diags
            .iter()
            .find(|d| d.code == Code::W0402 && overlaps(d.span, *span))
            .and_then(|d| to_lsp(snap, d, how));
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Rewrite `{old}` as `{new}`"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: diag.map(|d| vec![d]),
            edit: edit(*span, new.clone()),
            is_preferred: Some(true),
            ..CodeAction::default()
        }));
    }
    if rewrites.len() > 1 {
        let mut changes = HashMap::new();
        changes.insert(
            uri.clone(),
            rewrites
                .iter()
                .map(|(span, new)| TextEdit::new(lines.range(*span), new.clone()))
                .collect(),
        );
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!(
                "Rewrite all {} legacy placeholders of this file",
                rewrites.len()
            ),
            kind: Some(CodeActionKind::new("source.fixAll.meshc")),
            edit: Some(WorkspaceEdit::new(changes)),
            ..CodeAction::default()
        }));
    }
    out
}

/// Every legacy placeholder of the file with the new form it stands for (`${db.host}`).
fn legacy_rewrites(snap: &Snapshot, cursor: &Cursor<'_>) -> Vec<(Span, String)> {
    if cursor.index.legacy.is_empty() {
        return Vec::new();
    }
    let items = parse_file(&snap.db, cursor.file).file.items.len();
    let mut out = Vec::new();
    for item in 0..items {
        // What each placeholder stands for is the model's to tell, in the module's scope.
        let Some(names) = module_names(&snap.db, cursor.file, item) else {
            continue;
        };
        let placeholders = cursor
            .index
            .legacy
            .iter()
            .filter(|l| l.module == names.module)
            .map(|l| (l.span, l.kind.as_str(), &l.reference));
        out.extend(meshc::db::legacy_rewrites(
            &snap.db,
            snap.ws,
            cursor.file,
            item,
            placeholders,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::suggestion;

    #[test]
    fn reads_the_suggestion_of_a_help_line() {
        assert_eq!(suggestion("did you mean `host`?"), Some("host"));
        assert_eq!(
            suggestion("`db` reads postgres; did you mean `password`?"),
            Some("password")
        );
        assert_eq!(suggestion("rename one of them"), None);
    }
}
