//! Byte offset ↔ line/column conversion, shared by every output that shows a position.

/// Line starts of one text, for turning byte offsets into lines and columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

/// A zero-based line and a zero-based column, in the unit asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// How a column is counted: in characters (the CLI), UTF-16 units (LSP's default) or bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnUnit {
    Chars,
    Utf16,
    Utf8,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        LineIndex { line_starts }
    }

    /// The number of lines.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The position of byte `offset` in `text`, its column counted in `unit`.
    /// Offsets past the end or inside a character are clamped to a character boundary.
    pub fn line_col(&self, text: &str, offset: u32, unit: ColumnUnit) -> LineCol {
        let offset = (offset as usize).min(text.len());
        let line = self.line_starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let mut end = offset;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let slice = &text[start..end];
        let col = match unit {
            ColumnUnit::Chars => slice.chars().count(),
            ColumnUnit::Utf16 => slice.encode_utf16().count(),
            ColumnUnit::Utf8 => slice.len(),
        };
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }

    /// The byte offset of a line and column counted in `unit`, clamped to the text.
    pub fn offset(&self, text: &str, pos: LineCol, unit: ColumnUnit) -> u32 {
        let Some(&start) = self.line_starts.get(pos.line as usize) else {
            return text.len() as u32;
        };
        let start = start as usize;
        let line_end = self
            .line_starts
            .get(pos.line as usize + 1)
            .map(|&s| s as usize)
            .unwrap_or(text.len());
        let line = &text[start..line_end];
        let mut counted = 0u32;
        for (i, ch) in line.char_indices() {
            if counted >= pos.col || ch == '\n' {
                return (start + i) as u32;
            }
            counted += match unit {
                ColumnUnit::Chars => 1,
                ColumnUnit::Utf16 => ch.len_utf16() as u32,
                ColumnUnit::Utf8 => ch.len_utf8() as u32,
            };
        }
        line_end as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_in_each_unit() {
        let text = "ab\nä😀x\n";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap() as u32;
        assert_eq!(
            idx.line_col(text, x, ColumnUnit::Chars),
            LineCol { line: 1, col: 2 }
        );
        assert_eq!(
            idx.line_col(text, x, ColumnUnit::Utf16),
            LineCol { line: 1, col: 3 }
        );
        assert_eq!(
            idx.line_col(text, x, ColumnUnit::Utf8),
            LineCol { line: 1, col: 6 }
        );
        for unit in [ColumnUnit::Chars, ColumnUnit::Utf16, ColumnUnit::Utf8] {
            let lc = idx.line_col(text, x, unit);
            assert_eq!(idx.offset(text, lc, unit), x);
        }
    }

    #[test]
    fn clamps_out_of_range() {
        let text = "a\n";
        let idx = LineIndex::new(text);
        assert_eq!(
            idx.offset(text, LineCol { line: 9, col: 0 }, ColumnUnit::Chars),
            2
        );
        assert_eq!(
            idx.line_col(text, 99, ColumnUnit::Chars),
            LineCol { line: 1, col: 0 }
        );
    }
}
