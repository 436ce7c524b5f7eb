//! `for NAME in ITERABLE TEMPLATE` (LANGUAGE.md §12.3): the loop variable's scope, what
//! it reads, and E0322.
//!
//! A loop over `consumers CONTRACT` stands only in a module that provides CONTRACT; its
//! variable reads the consumer (`c.login`, `c.instance`, `c.module`, `c.node`), the given
//! fields it set (`c.given.FIELD`) and this module's answer to it (`c.FIELD`). A loop over
//! a list reads one element as its variable. The variable is known only inside the
//! template; a loop variable named like a requirement, or like an enclosing loop's
//! variable, is refused (E0102): one name would read two things.

use super::expressions::{Place, Val};
use super::meaning::LoopRefusal;
use super::module::ModuleChecker;
use super::registry::{ContractInfo, FieldInfo};
use super::scope::RefContext;
use super::types::Ty;
use crate::diagnostics::rules::{
    ConsumerRead, Duplicate, NotProvided, SecretLoop, SepInterpolates, SyntaxError, TypeMismatch,
    UnknownContract, UnknownField,
};
use crate::diagnostics::{Diagnostic, Reported, Rule};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ForExpr, Iterable};

/// A loop variable met while checking the module. Kept after its loop (targets name it
/// by index, and messages about a value are written once the value is evaluated).
#[derive(Debug, Clone)]
pub(crate) struct LoopVar<'a> {
    pub name: ast::Name,
    pub span: Span,
    pub kind: LoopKind<'a>,
}

/// What a loop variable stands for.
#[derive(Debug, Clone)]
pub(crate) enum LoopKind<'a> {
    /// One consumer of this module's `contract`.
    Consumer(&'a ContractInfo),
    /// One element of a list.
    Item { ty: Ty, secret: bool },
}

/// What a reference through a loop variable reads.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LoopRead<'a> {
    /// `c.login`, `c.instance`, `c.module`: text.
    Meta(&'static str),
    /// `c.node`: the private name of the consumer's node.
    Node,
    /// `c.given.FIELD`: what the consumer set.
    Given(&'a FieldInfo),
    /// `c.FIELD`: this module's answer to the consumer.
    Answer(&'a FieldInfo),
    /// `x`: the element of a list.
    Item,
}

impl<'a> ModuleChecker<'a, '_> {
    /// A `for` expression going to `place`: a string, secret when its template reads a
    /// secret.
    pub(crate) fn eval_for(
        &mut self,
        f: &ForExpr,
        place: Place<'_>,
        ctx: RefContext<'a>,
    ) -> Val<'a> {
        // `sep` is a plain literal (LANGUAGE.md §14.7): placed as written between renderings.
        if let Some(sep) = &f.sep
            && sep.as_plain().is_none()
        {
            let rule = SepInterpolates { var: &f.var.name };
            self.cx.report(rule.at(self.cx.path, sep.span));
            // What it reads is still read: a name it gets wrong is told too.
            for interp in sep.interpolations() {
                self.eval_names(interp.expr, ctx);
            }
        }
        let Ok(Some(kind)) = self.loop_kind(f, place, ctx) else {
            if let Some(t) = &f.template {
                self.with_unknown_loop(f, |m| m.eval_names(&Expr::Str(t.clone()), ctx));
            }
            return Val::error();
        };
        let Some(template) = &f.template else {
            return Val::error();
        };
        if self.enter_loop(f, kind).is_err() {
            // Refused (E0102): the template is not read, but what its words name is
            // kept in the model, the variable reading nothing.
            self.with_unknown_loop(f, |m| m.note_names(&Expr::Str(template.clone()), ctx));
            return Val::error();
        }
        let mut val = self.eval_string(template, place, ctx);
        self.active_loops.pop();
        val.interpolated = true;
        val.target = None;
        val
    }

    /// Evaluates `f` for its names only.
    pub(crate) fn eval_for_names(&mut self, f: &ForExpr, ctx: RefContext<'a>) {
        let kind = self.loop_kind(f, Place::FileBody, ctx).ok().flatten();
        let Some(template) = &f.template else { return };
        match kind.and_then(|k| self.enter_loop(f, k).ok()) {
            Some(_) => {
                for interp in template.interpolations() {
                    self.eval_names(interp.expr, ctx);
                }
                self.active_loops.pop();
            }
            None => self.with_unknown_loop(f, |m| {
                for interp in template.interpolations() {
                    m.eval_names(interp.expr, ctx);
                }
            }),
        }
    }

    /// Runs `body` with `f`'s variable known but reading nothing: its iterable was
    /// refused, so what the template reads through it is not told again.
    pub(crate) fn with_unknown_loop(&mut self, f: &ForExpr, body: impl FnOnce(&mut Self)) {
        self.loops.push(LoopVar {
            name: f.var.name.clone(),
            span: f.var.span,
            kind: LoopKind::Item {
                ty: Ty::Error,
                secret: false,
            },
        });
        self.active_loops.push(self.loops.len() - 1);
        body(self);
        self.active_loops.pop();
    }

    /// Makes `f`'s variable known; refuses a name that would read two things (E0102).
    fn enter_loop(&mut self, f: &ForExpr, kind: LoopKind<'a>) -> Result<usize, Reported> {
        let name = f.var.name.as_str();
        let clash = if let Some(r) = self.scope.requirements.get(name) {
            Some((r.ast.name.span, "a requirement"))
        } else {
            self.active_loops
                .iter()
                .map(|&v| &self.loops[v])
                .find(|l| l.name == name)
                .map(|l| (l.span, "the variable of an enclosing `for`"))
        };
        if let Some((first, what)) = clash {
            let rule = Duplicate::LoopVariable { name, what, first };
            return Err(self.cx.refuse(rule.at(self.cx.path, f.var.span)));
        }
        self.loops.push(LoopVar {
            name: f.var.name.clone(),
            span: f.var.span,
            kind,
        });
        let v = self.loops.len() - 1;
        self.active_loops.push(v);
        Ok(v)
    }

    /// What `f` runs over: a consumer of a contract this module provides (E0322 for
    /// any other), or an element of a plain list. Refused with its diagnostic (or the
    /// parser's, for a loop half written); `Ok(None)` when the list's reference reads
    /// nothing, which its own check told (or, for a type unknown, the declaration's).
    fn loop_kind(
        &mut self,
        f: &ForExpr,
        place: Place<'_>,
        ctx: RefContext<'a>,
    ) -> Result<Option<LoopKind<'a>>, Reported> {
        let half_written = |m: &mut Self| {
            let path = m.cx.path;
            m.cx.syntax_refusal(|| {
                let rule = SyntaxError::ForOver {
                    var: &f.var.name,
                    found: "nothing".into(),
                };
                rule.at(path, f.span)
            })
        };
        let Some(iterable) = f.iterable.as_ref() else {
            return Err(half_written(self));
        };
        match iterable {
            Iterable::Consumers { contract, .. } => {
                let Some(contract) = contract.as_ref() else {
                    return Err(half_written(self));
                };
                self.consumers_of(contract)
                    .map(|c| Some(LoopKind::Consumer(c)))
            }
            Iterable::List(r) => {
                let val = self.eval(&Expr::Ref(r.clone()), place, ctx);
                if val.is_error() {
                    return Ok(None);
                }
                if let Some(taint) = val.secret {
                    let name = self.target_name(taint.target);
                    return Err(self
                        .cx
                        .refuse(SecretLoop { name: &name }.at(self.cx.path, r.span())));
                }
                match val.ty {
                    Ty::List(inner) => Ok(Some(LoopKind::Item {
                        ty: *inner,
                        secret: false,
                    })),
                    other => {
                        let name = r.dotted();
                        let rule = TypeMismatch::ForOverNonList {
                            name: &name,
                            a_type: super::expressions::a_type(&other),
                        };
                        Err(self.cx.refuse(rule.at(self.cx.path, r.span())))
                    }
                }
            }
        }
    }

    /// The contract `consumers CONTRACT` names, when this module provides it; else
    /// E0322 (or E0103 for a contract that does not exist, here or at the `provides`
    /// block that names it).
    fn consumers_of(&mut self, contract: &ast::Ident) -> Result<&'a ContractInfo, Reported> {
        let name = contract.name.as_str();
        let module: &'a ast::Module = self.module;
        let provided: Vec<&'a str> = module
            .provides()
            .map(|p| p.contract.name.as_str())
            .collect();
        let registry = self.cx.registry;
        if let Some(p) = module.provides().find(|p| p.contract.name == name) {
            return match registry.contracts.get(name) {
                Some(c) => Ok(&**c),
                // Told at the `provides` block that names it.
                None => Err(self.unknown_provided(p)),
            };
        }
        let suggestion = crate::diagnostics::closest(name, provided.iter().copied());
        if !registry.contracts.contains_key(name) {
            let help = match suggestion {
                Some(s) => format!("did you mean `{s}`?"),
                None => "name a contract this module provides".into(),
            };
            let rule = UnknownContract { name, help };
            return Err(self.cx.refuse(rule.at(self.cx.path, contract.span)));
        }
        let rule = NotProvided {
            module: &self.module.name.name,
            contract: name,
            provided: (!provided.is_empty()).then(|| super::list_names(provided.iter().copied())),
            suggestion,
        };
        Err(self.cx.refuse(rule.at(self.cx.path, contract.span)))
    }

    /// The loop variable a reference's first word names, innermost first.
    pub(crate) fn active_loop(&self, name: &str) -> Option<usize> {
        self.active_loops
            .iter()
            .rev()
            .copied()
            .find(|&v| self.loops[v].name == name)
    }

    /// E0105: consumer loop variable `v` read as something it does not have, as
    /// [`super::meaning::meaning`] refused it.
    pub(crate) fn consumer_read_refused(
        &self,
        v: usize,
        contract: &str,
        span: Span,
        why: LoopRefusal,
    ) -> Diagnostic {
        let var = self.loops[v].name.as_str();
        let (read, suggestion) = match &why {
            LoopRefusal::NoField => (ConsumerRead::Bare, None),
            LoopRefusal::NotGiven { field, suggestion } => (
                ConsumerRead::Given { field },
                suggestion.as_ref().map(|s| format!("{var}.given.{s}")),
            ),
            LoopRefusal::IsGiven { field } => (
                ConsumerRead::GivenAsOwn { field },
                Some(format!("{var}.given.{field}")),
            ),
            LoopRefusal::NoSuch { field, suggestion } => (
                ConsumerRead::Field { field },
                suggestion.as_ref().map(|s| format!("{var}.{s}")),
            ),
            LoopRefusal::TooDeep { dotted } => (
                ConsumerRead::TooDeep {
                    dotted: dotted.clone(),
                },
                None,
            ),
        };
        let rule = UnknownField::ConsumerLoop {
            var,
            contract,
            read,
            suggestion,
        };
        rule.at(self.cx.path, span)
    }

    /// The type of what loop variable `v` reads.
    pub(crate) fn loop_ty(&self, v: usize, read: LoopRead<'a>) -> Ty {
        match (read, &self.loops[v].kind) {
            (LoopRead::Meta(_), _) => Ty::String,
            (LoopRead::Node, _) => Ty::Hostname,
            (LoopRead::Given(f) | LoopRead::Answer(f), _) => f.ty.clone(),
            (LoopRead::Item, LoopKind::Item { ty, .. }) => ty.clone(),
            (LoopRead::Item, _) => Ty::Error,
        }
    }

    /// Whether what loop variable `v` reads is secret.
    pub(crate) fn loop_is_secret(&self, v: usize, read: LoopRead<'a>) -> bool {
        match (read, &self.loops[v].kind) {
            (LoopRead::Answer(f), _) => f.secret,
            (LoopRead::Item, LoopKind::Item { secret, .. }) => *secret,
            _ => false,
        }
    }

    /// The reference in its one form, for messages: `c.given.public_name`.
    pub(crate) fn loop_name(&self, v: usize, read: LoopRead<'a>) -> String {
        let var = &self.loops[v].name;
        match read {
            LoopRead::Meta(w) => format!("{var}.{w}"),
            LoopRead::Node => format!("{var}.node"),
            LoopRead::Given(f) => format!("{var}.given.{}", f.name),
            LoopRead::Answer(f) => format!("{var}.{}", f.name),
            LoopRead::Item => var.to_string(),
        }
    }

    /// Where the secret loop variable `v` reads was declared.
    pub(crate) fn loop_secret_declared_at(
        &self,
        v: usize,
        read: LoopRead<'a>,
    ) -> (crate::span::FilePath, Span) {
        match (read, &self.loops[v].kind) {
            (LoopRead::Answer(f) | LoopRead::Given(f), LoopKind::Consumer(c)) => {
                (c.file.clone(), f.span)
            }
            _ => (self.cx.path.clone(), self.loops[v].span),
        }
    }
}

/// Where, in `module`, a loop names its variable `name`: for the help of a reference
/// that reads a loop variable outside its loop.
pub(crate) fn loop_declaring(module: &ast::Module, name: &str) -> Option<Span> {
    let mut found = None;
    let mut visit = |e: &Expr| {
        walk_fors(e, &mut |f| {
            if found.is_none() && f.var.name == name {
                found = Some(f.var.span);
            }
        })
    };
    for entry in &module.entries {
        match entry {
            ast::ModuleEntry::Container(c) => {
                for e in &c.entries {
                    match &e.kind {
                        ast::ContainerEntryKind::Env(env) => {
                            env.iter().for_each(|x| visit(&x.value))
                        }
                        ast::ContainerEntryKind::Secret(file)
                        | ast::ContainerEntryKind::File(file) => visit(&file.value),
                        ast::ContainerEntryKind::Command(value)
                        | ast::ContainerEntryKind::ImagePaths(value) => visit(value),
                        ast::ContainerEntryKind::User(u) => visit(&u.uid),
                        ast::ContainerEntryKind::Health(h) => {
                            visit(&h.argv);
                            h.options.iter().for_each(|o| visit(&o.value))
                        }
                        _ => {}
                    }
                }
            }
            ast::ModuleEntry::Provides(p) => p.answers.iter().for_each(|a| visit(&a.value)),
            _ => {}
        }
    }
    found
}

/// Calls `f` on every `for` in `e`, a loop before those inside it: a whole value, an element of a
/// list, an argument of a call, and a loop inside an interpolation (`"${for n in …}"`),
/// also inside another loop's template. Iterative: an expression nests to any depth.
pub fn walk_fors<'e>(e: &'e Expr, f: &mut impl FnMut(&'e ForExpr)) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::For(x) => {
                f(x);
                if let Some(t) = &x.template {
                    stack.extend(t.interpolations().map(|i| i.expr));
                }
            }
            Expr::List(items, _) => stack.extend(items.iter().rev()),
            Expr::Call(c) => stack.extend(c.args.iter().rev()),
            Expr::Str(s) => stack.extend(s.interpolations().map(|i| i.expr)),
            _ => {}
        }
    }
}
