//! The language server's document path in process, never killed by what an editor sends:
//! a document is opened with the input's first part, then each further part (split on
//! 0xFF) is an edit — two bytes of position, one of length to delete, then the text to
//! insert, half-typed text included — applied through the server's own change path
//! (`State::change`, full sync). After each edit every request a client makes while typing
//! runs at the edit's position: diagnostics as published, hover, completion, definition,
//! references, highlights, rename, inlay hints, symbols, semantic tokens, formatting and
//! code actions. Every published range must lie inside the document.

#![no_main]

use libfuzzer_sys::fuzz_target;
use meshc::syntax::line_index::{ColumnUnit, LineIndex};
use meshc_lsp::analysis::{
    actions, completion, formatting, hints, hover, navigate, outline, tokens,
};
use meshc_lsp::diagnostics::{Presentation, file_diagnostics, to_lsp};
use meshc_lsp::state::State;
use tower_lsp_server::ls_types::{Position, Range, Uri};

/// At most this many edits of one input are applied.
const MAX_EDITS: usize = 24;

fn position(text: &str, offset: usize) -> Position {
    let lc = LineIndex::new(text).line_col(text, offset as u32, ColumnUnit::Utf16);
    Position::new(lc.line, lc.col)
}

fn boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Every request a client makes while typing, at `cursor` (a byte offset of `text`).
fn exercise(state: &State, uri: &Uri, text: &str, cursor: usize) {
    let how = Presentation {
        related_information: true,
        tags: true,
    };
    let snap = state.snapshot();
    let (path, file) = snap.file(uri).expect("the document is open");
    let lines = LineIndex::new(text);
    let last = lines.line_col(text, text.len() as u32, ColumnUnit::Utf16);
    let end_of_text = Position::new(last.line, last.col);
    for d in file_diagnostics(&snap, file) {
        let Some(l) = to_lsp(&snap, &d, how) else {
            continue;
        };
        if d.file == path {
            assert!(
                l.range.start <= l.range.end && l.range.end <= end_of_text,
                "{:?} of {} outside the document (its end is {end_of_text:?})",
                l.range,
                d.code
            );
        }
    }
    let pos = position(text, cursor);
    let whole = Range::new(Position::new(0, 0), Position::new(last.line + 1, 0));
    let _ = hover::hover(&snap, uri, pos);
    let _ = completion::complete(&snap, uri, pos);
    let _ = navigate::definition(&snap, uri, pos);
    let _ = navigate::references(&snap, uri, pos, true);
    let _ = navigate::highlights(&snap, uri, pos);
    if let Ok(Some(_)) = navigate::prepare_rename(&snap, uri, pos) {
        let _ = navigate::rename(&snap, uri, pos, "renamed-1");
    }
    let _ = hints::inlay_hints(&snap, uri, whole);
    let _ = outline::document_symbols(&snap, uri);
    let _ = outline::workspace_symbols(&snap, "a");
    let _ = tokens::full(&snap, uri);
    let _ = formatting::formatting(&snap, uri);
    let _ = actions::code_actions(&snap, uri, whole, how);
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0xFF);
    let mut text = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let std_uri: Uri = "file:///fuzz/std/std.mesh".parse().unwrap();
    let uri: Uri = "file:///fuzz/ws/doc.mesh".parse().unwrap();
    let mut state = State::new(std_uri);
    state.open(&uri, &text, 0);
    // The cursor first where the text's length points into it, as if the editor had just
    // opened the file there.
    exercise(&state, &uri, &text, boundary(&text, text.len() / 2));
    for (version, edit) in parts.take(MAX_EDITS).enumerate() {
        let (at, delete, insert) = match edit {
            [hi, lo, del, rest @ ..] => (
                usize::from(u16::from_be_bytes([*hi, *lo])),
                usize::from(*del),
                String::from_utf8_lossy(rest).into_owned(),
            ),
            _ => (text.len(), 0, String::from_utf8_lossy(edit).into_owned()),
        };
        let from = boundary(
            &text,
            if text.is_empty() {
                0
            } else {
                at % (text.len() + 1)
            },
        );
        let mut to = (from + delete).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        text.replace_range(from..to, &insert);
        state.change(&uri, &text, version as i32 + 1, &mut None);
        exercise(&state, &uri, &text, from + insert.len());
    }
});
