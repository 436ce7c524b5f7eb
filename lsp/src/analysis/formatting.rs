//! Formatting: the compiler's formatter, applied as the smallest edit that turns the text
//! into its canonical layout (one edit covering what differs, so the cursor and folds
//! outside it stay put).

use crate::convert::Lines;
use crate::state::Snapshot;
use meshc::span::Span;
use tower_lsp_server::ls_types::{TextEdit, Uri};

/// What the formatter said about a text.
pub enum Formatted {
    /// The canonical layout.
    Text(String),
    /// The text does not parse; nothing is changed (its syntax errors are already shown).
    Refused,
}

/// The adapter around the compiler's formatter: the one place that calls it.
pub fn format_text(path: &str, text: &str) -> Formatted {
    match meshc::fmt::format(&path.into(), text) {
        Ok(t) => Formatted::Text(t),
        Err(_) => Formatted::Refused,
    }
}

/// The edits that format the file `uri` names; `None` when nothing can be said (no such
/// file, or a text that does not parse).
pub fn formatting(snap: &Snapshot, uri: &Uri) -> Option<Vec<TextEdit>> {
    let (path, file) = snap.file(uri)?;
    if file == snap.std_file {
        return None;
    }
    let text = file.text(&snap.db);
    let formatted = match format_text(&path, text) {
        Formatted::Text(t) => t,
        Formatted::Refused => return None,
    };
    let lines = Lines::of(&snap.db, file, snap.unit);
    Some(minimal_edit(&lines, &formatted).into_iter().collect())
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
