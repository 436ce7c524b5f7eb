//! Text written to a terminal that came from somewhere else: a source file, a host
//! report, a Compose file, a file name. A control character (a C0 or C1 code, DEL) or a
//! bidirectional formatting character (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
//! U+061C) in such text could move the cursor, recolour the screen, rewrite what was
//! printed before, or make a line read in another order than it runs. Every human output
//! passes that text through [`visible`], which writes those characters as the visible
//! escape `\u{1b}`, never raw (LANGUAGE.md §14.6). Line separators U+2028 and U+2029 are
//! escaped too, since a terminal or an editor may break the line there and shift what
//! follows.
//!
//! JSON output needs none of this: a JSON writer escapes control characters itself, and
//! the bidirectional ones are harmless inside a JSON string a program reads.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` is written as an escape in human output: every control character except
/// the tab (which only moves to the next column), the bidirectional formatting
/// characters, and the line and paragraph separators.
pub fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `text` with every [`is_hidden`] character written as `\u{hex}`; borrowed when there is
/// none (the usual case costs one scan and no allocation).
pub fn visible(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_hidden) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`visible`], for text that may hold line breaks of its own (a file diff, a
/// multi-line excerpt): `\n` (and a `\r\n` pair) is kept as a line break, every other
/// hidden character is escaped.
pub fn visible_lines(text: &str) -> Cow<'_, str> {
    let plain = text.split('\n').all(|line| {
        let line = line.strip_suffix('\r').unwrap_or(line);
        !line.contains(is_hidden)
    });
    if plain {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        let (line, crlf) = match line.strip_suffix('\r') {
            Some(rest) => (rest, true),
            None => (line, false),
        };
        out.push_str(&visible(line));
        if crlf {
            out.push('\r');
        }
        if lines.peek().is_some() {
            out.push('\n');
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(visible("postgres: 5432\tok"), Cow::Borrowed(_)));
        assert!(matches!(visible_lines("a\nb\r\nc"), Cow::Borrowed(_)));
    }

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(visible("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(visible("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(visible("x\u{2028}y"), "x\\u{2028}y");
        assert_eq!(visible("nul\0"), "nul\\u{0}");
        assert_eq!(visible("del\u{7f}"), "del\\u{7f}");
        assert_eq!(visible("c1\u{9b}"), "c1\\u{9b}");
        assert_eq!(visible("a\nb"), "a\\u{a}b");
    }

    #[test]
    fn line_breaks_survive_in_multi_line_text() {
        assert_eq!(visible_lines("a\u{1b}\nb\r\nc"), "a\\u{1b}\nb\r\nc");
        assert_eq!(visible_lines("a\rb\n"), "a\\u{d}b\n");
    }
}
