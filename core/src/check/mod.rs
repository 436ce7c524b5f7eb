//! The checker: everything that needs no resolution. Names, provider kinds and contracts,
//! types and refinements, narrowing, secret and host-path flow, containers, provides, and
//! the definition rules of ADR 0112.
//!
//! One file per concept: [`contracts`] (contract items, and the typed declarations they
//! share with operator requirements), [`requirements`] (kinds, narrowing, cycles),
//! [`expressions`] (references, types, secret taint, host-path flow), [`containers`],
//! [`provides`], [`definition_rules`] (domains and node names), [`old_forms`] and
//! [`unused`]. Meshes are the resolver's.

pub use definition_rules::names_a_domain;
pub mod meaning;
pub mod readings;
pub mod registry;
pub mod scope;
pub mod secrets;
pub mod semantics;
pub mod specs;
pub mod types;

mod containers;
mod contracts;
mod definition_rules;
mod expressions;
pub(crate) mod loops;
mod module;
mod old_forms;
mod provides;
mod requirements;
mod unused;

use crate::diagnostics::{Diagnostic, Reported, Sink};
use crate::span::{FilePath, Span};
use crate::syntax::ast;
use registry::Registry;

/// Checks the contracts and modules of one file against the workspace's registry.
/// Meshes are the resolver's. `std` says the file is the standard library's, which alone
/// may declare host and mesh contracts.
///
/// The diagnostics come in source order.
pub fn check_items(
    path: &FilePath,
    file: &ast::SourceFile,
    registry: &Registry,
    std: bool,
) -> Vec<Diagnostic> {
    check_items_in(path, file, registry, std, &[])
}

/// [`check_items`], knowing the file's syntax diagnostics: a check that concludes from
/// something's absence (a container's image, a provides' answer, any use of a
/// requirement) stays silent where an entry failed to parse, since what is missing may
/// be in the broken entry.
pub fn check_items_in(
    path: &FilePath,
    file: &ast::SourceFile,
    registry: &Registry,
    std: bool,
    syntax: &[Diagnostic],
) -> Vec<Diagnostic> {
    check_items_with(path, file, registry, std, syntax, |_, m, errors| {
        let scope = std::sync::Arc::new(semantics::decide_scope(m, registry));
        std::sync::Arc::new(semantics::module_semantics(
            path, m, scope, registry, std, errors, false,
        ))
    })
}

/// [`check_items_in`], each module's semantic model given by `semantics` (its place
/// among the file's items, its tree): the database keeps the models, one per module, and
/// the diagnostics of a module are its model's.
pub fn check_items_with(
    path: &FilePath,
    file: &ast::SourceFile,
    registry: &Registry,
    std: bool,
    syntax: &[Diagnostic],
    mut semantics: impl FnMut(
        usize,
        &ast::Module,
        &SyntaxErrors,
    ) -> std::sync::Arc<semantics::ModuleSemantics>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // Sorted once for the whole file: each module's checks ask them, and a file of many
    // modules and many syntax errors would otherwise sort them again per module.
    let errors = SyntaxErrors::of(path, syntax);
    let mut cx = Cx::new(path, registry, std, &errors);
    for (index, item) in file.items.iter().enumerate() {
        match item {
            ast::Item::Contract(c) => {
                contracts::check_contract(&mut cx, c);
                definition_rules::check_contract_literals(&mut cx, c);
                out.append(&mut cx.sink.diagnostics);
            }
            ast::Item::Module(m) => {
                out.extend(semantics(index, m, &errors).diagnostics.iter().cloned())
            }
            // Meshes are the resolver's; seats outside the standard library are the
            // registry's (E0204).
            ast::Item::Mesh(_) | ast::Item::Seat(_) => {}
        }
    }
    out.sort_by_key(|d| (d.span.start, d.span.end));
    out
}

/// Where one file's syntax errors are, sorted: what its checks ask (a check that
/// concludes from absence stays silent where an entry failed to parse, and a check that
/// meets what the parser gave up on rests on them). Made once per file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyntaxErrors(Vec<Span>);

impl SyntaxErrors {
    /// The errors among `syntax` (a file's syntax diagnostics) that are `path`'s own.
    pub fn of(path: &FilePath, syntax: &[Diagnostic]) -> SyntaxErrors {
        let mut spans: Vec<Span> = syntax
            .iter()
            .filter(|d| d.is_error() && d.file == *path)
            .map(|d| d.span)
            .collect();
        spans.sort();
        SyntaxErrors(spans)
    }
}

/// What every check of one file shares: where it is, the workspace's names, and the
/// diagnostics found so far.
pub(crate) struct Cx<'a> {
    pub path: &'a FilePath,
    pub registry: &'a Registry,
    pub std: bool,
    /// Where the file's syntax errors are, sorted.
    pub broken: &'a [Span],
    pub sink: Sink,
}

impl<'a> Cx<'a> {
    /// The checks of `path`'s items, after its syntax errors `syntax`.
    pub fn new(
        path: &'a FilePath,
        registry: &'a Registry,
        std: bool,
        syntax: &'a SyntaxErrors,
    ) -> Cx<'a> {
        Cx {
            path,
            registry,
            std,
            broken: &syntax.0,
            sink: Sink::after_errors(syntax.0.len()),
        }
    }
    /// Whether a syntax error lies inside `span`: something written there may be missing
    /// from the tree.
    pub fn is_broken(&self, span: Span) -> bool {
        let first = self.broken.partition_point(|b| b.start < span.start);
        self.broken.get(first).is_some_and(|b| b.start <= span.end)
    }

    /// Records a diagnostic: a warning, or an error after which the check goes on.
    pub fn report(&mut self, diagnostic: Diagnostic) {
        self.sink.report(diagnostic);
    }

    /// The proof that the file's parser reported an error: where the tree holds what
    /// could not be parsed, a check refuses on it. Without one (the file's syntax
    /// diagnostics were not given) the check reports `fallback` and refuses on that.
    pub fn syntax_refusal(&mut self, fallback: impl FnOnce() -> Diagnostic) -> Reported {
        match self.sink.earlier_error() {
            Some(told) => told,
            None => self.refuse(fallback()),
        }
    }

    /// Records the error that makes a check refuse, and returns the proof for its caller.
    pub fn refuse(&mut self, diagnostic: Diagnostic) -> Reported {
        self.sink.refuse(diagnostic)
    }
}

/// `a`, `a and b`, `a, b and c`, each name in backticks. More than [`crate::diagnostics::LIST_SHOWN`] names: the first ones, then
/// `and N more`.
pub(crate) fn list_names<'s>(names: impl IntoIterator<Item = &'s str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    if names.len() > crate::diagnostics::LIST_SHOWN {
        return crate::diagnostics::capped_list(names.iter().map(|n| format!("`{n}`")));
    }
    let mut out = String::new();
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == names.len() { " and " } else { ", " });
        }
        out.push('`');
        out.push_str(n);
        out.push('`');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;

    #[test]
    fn a_span_is_broken_when_a_syntax_error_starts_inside_it() {
        let path = FilePath::from("a.mesh");
        let registry = Registry::default();
        let cx = |broken| Cx {
            path: &path,
            registry: &registry,
            std: false,
            broken,
            sink: Sink::default(),
        };
        let errors = [Span::new(5, 6), Span::new(20, 22)];
        let two = cx(&errors[..]);
        assert!(two.is_broken(Span::new(0, 10)));
        // An error starting where the span starts, or where it ends, is inside it.
        assert!(two.is_broken(Span::new(5, 10)));
        assert!(two.is_broken(Span::new(0, 5)));
        assert!(two.is_broken(Span::new(6, 20)));
        // Between the two errors, before the first, after the last: not broken.
        assert!(!two.is_broken(Span::new(6, 19)));
        assert!(!two.is_broken(Span::new(0, 4)));
        assert!(!two.is_broken(Span::new(23, 30)));
        assert!(!cx(&[]).is_broken(Span::new(0, 100)));
    }

    /// Only this file's syntax errors silence a check that concludes from absence (here:
    /// a container with no image); another file's error or a warning at the same place
    /// says nothing of this file's tree.
    #[test]
    fn only_this_files_syntax_errors_silence_conclusions_from_absence() {
        let text = "module a {\n  container a {\n  }\n}\n";
        let path = FilePath::from("a.mesh");
        let parsed = crate::syntax::parse(&path, text);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let registry = Registry::default();
        let codes = |syntax: &[Diagnostic]| -> Vec<Code> {
            check_items_in(&path, &parsed.file, &registry, false, syntax)
                .iter()
                .map(|d| d.code)
                .collect()
        };
        // Inside the container's braces, where a broken entry would be.
        let at = text.find("  }").unwrap();
        let whole = Span::new(at, at + 1);
        let no_image = codes(&[]);
        assert_eq!(
            no_image,
            [Code::E0314],
            "a container with no image is refused"
        );
        let plain: Vec<Code> = check_items(&path, &parsed.file, &registry, false)
            .iter()
            .map(|d| d.code)
            .collect();
        assert_eq!(plain, no_image);
        let elsewhere = Diagnostic::new(Code::E0001, &FilePath::from("b.mesh"), whole, "x");
        assert_eq!(codes(std::slice::from_ref(&elsewhere)), no_image);
        let warning = Diagnostic::new(Code::W0001, &path, whole, "x");
        assert_eq!(codes(std::slice::from_ref(&warning)), no_image);
        let here = Diagnostic::new(Code::E0001, &path, whole, "x");
        assert_eq!(codes(std::slice::from_ref(&here)), Vec::<Code>::new());
        // The file's syntax errors, as its checks hold them: its own errors only, sorted,
        // and only they make the checks' proof that an error was told.
        let none = SyntaxErrors::of(&path, &[warning.clone(), elsewhere.clone()]);
        assert_eq!(none, SyntaxErrors::default());
        let cx = |errors| {
            Cx::new(&path, &registry, false, errors)
                .sink
                .earlier_error()
        };
        assert!(cx(&none).is_none());
        let mut first = here.clone();
        first.span = Span::new(0, 1);
        let two = SyntaxErrors::of(&path, &[here, warning, elsewhere, first]);
        assert_eq!(two.0, [Span::new(0, 1), whole]);
        assert!(cx(&two).is_some());
    }

    #[test]
    fn list_names_joins_with_and_and_counts_past_the_limit() {
        assert_eq!(list_names([]), "");
        assert_eq!(list_names(["a"]), "`a`");
        assert_eq!(list_names(["a", "b"]), "`a` and `b`");
        assert_eq!(list_names(["a", "b", "c"]), "`a`, `b` and `c`");
        let names: Vec<String> = (1..=9).map(|i| format!("n{i}")).collect();
        assert_eq!(
            list_names(names[..8].iter().map(String::as_str)),
            "`n1`, `n2`, `n3`, `n4`, `n5`, `n6`, `n7` and `n8`"
        );
        assert_eq!(
            list_names(names.iter().map(String::as_str)),
            "`n1`, `n2`, `n3`, `n4`, `n5`, `n6`, `n7`, `n8` and 1 more"
        );
    }
}
