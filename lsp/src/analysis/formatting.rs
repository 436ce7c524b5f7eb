//! Formatting: the compiler's formatter, applied as the smallest edit that turns the text
//! into its canonical layout (one edit covering what differs, so the cursor and folds
//! outside it stay put).

use crate::convert::Lines;
use crate::state::Snapshot;
use meshc::diagnostics::Diagnostic;
use meshc::span::Span;
use tower_lsp_server::ls_types::{TextEdit, Uri};

/// What the formatter said about a text.
pub enum Formatted {
    /// The canonical layout.
    Text(String),
    /// The text does not parse; nothing is changed (its syntax errors are already shown).
    Refused(Vec<Diagnostic>),
}

/// The adapter around the compiler's formatter: the one place that calls it.
pub fn format_text(path: &str, text: &str) -> Formatted {
    match meshc::fmt::format(&path.into(), text) {
        Ok(t) => Formatted::Text(t),
        Err(d) => Formatted::Refused(d),
    }
}

/// The edits that format the file `uri` names; `None` when there is no such file. A text
/// that does not parse is refused with the reason (its first syntax error), so the editor
/// says why nothing changed.
pub fn formatting(snap: &Snapshot, uri: &Uri) -> Result<Option<Vec<TextEdit>>, String> {
    let Some((path, file)) = snap.file(uri) else {
        return Ok(None);
    };
    if file == snap.std_file {
        return Ok(None);
    }
    let text = file.text(&snap.db);
    let lines = Lines::of(&snap.db, file, snap.unit);
    let formatted = match format_text(&path, text) {
        Formatted::Text(t) => t,
        Formatted::Refused(diags) => {
            let first = diags.iter().min_by_key(|d| d.span.start);
            let why = match first {
                Some(d) => {
                    let at = lines.position(d.span.start);
                    format!(
                        ": {} at {}:{}: {}",
                        d.code.as_str(),
                        at.line + 1,
                        at.character + 1,
                        d.message
                    )
                }
                None => String::new(),
            };
            return Err(format!(
                "not formatted: the file does not parse{why}; fix the syntax error first"
            ));
        }
    };
    Ok(Some(minimal_edit(&lines, &formatted).into_iter().collect()))
}

/// One edit replacing the part of `lines.text` that differs from `new`, or none.
fn minimal_edit(lines: &Lines<'_>, new: &str) -> Option<TextEdit> {
    let old = lines.text;
    if old == new {
        return None;
    }
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = (old.len() - prefix).min(new.len() - prefix);
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    let span = Span::new(prefix, old.len() - suffix);
    Some(TextEdit::new(
        lines.range(span),
        new[prefix..new.len() - suffix].to_string(),
    ))
}
