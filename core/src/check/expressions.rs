//! Expressions inside a module: what references read, what type a value has, whether it
//! carries a secret (taint: an interpolated string with any secret part is secret), and
//! where a host path tries to become a value (only a mount source may read one).
//!
//! A value is evaluated once, where it is written; the place that receives it then
//! decides what it accepts (`Place`), so every rule about secrets and host paths lives
//! in one spot.

use super::Cx;
use super::loops::{LoopKind, LoopRead};
use super::meaning::{
    ConsumerField, Contract, Form, LoopForm, LoopRead as MeaningLoopRead, Names, Read, meaning,
};
use super::module::{Edge, ModuleChecker};
use super::old_forms::LegacyRead;
use super::readings::{LoopReading, Reading};
use super::registry::{ContractInfo, FieldInfo};
use super::scope::{RefContext, RefError};
use super::types::{Bounds, Constraint, Ty, Value, validate_literal};
use crate::diagnostics::rules::{
    BadCall, Breach, HostPathRead, InvalidLiteral, OptionalRead, OutsideProvides, SecretToPlain,
    TypeMismatch, UnknownField, UnknownRequirement,
};
use crate::diagnostics::{Reported, Rule};
use crate::span::{FilePath, Span};
use crate::syntax::ast::{self, Expr, Radix, Reference, StringLit};
use std::borrow::Cow;

/// What a reference reads, borrowed from the registry and the module.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// A field of a contract requirement: `db.host`.
    Field {
        req: usize,
        contract: &'a ContractInfo,
        field: &'a FieldInfo,
    },
    /// An operator requirement's own value: `workers`.
    Operator { req: usize },
    /// `consumer.login`, `consumer.instance`, `consumer.module` inside `provides`.
    Consumer,
    /// `given.FIELD` inside `provides`.
    Given {
        contract: &'a ContractInfo,
        field: &'a FieldInfo,
    },
    /// Read through the variable of a `for` loop (LANGUAGE.md §12.3).
    Loop {
        var: usize,
        read: super::loops::LoopRead<'a>,
    },
}

/// What is in scope for the checker where a reference is read: its active loops, the
/// module's requirements with their contracts, the `provides` block's contract.
struct CheckerNames<'x, 'a, 'c> {
    m: &'x ModuleChecker<'a, 'c>,
    ctx: RefContext<'a>,
}

impl<'a> Names<'a> for CheckerNames<'_, 'a, '_> {
    fn loop_var(&self, word: &str) -> Option<(usize, LoopForm<'a>)> {
        let v = self.m.active_loop(word)?;
        let form = match &self.m.loops[v].kind {
            LoopKind::Consumer(c) => LoopForm::Consumers(Contract::Known(c)),
            LoopKind::Item { ty: Ty::Error, .. } => LoopForm::Refused,
            LoopKind::Item { .. } => LoopForm::Item,
        };
        Some((v, form))
    }

    fn requirement(&self, word: &str) -> Option<(usize, Form<'a>)> {
        let (idx, _, r) = self.m.scope.requirements.get_full(word)?;
        Some((
            idx,
            match (&r.operator, self.m.contracts[idx]) {
                (Some(_), _) => Form::Operator,
                (None, Some(c)) => Form::Contract(Contract::Known(c)),
                (None, None) => Form::Contract(Contract::Unresolved),
            },
        ))
    }

    fn provides(&self) -> Option<Contract<'a>> {
        match self.ctx {
            RefContext::Definition => None,
            RefContext::Provides(c) => Some(Contract::Known(c)),
            RefContext::ProvidesUnknown => Some(Contract::Unresolved),
        }
    }

    fn closest_requirement(&self, word: &str) -> Option<String> {
        crate::diagnostics::closest(word, self.m.scope.requirements.keys().copied())
            .map(str::to_string)
    }
}

/// A secret part of a value: where it is read and what declared it secret.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Taint<'a> {
    pub at: Span,
    pub target: Target<'a>,
}

/// What the checker knows of a value without resolving anything.
#[derive(Debug, Clone)]
pub(crate) struct Val<'a> {
    /// The value's type; [`Ty::Error`] when unknown or already reported, which every
    /// later check accepts silently.
    pub ty: Ty,
    /// The first secret part, if any.
    pub secret: Option<Taint<'a>>,
    /// A string with at least one interpolation.
    pub interpolated: bool,
    /// What the expression reads, when it is one reference.
    pub target: Option<Target<'a>>,
    /// The function whose result carries the secret part, when a call does.
    pub call: Option<&'static str>,
}

impl Val<'_> {
    fn of(ty: Ty) -> Self {
        Val {
            ty,
            secret: None,
            interpolated: false,
            target: None,
            call: None,
        }
    }

    /// A value that is unknown or already reported.
    pub fn error() -> Self {
        Val::of(Ty::Error)
    }

    pub fn is_error(&self) -> bool {
        self.ty == Ty::Error
    }
}

/// Where a value goes, for messages and for what it may carry.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Place<'p> {
    Env(&'p str),
    FileBody,
    SecretFile,
    Command,
    /// The ARGV of `health` (LANGUAGE.md §14.1).
    Health,
    User,
    ImagePaths,
    Image,
    ContainerPath,
    MountSource,
    /// An answer of `provides`, for this field.
    Answer(&'p str),
    /// A given field set in a requirement's narrowing: `req.field`.
    Set(&'p str, &'p str),
}

impl Place<'_> {
    /// The place in words: "env `KEY`", "the command".
    pub fn describe(&self) -> String {
        match self {
            Place::Env(k) => format!("env `{k}`"),
            Place::FileBody => "a file body".into(),
            Place::SecretFile => "a secret file".into(),
            Place::Command => "the command".into(),
            Place::Health => "the health test".into(),
            Place::User => "`user`".into(),
            Place::ImagePaths => "`image_paths`".into(),
            Place::Image => "the image reference".into(),
            Place::ContainerPath => "a container path".into(),
            Place::MountSource => "a mount source".into(),
            Place::Answer(f) => format!("the answer `{f}`"),
            Place::Set(r, f) => format!("`{r}.{f}`"),
        }
    }
}

/// "a port", "an int", "a list<string>".
pub(crate) fn a_type(ty: &Ty) -> String {
    let name = ty.to_string();
    let article = match ty {
        Ty::Int | Ty::Image | Ty::Email => "an",
        _ => "a",
    };
    format!("{article} {name}")
}

impl<'a> ModuleChecker<'a, '_> {
    /// What `reference` reads ([`meaning`]); reports why when it reads nothing. Marks
    /// the requirement it names as used, and records an edge when checking a narrowing.
    pub(crate) fn resolve(
        &mut self,
        reference: &Reference,
        ctx: RefContext<'a>,
    ) -> Option<Target<'a>> {
        let m = meaning(reference, &CheckerNames { m: self, ctx });
        if self.references.is_none() {
            if !self.readings.keeps() {
                return self.target_of(reference, ctx, m);
            }
            let reading = Self::reading_of(&m);
            // A refusal's proof is written first, by `target_of`, and kept.
            let target = self.target_of(reference, ctx, m);
            self.readings.write(reference, reading);
            return target;
        }
        let reading = Self::reading_of(&m);
        let reads = super::semantics::Reads::of(&m.read, |var| self.loops[var].span);
        let refused = m.refusal.is_some();
        let target = self.target_of(reference, ctx, m);
        self.readings.write(reference, reading);
        let ty = target.map_or(Ty::Error, |t| self.target_ty(t));
        if let Some(references) = &mut self.references {
            references.push(super::semantics::Resolved {
                span: reference.span(),
                id: reference.id,
                reads,
                ty,
                refused,
            });
        }
        target
    }

    /// What `m`, the meaning of a reference, reads, as the table of readings keeps it
    /// (`check::readings`): its fields by their place in their contracts. A meaning
    /// that refuses reads nothing ([`Reading::Unresolved`] until the refusal's proof
    /// replaces it).
    fn reading_of(m: &super::meaning::Meaning<'_, 'a>) -> Reading {
        if m.refusal.is_some() {
            return Reading::Unresolved;
        }
        let read = match m.read {
            Read::OperatorValue { req } => Some(Reading::OperatorValue { req: req as u32 }),
            Read::ContractField {
                req, info: Some(f), ..
            } => Some(Reading::ContractField {
                req: req as u32,
                field: f.index,
            }),
            Read::Consumer {
                field: Some(field), ..
            } => Some(Reading::Consumer(field)),
            Read::Given { info: Some(f), .. } => Some(Reading::Given { field: f.index }),
            Read::Loop { read, .. } => match read {
                MeaningLoopRead::Whole => Some(LoopReading::Item),
                MeaningLoopRead::Meta { field, .. } => Some(LoopReading::Meta(field)),
                MeaningLoopRead::Given { info: Some(f), .. } => {
                    Some(LoopReading::Given { field: f.index })
                }
                MeaningLoopRead::Answer { info: Some(f), .. } => {
                    Some(LoopReading::Answer { field: f.index })
                }
                _ => None,
            }
            .map(Reading::Loop),
            _ => None,
        };
        read.unwrap_or(Reading::Unresolved)
    }

    /// Keeps in the model what the references of `expr` name, where a check refused
    /// `expr` without reading it: nothing is reported and nothing counts as used.
    pub(crate) fn note_names(&mut self, expr: &Expr, ctx: RefContext<'a>) {
        if self.references.is_none() && !self.readings.keeps() {
            // No reader keeps either table: there is nothing to note.
            return;
        }
        let note = |m: &mut Self, reference: &Reference| {
            let meaning = meaning(reference, &CheckerNames { m, ctx });
            // Resolution still evaluates what the names read, as it always has: the
            // module's error leaves its instances out.
            m.readings.write(reference, Self::reading_of(&meaning));
            if m.references.is_none() {
                return;
            }
            let reads = super::semantics::Reads::of(&meaning.read, |var| m.loops[var].span);
            if let Some(references) = &mut m.references {
                references.push(super::semantics::Resolved {
                    span: reference.span(),
                    id: reference.id,
                    reads,
                    ty: Ty::Error,
                    refused: true,
                });
            }
        };
        match expr {
            Expr::Ref(r) => note(self, r),
            Expr::Str(s) => {
                for interp in s.interpolations() {
                    match (interp.legacy, interp.reference()) {
                        (None, _) => self.note_names(interp.expr, ctx),
                        (Some(kind), Some(written)) => {
                            // Read as the checker reads it, its W0402 not told again.
                            let stands_for = self.scope.legacy_reference(&kind.name, written);
                            if let Some(r) = stands_for {
                                note(self, &r);
                            }
                        }
                        (Some(_), None) => {}
                    }
                }
            }
            Expr::List(items, _) => {
                for item in items {
                    self.note_names(item, ctx);
                }
            }
            Expr::Call(c) => {
                for arg in &c.args {
                    self.note_names(arg, ctx);
                }
            }
            Expr::For(f) => {
                if let Some(ast::Iterable::List(r)) = &f.iterable {
                    note(self, r);
                }
                if let Some(t) = &f.template {
                    let t = Expr::Str(t.clone());
                    self.with_unknown_loop(f, |m| m.note_names(&t, ctx));
                }
            }
            Expr::Int(_) | Expr::Bool(..) | Expr::Range(_) | Expr::Error(_) => {}
        }
    }

    /// What `m`, the meaning of `reference`, reads for the checker; reports why when it
    /// reads nothing, and keeps the proof in the table of readings.
    fn target_of(
        &mut self,
        reference: &Reference,
        ctx: RefContext<'a>,
        m: super::meaning::Meaning<'_, 'a>,
    ) -> Option<Target<'a>> {
        if let Read::Requirement { req }
        | Read::OperatorValue { req }
        | Read::ContractField { req, .. } = m.read
        {
            self.requirement_read(req, reference.span());
        }
        if let Some(e) = m.refusal {
            // A typo names the requirement it meant: that one is used, not unused.
            if let RefError::UnknownRequirement {
                suggestion: Some(s),
                ..
            } = &e
                && let Some(idx) = self.scope.requirements.get_index_of(s.as_str())
            {
                self.used[idx] = true;
            }
            // The table keeps the proof in place of the reading (the first written).
            if let Some(told) = self.report_ref_error(e) {
                self.readings.write(reference, Reading::Refused(told));
            }
            return None;
        }
        match m.read {
            Read::OperatorValue { req } => Some(Target::Operator { req }),
            Read::ContractField {
                req,
                info: Some(field),
                ..
            } => self.contracts[req].map(|contract| Target::Field {
                req,
                contract,
                field,
            }),
            Read::Consumer { .. } => Some(Target::Consumer),
            Read::Given {
                info: Some(field), ..
            } => match ctx {
                RefContext::Provides(contract) => Some(Target::Given { contract, field }),
                RefContext::Definition | RefContext::ProvidesUnknown => None,
            },
            Read::Loop { var, read } => {
                let read = match read {
                    MeaningLoopRead::Whole => LoopRead::Item,
                    MeaningLoopRead::Meta {
                        field: ConsumerField::Node,
                        ..
                    } => LoopRead::Node,
                    MeaningLoopRead::Meta { field, .. } => LoopRead::Meta(field.word()),
                    MeaningLoopRead::Given { info: Some(f), .. } => LoopRead::Given(f),
                    MeaningLoopRead::Answer { info: Some(f), .. } => LoopRead::Answer(f),
                    _ => return None,
                };
                Some(Target::Loop { var, read })
            }
            _ => None,
        }
    }

    /// Requirement `idx` is read at `at`: E0320 when it is optional and read outside its
    /// `when`; it is used; an edge when a narrowing reads it.
    fn requirement_read(&mut self, idx: usize, at: Span) {
        let Some((_, info)) = self.scope.requirements.get_index(idx) else {
            return;
        };
        let ast: &'a ast::Requirement = info.ast;
        if info.is_optional() && self.when != Some(ast.name.name.as_str()) {
            self.optional_read(ast, at);
        }
        self.used[idx] = true;
        if let Some(from) = self.edge_from {
            self.edges.push(Edge { from, to: idx, at });
        }
    }

    /// E0320: an optional requirement read outside its `when` block.
    fn optional_read(&mut self, req: &ast::Requirement, at: Span) {
        if self.told_optional.contains(&at) {
            return;
        }
        self.told_optional.push(at);
        let name = &req.name.name;
        let rule = OptionalRead {
            requirement: name,
            declared: req.name.span.to(req.optional.unwrap_or(req.name.span)),
            under: self.when,
        };
        self.cx.report(rule.at(self.cx.path, at));
    }

    /// Reports why a reference reads nothing, and returns the proof; `None` when the
    /// cause is reported where it lies (a contract the workspace lacks, a loop's refused
    /// iterable).
    fn report_ref_error(&mut self, e: RefError) -> Option<Reported> {
        let d = match e {
            RefError::UnknownRequirement {
                name,
                span,
                suggestion,
            } => {
                let looped = super::loops::loop_declaring(self.module, &name);
                let help = match (looped, suggestion) {
                    (Some(_), _) => format!(
                        "`{name}` is the variable of a `for` loop: it is read only inside that loop's template"
                    ),
                    (None, Some(s)) => format!("did you mean `{s}`?"),
                    (None, None) => self.unknown_requirement_help(&name),
                };
                // A word naming nothing (`secret "/p" = hunter2`) may be a value written
                // without its quotes, a secret even: it is never quoted (the excerpt
                // points at it, masked where a secret is written). A loop's variable is.
                let module = &self.module.name.name;
                match looped {
                    Some(at) => UnknownRequirement::Named {
                        module,
                        name: &name,
                        help,
                        loop_var: Some(at),
                    }
                    .at(self.cx.path, span),
                    None => UnknownRequirement::Unquoted { module, help }.at(self.cx.path, span),
                }
            }
            RefError::UnknownField {
                requirement,
                contract,
                field,
                span,
                suggestion,
            } => {
                let otherwise = match requirement.as_str() {
                    _ if suggestion.is_some() => String::new(),
                    "consumer" => "`consumer` has the fields login, instance and module".into(),
                    "given" => self.given_fields_help(&contract),
                    _ => self.fields_help(&contract),
                };
                let rule = UnknownField::Reference {
                    requirement: &requirement,
                    contract: &contract,
                    field: &field,
                    suggestion: suggestion.as_deref(),
                    otherwise,
                };
                rule.at(self.cx.path, span)
            }
            RefError::MissingField {
                requirement,
                contract,
                span,
            } => {
                let rule = UnknownField::MissingField {
                    requirement: &requirement,
                    contract: &contract,
                    fields: self.fields_help(&contract),
                };
                rule.at(self.cx.path, span)
            }
            RefError::TooDeep { span, what } => {
                UnknownField::TooDeep { what }.at(self.cx.path, span)
            }
            RefError::OutsideProvides { span, word } => {
                OutsideProvides { word: &word }.at(self.cx.path, span)
            }
            RefError::ElementField { var, span } => {
                let LoopKind::Item { ty, .. } = &self.loops[var].kind else {
                    return None;
                };
                let var = &self.loops[var].name;
                UnknownField::OfListElement { var, ty }.at(self.cx.path, span)
            }
            RefError::ConsumerLoop {
                var,
                contract,
                span,
                why,
            } => self.consumer_read_refused(var, &contract, span, why),
            RefError::Unresolved => return None,
        };
        Some(self.cx.refuse(d))
    }

    /// The help of E0104: the closest requirement, else the module's requirements.
    pub(crate) fn unknown_requirement_help(&self, name: &str) -> String {
        if let Some(s) = crate::diagnostics::closest(name, self.scope.requirements.keys().copied())
        {
            return format!("did you mean `{s}`?");
        }
        if self.scope.requirements.is_empty() {
            // The name is not repeated: it may be a value written without quotes.
            format!(
                "module `{}` has no requirements; declare one with `requires NAME: …`, or write a value in quotes",
                self.module.name.name
            )
        } else {
            format!(
                "the requirements of module `{}` are {}",
                self.module.name.name,
                super::list_names(self.scope.requirements.keys().copied())
            )
        }
    }

    fn fields_help(&self, contract: &str) -> String {
        match self.cx.registry.contracts.get(contract) {
            Some(c) if !c.fields.is_empty() => format!(
                "the fields of `{contract}` are {}",
                super::list_names(c.fields.keys().map(String::as_str))
            ),
            _ => format!("`{contract}` has no fields"),
        }
    }

    fn given_fields_help(&self, contract: &str) -> String {
        let given: Vec<&str> = self
            .cx
            .registry
            .contracts
            .get(contract)
            .map(|c| {
                c.fields
                    .values()
                    .filter(|f| f.given)
                    .map(|f| f.name.as_str())
                    .collect()
            })
            .unwrap_or_default();
        if given.is_empty() {
            format!("`{contract}` has no given fields")
        } else {
            format!(
                "the given fields of `{contract}` are {}",
                super::list_names(given)
            )
        }
    }

    /// The type of what `target` reads.
    pub(crate) fn target_ty(&self, target: Target<'a>) -> Ty {
        match target {
            Target::Field { field, .. } | Target::Given { field, .. } => field.ty.clone(),
            Target::Operator { req } => self.scope.requirements[req]
                .operator
                .as_ref()
                .map_or(Ty::Error, |o| o.ty.clone()),
            Target::Consumer => Ty::String,
            Target::Loop { var, read } => self.loop_ty(var, read),
        }
    }

    fn target_is_secret(&self, target: Target<'a>) -> bool {
        match target {
            Target::Field { field, .. } | Target::Given { field, .. } => field.secret,
            Target::Operator { req } => self.scope.requirements[req]
                .operator
                .as_ref()
                .is_some_and(|o| o.secret),
            Target::Consumer => false,
            Target::Loop { var, read } => self.loop_is_secret(var, read),
        }
    }

    fn target_is_host_path(&self, target: Target<'a>) -> bool {
        match target {
            Target::Field { field, .. } | Target::Given { field, .. } => {
                contains_host_path(&field.ty)
            }
            Target::Operator { .. } | Target::Consumer => false,
            Target::Loop { var, read } => contains_host_path(&self.loop_ty(var, read)),
        }
    }

    /// The reference in its one form, for messages: `db.password`, `workers`.
    pub(crate) fn target_name(&self, target: Target<'a>) -> String {
        match target {
            Target::Field { req, field, .. } => {
                format!("{}.{}", self.scope.requirements[req].name(), field.name)
            }
            Target::Operator { req } => self.scope.requirements[req].name().to_string(),
            Target::Consumer => "consumer".into(),
            Target::Given { field, .. } => format!("given.{}", field.name),
            Target::Loop { var, read } => self.loop_name(var, read),
        }
    }

    /// Where the secret that `target` reads was declared.
    fn secret_declared_at(&self, target: Target<'a>) -> (FilePath, Span) {
        match target {
            Target::Field {
                contract, field, ..
            }
            | Target::Given { contract, field } => (contract.file.clone(), field.span),
            Target::Operator { req } => {
                (self.cx.path.clone(), self.scope.requirements[req].ast.span)
            }
            Target::Consumer => (self.cx.path.clone(), self.module.name.span),
            Target::Loop { var, read } => self.loop_secret_declared_at(var, read),
        }
    }

    /// The range every value `target` reads lies in, as far as the definition tells.
    fn target_range(&self, target: Target<'a>) -> Option<Bounds> {
        match target {
            Target::Field { req, field, .. } => {
                self.scope.requirements[req].field_constraint(field).range
            }
            Target::Given { field, .. } => field.constraint.range,
            Target::Operator { req } => self.scope.requirements[req]
                .operator
                .as_ref()
                .and_then(|o| o.constraint.range),
            Target::Consumer => None,
            Target::Loop {
                read: super::loops::LoopRead::Given(f) | super::loops::LoopRead::Answer(f),
                ..
            } => f.constraint.range,
            Target::Loop { .. } => None,
        }
    }

    /// Evaluates `expr` going to `place`: resolves its references (E0104, E0105, E0318),
    /// refuses every host path in it (E0303) and computes its type and taint. What the
    /// place accepts is the caller's to check.
    pub(crate) fn eval(&mut self, expr: &Expr, place: Place<'_>, ctx: RefContext<'a>) -> Val<'a> {
        match expr {
            Expr::Str(s) => self.eval_string(s, place, ctx),
            Expr::Int(_) => Val::of(Ty::Int),
            Expr::Bool(..) => Val::of(Ty::Bool),
            Expr::Ref(r) => {
                let Some(target) = self.resolve(r, ctx) else {
                    return Val::error();
                };
                if self.target_is_host_path(target) {
                    self.host_path_refused(r.span(), target, place, false);
                    return Val::error();
                }
                Val {
                    ty: self.target_ty(target),
                    secret: self.target_is_secret(target).then_some(Taint {
                        at: r.span(),
                        target,
                    }),
                    interpolated: false,
                    target: Some(target),
                    call: None,
                }
            }
            Expr::List(items, _) => {
                let mut elem_ty: Option<Ty> = None;
                let mut secret = None;
                let mut broken = false;
                for item in items {
                    let v = self.eval(item, place, ctx);
                    if v.is_error() {
                        broken = true;
                        continue;
                    }
                    if secret.is_none() {
                        secret = v.secret;
                    }
                    match &elem_ty {
                        None => elem_ty = Some(v.ty),
                        Some(t) if v.ty.fits(t) || t.fits(&v.ty) => {}
                        Some(t) => {
                            let rule = TypeMismatch::MixedList {
                                this: a_type(&v.ty),
                                first: a_type(t),
                            };
                            self.cx.report(rule.at(self.cx.path, item.span()));
                            broken = true;
                        }
                    }
                }
                if broken {
                    return Val::error();
                }
                Val {
                    ty: Ty::List(Box::new(elem_ty.unwrap_or(Ty::Error))),
                    secret,
                    interpolated: false,
                    target: None,
                    call: None,
                }
            }
            Expr::Call(c) => self.eval_call(c, place, ctx),
            Expr::Range(r) => {
                let rule = TypeMismatch::Range {
                    place: place.describe().to_string(),
                };
                self.cx.report(rule.at(self.cx.path, r.span));
                Val::error()
            }
            Expr::For(f) => self.eval_for(f, place, ctx),
            Expr::Error(_) => Val::error(),
        }
    }

    /// A call of one of the language's functions (LANGUAGE.md §12.4): a string with the
    /// taint of its arguments. An unknown name or a wrong number of arguments is refused
    /// (E0324); the arguments' names are still read.
    fn eval_call(&mut self, c: &ast::Call, place: Place<'_>, ctx: RefContext<'a>) -> Val<'a> {
        let Some(func) = crate::functions::Func::from_name(&c.name.name) else {
            let names = crate::functions::Func::ALL.iter().map(|f| f.name());
            let near = crate::diagnostics::closest(&c.name.name, names).map(|near| {
                crate::functions::Func::from_name(near).map_or(near, |f| f.signature())
            });
            let rule = BadCall::Unknown {
                name: &c.name.name,
                near,
            };
            self.cx.report(rule.at(self.cx.path, c.name.span));
            for arg in &c.args {
                self.eval_names(arg, ctx);
            }
            return Val::error();
        };
        if c.args.len() != func.arity() {
            let rule = BadCall::Arity {
                function: func.name(),
                arity: func.arity(),
                found: c.args.len(),
                signature: func.signature(),
            };
            self.cx.report(rule.at(self.cx.path, c.span));
            for arg in &c.args {
                self.eval_names(arg, ctx);
            }
            return Val::error();
        }
        let mut val = Val::of(Ty::String);
        let mut broken = false;
        for arg in &c.args {
            let v = self.eval(arg, place, ctx);
            if v.is_error() {
                broken = true;
            } else if v.secret.is_some() && matches!(arg, Expr::Str(_)) {
                // The node applies the call to the secret itself: its argument must be
                // the secret (a reference or a call), not text around it.
                let rule = BadCall::SecretInString {
                    function: func.name(),
                };
                self.cx.report(rule.at(self.cx.path, arg.span()));
                broken = true;
            } else if val.secret.is_none() && v.secret.is_some() {
                val.secret = v.secret;
                val.call = Some(func.name());
            }
        }
        if broken {
            return Val::error();
        }
        val
    }

    /// A string: its interpolations are resolved; any secret part taints it, any host
    /// path in it is refused.
    pub(crate) fn eval_string(
        &mut self,
        s: &StringLit,
        place: Place<'_>,
        ctx: RefContext<'a>,
    ) -> Val<'a> {
        let mut val = Val::of(Ty::String);
        let mut broken = false;
        for part in &s.parts {
            let Some(interp) = part.interp() else {
                continue;
            };
            val.interpolated = true;
            if interp.legacy.is_none() && interp.reference().is_none() {
                // `${url(db.password)}`: any expression, its taint kept.
                let v = self.eval(interp.expr, place, ctx);
                if v.is_error() {
                    broken = true;
                } else if val.secret.is_none() && v.secret.is_some() {
                    val.secret = v.secret;
                    val.call = v.call;
                }
                continue;
            }
            let reference: Cow<'_, Reference> = match (interp.legacy, interp.reference()) {
                (None, Some(r)) => Cow::Borrowed(r),
                (Some(kind), _) => match self.legacy_reference(interp, kind) {
                    LegacyRead::Reads(r) => Cow::Owned(r),
                    // A plain fact of the node: no secret, no host path.
                    LegacyRead::NodeFact => continue,
                    LegacyRead::Refused => {
                        broken = true;
                        continue;
                    }
                },
                (None, None) => continue,
            };
            let Some(target) = self.resolve(&reference, ctx) else {
                broken = true;
                continue;
            };
            if self.target_is_host_path(target) {
                self.host_path_refused(interp.span, target, place, true);
                broken = true;
                continue;
            }
            if val.secret.is_none() && self.target_is_secret(target) {
                val.secret = Some(Taint {
                    at: interp.span,
                    target,
                });
            }
        }
        if broken {
            return Val::error();
        }
        val
    }

    /// Evaluates `expr` only for its names (an entry refused for another reason): its
    /// references still count as uses and unknown names are still reported.
    pub(crate) fn eval_names(&mut self, expr: &Expr, ctx: RefContext<'a>) {
        match expr {
            Expr::Ref(r) => {
                self.resolve(r, ctx);
            }
            Expr::Str(s) => {
                for interp in s.interpolations() {
                    let reference = match interp.legacy {
                        None => {
                            self.eval_names(interp.expr, ctx);
                            continue;
                        }
                        Some(kind) => match self.legacy_reference(interp, kind) {
                            LegacyRead::Reads(r) => Cow::Owned(r),
                            LegacyRead::NodeFact | LegacyRead::Refused => continue,
                        },
                    };
                    self.resolve(&reference, ctx);
                }
            }
            Expr::List(items, _) => {
                for item in items {
                    self.eval_names(item, ctx);
                }
            }
            Expr::Call(c) => {
                for arg in &c.args {
                    self.eval_names(arg, ctx);
                }
            }
            Expr::For(f) => self.eval_for_names(f, ctx),
            Expr::Int(_) | Expr::Bool(..) | Expr::Range(_) | Expr::Error(_) => {}
        }
    }

    /// E0303: a host path read anywhere but as a mount source.
    pub(crate) fn host_path_refused(
        &mut self,
        at: Span,
        target: Target<'a>,
        place: Place<'_>,
        interpolated: bool,
    ) {
        let name = self.target_name(target);
        let place = (!interpolated).then(|| place.describe());
        let requirement = match target {
            Target::Field { req, .. } => self.scope.requirements[req].name(),
            _ => "REQ",
        };
        let rule = HostPathRead {
            name: &name,
            place: place.as_deref(),
            requirement,
        };
        self.cx.report(rule.at(self.cx.path, at));
    }

    /// E0302: a secret going into a plain value.
    pub(crate) fn secret_refused(&mut self, taint: Taint<'a>, place: Place<'_>, val: &Val<'a>) {
        let name = self.target_name(taint.target);
        let (file, decl) = self.secret_declared_at(taint.target);
        let fix = match place {
            Place::Env(_) => format!(
                "deliver it as a file (`secret \"/run/secrets/…\" = {name}`) and point the process at the file, or, if the image reads it only from this variable, mark the entry `exposed \"reason\"`"
            ),
            Place::Command => "any process on the machine can read a command line: deliver the secret as a `secret` file and pass its path".into(),
            Place::Health => "the engine shows a health test to anyone who inspects the container: have the test read the secret from its `secret` file, or test without it".into(),
            Place::Set(..) => "a given field is set in plain sight, so it is never secret".into(),
            Place::Answer(_) => "a secret may answer only a secret field of the contract".into(),
            _ => format!("a secret reaches a process only through a `secret` file, a `file` body or an `exposed` env entry: `secret \"/run/secrets/…\" = {name}`"),
        };
        let help = match (val.call, val.interpolated) {
            (Some(f), _) => format!(
                "a function's result keeps the taint of its arguments, so `{f}(…)` of a secret is a secret; {fix}"
            ),
            (None, true) => {
                format!("an interpolated string with any secret part is a secret string; {fix}")
            }
            (None, false) => fix,
        };
        let rule = SecretToPlain {
            place: &place.describe(),
            name: &name,
            decl: (&file, decl),
            help,
        };
        self.cx.report(rule.at(self.cx.path, taint.at));
    }

    /// Checks that a value fits a typed slot: its type (E0301), a literal's validity
    /// (E0314) and constraint (E0304), a reference's range (E0304). Secrets and host
    /// paths are the caller's.
    pub(crate) fn check_fit(&mut self, expr: &Expr, val: &Val<'a>, slot: &Slot<'_>) {
        if val.is_error() || *slot.ty == Ty::Error {
            return;
        }
        if !val.ty.fits(slot.ty) {
            let found = match val.target {
                Some(t) => format!("`{}`, {}", self.target_name(t), a_type(&val.ty)),
                None if val.interpolated => "an interpolated string".into(),
                None => a_type(&val.ty),
            };
            let rule = TypeMismatch::Expected {
                expected: a_type(slot.ty),
                what: &slot.what,
                found,
                help: mismatch_help(expr, &val.ty, slot),
                decl: slot
                    .decl
                    .map(|(file, span)| (file, span, slot.ty as &dyn std::fmt::Display)),
            };
            self.cx.report(rule.at(self.cx.path, expr.span()));
            return;
        }
        if check_literal(self.cx, expr, slot).is_ok() {
            self.check_reference_range(expr, val, slot);
        }
    }

    /// An int reference fits an int slot only if every value it may hold lies in the
    /// slot's range (`port` is `int in 1..65535`).
    fn check_reference_range(&mut self, expr: &Expr, val: &Val<'a>, slot: &Slot<'_>) {
        let (Some(target), Some(want)) = (val.target, slot.constraint.range) else {
            return;
        };
        if !slot.ty.is_int() || !val.ty.is_int() {
            return;
        }
        let have = self.target_range(target);
        if have.is_some_and(|h| bounds_within(&h, &want)) {
            return;
        }
        let name = self.target_name(target);
        let (held, help) = match have {
            Some(h) => (
                format!("may hold {}", describe_bounds(&h)),
                format!("narrow `{name}` to {}", describe_bounds(&want)),
            ),
            None => (
                format!("is {} with no range", a_type(&val.ty)),
                match target {
                    Target::Operator { .. } => format!(
                        "refine it: `requires {name}: operator {} in {want}`",
                        val.ty
                    ),
                    _ => format!("read a value whose range lies in {want}"),
                },
            ),
        };
        let rule = Breach::ReferenceRange {
            name: &name,
            held,
            what: &slot.what,
            want: &want,
            help,
            decl: slot.decl,
        };
        self.cx.report(rule.at(self.cx.path, expr.span()));
    }
}

/// A slot in words, for messages: "`http.container`", "the default of `level`". Only
/// written out when a message needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum What<'s> {
    /// `req.field`
    Field(&'s str, &'s str),
    /// `name`
    Name(&'s str),
    /// the default of `name`
    Default(&'s str),
    /// a value of `name` (in a set)
    ValueOf(&'s str),
    /// a value of `req.field` (in a set)
    ValueOfField(&'s str, &'s str),
    /// As written.
    Text(&'s str),
}

impl std::fmt::Display for What<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Field(r, x) => write!(f, "`{r}.{x}`"),
            What::Name(n) => write!(f, "`{n}`"),
            What::Default(n) => write!(f, "the default of `{n}`"),
            What::ValueOf(n) => write!(f, "a value of `{n}`"),
            What::ValueOfField(r, x) => write!(f, "a value of `{r}.{x}`"),
            What::Text(t) => f.write_str(t),
        }
    }
}

/// A typed place a value is written into: a given field, an answer, a default.
pub(crate) struct Slot<'s> {
    /// The slot in words, for messages.
    pub what: What<'s>,
    pub ty: &'s Ty,
    pub constraint: &'s Constraint,
    /// A secret slot: no message quotes what is written into it.
    pub secret: bool,
    /// Where the slot's type was declared.
    pub decl: Option<(&'s FilePath, Span)>,
}

fn mismatch_help(expr: &Expr, found: &Ty, slot: &Slot<'_>) -> Option<String> {
    let want = slot.ty;
    match expr {
        Expr::Str(s) if want.is_int() && !slot.secret => {
            let text = s.as_plain()?;
            text.trim()
                .parse::<i64>()
                .ok()
                .map(|n| format!("write the number without quotes: `{n}`"))
        }
        Expr::Str(s) if *want == Ty::Bool && !slot.secret => match s.as_plain()?.as_str() {
            "true" | "yes" | "on" | "1" => Some("write `true`, without quotes".into()),
            "false" | "no" | "off" | "0" => Some("write `false`, without quotes".into()),
            _ => Some("a bool is `true` or `false`".into()),
        },
        Expr::List(..) if !matches!(want, Ty::List(_)) => {
            Some(format!("{} is one value, not a list", slot.what))
        }
        Expr::Int(i) if want.is_textual() && !slot.secret => {
            Some(format!("write it as text: `\"{}\"`", i.value))
        }
        _ if matches!(want, Ty::List(_)) && !matches!(found, Ty::List(_)) => {
            Some("write a list: `[…]`".to_string())
        }
        _ => None,
    }
}

/// Checks a literal written into `slot`: validity for its type (E0314), then the slot's
/// constraint (E0304). Refuses with what it reported. A value that is not a literal (a
/// reference, an interpolation) passes: it is checked once resolved.
pub(crate) fn check_literal(cx: &mut Cx<'_>, expr: &Expr, slot: &Slot<'_>) -> Result<(), Reported> {
    if *slot.ty == Ty::Mode
        && let Expr::Int(i) = expr
    {
        check_mode_literal(cx, i.value, i.radix, i.span, slot.what)?;
    }
    if let (Ty::List(inner), Expr::List(items, _)) = (slot.ty, expr) {
        let elem = Constraint::of_type(inner);
        let elem_slot = Slot {
            what: slot.what,
            ty: inner,
            constraint: &elem,
            secret: slot.secret,
            decl: slot.decl,
        };
        // Every element is checked; the first refusal is passed on.
        let mut refused = Ok(());
        for item in items {
            let checked = check_literal(cx, item, &elem_slot);
            refused = refused.and(checked);
        }
        refused?;
    }
    let Some(value) = Value::from_literal(expr) else {
        return Ok(());
    };
    if !matches!(slot.ty, Ty::List(_))
        && let Err(why) = validate_literal(slot.ty, &value)
    {
        let text = match (&value, slot.secret) {
            (Value::Str(s), false) => Some(s.as_str()),
            _ => None,
        };
        let rule = InvalidLiteral::Value {
            text,
            ty: slot.ty,
            what: &slot.what,
            why,
        };
        return Err(cx.refuse(rule.at(cx.path, expr.span())));
    }
    if let Some(breach) = slot.constraint.check(&value) {
        let rule = Breach::Literal {
            what: &slot.what,
            breach: &breach,
            help: breach_help(&breach, slot),
            decl: slot.decl,
        };
        return Err(cx.refuse(rule.at(cx.path, expr.span())));
    }
    Ok(())
}

fn breach_help(breach: &super::types::Breach, slot: &Slot<'_>) -> String {
    use super::types::Breach;
    match breach {
        Breach::Range(b) => format!("write {} in {b}", a_type(slot.ty)),
        Breach::Len(b) => format!("write a value whose length is in {b}"),
        Breach::OneOf(_) => "write one of the values the set allows".into(),
        Breach::Matches(_) => "write a value the whole pattern matches".into(),
    }
}

/// A mode is written in octal (`0o750`) and has at most four octal digits (E0314).
pub(crate) fn check_mode_literal(
    cx: &mut Cx<'_>,
    value: i64,
    radix: Radix,
    span: Span,
    what: What<'_>,
) -> Result<(), Reported> {
    if radix != Radix::Octal && value != 0 {
        let digits = value.to_string();
        let decimal_digits = (radix == Radix::Decimal
            && digits.bytes().all(|b| (b'0'..=b'7').contains(&b)))
        .then_some(digits);
        let rule = InvalidLiteral::ModeNotOctal {
            what: &what,
            decimal_digits,
        };
        return Err(cx.refuse(rule.at(cx.path, span)));
    }
    if !(0..=0o7777).contains(&value) {
        return Err(cx.refuse(InvalidLiteral::ModeTooLarge { what: &what }.at(cx.path, span)));
    }
    Ok(())
}

/// Whether `inner` lies inside `outer` (an open end of `inner` lies inside only an open
/// end of `outer`).
pub(crate) fn bounds_within(inner: &Bounds, outer: &Bounds) -> bool {
    let lo_ok = match (inner.lo, outer.lo) {
        (_, None) => true,
        (Some(i), Some(o)) => i >= o,
        (None, Some(_)) => false,
    };
    let hi_ok = match (inner.hi, outer.hi) {
        (_, None) => true,
        (Some(i), Some(o)) => i <= o,
        (None, Some(_)) => false,
    };
    lo_ok && hi_ok
}

fn describe_bounds(b: &Bounds) -> String {
    match (b.lo, b.hi) {
        (Some(lo), Some(hi)) => format!("values in {lo}..{hi}"),
        (Some(lo), None) => format!("any value from {lo} up"),
        (None, Some(hi)) => format!("any value up to {hi}"),
        (None, None) => "any value".into(),
    }
}

/// Whether a type is, or holds, a host path.
pub(crate) fn contains_host_path(ty: &Ty) -> bool {
    match ty {
        Ty::HostPath => true,
        Ty::List(inner) => contains_host_path(inner),
        _ => false,
    }
}
