//! Rendering diagnostics: human text with source excerpts (ariadne), the JSON object of
//! LANGUAGE.md §11, and SARIF 2.1.0. Pure: takes the texts, returns strings.

use super::{Code, Diagnostic, Severity};
use crate::base::line_index::{ColumnUnit, LineIndex};
use crate::span::{FilePath, Span};
use serde_json::{Value as Json, json};
use std::collections::HashMap;

/// Looks up the text of a file a diagnostic names.
pub trait SourceMap {
    /// The text of `path`, if known.
    fn text(&self, path: &FilePath) -> Option<&str>;

    /// The places of each file of `shown` that may hold a secret (`check::secrets`),
    /// read with every known file (what a value is for may be declared in another):
    /// source excerpts show them masked.
    fn secrets(&self, shown: &[FilePath]) -> HashMap<FilePath, Vec<Span>>;
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
    use crate::base::visible::{visible, visible_lines};
    use ariadne::{Config, IndexType, Label, Report, ReportKind};
    // Every cost here is once per file or once per diagnostic, never their product: 64,000
    // diagnostics in one file took minutes when each one looked the file through.
    let mut files: Vec<FilePath> = Vec::new();
    let mut known_files: std::collections::HashSet<FilePath> = std::collections::HashSet::new();
    for d in diags {
        for f in std::iter::once(&d.file).chain(d.labels.iter().map(|l| &l.file)) {
            if !known_files.contains(f) && sources.text(f).is_some() {
                known_files.insert(f.clone());
                files.push(f.clone());
            }
        }
    }
    let secrets = if files.is_empty() {
        HashMap::new()
    } else {
        sources.secrets(&files)
    };
    let mut redacted: HashMap<&FilePath, Vec<Span>> = HashMap::new();
    for d in diags {
        redacted.entry(&d.file).or_default().extend(d.redacted());
    }
    let shown: HashMap<FilePath, Masked> = files
        .iter()
        .map(|f| {
            let text = sources.text(f).unwrap_or("");
            let secret = redacted
                .get(f)
                .into_iter()
                .flatten()
                .copied()
                .chain(secrets.get(f).into_iter().flatten().copied());
            (f.clone(), Masked::shown(text, secret))
        })
        .collect();
    let mut cache = ariadne::sources(
        shown
            .iter()
            .map(|(f, m)| (Shown(f.clone()), m.text.clone()))
            .collect::<Vec<_>>(),
    );
    // A range of the file's own text, moved to where it is in the masked text.
    // ariadne is given character offsets: with byte offsets it names the place of a
    // label in another file by a character offset read as a byte one, which cuts a
    // character (and panicked) when anything before it is not ASCII.
    let moved = |f: &FilePath, r: std::ops::Range<usize>| match shown.get(f) {
        Some(m) => {
            let r = m.range(r);
            m.char_index(r.start)..m.char_index(r.end)
        }
        None => r,
    };
    let mut pos = Positions::new(sources);
    let mut out = Vec::new();
    for d in diags {
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let known = |f: &FilePath| known_files.contains(f);
        if !known(&d.file) {
            // No text to show (the file could not be read): a plain line.
            out.extend_from_slice(
                format!(
                    "{}[{}]: {}\n  --> {}\n",
                    d.severity.as_str(),
                    d.code,
                    visible(&d.message),
                    visible(&d.file)
                )
                .as_bytes(),
            );
            if let Some(help) = &d.help {
                out.extend_from_slice(format!("  help: {}\n", visible_lines(help)).as_bytes());
            }
            continue;
        }
        let range = clamp(d.span.range(), sources.text(&d.file).unwrap_or(""));
        // ariadne names each excerpt's place from the masked text; a mask before it on
        // its line moves its column, so the true place is put back afterwards.
        let mut places: Vec<(String, String)> = Vec::new();
        // Where the primary place and every label are: each excerpt's title is put right.
        let mut labelled: Vec<(String, u32, u32)> = Vec::new();
        let mut place = |pos: &mut Positions<'_>, file: &FilePath, start: usize| {
            let (line, col) = pos.line_col(file, start as u32);
            let name = visible(file);
            labelled.push((name.to_string(), line, col));
            if let Some(m) = shown.get(file) {
                let (ml, mc) = m.line_col(m.offset(start));
                if (ml, mc) != (line, col) {
                    places.push((
                        format!("[ {name}:{ml}:{mc} ]"),
                        format!("[ {name}:{line}:{col} ]"),
                    ));
                }
            }
        };
        place(&mut pos, &d.file, range.start);
        let range = moved(&d.file, range);
        let id = Shown(d.file.clone());
        let mut report = Report::build(kind, (id.clone(), range.clone()))
            .with_config(
                Config::default()
                    .with_index_type(IndexType::Char)
                    .with_color(color),
            )
            .with_code(d.code.as_str())
            .with_message(visible(&d.message))
            .with_label(Label::new((id, range)).with_message(d.code.title()));
        for l in &d.labels {
            if known(&l.file) {
                let r = clamp(l.span.range(), sources.text(&l.file).unwrap_or(""));
                place(&mut pos, &l.file, r.start);
                let r = moved(&l.file, r);
                report = report.with_label(
                    Label::new((Shown(l.file.clone()), r)).with_message(visible(&l.message)),
                );
            } else {
                report = report.with_note(format!("{}: {}", visible(&l.file), visible(&l.message)));
            }
        }
        if let Some(help) = &d.help {
            report = report.with_help(visible_lines(help));
        }
        let mut one = Vec::new();
        let _ = report.finish().write(&mut cache, &mut one);
        let mut one = String::from_utf8_lossy(&one).into_owned();
        for (shown_place, true_place) in places {
            one = one.replacen(&shown_place, &true_place, 1);
        }
        let one = retitle_excerpts(&one, &labelled);
        out.extend_from_slice(one.as_bytes());
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A file as ariadne names it: compared as the file, written through
/// [`crate::base::visible::visible`] (a file name is text from elsewhere too).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Shown(FilePath);

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::base::visible::visible(&self.0))
    }
}

impl std::fmt::Debug for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// ariadne titles a second excerpt of a file with the report's own place
/// (`├─[ lab.mesh:11:35 ]` above line 2). Each later excerpt is titled with the place of
/// the first label on the first line it shows.
fn retitle_excerpts(text: &str, labelled: &[(String, u32, u32)]) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    for (k, line) in lines.iter().enumerate() {
        let fixed = (|| {
            let open = line.find("├─[ ")? + "├─[ ".len();
            let close = open + line[open..].find(" ]")?;
            let mut parts = line[open..close].rsplitn(3, ':');
            let (_col, _line, file) = (parts.next()?, parts.next()?, parts.next()?);
            // The first excerpt line below: `  2 │ …`, colour codes left aside.
            let shown: u32 = lines[k + 1..].iter().find_map(|l| {
                let plain: String = strip_ansi(l);
                let (num, rest) = plain.trim_start().split_once(' ')?;
                (rest.starts_with('│') && !num.is_empty()).then(|| num.parse().ok())?
            })?;
            let col = labelled
                .iter()
                .filter(|(f, l, _)| f == file && *l == shown)
                .map(|(_, _, c)| *c)
                .min()?;
            Some(format!(
                "{}{file}:{shown}:{col}{}",
                &line[..open],
                &line[close..]
            ))
        })();
        out.push_str(fixed.as_deref().unwrap_or(line));
    }
    out
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What a masked secret is shown as, whatever its length: a mask of fixed width gives
/// nothing of the value away, not even how long it is.
pub const MASK: &str = "‹secret›";

/// A text with the places that may hold a secret replaced by [`MASK`], and the way from
/// a position of the text to where it is in the masked one.
#[derive(Debug, Clone)]
pub struct Masked {
    /// The masked text. Line breaks are kept (each line of a masked place becomes one
    /// mask), so every line keeps its number.
    pub text: String,
    /// The masked pieces, in order: (start, end) in the text, (start, end) in `text`.
    cuts: Vec<(usize, usize, usize, usize)>,
    /// (byte, character) at the start of every line of `text`.
    line_starts: Vec<(usize, usize)>,
}

impl Masked {
    /// `text` with every place of `spans` masked.
    pub fn new(text: &str, spans: impl Iterator<Item = Span>) -> Masked {
        Masked::build(text, spans, false)
    }

    /// `text` as a terminal is shown it: every place of `spans` masked, and every
    /// control, bidirectional or line-separating character (`base::visible::is_hidden`)
    /// outside them written as its visible escape (`\u{1b}`), except the line feed and
    /// the carriage return before it. So an excerpt never writes a raw escape sequence,
    /// and its lines are those of the text as JSON counts them (`\n` alone ends a line;
    /// ariadne would also break at U+2028, U+2029, `\r`, `\x0B`, `\x0C` and U+0085).
    pub fn shown(text: &str, spans: impl Iterator<Item = Span>) -> Masked {
        Masked::build(text, spans, true)
    }

    fn build(text: &str, spans: impl Iterator<Item = Span>, escape: bool) -> Masked {
        let mut ranges: Vec<std::ops::Range<usize>> = spans
            .map(|s| clamp(s.range(), text))
            .filter(|r| !r.is_empty())
            .collect();
        ranges.sort_by_key(|r| (r.start, r.end));
        // One piece per line of every place, overlapping places merged.
        let mut pieces: Vec<(usize, usize)> = Vec::new();
        for r in ranges {
            let mut start = r.start;
            for line in text[r.clone()].split_inclusive('\n') {
                let body = line.trim_end_matches(['\n', '\r']);
                let end = start + body.len();
                if end > start {
                    match pieces.last_mut() {
                        Some(last) if start <= last.1 => last.1 = last.1.max(end),
                        _ => pieces.push((start, end)),
                    }
                }
                start += line.len();
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut cuts = Vec::with_capacity(pieces.len());
        let mut at = 0;
        // Copies `text[at..to]` into `out`, escaping hidden characters as cuts.
        let copy = |out: &mut String,
                    cuts: &mut Vec<(usize, usize, usize, usize)>,
                    at: usize,
                    to: usize| {
            if !escape {
                out.push_str(&text[at..to]);
                return;
            }
            let mut from = at;
            for (i, c) in text[at..to].char_indices() {
                let i = at + i;
                let kept = c == '\n' || (c == '\r' && text[i + 1..].starts_with('\n'));
                if kept || !crate::base::visible::is_hidden(c) {
                    continue;
                }
                out.push_str(&text[from..i]);
                let shown_start = out.len();
                out.push_str(&crate::base::visible::visible(&text[i..i + c.len_utf8()]));
                cuts.push((i, i + c.len_utf8(), shown_start, out.len()));
                from = i + c.len_utf8();
            }
            out.push_str(&text[from..to]);
        };
        for (start, end) in pieces {
            copy(&mut out, &mut cuts, at, start);
            let shown_start = out.len();
            out.push_str(MASK);
            cuts.push((start, end, shown_start, out.len()));
            at = end;
        }
        copy(&mut out, &mut cuts, at, text.len());
        let mut line_starts = vec![(0, 0)];
        let mut chars = 0;
        for (i, ch) in out.char_indices() {
            chars += 1;
            if ch == '\n' {
                line_starts.push((i + 1, chars));
            }
        }
        Masked {
            text: out,
            cuts,
            line_starts,
        }
    }

    /// Where `offset` of the text is in the masked text; inside a masked piece, its start.
    pub fn offset(&self, offset: usize) -> usize {
        let i = self.cuts.partition_point(|c| c.0 <= offset);
        match i.checked_sub(1).map(|i| self.cuts[i]) {
            None => offset,
            Some((_, end, shown_start, shown_end)) => {
                if offset < end {
                    shown_start
                } else {
                    offset - end + shown_end
                }
            }
        }
    }

    /// Where the range `r` of the text is in the masked text: a range that ends inside a
    /// masked piece covers the whole mask.
    pub fn range(&self, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let start = self.offset(r.start);
        let i = self.cuts.partition_point(|c| c.0 < r.end);
        let end = match i.checked_sub(1).map(|i| self.cuts[i]) {
            Some((_, end, _, shown_end)) if r.end <= end => shown_end,
            _ => self.offset(r.end),
        };
        start..end.max(start)
    }

    /// The character index of byte `offset` of the masked text.
    pub fn char_index(&self, offset: usize) -> usize {
        let o = offset.min(self.text.len());
        let i = self.line_starts.partition_point(|&(b, _)| b <= o) - 1;
        let (b, c) = self.line_starts[i];
        c + self.text[b..o].chars().count()
    }

    /// 1-based line and column (in characters) of `offset` of the masked text: the line
    /// found among the line starts, not by counting the text before it (which made every
    /// diagnostic cost the size of its file).
    fn line_col(&self, offset: usize) -> (u32, u32) {
        let mut o = offset.min(self.text.len());
        while !self.text.is_char_boundary(o) {
            o -= 1;
        }
        let i = self.line_starts.partition_point(|&(b, _)| b <= o) - 1;
        let (b, _) = self.line_starts[i];
        (i as u32 + 1, self.text[b..o].chars().count() as u32 + 1)
    }
}

/// `text` with every place of `spans` shown as [`MASK`]. For showing source that may
/// hold a secret: the spans are `check::secrets` places and the diagnostics'
/// [`Diagnostic::redact`].
pub fn masked(text: &str, spans: impl Iterator<Item = Span>) -> String {
    Masked::new(text, spans).text
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

#[cfg(test)]
mod tests {
    use super::*;

    /// ariadne titles a second excerpt of the same file with the report's own place; the
    /// title is that of the label the excerpt shows.
    #[test]
    fn a_second_excerpt_of_one_file_is_titled_with_its_own_place() {
        let shown = "[E0513] Error: x\n    ╭─[ c.mesh:11:35 ]\n    │\n 11 │   assign\n    │\n    ├─[ c.mesh:11:35 ]\n    │\n  2 │   requires workers\n";
        let labelled = vec![("c.mesh".to_string(), 11, 35), ("c.mesh".to_string(), 2, 3)];
        let fixed = retitle_excerpts(shown, &labelled);
        assert!(fixed.contains("╭─[ c.mesh:11:35 ]"), "{fixed}");
        assert!(fixed.contains("├─[ c.mesh:2:3 ]"), "{fixed}");
        // Another file's excerpt keeps its title.
        let other = shown.replace("├─[ c.mesh:11:35 ]", "├─[ <std>/std.mesh:66:3 ]");
        assert_eq!(retitle_excerpts(&other, &labelled), other);
    }

    #[test]
    fn the_rendered_excerpt_of_a_label_in_the_same_file_names_its_line() {
        struct One(String);
        impl SourceMap for One {
            fn text(&self, f: &FilePath) -> Option<&str> {
                (&**f == "c.mesh").then_some(self.0.as_str())
            }
            fn secrets(&self, _: &[FilePath]) -> HashMap<FilePath, Vec<Span>> {
                HashMap::new()
            }
        }
        let text = "module app {\n  requires workers: operator int in 1..8\n}\n\n\n\n\n\n\n\nassign app to alpha { workers = 100 }\n";
        let at = text.find("100").unwrap();
        let file = FilePath::from("c.mesh");
        let d = Diagnostic::new(Code::E0513, &file, Span::new(at, at + 3), "does not fit")
            .with_label(Span::new(15, 52), "declared here");
        let out = to_human(&[d], &One(text.to_string()), false);
        assert!(out.contains("╭─[ c.mesh:11:"), "{out}");
        assert!(out.contains("├─[ c.mesh:2:3 ]"), "{out}");
    }

    /// What a terminal is shown of a text escapes every hidden character (a raw escape,
    /// a bidirectional override, the separators ariadne takes for line ends) outside the
    /// masks, keeps `\n` and `\r\n`, and keeps every position's line.
    #[test]
    fn the_shown_text_escapes_hidden_characters_and_keeps_lines() {
        let text = "// a\u{2028}b\u{2029}c\rd\u{b}e\u{c}f\u{85}g\r\nx = \"\u{1b}[2J\" s = \"secret\u{1b}\"\n";
        let at = text.find("s =").unwrap();
        let secret = text.find("\"secret").unwrap();
        let m = Masked::shown(text, std::iter::once(Span::new(secret, secret + 8)));
        assert_eq!(
            m.text,
            "// a\\u{2028}b\\u{2029}c\\u{d}d\\u{b}e\\u{c}f\\u{85}g\r\nx = \"\\u{1b}[2J\" s = ‹secret›\"\n",
            "a hidden character inside a mask is masked with it"
        );
        assert!(!m.text.contains(['\u{1b}', '\u{2028}', '\u{85}']));
        assert_eq!(m.line_col(m.offset(at)).0, 2, "the line JSON gives");
        assert_eq!(&m.text[m.range(at..at + 3)], "s =");
        // Without escapes (`new`), only the mask changes the text.
        assert!(Masked::new(text, std::iter::empty()).text == text);
    }

    #[test]
    fn a_mask_has_one_width_and_positions_follow_it() {
        let text = "a = \"short\" b\nc = \"a much longer secret\" d\n";
        let spans = [Span::new(4, 11), Span::new(18, 40)];
        let m = Masked::new(text, spans.into_iter());
        assert_eq!(m.text, "a = ‹secret› b\nc = ‹secret› d\n");
        // Before, inside and after a masked place.
        assert_eq!(m.offset(2), 2);
        assert_eq!(m.offset(6), 4);
        assert_eq!(&m.text[m.range(12..13)], "b");
        assert_eq!(&m.text[m.range(41..42)], "d");
        assert_eq!(&m.text[m.range(18..40)], MASK);
        assert_eq!(&m.text[m.range(16..20)], "= ‹secret›");
    }

    #[test]
    fn a_masked_place_over_lines_keeps_every_line() {
        let text = "x = \"\"\"\n  one\n  two\n  \"\"\" y\n";
        let m = Masked::new(text, std::iter::once(Span::new(4, text.len() - 3)));
        assert_eq!(m.text.lines().count(), text.lines().count());
        assert!(
            !m.text.contains("one") && !m.text.contains("two"),
            "{}",
            m.text
        );
        assert!(m.text.ends_with(" y\n"), "{}", m.text);
    }

    #[test]
    fn a_label_in_another_file_after_wide_characters_is_shown() {
        let a: FilePath = "a.mesh".into();
        let b: FilePath = "b.mesh".into();
        let text_b = "// é ü ‹›\nx = \"a secret\" y\n";
        let at = text_b.find('y').unwrap();
        let d = Diagnostic::new(Code::E0001, &a, Span::new(0, 1), "m")
            .with_label_in(&b, Span::new(at, at + 1), "here")
            .with_redacted(Span::new(0, 0));
        let mut sources: HashMap<FilePath, std::sync::Arc<str>> = HashMap::new();
        sources.insert(a, std::sync::Arc::from("z\n"));
        sources.insert(b, std::sync::Arc::from(text_b));
        let out = to_human(&[d], &sources, false);
        assert!(out.contains("b.mesh:2:"), "{out}");
        assert!(out.contains("here"), "{out}");
    }

    #[test]
    fn an_excerpt_names_the_true_column_after_a_mask() {
        let path: FilePath = "a.mesh".into();
        // (A word after the value would be masked too: on a line that does not parse, a
        // word after `=` may be a value written without quotes.)
        let text = "tok = \"a long secret value\" )\n";
        let at = text.find(')').unwrap();
        let d = Diagnostic::new(Code::E0001, &path, Span::new(at, at + 1), "unexpected")
            .with_redacted(Span::new(6, at - 1));
        let mut sources: HashMap<FilePath, std::sync::Arc<str>> = HashMap::new();
        sources.insert(path, std::sync::Arc::from(text));
        let out = to_human(&[d], &sources, false);
        assert!(out.contains(&format!("a.mesh:1:{}", at + 1)), "{out}");
        assert!(out.contains("tok = ‹secret› )"), "{out}");
        assert!(!out.contains("secret value"), "{out}");
    }
}
