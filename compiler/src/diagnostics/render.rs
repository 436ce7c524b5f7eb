//! Rendering diagnostics: human text with source excerpts (ariadne), the JSON object of
//! LANGUAGE.md §11, and SARIF 2.1.0. Pure: takes the texts, returns strings.

use super::{Code, Diagnostic, Severity};
use crate::span::{FilePath, Span};
use crate::syntax::line_index::{ColumnUnit, LineIndex};
use serde_json::{Value as Json, json};
use std::collections::HashMap;

/// Looks up the text of a file a diagnostic names.
pub trait SourceMap {
    /// The text of `path`, if known.
    fn text(&self, path: &FilePath) -> Option<&str>;
}

impl SourceMap for HashMap<FilePath, std::sync::Arc<str>> {
    fn text(&self, path: &FilePath) -> Option<&str> {
        self.get(path).map(|t| &**t)
    }
}

/// Line indexes built on demand, one per file.
struct Positions<'a> {
    sources: &'a dyn SourceMap,
    indexes: HashMap<FilePath, LineIndex>,
}

impl<'a> Positions<'a> {
    fn new(sources: &'a dyn SourceMap) -> Self {
        Positions {
            sources,
            indexes: HashMap::new(),
        }
    }

    /// 1-based line and column (in characters) of `offset` in `file`.
    fn line_col(&mut self, file: &FilePath, offset: u32) -> (u32, u32) {
        let Some(text) = self.sources.text(file) else {
            return (1, 1);
        };
        let idx = self
            .indexes
            .entry(file.clone())
            .or_insert_with(|| LineIndex::new(text));
        let lc = idx.line_col(text, offset, ColumnUnit::Chars);
        (lc.line + 1, lc.col + 1)
    }
}

/// Counts of errors and warnings.
pub fn counts(diags: &[Diagnostic]) -> (usize, usize) {
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    (errors, diags.len() - errors)
}

/// The JSON object of §11: `{"diagnostics": […], "errors": N, "warnings": N}`.
pub fn to_json(diags: &[Diagnostic], sources: &dyn SourceMap) -> Json {
    let mut pos = Positions::new(sources);
    let list: Vec<Json> = diags
        .iter()
        .map(|d| {
            let (line, column) = pos.line_col(&d.file, d.span.start);
            let labels: Vec<Json> = d
                .labels
                .iter()
                .map(|l| {
                    let (line, column) = pos.line_col(&l.file, l.span.start);
                    json!({"file": &*l.file, "line": line, "column": column,
                           "span": {"start": l.span.start, "end": l.span.end},
                           "message": l.message})
                })
                .collect();
            json!({
                "code": d.code.as_str(),
                "severity": d.severity.as_str(),
                "message": d.message,
                "file": &*d.file,
                "line": line,
                "column": column,
                "span": {"start": d.span.start, "end": d.span.end},
                "labels": labels,
                "help": d.help,
            })
        })
        .collect();
    let (errors, warnings) = counts(diags);
    json!({"diagnostics": list, "errors": errors, "warnings": warnings})
}

/// SARIF 2.1.0, one rule per code of the language.
pub fn to_sarif(diags: &[Diagnostic], sources: &dyn SourceMap, tool_version: &str) -> Json {
    let mut pos = Positions::new(sources);
    let rules: Vec<Json> = Code::ALL
        .iter()
        .map(|c| {
            json!({
                "id": c.as_str(),
                "shortDescription": {"text": c.title()},
                "fullDescription": {"text": c.explanation()},
                "defaultConfiguration": {"level": level(c.severity())},
            })
        })
        .collect();
    let results: Vec<Json> = diags
        .iter()
        .map(|d| {
            let (sl, sc) = pos.line_col(&d.file, d.span.start);
            let (el, ec) = pos.line_col(&d.file, d.span.end);
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            let related: Vec<Json> = d
                .labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let (sl, sc) = pos.line_col(&l.file, l.span.start);
                    let (el, ec) = pos.line_col(&l.file, l.span.end);
                    json!({"id": i, "message": {"text": l.message},
                           "physicalLocation": physical(&l.file, sl, sc, el, ec)})
                })
                .collect();
            json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": Code::ALL.iter().position(|c| *c == d.code).unwrap_or(0),
                "level": level(d.severity),
                "message": {"text": message},
                "locations": [{"physicalLocation": physical(&d.file, sl, sc, el, ec)}],
                "relatedLocations": related,
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "meshc", "version": tool_version, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn physical(file: &str, sl: u32, sc: u32, el: u32, ec: u32) -> Json {
    json!({
        "artifactLocation": {"uri": file},
        "region": {"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec},
    })
}

/// Human text with source excerpts, as `meshc check` prints it on stderr.
pub fn to_human(diags: &[Diagnostic], sources: &dyn SourceMap, color: bool) -> String {
    use ariadne::{Config, IndexType, Label, Report, ReportKind};
    let mut files: Vec<FilePath> = Vec::new();
    for d in diags {
        for f in std::iter::once(&d.file).chain(d.labels.iter().map(|l| &l.file)) {
            if !files.contains(f) && sources.text(f).is_some() {
                files.push(f.clone());
            }
        }
    }
    let mut cache = ariadne::sources(files.iter().map(|f| {
        let text = sources.text(f).unwrap_or("");
        let secret = diags
            .iter()
            .filter(|d| d.file == *f)
            .flat_map(Diagnostic::redacted);
        (f.clone(), masked(text, secret))
    }));
    let mut out = Vec::new();
    for d in diags {
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let known = |f: &FilePath| files.contains(f);
        if !known(&d.file) {
            // No text to show (the file could not be read): a plain line.
            out.extend_from_slice(
                format!(
                    "{}[{}]: {}\n  --> {}\n",
                    d.severity.as_str(),
                    d.code,
                    d.message,
                    d.file
                )
                .as_bytes(),
            );
            if let Some(help) = &d.help {
                out.extend_from_slice(format!("  help: {help}\n").as_bytes());
            }
            continue;
        }
        let range = clamp(d.span.range(), sources.text(&d.file).unwrap_or(""));
        let mut report = Report::build(kind, (d.file.clone(), range.clone()))
            .with_config(
                Config::default()
                    .with_index_type(IndexType::Byte)
                    .with_color(color),
            )
            .with_code(d.code.as_str())
            .with_message(&d.message)
            .with_label(Label::new((d.file.clone(), range)).with_message(d.code.title()));
        for l in &d.labels {
            if known(&l.file) {
                let r = clamp(l.span.range(), sources.text(&l.file).unwrap_or(""));
                report =
                    report.with_label(Label::new((l.file.clone(), r)).with_message(&l.message));
            } else {
                report = report.with_note(format!("{}: {}", l.file, l.message));
            }
        }
        if let Some(help) = &d.help {
            report = report.with_help(help);
        }
        let _ = report.finish().write(&mut cache, &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` with every character inside `spans` replaced by `*`s (as many as its bytes, so
/// every position after it stays where it was). For showing source that may hold a
/// secret: the spans are the diagnostics' [`Diagnostic::redact`].
pub fn masked(text: &str, spans: impl Iterator<Item = Span>) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        for b in &mut bytes[clamp(span.range(), text)] {
            *b = b'*';
        }
    }
    // Whole characters were replaced by ASCII, so the text is still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Keeps a range inside the text and on character boundaries.
fn clamp(r: std::ops::Range<usize>, text: &str) -> std::ops::Range<usize> {
    let mut start = r.start.min(text.len());
    let mut end = r.end.min(text.len()).max(start);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}
