//! Byte spans ↔ protocol positions. Every conversion goes through the compiler's
//! [`LineIndex`] with the column unit negotiated at initialisation (UTF-16 unless the client
//! offers UTF-8), so there is one place that counts columns.

use meshc::db::SourceFile;
use meshc::span::Span;
use meshc::syntax::line_index::{ColumnUnit, LineCol, LineIndex};
use std::sync::Arc;
use tower_lsp_server::ls_types::{Position, Range};

/// The line index of a file, memoized per revision of its text.
#[salsa::tracked(returns(clone))]
pub fn line_index(db: &dyn salsa::Database, file: SourceFile) -> Arc<LineIndex> {
    Arc::new(LineIndex::new(file.text(db)))
}

/// A text with its line index and the negotiated column unit.
pub struct Lines<'a> {
    pub text: &'a str,
    pub index: Arc<LineIndex>,
    pub unit: ColumnUnit,
}

impl<'a> Lines<'a> {
    /// The lines of `file` in `db`.
    pub fn of(db: &'a dyn salsa::Database, file: SourceFile, unit: ColumnUnit) -> Lines<'a> {
        Lines {
            text: file.text(db),
            index: line_index(db, file),
            unit,
        }
    }

    /// The position of byte `offset`.
    pub fn position(&self, offset: u32) -> Position {
        let lc = self.index.line_col(self.text, offset, self.unit);
        Position::new(lc.line, lc.col)
    }

    /// The range of `span`.
    pub fn range(&self, span: Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of `pos`, clamped to the text (a position past the end of a line or
    /// of the file is the end of it).
    pub fn offset(&self, pos: Position) -> u32 {
        self.index.offset(
            self.text,
            LineCol {
                line: pos.line,
                col: pos.character,
            },
            self.unit,
        )
    }

    /// The span of `range`, its ends ordered.
    pub fn span(&self, range: Range) -> Span {
        let a = self.offset(range.start);
        let b = self.offset(range.end);
        Span {
            start: a.min(b),
            end: a.max(b),
        }
    }
}
