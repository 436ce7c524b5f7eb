//! `meshc fmt`: the canonical layout of a mesh file.
//!
//! [`format`] parses the text and prints the tree back in the one layout described in
//! `docs/formatting.md`, with every comment kept. A file with a syntax error is not
//! touched: its diagnostics come back instead. Like the rest of the library, formatting
//! is pure: text in, text out.
//!
//! The layout is checked before it is returned: the new text must parse without error to
//! the same tree (positions aside, string values and doc comments included) and hold the
//! same comments. Should a layout rule ever break that, the text is returned as it was
//! rather than changed in meaning.

mod check;
mod comments;
mod layout;
mod strings;

pub use layout::MAX_WIDTH;

use crate::diagnostics::Diagnostic;
use crate::span::FilePath;
use crate::syntax::{self, Parsed, lexer};

/// The text of `path` in the canonical layout, or the syntax diagnostics of a file that
/// does not parse (such a file is left as it is).
pub fn format(path: &FilePath, text: &str) -> Result<String, Vec<Diagnostic>> {
    let before = syntax::parse(path, text);
    let out = layout_of(&before, text)?;
    if out == text {
        return Ok(out);
    }
    let after = syntax::parse(path, &out);
    if check::same_meaning(&before, text, &after, &out) {
        Ok(out)
    } else {
        Ok(text.to_string())
    }
}

/// The layout alone, without the check that [`format`] makes on it. For tests of the
/// layout rules; callers want [`format`].
pub fn format_unchecked(path: &FilePath, text: &str) -> Result<String, Vec<Diagnostic>> {
    layout_of(&syntax::parse(path, text), text)
}

fn layout_of(parsed: &Parsed, text: &str) -> Result<String, Vec<Diagnostic>> {
    if !parsed.diagnostics.is_empty() {
        return Err(parsed.diagnostics.clone());
    }
    let tokens = lexer::lex(text).tokens;
    let comments = comments::Comments::new(text, parsed.comments.clone());
    Ok(layout::Layout::new(text, tokens, comments).file(&parsed.file))
}
