//! Checks shared by the formatter's tests: the tree with its positions erased, the decoded
//! string values, the comments, and the properties every formatted text has.

#![allow(dead_code)]

use meshc::diagnostics::Diagnostic;
use meshc::diagnostics::render::SourceMap;
use meshc::span::{FilePath, Span};
use meshc::syntax::ast::*;
use meshc::syntax::spans::{VisitSpans, walk_file, walk_string};
use meshc::syntax::{Parsed, parse};
use std::collections::HashMap;
use std::sync::Arc;

#[path = "../support/ci.rs"]
mod ci;
#[allow(unused_imports)]
pub use ci::*;

pub fn path() -> FilePath {
    "test.mesh".into()
}

/// What a formatted file must keep: the tree without positions, every string's decoded
/// value, and the comments' texts.
#[derive(Debug, PartialEq, Eq)]
pub struct Meaning {
    pub tree: SourceFile,
    pub strings: Vec<String>,
    pub comments: Vec<String>,
}

/// The meaning of a text that parses without error.
pub fn meaning(text: &str) -> Meaning {
    let parsed = parse(&path(), text);
    assert!(
        parsed.diagnostics.is_empty(),
        "does not parse: {:?}\n{text}",
        parsed.diagnostics
    );
    let Parsed { file, comments, .. } = parsed;
    let mut e = Eraser::default();
    let mut tree = file;
    e.file(&mut tree);
    let mut comments: Vec<String> = comments
        .iter()
        .map(|c| text[c.span.range()].trim_end().to_string())
        .collect();
    comments.sort();
    Meaning {
        tree,
        strings: e.strings,
        comments,
    }
}

/// The spans of the triple-quoted strings of a text (their lines are the value's, so the
/// layout checks leave them alone).
pub fn triple_spans(text: &str) -> Vec<Span> {
    let mut file = parse(&path(), text).file;
    let mut e = Eraser::default();
    e.file(&mut file);
    e.triples
}

/// Zeroes every span of the tree (through the core's walker, `syntax::spans`) and
/// collects every string's decoded value.
#[derive(Default)]
struct Eraser {
    strings: Vec<String>,
    triples: Vec<Span>,
}

impl Eraser {
    fn file(&mut self, f: &mut SourceFile) {
        walk_file(self, f);
    }
}

impl VisitSpans for Eraser {
    fn span(&mut self, s: &mut Span) {
        *s = Span::default();
    }

    fn string(&mut self, s: &mut StringLit) {
        if s.triple {
            self.triples.push(s.span);
        }
        // Erased first, so an interpolation written out below shows no position.
        walk_string(self, s);
        let mut value = String::new();
        for p in &s.parts {
            match p {
                StrPart::Text(t) => value.push_str(t),
                StrPart::Ref(_) | StrPart::Interp(_) => {
                    let Some(i) = p.interp() else { continue };
                    value.push_str("${");
                    if let Some(l) = i.legacy {
                        value.push_str(&l.name);
                        value.push(':');
                    }
                    match i.reference() {
                        Some(r) => value.push_str(&r.dotted()),
                        None => value.push_str(&format!("{:?}", i.expr)),
                    }
                    value.push('}');
                }
            }
        }
        self.strings.push(value);
    }
}

/// Checks every promise of the formatter on one input that parses: the layout is what
/// `format` returns (its safety net did not fall back), formatting again changes nothing,
/// the meaning and the comments are kept, and the text has the layout's properties.
/// Returns the formatted text.
pub fn check_all(input: &str) -> String {
    let p = path();
    let out = meshc::fmt::format_unchecked(&p, input).expect("parses");
    let checked = meshc::fmt::format(&p, input).expect("parses");
    assert_eq!(
        checked, out,
        "format fell back to the input: the layout changed its meaning\n{input}"
    );
    let again = meshc::fmt::format(&p, &out).expect("the output parses");
    assert_eq!(
        again, out,
        "not idempotent\n--- input\n{input}\n--- first\n{out}"
    );
    let before = meaning(input);
    let after = meaning(&out);
    assert_eq!(
        before.comments.len(),
        after.comments.len(),
        "a comment was lost\n--- input\n{input}\n--- output\n{out}"
    );
    assert_eq!(before.comments, after.comments, "comments changed\n{out}");
    assert_eq!(
        before.strings, after.strings,
        "string values changed\n{out}"
    );
    assert_eq!(
        before.tree, after.tree,
        "meaning changed\n--- input\n{input}\n--- output\n{out}"
    );
    assert_layout(&out);
    out
}

/// The properties of every formatted text.
pub fn assert_layout(out: &str) {
    if out.is_empty() {
        return;
    }
    assert!(out.ends_with('\n'), "no final newline:\n{out}");
    assert!(
        !out.ends_with("\n\n"),
        "more than one final newline:\n{out}"
    );
    assert!(!out.starts_with('\n'), "a blank first line:\n{out}");
    let triples = triple_spans(out);
    let comments = parse(&path(), out).comments;
    let mut offset = 0usize;
    let lines: Vec<&str> = out.split_inclusive('\n').collect();
    for (n, line) in lines.iter().enumerate() {
        let start = offset as u32;
        offset += line.len();
        let in_string = triples.iter().any(|s| s.start < start && start < s.end);
        if in_string {
            continue;
        }
        let body = line.trim_end_matches('\n');
        if body.is_empty() && n > 0 && lines[n - 1].trim().is_empty() {
            panic!("two blank lines in a row at line {}:\n{out}", n + 1);
        }
        // What ends a line that opens a triple-quoted string is the string's text.
        let line_end = start + body.len() as u32;
        let opens_string = triples
            .iter()
            .any(|s| s.start < line_end && line_end < s.end);
        // A line break is `\n`; a lone `\r` inside a comment or a string is their text.
        assert!(
            opens_string || !body.ends_with('\r'),
            "a carriage return ends line {}:\n{out}",
            n + 1
        );
        assert!(
            opens_string || body.trim_end() == body,
            "trailing spaces at line {}:\n{out}",
            n + 1
        );
        let indent = body.len() - body.trim_start_matches(' ').len();
        assert!(
            !body[indent..].starts_with('\t'),
            "a tab in the indentation at line {}:\n{out}",
            n + 1
        );
        assert_eq!(indent % 2, 0, "odd indentation at line {}:\n{out}", n + 1);
        // A line ending in a comment ends in the comment's text, whatever its last character.
        let is_comment = comments
            .iter()
            .any(|c| c.span.start < line_end && line_end <= c.span.end);
        if !is_comment
            && (body.ends_with('{') || body.ends_with('['))
            && let Some(next) = lines.get(n + 1)
        {
            assert_ne!(
                next.trim(),
                "",
                "a blank line after an opening brace:\n{out}"
            );
        }
        if body.is_empty()
            && let Some(next) = lines.get(n + 1)
        {
            let t = next.trim();
            assert!(
                !(t.starts_with('}') || t.starts_with(']')),
                "a blank line before a closing brace:\n{out}"
            );
        }
    }
}

/// The `.mesh` files under `dir`, recursively, sorted.
pub fn mesh_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in read.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "mesh") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The catalogue's `.mesh` files in name order, each named as `meshc check catalogue`
/// names it (`catalogue/<file>`), with its text.
pub fn catalogue_files() -> Vec<(FilePath, std::sync::Arc<str>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalogue");
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "mesh"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = format!("catalogue/{}", p.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&p).unwrap();
            (name.as_str().into(), std::sync::Arc::from(text))
        })
        .collect()
}

/// Panics, listing every one, unless checking the workspace finds no diagnostic at all
/// (`what` names the workspace in the message).
pub fn assert_checks_clean(database: &meshc::db::Database, ws: meshc::db::Workspace, what: &str) {
    let listed: Vec<String> = meshc::db::workspace_diagnostics(database, ws)
        .iter()
        .map(|d| format!("{} {}:{} {}", d.code, d.file, d.span.start, d.message))
        .collect();
    assert!(
        listed.is_empty(),
        "{what} is not clean:\n{}",
        listed.join("\n")
    );
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
/// cost most of each execution of a fuzz target. `compiler/tests/properties.rs` renders
/// the same diagnostics on every generated input.
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
