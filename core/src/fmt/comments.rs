//! The comments of one file, each printed exactly once.
//!
//! The layout walks the tree and takes the comments that belong to each place: the ones
//! above an entry, the one at the end of its line, the ones before a closing brace. A
//! comment stays in the same gap between two tokens that it was written in (so `///` doc
//! comments attach to the same node after formatting), except a comment written inside
//! an entry that is printed on one line: that one moves above the entry (a doc comment
//! right above it, where it documents the same entry it did inside).

use crate::span::Span;
use crate::syntax::lexer::Comment;

/// The comments of a file with a mark for each one already printed.
pub(crate) struct Comments<'a> {
    text: &'a str,
    list: Vec<Comment>,
    taken: Vec<bool>,
}

impl<'a> Comments<'a> {
    pub(crate) fn new(text: &'a str, mut list: Vec<Comment>) -> Comments<'a> {
        list.sort_by_key(|c| c.span.start);
        let taken = vec![false; list.len()];
        Comments { text, list, taken }
    }

    /// The comment's text as printed: the source slice without trailing whitespace.
    pub(crate) fn text(&self, i: usize) -> &'a str {
        self.text[self.list[i].span.range()].trim_end()
    }

    /// Whether comment `i` is a `///` doc comment.
    pub(crate) fn is_doc(&self, i: usize) -> bool {
        self.list[i].doc
    }

    pub(crate) fn span(&self, i: usize) -> Span {
        self.list[i].span
    }

    fn first_from(&self, pos: u32) -> usize {
        self.list.partition_point(|c| c.span.start < pos)
    }

    /// Whether any comment starts inside `start..end`.
    pub(crate) fn any_in(&self, start: u32, end: u32) -> bool {
        let i = self.first_from(start);
        i < self.list.len() && self.list[i].span.start < end
    }

    /// Takes every comment not yet printed that starts inside `start..end`, in order.
    pub(crate) fn take_in(&mut self, start: u32, end: u32) -> Vec<usize> {
        let mut out = Vec::new();
        let mut i = self.first_from(start);
        while i < self.list.len() && self.list[i].span.start < end {
            if !self.taken[i] {
                self.taken[i] = true;
                out.push(i);
            }
            i += 1;
        }
        out
    }

    /// Takes the first comment not yet printed in `start..end` when it is on the line of
    /// `start` (nothing but spaces, commas or the like before it, no line break).
    pub(crate) fn take_same_line(&mut self, start: u32, end: u32) -> Option<usize> {
        let mut i = self.first_from(start);
        while i < self.list.len() && self.list[i].span.start < end {
            if !self.taken[i] {
                let c = self.list[i].span;
                if self.text[start as usize..c.start as usize].contains('\n') {
                    return None;
                }
                self.taken[i] = true;
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// Like [`Comments::take_same_line`], but leaves a `///` comment where it is: after an
    /// opening brace or an entry it documents the entry that follows, so it goes on its
    /// own line above that entry.
    pub(crate) fn take_same_line_plain(&mut self, start: u32, end: u32) -> Option<usize> {
        let i = self.first_from(start);
        let first = (i..self.list.len())
            .take_while(|&i| self.list[i].span.start < end)
            .find(|&i| !self.taken[i])?;
        if self.list[first].doc {
            return None;
        }
        self.take_same_line(start, end)
    }

    /// Every comment not printed yet (a safety net: nothing is ever dropped).
    pub(crate) fn take_rest(&mut self) -> Vec<usize> {
        self.take_in(0, u32::MAX)
    }

    /// Whether the source has a blank line between `start` and `end`: a line holding only
    /// whitespace that is neither the first nor the last piece of the gap.
    pub(crate) fn blank_between(&self, start: u32, end: u32) -> bool {
        if start >= end {
            return false;
        }
        let gap = &self.text[start as usize..end as usize];
        let pieces: Vec<&str> = gap.split('\n').collect();
        pieces.len() > 2
            && pieces[1..pieces.len() - 1]
                .iter()
                .any(|p| p.chars().all(char::is_whitespace))
    }
}
