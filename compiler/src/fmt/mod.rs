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

mod comments;
mod layout;
mod strings;

pub use layout::MAX_WIDTH;

use crate::diagnostics::Diagnostic;
use crate::span::FilePath;
use crate::syntax::{self, lexer};

/// The text of `path` in the canonical layout, or the syntax diagnostics of a file that
/// does not parse (such a file is left as it is).
pub fn format(path: &FilePath, text: &str) -> Result<String, Vec<Diagnostic>> {
    let out = format_unchecked(path, text)?;
    if same_meaning(path, text, &out) {
        Ok(out)
    } else {
        Ok(text.to_string())
    }
}

/// The layout alone, without the check that [`format`] makes on it. For tests of the
/// layout rules; callers want [`format`].
pub fn format_unchecked(path: &FilePath, text: &str) -> Result<String, Vec<Diagnostic>> {
    let parsed = syntax::parse(path, text);
    if !parsed.diagnostics.is_empty() {
        return Err(parsed.diagnostics);
    }
    let tokens = lexer::lex(text).tokens;
    let comments = comments::Comments::new(text, parsed.comments);
    Ok(layout::Layout::new(text, tokens, comments).file(&parsed.file))
}

/// Whether `after` parses cleanly to the tree of `before` (spans aside) with the same
/// comments.
fn same_meaning(path: &FilePath, before: &str, after: &str) -> bool {
    if before == after {
        return true;
    }
    let a = syntax::parse(path, before);
    let b = syntax::parse(path, after);
    if !b.diagnostics.is_empty() {
        return false;
    }
    let texts = |text: &str, p: &syntax::Parsed| {
        let mut v: Vec<String> = p
            .comments
            .iter()
            .map(|c| text[c.span.range()].trim_end().to_string())
            .collect();
        v.sort();
        v
    };
    texts(before, &a) == texts(after, &b)
        && without_spans(&format!("{:?}", a.file)) == without_spans(&format!("{:?}", b.file))
}

/// A debug rendering with every `Span { start: …, end: … }` cut to `Span`.
fn without_spans(debug: &str) -> String {
    const MARK: &str = "Span { start: ";
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(i) = rest.find(MARK) {
        out.push_str(&rest[..i + 4]);
        rest = &rest[i + MARK.len()..];
        match rest.find('}') {
            Some(j) => rest = &rest[j + 1..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_cut_from_debug_text() {
        assert_eq!(
            without_spans(
                "A { span: Span { start: 1, end: 20 }, b: Some(Span { start: 3, end: 4 }) }"
            ),
            "A { span: Span, b: Some(Span) }"
        );
    }
}
