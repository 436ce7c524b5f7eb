//! The check `format` makes on its own result: the new text parses without error to the
//! same tree, positions aside, with the same comments.
//!
//! Trees are compared through their debug rendering with every `Span { start: …, end: … }`
//! cut to `Span`, which follows the tree's types as they change. The rendering of a large
//! file runs to tens of megabytes, so it is never held: it streams through a
//! span-cutting filter into a SHA-256 digest, and the two digests are compared.

use crate::syntax::Parsed;
use sha2::{Digest, Sha256};
use std::fmt::Write;

/// Whether `after` (a parse of `after_text`) has the tree and comments of `before`.
pub(crate) fn same_meaning(
    before: &Parsed,
    before_text: &str,
    after: &Parsed,
    after_text: &str,
) -> bool {
    after.diagnostics.is_empty()
        && comment_texts(before, before_text) == comment_texts(after, after_text)
        && tree_digest(before) == tree_digest(after)
}

/// The comments' texts as printed, sorted (a comment may move above its entry).
fn comment_texts<'t>(parsed: &Parsed, text: &'t str) -> Vec<&'t str> {
    let mut v: Vec<&str> = parsed
        .comments
        .iter()
        .map(|c| text[c.span.range()].trim_end())
        .collect();
    v.sort_unstable();
    v
}

/// The digest of the tree's debug rendering without spans.
fn tree_digest(parsed: &Parsed) -> [u8; 32] {
    let mut sink = Spanless::default();
    // Writing into the sink cannot fail.
    let _ = write!(sink, "{:?}", parsed.file);
    sink.finish()
}

/// What a span looks like in a debug rendering: these pieces in order.
#[derive(Clone, Copy)]
enum Piece {
    Lit(&'static str),
    Digits,
}

const SPAN: [Piece; 5] = [
    Piece::Lit("Span { start: "),
    Piece::Digits,
    Piece::Lit(", end: "),
    Piece::Digits,
    Piece::Lit(" }"),
];

/// A writer that cuts every span to `Span` and hashes the rest.
#[derive(Default)]
struct Spanless {
    hasher: Sha256,
    buffer: Vec<u8>,
    /// The text of a span being matched.
    pending: String,
    piece: usize,
    pos: usize,
    digits: usize,
}

impl Spanless {
    fn emit(&mut self, s: &str) {
        self.buffer.extend_from_slice(s.as_bytes());
        if self.buffer.len() >= 1 << 16 {
            self.hasher.update(&self.buffer);
            self.buffer.clear();
        }
    }

    fn reset(&mut self) {
        self.pending.clear();
        self.piece = 0;
        self.pos = 0;
        self.digits = 0;
    }

    /// Moves the match on by `c`; false when `c` cannot continue it.
    fn step(&mut self, c: char) -> bool {
        match SPAN[self.piece] {
            Piece::Lit(lit) => {
                if lit[self.pos..].starts_with(c) {
                    self.pos += c.len_utf8();
                    if self.pos == lit.len() {
                        self.piece += 1;
                        self.pos = 0;
                        self.digits = 0;
                    }
                    true
                } else {
                    false
                }
            }
            Piece::Digits => {
                if c.is_ascii_digit() {
                    self.digits += 1;
                    true
                } else if self.digits > 0 {
                    self.piece += 1;
                    self.pos = 0;
                    self.step(c)
                } else {
                    false
                }
            }
        }
    }

    fn push(&mut self, c: char) {
        loop {
            if self.pending.is_empty() && c != 'S' {
                let mut b = [0u8; 4];
                self.emit(c.encode_utf8(&mut b));
                return;
            }
            if self.step(c) {
                self.pending.push(c);
                if self.piece == SPAN.len() {
                    self.reset();
                    self.emit("Span");
                }
                return;
            }
            // Not a span after all: what was held back is plain text. Only the first
            // character of a match is an `S`, so a new match can start only at `c`.
            let held = std::mem::take(&mut self.pending);
            self.reset();
            self.emit(&held);
            if c != 'S' {
                let mut b = [0u8; 4];
                self.emit(c.encode_utf8(&mut b));
                return;
            }
        }
    }

    fn finish(mut self) -> [u8; 32] {
        let held = std::mem::take(&mut self.pending);
        self.emit(&held);
        self.hasher.update(&self.buffer);
        self.hasher.finalize().into()
    }
}

impl Write for Spanless {
    fn write_str(&mut self, mut s: &str) -> std::fmt::Result {
        while !s.is_empty() {
            if self.pending.is_empty() {
                // Plain text up to the next possible span goes straight through.
                let cut = s.find('S').unwrap_or(s.len());
                self.emit(&s[..cut]);
                s = &s[cut..];
            }
            let mut chars = s.chars();
            if let Some(c) = chars.next() {
                self.push(c);
                s = chars.as_str();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(s: &str) -> [u8; 32] {
        let mut sink = Spanless::default();
        sink.write_str(s).unwrap();
        sink.finish()
    }

    fn plain(s: &str) -> [u8; 32] {
        Sha256::digest(s.as_bytes()).into()
    }

    #[test]
    fn spans_are_cut_whatever_their_numbers() {
        assert_eq!(
            cut("A { span: Span { start: 1, end: 20 }, b: Some(Span { start: 300, end: 4 }) }"),
            plain("A { span: Span, b: Some(Span) }")
        );
    }

    #[test]
    fn text_that_only_starts_like_a_span_is_kept() {
        for s in [
            "Span",
            "Span { start: ",
            "Span { start: x",
            "SSpan { start: 1, end: 2 }",
            "Span { start: 1, end: }",
            "Spa Span { start: 1, end: 2 }S",
            "é Span { start: 1, end: 2 } ü",
        ] {
            let expected = s.replace("Span { start: 1, end: 2 }", "Span");
            assert_eq!(cut(s), plain(&expected), "{s}");
        }
    }
}
