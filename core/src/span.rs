//! Byte spans into one source text, and the path that names the text.

use std::sync::Arc;

/// The path a source text was read from, as the user named it. Cheap to clone.
pub type FilePath = Arc<str>;

/// A half-open byte range `start..end` in one source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` (bytes).
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span holding both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The range, for slicing the source.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Whether `offset` lies inside the span (its end included, for a cursor after a word).
    pub fn contains(self, offset: u32) -> bool {
        self.start <= offset && offset <= self.end
    }
}
