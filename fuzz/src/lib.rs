//! What the fuzz targets share: turning bytes into a workspace, and the promise every
//! diagnostic keeps whatever the input: its spans lie inside its file, on character
//! boundaries.

use meshc::diagnostics::Diagnostic;
use meshc::diagnostics::render::SourceMap;
use meshc::span::{FilePath, Span};
use std::collections::HashMap;
use std::sync::Arc;

/// The formatter's test helpers: the tree with its positions erased, and every promise
/// of a formatted text, shared with `compiler/tests/fmt.rs`.
#[path = "../../compiler/tests/common/mod.rs"]
pub mod common;

/// The byte that separates the files of a workspace in a fuzz input. It is never part of
/// valid UTF-8, so no text loses anything by it.
pub const FILE_SEPARATOR: u8 = 0xFF;

/// At most this many files are made of one input.
pub const MAX_FILES: usize = 3;

/// The input as text, invalid UTF-8 replaced (as the CLI's loader would refuse it, the
/// library never sees it).
pub fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A workspace of one to three files: the input split on [`FILE_SEPARATOR`], the last
/// file taking whatever follows the second separator.
pub fn workspace_of(bytes: &[u8]) -> Vec<(FilePath, Arc<str>)> {
    let parts: Vec<&[u8]> = bytes.splitn(MAX_FILES, |&b| b == FILE_SEPARATOR).collect();
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let path: FilePath = format!("f{i}.mesh").into();
            (path, Arc::from(text_of(part)))
        })
        .collect()
}

/// The texts diagnostics may point into: the workspace and the standard library.
pub fn sources_of(files: &[(FilePath, Arc<str>)]) -> HashMap<FilePath, Arc<str>> {
    let mut sources: HashMap<FilePath, Arc<str>> = files.iter().cloned().collect();
    sources.insert(
        FilePath::from(meshc::db::STDLIB_PATH),
        Arc::from(meshc::db::STDLIB_TEXT),
    );
    sources
}

/// Panics unless `span` lies inside `text` and starts and ends on character boundaries.
pub fn assert_span_in(span: Span, text: &str, what: &str) {
    assert!(
        span.start <= span.end,
        "{what}: span {span:?} runs backwards"
    );
    assert!(
        span.end as usize <= text.len(),
        "{what}: span {span:?} past the end ({} bytes)",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start as usize) && text.is_char_boundary(span.end as usize),
        "{what}: span {span:?} cuts a character"
    );
}

/// Panics unless every diagnostic and label names a known file and lies inside it.
///
/// The renderers are not run here: they clamp every position by design, and they would
/// cost most of each execution. `compiler/tests/properties.rs` renders the same
/// diagnostics on every generated input.
pub fn assert_diagnostics_sound(diags: &[Diagnostic], sources: &HashMap<FilePath, Arc<str>>) {
    for d in diags {
        let text = sources
            .text(&d.file)
            .unwrap_or_else(|| panic!("{}: names an unknown file `{}`", d.code, d.file));
        assert_span_in(d.span, text, d.code.as_str());
        assert!(!d.message.is_empty(), "{}: an empty message", d.code);
        for l in &d.labels {
            let text = sources.text(&l.file).unwrap_or_else(|| {
                panic!("{}: a label names an unknown file `{}`", d.code, l.file)
            });
            assert_span_in(l.span, text, d.code.as_str());
        }
    }
}
