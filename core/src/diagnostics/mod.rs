//! One diagnostic model for every stage and every output (CLI human/JSON/SARIF, the
//! language server, `meshc explain`).

mod code;
pub mod render;
pub mod rules;

pub use code::{Code, Severity};
pub use rules::Rule;

use crate::span::{FilePath, Span};

/// A secondary place a diagnostic points at: the other duplicate, where a secret was declared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Label {
    pub file: FilePath,
    pub span: Span,
    pub message: String,
}

/// A finding: a code, a message, a primary place, labels and a help line.
///
/// Messages quote names and locations, never values that could be secret.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub file: FilePath,
    pub span: Span,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// Places in `file` whose text may be a secret (a literal written where a secret was
    /// expected): source excerpts show them masked, so a CI log never holds the value.
    /// Boxed, and none for most diagnostics, to keep the type small.
    pub redact: Option<Box<[Span]>>,
}

impl Diagnostic {
    /// A diagnostic of `code` at `span` of `file`, with the code's own severity.
    pub fn new(code: Code, file: &FilePath, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            file: file.clone(),
            span,
            labels: Vec::new(),
            help: None,
            redact: None,
        }
    }

    /// Marks `span` (in this diagnostic's file) as text that may be secret: excerpts mask it.
    pub fn with_redacted(mut self, span: Span) -> Diagnostic {
        let mut spans = self.redact.take().map(Vec::from).unwrap_or_default();
        spans.push(span);
        self.redact = Some(spans.into_boxed_slice());
        self
    }

    /// The spans [`Diagnostic::with_redacted`] marked.
    pub fn redacted(&self) -> impl Iterator<Item = Span> + '_ {
        self.redact.iter().flat_map(|spans| spans.iter().copied())
    }

    /// Adds a secondary label in the same file.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        let file = self.file.clone();
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a secondary label in another file.
    pub fn with_label_in(
        mut self,
        file: &FilePath,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.labels.push(Label {
            file: file.clone(),
            span,
            message: message.into(),
        });
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Sets the help line when there is one.
    pub fn with_help_opt(mut self, help: Option<String>) -> Diagnostic {
        self.help = help;
        self
    }

    /// Whether this is an error (after any raising by `--deny`).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Puts diagnostics in the order `meshc check` prints them: by file, place, code and
/// message, an exact repeat dropped.
pub fn put_in_order(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        (&a.file, a.span.start, a.code, &a.message).cmp(&(
            &b.file,
            b.span.start,
            b.code,
            &b.message,
        ))
    });
    diags.dedup();
}

/// Proof that an error was reported: a check that refuses returns `Err(Reported)`, so no
/// refusal happens without a diagnostic. It is made by [`Sink::refuse`] or
/// [`Reported::record`], which record an error, or by [`Sink::earlier_error`], when errors were reported about the text
/// before the checks began (its syntax errors); the field is private, so no other code
/// can forge it.
#[must_use = "a refusal is passed on to the caller, which decides what the error leaves out"]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reported(());

impl Reported {
    /// Records the error `diagnostic` in `list` and returns the proof that it was
    /// reported: for a stage that keeps its refusals in lists of its own (the resolver
    /// keeps each instance's).
    pub fn record(list: &mut Vec<Diagnostic>, diagnostic: Diagnostic) -> Reported {
        debug_assert!(
            diagnostic.is_error(),
            "a refusal is an error: {}",
            diagnostic.code
        );
        list.push(diagnostic);
        Reported(())
    }

    /// The proof that an error is among `diagnostics`, which were reported already: the
    /// checker's errors of a module's definition, which resolution lists where it leaves
    /// that module's assignments out (`Resolver::checker_error`). `None` when none is an
    /// error.
    pub fn among<'d>(diagnostics: impl IntoIterator<Item = &'d Diagnostic>) -> Option<Reported> {
        diagnostics
            .into_iter()
            .any(Diagnostic::is_error)
            .then_some(Reported(()))
    }
}

/// Collects diagnostics and hands out [`Reported`] tokens for the errors among them.
#[derive(Debug, Default)]
pub struct Sink {
    pub diagnostics: Vec<Diagnostic>,
    /// How many errors were reported before the checks began (the file's syntax errors).
    earlier: usize,
}

impl Sink {
    /// A sink for the checks that follow `earlier` errors already reported about the same
    /// text (its syntax errors, [`crate::check::SyntaxErrors`]).
    pub fn after_errors(earlier: usize) -> Sink {
        Sink {
            diagnostics: Vec::new(),
            earlier,
        }
    }

    /// The proof that an error was reported before the checks began: what a check meets
    /// in the tree where the parser gave up (`Expr::Error`, an iterable left out) rests
    /// on it. `None` when the text parsed without error.
    pub fn earlier_error(&self) -> Option<Reported> {
        (self.earlier > 0).then_some(Reported(()))
    }

    /// Records `diagnostic`: a warning, or an error that refuses nothing.
    pub fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Records the error `diagnostic` and returns the proof that it was reported.
    pub fn refuse(&mut self, diagnostic: Diagnostic) -> Reported {
        debug_assert!(
            diagnostic.is_error(),
            "a refusal is an error: {}",
            diagnostic.code
        );
        self.diagnostics.push(diagnostic);
        Reported(())
    }
}

#[cfg(test)]
mod sink_tests {
    use super::*;

    #[test]
    fn a_refusal_is_recorded_with_its_diagnostic() {
        let mut sink = Sink::default();
        let file = FilePath::from("a.mesh");
        sink.report(Diagnostic::new(Code::W0001, &file, Span::new(0, 1), "w"));
        let _proof: Reported =
            sink.refuse(Diagnostic::new(Code::E0301, &file, Span::new(2, 3), "e"));
        assert_eq!(sink.diagnostics.len(), 2);
        assert_eq!(sink.diagnostics[1].code, Code::E0301);
    }

    #[test]
    fn an_earlier_error_is_a_proof_only_when_one_was_reported() {
        assert_eq!(Sink::default().earlier_error(), None);
        assert_eq!(Sink::after_errors(0).earlier_error(), None);
        let sink = Sink::after_errors(1);
        assert!(sink.earlier_error().is_some());
        // The earlier errors are not the sink's: they were reported already.
        assert!(sink.diagnostics.is_empty());
    }

    #[test]
    fn errors_reported_elsewhere_are_a_proof_only_when_one_is_an_error() {
        let file = FilePath::from("a.mesh");
        let warning = Diagnostic::new(Code::W0001, &file, Span::new(0, 1), "w");
        let error = Diagnostic::new(Code::E0303, &file, Span::new(2, 3), "e");
        assert_eq!(Reported::among([]), None);
        assert_eq!(Reported::among([&warning]), None);
        assert!(Reported::among([&warning, &error]).is_some());
    }
}

/// How many items a list in a diagnostic names; the rest are counted (`… and 12 more`), so
/// no diagnostic grows with the input.
pub const LIST_SHOWN: usize = 8;

/// `a, b, c`: at most [`LIST_SHOWN`] items, in the order given, joined by `sep`, then
/// ` and N more` for the rest. Only the items shown are formatted.
pub fn capped_join<I>(items: I, sep: &str) -> String
where
    I: IntoIterator,
    I::Item: std::fmt::Display,
{
    use std::fmt::Write;
    let mut out = String::new();
    let mut count = 0usize;
    for item in items {
        if count < LIST_SHOWN {
            if count > 0 {
                out.push_str(sep);
            }
            let _ = write!(out, "{item}");
        }
        count += 1;
    }
    if count > LIST_SHOWN {
        let _ = write!(out, " and {} more", count - LIST_SHOWN);
    }
    out
}

/// [`capped_join`] with `, `.
pub fn capped_list<I>(items: I) -> String
where
    I: IntoIterator,
    I::Item: std::fmt::Display,
{
    capped_join(items, ", ")
}

/// The smallest [`LIST_SHOWN`] items in order, then ` and N more`: a sorted list without
/// sorting all of it (linear in the items).
pub fn capped_sorted<T: Ord + std::fmt::Display>(mut items: Vec<T>) -> String {
    let total = items.len();
    if total > LIST_SHOWN {
        items.select_nth_unstable(LIST_SHOWN);
        items.truncate(LIST_SHOWN);
    }
    items.sort_unstable();
    let mut out = capped_list(&items);
    if total > LIST_SHOWN {
        out.push_str(&format!(" and {} more", total - LIST_SHOWN));
    }
    out
}

/// "did you mean `x`?" for the closest candidate, if any is close enough.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    closest(name, candidates).map(|c| format!("did you mean `{c}`?"))
}

/// The candidate closest to `name` by edit distance, when close enough to be a typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        let d = edit_distance(&name.to_ascii_lowercase(), &c.to_ascii_lowercase());
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev2 = vec![0usize; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod list_tests {
    use super::*;

    #[test]
    fn lists_are_capped_and_counted() {
        assert_eq!(capped_list(["a", "b"]), "a, b");
        let many: Vec<String> = (0..1000).map(|i| format!("n{i:04}")).collect();
        let shown = capped_list(&many);
        assert!(shown.ends_with("n0007 and 992 more"), "{shown}");
        let mut reversed = many.clone();
        reversed.reverse();
        assert_eq!(capped_sorted(reversed), shown);
        assert_eq!(capped_join(["x", "y"], "; "), "x; y");
        assert_eq!(capped_sorted(vec![3, 1, 2]), "1, 2, 3");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            closest("postgress", ["postgres", "redis"]),
            Some("postgres")
        );
        assert_eq!(closest("hots", ["host", "port"]), Some("host"));
        assert_eq!(closest("zzz", ["postgres", "redis"]), None);
    }

    #[test]
    fn every_code_has_a_title_and_explanation() {
        for code in Code::ALL {
            assert!(!code.title().is_empty());
            assert!(code.explanation().contains(code.as_str()), "{code}");
            assert_eq!(Code::parse(code.as_str()), Some(*code));
        }
    }
}
