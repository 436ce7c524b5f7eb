//! Where a file's text may hold a secret, from what is written and what it is written
//! for, whatever else is wrong with it. Every source excerpt (the human diagnostics, the
//! language server's hovers) shows these places masked.
//!
//! A place is secret when the value written there is for something declared secret:
//! a secret contract field's default and refinements, a secret operator requirement's
//! default and refinements, a narrowing of a secret field, a secret file's value, an
//! `exposed` env value, a `provides` answer to a secret field, and in a mesh an
//! assignment's value for a secret operator requirement or secret field. Secrecy follows
//! the declaration alone: a duplicate key, an unknown node, a duplicate instance or a
//! misplaced form (`tok.x = …`, `tok at …`) change nothing. Where what a value is for
//! cannot be known (an unknown module, requirement, contract or field, a missing type)
//! it is masked too: unknown is treated as secret. On a line the parser could not read
//! (E0001, E0005), every string is masked, since what the line means is unknown. The
//! refinements masked are those that say what a value is (`in {…}`, `matches`); a
//! length or range says only its shape.

use super::registry::ModuleSource;
use super::registry::{Registry, RegistryInput};
use crate::diagnostics::{Code, Diagnostic};
use crate::span::{FilePath, Span};
use crate::syntax::Parsed;
use crate::syntax::ast::{
    self, AssignEntryKind, ContainerEntryKind, Expr, Item, NarrowingKind, RequirementBody,
};
use crate::syntax::lexer::{TokenKind, lex};
use std::collections::HashMap;
use std::sync::Arc;

/// The places of `parsed` (the tree of `text`) that may hold a secret, sorted by start.
/// `module` looks a module's definition up by name (for an assignment's values).
pub fn secret_spans(
    text: &str,
    parsed: &Parsed,
    registry: &Registry,
    module: &dyn Fn(&str) -> Option<ModuleSource>,
) -> Vec<Span> {
    let mut out = Vec::new();
    for item in &parsed.file.items {
        match item {
            Item::Contract(c) => contract(c, &mut out),
            Item::Module(m) => module_spans(m, registry, &mut out),
            Item::Mesh(m) => mesh(m, registry, module, &mut out),
            Item::Seat(_) => {}
        }
    }
    syntax_lines(text, &parsed.diagnostics, &mut out);
    out.sort_by_key(|s| (s.start, s.end));
    out.dedup();
    out
}

/// The secret places of one contract, sorted by start.
pub fn contract_spans(c: &ast::Contract) -> Vec<Span> {
    let mut out = Vec::new();
    contract(c, &mut out);
    out.sort_by_key(|s| (s.start, s.end));
    out
}

/// The secret places of one module, sorted by start.
pub fn module_definition_spans(m: &ast::Module, registry: &Registry) -> Vec<Span> {
    let mut out = Vec::new();
    module_spans(m, registry, &mut out);
    out.sort_by_key(|s| (s.start, s.end));
    out
}

/// Whether `span` lies inside one of `secret` (sorted by start, as returned here).
pub fn is_inside(secret: &[Span], span: Span) -> bool {
    let i = secret.partition_point(|s| s.start <= span.start);
    secret[..i].iter().rev().any(|s| span.end <= s.end)
}

/// The secret places of every file of `texts`, read as one workspace with the standard
/// library: for a caller that holds texts and no database (rendering diagnostics).
pub fn secret_spans_of_texts<'a>(
    texts: impl IntoIterator<Item = (&'a FilePath, &'a str)>,
) -> HashMap<FilePath, Vec<Span>> {
    let std_path = FilePath::from(crate::base::STDLIB_PATH);
    let mut files: Vec<(FilePath, &str, Arc<Parsed>, bool)> = vec![(
        std_path.clone(),
        crate::base::STDLIB_TEXT,
        Arc::new(crate::syntax::parse(&std_path, crate::base::STDLIB_TEXT)),
        true,
    )];
    for (path, text) in texts {
        if *path == std_path {
            continue;
        }
        files.push((
            path.clone(),
            text,
            Arc::new(crate::syntax::parse(path, text)),
            false,
        ));
    }
    let registry = Registry::build(files.iter().map(|(path, _, parsed, std)| RegistryInput {
        path,
        file: &parsed.file,
        std: *std,
    }));
    let module = |name: &str| -> Option<ModuleSource> {
        let at = registry.modules.get(name)?;
        let (path, _, parsed, _) = files.get(at.file)?;
        matches!(parsed.file.items.get(at.item), Some(Item::Module(_))).then(|| ModuleSource {
            path: path.clone(),
            parsed: parsed.clone(),
            item: at.item,
        })
    };
    files
        .iter()
        .filter(|(_, _, _, std)| !std)
        .map(|(path, text, parsed, _)| {
            (path.clone(), secret_spans(text, parsed, &registry, &module))
        })
        .collect()
}

/// The literal parts of a value: everything but references to what `known` names (names,
/// never values). A bare word that names nothing known (`= hunter2`, a secret written
/// without its quotes) may be the secret itself, and is a literal part too.
fn literals(e: &Expr, known: &dyn Fn(&str) -> bool, out: &mut Vec<Span>) {
    match e {
        Expr::Ref(r) => {
            if !r.segments.first().is_some_and(|s| known(&s.name)) {
                out.push(r.span());
            }
        }
        Expr::List(items, _) => {
            for i in items {
                literals(i, known, out);
            }
        }
        other => out.push(other.span()),
    }
}

/// Nothing is known: a contract's default or a mesh's value reads no name.
fn nothing(_: &str) -> bool {
    false
}

/// The refinements that say what a value is (`in {…}`, `matches`); a length or a range
/// says only its shape, and stays shown.
fn refinements(refs: &[ast::Refinement], out: &mut Vec<Span>) {
    out.extend(
        refs.iter()
            .filter(|r| matches!(r, ast::Refinement::InSet(_) | ast::Refinement::Matches(_)))
            .map(ast::Refinement::span),
    );
}

/// Whether a type as written is secret; a type that did not parse may be.
fn type_is_secret(ty: Option<&ast::TypeExpr>) -> bool {
    ty.is_none_or(|t| t.secret.is_some() || matches!(t.base, ast::BaseType::Error))
}

fn contract(c: &ast::Contract, out: &mut Vec<Span>) {
    for f in &c.fields {
        if type_is_secret(f.ty.as_ref()) {
            if let Some(d) = &f.default {
                literals(d, &nothing, out);
            }
            refinements(&f.refinements, out);
        }
    }
}

/// Whether field `field` of contract `contract` is secret, or cannot be known not to be.
fn field_is_secret(registry: &Registry, contract: Option<&str>, field: &str) -> bool {
    let Some(c) = contract.and_then(|c| registry.contracts.get(c)) else {
        return true;
    };
    match c.fields.get(field) {
        Some(f) => f.secret,
        // A misspelt field (`route.public_nam`) is read as the field it is closest to, as
        // E0105's did-you-mean reads it: a value meant for a plain field (a hostname) is
        // shown; one near a secret field, or near no field, stays masked.
        None => crate::diagnostics::closest(field, c.fields.keys().map(String::as_str))
            .and_then(|near| c.fields.get(near))
            .is_none_or(|f| f.secret),
    }
}

fn module_spans(m: &ast::Module, registry: &Registry, out: &mut Vec<Span>) {
    // What a value of the module may read: its requirements, and what `provides` reads.
    let known = |name: &str| {
        matches!(name, "consumer" | "given" | "here")
            || m.requirements().any(|r| r.name.name == name)
    };
    let known: &dyn Fn(&str) -> bool = &known;
    for entry in &m.entries {
        match entry {
            ast::ModuleEntry::Requires(r) => match &r.body {
                RequirementBody::Operator(op) => {
                    let crate::syntax::ast::OperatorBody {
                        ty,
                        refinements: refs,
                        default,
                    } = &**op;
                    if type_is_secret(ty.as_ref()) {
                        if let Some(d) = default {
                            literals(d, known, out);
                        }
                        refinements(refs, out);
                    }
                }
                RequirementBody::Contract {
                    contract,
                    narrowing,
                    ..
                } => {
                    let contract = contract.as_ref().map(|c| c.name.as_str());
                    for n in narrowing {
                        if field_is_secret(registry, contract, &n.field.name) {
                            match &n.kind {
                                NarrowingKind::Set(e) => literals(e, known, out),
                                NarrowingKind::Refine(refs) => refinements(refs, out),
                            }
                        }
                    }
                }
            },
            ast::ModuleEntry::Container(c) => {
                for e in &c.entries {
                    match &e.kind {
                        ContainerEntryKind::Secret(file) => literals(&file.value, known, out),
                        ContainerEntryKind::Env(entries) => {
                            for env in entries.iter().filter(|env| env.exposed.is_some()) {
                                literals(&env.value, known, out);
                            }
                        }
                        _ => {}
                    }
                }
            }
            ast::ModuleEntry::Provides(p) => {
                for a in &p.answers {
                    if field_is_secret(registry, Some(p.contract.name.as_str()), &a.field.name) {
                        literals(&a.value, known, out);
                    }
                }
            }
            ast::ModuleEntry::Slug(..) => {}
        }
    }
}

/// What an assignment's entry for requirement `name` of `module` is for.
enum Target {
    /// Known not to be secret.
    Plain,
    /// A secret operator value, or unknown.
    Secret,
    /// A contract requirement (its fields decide), with its contract's name if written.
    Contract(Option<String>),
}

fn target(module: Option<&ast::Module>, name: &str) -> Target {
    let Some(m) = module else {
        return Target::Secret;
    };
    let Some(r) = m.requirements().find(|r| r.name.name == name) else {
        return Target::Secret;
    };
    match &r.body {
        RequirementBody::Operator(op) if type_is_secret(op.ty.as_ref()) => Target::Secret,
        RequirementBody::Operator(_) => Target::Plain,
        RequirementBody::Contract { contract, .. } => {
            Target::Contract(contract.as_ref().map(|c| c.name.to_string()))
        }
    }
}

fn mesh(
    m: &ast::Mesh,
    registry: &Registry,
    module: &dyn Fn(&str) -> Option<ModuleSource>,
    out: &mut Vec<Span>,
) {
    let mut loaded: HashMap<&str, Option<ModuleSource>> = HashMap::new();
    for a in m.assigns() {
        if a.entries.is_empty() {
            continue;
        }
        let src = loaded
            .entry(a.module.name.as_str())
            .or_insert_with(|| module(&a.module.name));
        let def = src.as_ref().map(ModuleSource::module);
        for e in &a.entries {
            match &e.kind {
                AssignEntryKind::Value { name, value } => {
                    // `short = "stg"` is the instance's own (when the module is known).
                    if name.name == "short" && def.is_some() {
                        continue;
                    }
                    if matches!(target(def, &name.name), Target::Secret) {
                        literals(value, &nothing, out);
                    }
                }
                AssignEntryKind::Given {
                    requirement,
                    field,
                    value,
                } => {
                    let secret = match target(def, &requirement.name) {
                        Target::Plain => false,
                        Target::Secret => true,
                        Target::Contract(c) => field_is_secret(registry, c.as_deref(), &field.name),
                    };
                    if secret {
                        literals(value, &nothing, out);
                    }
                }
                AssignEntryKind::Place {
                    requirement, at, ..
                } => {
                    if matches!(target(def, &requirement.name), Target::Secret) {
                        literals(at, &nothing, out);
                    }
                }
                AssignEntryKind::Pin { .. }
                | AssignEntryKind::Absent { .. }
                | AssignEntryKind::KeepNetwork { .. }
                | AssignEntryKind::Genesis { .. } => {}
            }
        }
    }
}

/// Every string on a line a syntax error points at: what such a line means, and so
/// whether it holds a secret, is unknown.
fn syntax_lines(text: &str, syntax: &[Diagnostic], out: &mut Vec<Span>) {
    if syntax.is_empty() {
        return;
    }
    let line_of = |offset: u32| -> (usize, usize) {
        let o = (offset as usize).min(text.len());
        let start = text[..o].rfind('\n').map_or(0, |i| i + 1);
        let end = text[o..].find('\n').map_or(text.len(), |i| o + i);
        (start, end)
    };
    let tokens: Vec<_> = lex(text)
        .tokens
        .into_iter()
        .filter(|t| !matches!(t.kind, TokenKind::LineComment | TokenKind::DocComment))
        .collect();
    let mut lines: Vec<(usize, usize)> = Vec::new();
    // A line the parser could not read: an unexpected token, an unclosed delimiter. (A
    // bad escape, number or unclosed string still parses into the tree, where what the
    // value is for decides.) The line of the token before the unexpected one is too: a
    // word there may have begun what the parser could not finish (`op = a b` ends a
    // line, and the `=` that `b` lacks is missed on the next).
    for d in syntax
        .iter()
        .filter(|d| matches!(d.code, Code::E0001 | Code::E0005))
    {
        let spans = std::iter::once(d.span)
            .chain(d.labels.iter().filter(|l| l.file == d.file).map(|l| l.span));
        for s in spans {
            let (a, _) = line_of(s.start);
            let (_, b) = line_of(s.end.max(s.start));
            lines.push((a, b));
            let before = tokens.partition_point(|t| t.span.start < s.start);
            if let Some(prev) = before
                .checked_sub(1)
                .and_then(|i| tokens.get(i))
                .filter(|t| t.kind == TokenKind::Ident)
            {
                let (a, b) = line_of(prev.span.start);
                lines.push((a, b));
            }
        }
    }
    lines.sort_unstable();
    // Disjoint and sorted, so both ends only grow.
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(lines.len());
    for (a, b) in lines {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    // Strings, and on such a line the words, numbers and stray characters after an `=`
    // (or a placement's `at`): a value written without quotes.
    let mut after_eq_until = 0usize;
    for t in tokens {
        let (s, e) = (t.span.start as usize, t.span.end as usize);
        let opens_value = t.kind == TokenKind::Eq
            || (t.kind == TokenKind::Ident && text.get(s..e) == Some("at") && s >= after_eq_until);
        if opens_value {
            after_eq_until = text[e..].find('\n').map_or(text.len(), |i| e + i);
            continue;
        }
        // The language's own words in a value are shown.
        let keyword = t.kind == TokenKind::Ident
            && matches!(
                &text[s..e],
                "for" | "in" | "consumers" | "exposed" | "true" | "false"
            );
        let word = matches!(t.kind, TokenKind::Ident | TokenKind::Int | TokenKind::Error)
            && s < after_eq_until
            && !keyword;
        if !word && !matches!(t.kind, TokenKind::Str(_) | TokenKind::TripleStr(_)) {
            continue;
        }
        let first = merged.partition_point(|&(_, b)| b < s);
        if merged.get(first).is_some_and(|&(a, _)| a <= e) {
            out.push(t.span);
        }
    }
}

/// The texts are read as one workspace: what a value in one file is for may be declared
/// in another. A declaration not among them is unknown, and so masked. (Here rather than
/// beside [`SourceMap`], which sits below the checks and may not call them.)
impl crate::diagnostics::render::SourceMap
    for std::collections::HashMap<FilePath, std::sync::Arc<str>>
{
    fn text(&self, path: &FilePath) -> Option<&str> {
        self.get(path).map(|t| &**t)
    }

    fn secrets(
        &self,
        shown: &[FilePath],
    ) -> std::collections::HashMap<FilePath, Vec<crate::span::Span>> {
        let mut spans = secret_spans_of_texts(self.iter().map(|(p, t)| (p, &**t)));
        spans.retain(|p, _| shown.contains(p));
        spans
    }
}
