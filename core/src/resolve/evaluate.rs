//! Evaluating what a definition reads (LANGUAGE.md §5.3, §5.5): expressions become plain
//! values, host paths, sealed references or templates.
//!
//! - A plain value keeps its type (a mode is written `0750` when it becomes text).
//! - A host path is only ever a mount's source.
//! - A secret is never a value: it is a [`SealedRef`] naming the instance that makes it
//!   and the key it keeps it under. A string with a secret part is a template whose
//!   `${req.field}` references are kept, never rendered.
//!
//! A provider's answer is evaluated per consumer, in the provider's own scope, with
//! `consumer.*` and `given.*` reading who asks. Every value is memoised, and a value that
//! reads itself is refused (E0313).
//!
//! What does not resolve evaluates to no value, and says why ([`NoValue`]): refused, on
//! the proof that a diagnostic was made ([`Reported`]: the resolver's own refusal, the
//! checker's error of the module, or, in a module the checker passed, the checker's miss
//! reported as such); a given field declared secret, which has no plain value whatever
//! the resolver was told; or an evaluation put off to bound the call stack, dropped and
//! made again. Outside this module a `NoValue` is made only from a `Reported`.

use super::FxIndexMap;
use super::fx_hash::{FxHashMap, FxHashSet};
use super::ids::Id;
use super::{Answer, InstanceId, KnownInstance, LoadedModule, Phase, World};
use crate::check::meaning::ConsumerField;
use crate::check::readings::{LoopReading, NodeFact, Reading};
use crate::check::registry::ContractInfo;
use crate::check::scope::ReqInfo;
use crate::check::types::{Ty, Value, validate_literal};
use crate::diagnostics::Reported;
use crate::diagnostics::rules::{Missing, Unanswered, Unfit, ValueRefused};
use crate::emit::{SealedRef, TemplateRef};
use crate::functions::Func;
use crate::syntax::ast::{Call, Expr, ForExpr, Reference, StrPart, StringLit};
use std::borrow::Cow;

/// An operator value and where it came from (`assignment`, `default`, `vault`).
pub(crate) type OperatorValue = (Resolved, &'static str);

/// What an evaluation gives: a value, or why there is none.
pub(crate) type Evaluation<T = Resolved> = Result<T, NoValue>;

/// Why an evaluation gives no value. Outside this module it is made only from a
/// [`Reported`] (`From`, so `?` passes a refusal on), the proof that a diagnostic was
/// made; the two other reasons are this module's own, each made in one place, and carry
/// no diagnostic on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoValue {
    /// Refused, on the proof that why was reported.
    Refused(Reported),
    /// A given field declared secret read where the resolver holds no proof of its
    /// E0205 (the manifest builder, or a resolver told of no error): it has no plain
    /// value all the same, a security rule ([`Evaluate::given_value_at`]). Where the
    /// module's errors are known the proof is carried instead.
    Withheld(Withheld),
    /// Put off: the call stack held too many values under way, so the evaluation is
    /// unwound, its result dropped and made again ([`Evaluator::demand`]). Never
    /// memoised, never met by the manifest builder.
    Deferred(Deferred),
}

/// A given secret field's absence of value ([`NoValue::Withheld`]); made in this module
/// only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Withheld(());

/// An evaluation put off ([`NoValue::Deferred`]); made in this module only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deferred(());

impl From<Reported> for NoValue {
    fn from(proof: Reported) -> NoValue {
        NoValue::Refused(proof)
    }
}

/// The values phase's product: every memoised value of the mesh, each computed once.
/// Once the phase is over nothing is under way, so every entry is done, and whoever
/// builds a manifest only reads it (from any thread).
///
/// The tables are dense, keyed by indices, not names: (instance, the requirement's place
/// in its module's scope, the field's place in its contract) is a place in a vector (see
/// [`Layout`]), so a lookup hashes and compares nothing.
#[derive(Default)]
pub(crate) struct Values {
    layout: Layout,
    operator: Table<Evaluation<OperatorValue>>,
    given: Table<Evaluation>,
    answer: Table<Evaluation>,
}

/// One table of memos. Each slot is a `u32`: [`NOT_ASKED`], [`UNDER_WAY`], or the place
/// of its value in `done` past those two. Most slots are never asked for (a field the
/// provider answers has no given value, and the other way round), so a slot costs four
/// bytes and only values computed take room.
struct Table<T> {
    state: Vec<u32>,
    done: Vec<T>,
}

/// A slot not asked for.
const NOT_ASKED: u32 = 0;
/// A slot whose value is being computed.
const UNDER_WAY: u32 = 1;

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            state: Vec::new(),
            done: Vec::new(),
        }
    }
}

impl<T> Table<T> {
    /// `slots` slots, room for `values` values before the table grows.
    fn with_slots(slots: usize, values: usize) -> Table<T> {
        Table {
            state: vec![NOT_ASKED; slots],
            done: Vec::with_capacity(values),
        }
    }

    /// The memo at `slot`, if asked for.
    fn get(&self, slot: Option<usize>) -> Option<Memo<&T>> {
        match *self.state.get(slot?)? {
            NOT_ASKED => None,
            UNDER_WAY => Some(Memo::InProgress),
            k => self.done.get((k - 2) as usize).map(Memo::Done),
        }
    }

    /// Sets the memo at `slot` (`None`: not asked for). Every key the resolver makes has
    /// a slot: its indices come from the same scopes and contracts as the layout.
    fn set(&mut self, slot: Option<usize>, to: Option<Memo<T>>) {
        let Some(state) = slot.and_then(|k| self.state.get_mut(k)) else {
            debug_assert!(false, "a memoised value outside the layout");
            return;
        };
        *state = match to {
            None => NOT_ASKED,
            Some(Memo::InProgress) => UNDER_WAY,
            Some(Memo::Done(v)) => {
                self.done.push(v);
                // A mesh is a text in memory: it cannot hold 2^32 - 2 values.
                u32::try_from(self.done.len() + 1).unwrap_or(u32::MAX)
            }
        };
    }
}

/// Where each memoised value of a mesh lives in the tables of [`Values`]: instance `i`'s
/// requirement `r` is operator slot `req_base[i] + r`; field `f` of that requirement's
/// contract is field slot `field_start[req_base[i] + r] + f`. Requirements are numbered
/// across the mesh in instance order, and fields likewise, so a requirement's fields end
/// where the next requirement's begin (`field_start` has one entry more than there are
/// requirements).
#[derive(Default)]
struct Layout {
    /// Per instance, where its requirements begin; one entry more than instances.
    req_base: Vec<u32>,
    /// Per requirement of the mesh, where its contract's fields begin; one entry more.
    field_start: Vec<u32>,
}

impl Layout {
    /// The layout for `instances`: for each instance in instance order, the number of
    /// contract fields of each of its requirements in scope order.
    fn new<R: IntoIterator<Item = u32>>(instances: impl IntoIterator<Item = R>) -> Layout {
        let mut layout = Layout {
            req_base: vec![0],
            field_start: vec![0],
        };
        let mut fields: u32 = 0;
        for requirements in instances {
            for count in requirements {
                fields = fields.saturating_add(count);
                layout.field_start.push(fields);
            }
            let requirements = u32::try_from(layout.field_start.len() - 1).unwrap_or(u32::MAX);
            layout.req_base.push(requirements);
        }
        layout
    }

    /// The operator slot of requirement `r` of instance `i`, if it has one.
    fn requirement(&self, i: InstanceId, r: u32) -> Option<usize> {
        let base = *self.req_base.get(i.index())?;
        let end = *self.req_base.get(i.index() + 1)?;
        let k = base.checked_add(r)?;
        (k < end).then_some(k as usize)
    }

    /// The field slot of field `f` of requirement `r` of instance `i`, if it has one.
    fn field(&self, i: InstanceId, r: u32, f: u32) -> Option<usize> {
        let k = self.requirement(i, r)?;
        let start = *self.field_start.get(k)?;
        let end = *self.field_start.get(k + 1)?;
        let at = start.checked_add(f)?;
        (at < end).then_some(at as usize)
    }

    fn requirements(&self) -> usize {
        self.field_start.len() - 1
    }

    fn fields(&self) -> usize {
        self.field_start.last().map_or(0, |&n| n as usize)
    }
}

impl Values {
    /// Empty tables with a slot for every requirement and field of `modules`, the
    /// module of each instance in instance order.
    pub fn new<'a, 'm: 'a>(
        modules: impl Iterator<Item = Option<&'a LoadedModule<'m>>> + Clone,
    ) -> Values {
        // Room for what the phases compute, counted once: an operator value per operator
        // requirement, a given value per given field, an answer per other field (a
        // secret one when a manifest reads it). Sized by requirements, a table whose
        // values outnumber them (the answers, a handful per module requirement) was
        // copied into one twice its size as it filled, both held at once.
        let (mut operators, mut givens, mut answers) = (0, 0, 0);
        for m in modules.clone().flatten() {
            for info in m.scope.requirements.values() {
                operators += usize::from(info.operator.is_some());
                for field in info.contract.iter().flat_map(|c| c.fields.values()) {
                    match field.given {
                        true => givens += 1,
                        false => answers += 1,
                    }
                }
            }
        }
        let layout = Layout::new(modules.map(|m| {
            m.into_iter().flat_map(|m| {
                m.scope.requirements.values().map(|info| {
                    info.contract
                        .as_deref()
                        .map_or(0, |c| c.fields.len() as u32)
                })
            })
        }));
        Values {
            // Made once: grown by doubling, a large mesh's tables were copied a dozen
            // times over as they filled (most slots are never asked for, so not one value
            // per slot).
            operator: Table::with_slots(layout.requirements(), operators),
            given: Table::with_slots(layout.fields(), givens),
            answer: Table::with_slots(layout.fields(), answers),
            layout,
        }
    }

    /// Operator requirement `r` of instance `i`, if computed.
    pub fn operator(&self, i: InstanceId, r: u32) -> Option<Evaluation<OperatorValue>> {
        match self.operator.get(self.layout.requirement(i, r)) {
            Some(Memo::Done(v)) => Some(v.clone()),
            _ => None,
        }
    }

    /// Given field `f` of requirement `r` of instance `i`, if computed.
    pub fn given(&self, i: InstanceId, r: u32, f: u32) -> Option<Evaluation> {
        match self.given.get(self.layout.field(i, r, f)) {
            Some(Memo::Done(v)) => Some(v.clone()),
            _ => None,
        }
    }

    /// The answer to field `f` of `consumer`'s requirement `r`, if computed.
    pub fn answer(&self, consumer: InstanceId, r: u32, f: u32) -> Option<Evaluation> {
        self.answer_ref(consumer, r, f).map(|v| v.cloned())
    }

    /// The answer to field `f` of `consumer`'s requirement `r`, if computed, where it is
    /// kept.
    fn answer_ref(&self, consumer: InstanceId, r: u32, f: u32) -> Option<Evaluation<&Resolved>> {
        match self.answer.get(self.layout.field(consumer, r, f)) {
            Some(Memo::Done(v)) => Some(v.as_ref().map_err(|&why| why)),
            _ => None,
        }
    }

    /// Whether `key` is being computed (`Some(false)`), done (`Some(true)`) or not yet
    /// asked for (`None`).
    fn done(&self, key: Key) -> Option<bool> {
        let state = match key {
            Key::Operator(i, r) => self.operator.state.get(self.layout.requirement(i, r)?),
            Key::Given(i, r, f) => self.given.state.get(self.layout.field(i, r, f)?),
            Key::Answer(i, r, f) => self.answer.state.get(self.layout.field(i, r, f)?),
        };
        match state.copied()? {
            NOT_ASKED => None,
            UNDER_WAY => Some(false),
            _ => Some(true),
        }
    }

    fn set_operator(&mut self, i: InstanceId, r: u32, to: Option<Memo<Evaluation<OperatorValue>>>) {
        self.operator.set(self.layout.requirement(i, r), to);
    }

    fn set_given(&mut self, i: InstanceId, r: u32, f: u32, to: Option<Memo<Evaluation>>) {
        self.given.set(self.layout.field(i, r, f), to);
    }

    fn set_answer(&mut self, i: InstanceId, r: u32, f: u32, to: Option<Memo<Evaluation>>) {
        self.answer.set(self.layout.field(i, r, f), to);
    }
}

/// The evaluator's state while the values phase runs: the memoised values, and the
/// values under way.
#[derive(Default)]
pub(crate) struct Eval<'m> {
    pub values: Values,
    /// Values already told E0313, each with the proof.
    pub told_cycle: FxHashMap<Key, Reported>,
    /// Memoised values under way on the call stack (see [`Evaluator::demand`]).
    pub depth: usize,
    /// The value deferred because the call stack held too many under way.
    pub deferred: Option<Key>,
    /// Values waiting on the heap for the ones they deferred.
    pub waiting: FxHashSet<Key>,
    /// The loop variables bound while a `for` template renders, innermost last.
    pub loop_bindings: Vec<super::loops::Binding<'m>>,
    /// A provider's answers that read nothing of the consumer they answer, by (provider,
    /// contract, field): the same for every consumer, so evaluated once (see
    /// [`Evaluator::compute_answer`]).
    pub shared_answers: FxHashMap<(InstanceId, usize, u32), Evaluation>,
    /// Whether the answer being evaluated has read something of who asks (`consumer.*`,
    /// `given.*`) or rendered a loop.
    pub read_consumer: bool,
}

impl Eval<'_> {
    /// Nothing computed yet, into `values`' tables.
    pub fn new(values: Values) -> Self {
        Eval {
            values,
            ..Eval::default()
        }
    }

    /// The phase's product. Nothing is under way once the phase is over.
    pub fn finish(self) -> Values {
        debug_assert!(self.depth == 0 && self.deferred.is_none() && self.waiting.is_empty());
        self.values
    }
}

/// A memoised value: being computed (a second visit is a cycle), or done.
#[derive(Debug, Clone)]
pub(crate) enum Memo<T> {
    InProgress,
    Done(T),
}

/// A memoised value of the resolver: an operator value, a given field, or a provider's
/// answer to a consumer's field. A requirement is named by its index in the instance's
/// module scope (`ModuleScope::requirements`), a field by its index in the requirement's
/// contract (`ContractInfo::fields`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    /// Operator requirement `req` of instance `i`.
    Operator(InstanceId, u32),
    /// Given field `field` of requirement `req` of instance `i`.
    Given(InstanceId, u32, u32),
    /// Field `field` of module requirement `req` of consumer `c`, as its provider answers.
    Answer(InstanceId, u32, u32),
}

/// How many memoised values may be under way on the call stack at once (see
/// [`Evaluator::demand`]). Each takes a handful of frames; 32 of them stay far below the
/// smallest stack a thread is given (the language server's workers have 2 MiB).
const STACK_DEPTH: usize = 32;

/// A requirement and a field of its contract, each with its declaration: what a
/// [`Key::Given`] or [`Key::Answer`] names.
type FieldAt<'m> = (
    &'m str,
    &'m ReqInfo<'m>,
    &'m str,
    &'m crate::check::registry::FieldInfo,
);

/// What an expression evaluates to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Resolved {
    /// A value known at build time, with the type it was declared with.
    Plain(Value, Ty),
    /// A place on the node's host; only a mount reads it.
    HostPath(String),
    /// A secret, named (boxed: every memoised value is as large as the largest kind,
    /// and few are secrets).
    Sealed(Box<SealedRef>),
    /// Text with secret parts: the parts, references kept.
    Template(Vec<TemplatePart>),
}

/// A piece of a template.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TemplatePart {
    Text(String),
    /// `${name}`, standing for a plain value or a sealed secret.
    Ref {
        name: String,
        value: Resolved,
    },
    /// `${url(db.password)}`: a call that reads a secret, kept for the node host to apply
    /// once it has the secret (LANGUAGE.md §12.4). Each argument is one reference, one
    /// call, or plain text.
    Call {
        func: Func,
        args: Vec<Vec<TemplatePart>>,
    },
}

/// Where an expression is read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ctx<'m> {
    /// In a definition (env, files, narrowing, defaults), in the instance's own scope.
    Definition,
    /// In the `provides` block answering `consumer`'s requirement `requirement`.
    Provides {
        consumer: InstanceId,
        requirement: &'m str,
    },
}

/// Field `field` of consumer `c`: its login, instance or module name, or the private
/// name of its node.
pub(super) fn consumer_text(
    w: World<'_, '_>,
    c: InstanceId,
    field: ConsumerField,
) -> Option<Resolved> {
    let inst = &w.instances[c];
    let text = |s: &str| Some(Resolved::Plain(Value::Str(s.to_string()), Ty::String));
    match field {
        ConsumerField::Login => text(&w.logins[c]),
        ConsumerField::Instance => text(&inst.name),
        ConsumerField::Module => text(&inst.module_name),
        ConsumerField::Node => w.nodes[inst.node]
            .private_name
            .clone()
            .map(|n| Resolved::Plain(Value::Str(n), Ty::Hostname)),
    }
}

/// [`text_of`], taking the value: a string is its own text, moved instead of copied.
pub(crate) fn into_text(value: Value, ty: &Ty) -> String {
    match value {
        Value::Str(s) => s,
        other => text_of(&other, ty),
    }
}

/// A plain value as text: a mode in four octal digits, everything else as §3 converts it.
pub(crate) fn text_of(value: &Value, ty: &Ty) -> String {
    match (value, ty) {
        (Value::Int(n), Ty::Mode) => format!("{n:04o}"),
        (Value::List(items), Ty::List(inner)) => items
            .iter()
            .map(|v| text_of(v, inner))
            .collect::<Vec<_>>()
            .join(","),
        _ => value.to_text(),
    }
}

/// [`json_of`], taking the value: a string is moved into the JSON, not copied.
pub(crate) fn into_json(value: Value, ty: &Ty) -> serde_json::Value {
    match value {
        Value::Str(s) => serde_json::Value::String(s),
        other => json_of(&other, ty),
    }
}

/// A plain value as JSON, keeping its type (a mode as `"0750"`).
pub(crate) fn json_of(value: &Value, ty: &Ty) -> serde_json::Value {
    match (value, ty) {
        (Value::Int(n), Ty::Mode) => serde_json::Value::String(format!("{n:04o}")),
        (Value::Int(n), _) => serde_json::Value::from(*n),
        (Value::Str(s), _) => serde_json::Value::String(s.clone()),
        (Value::Bool(b), _) => serde_json::Value::Bool(*b),
        (Value::List(items), _) => {
            let inner = match ty {
                Ty::List(inner) => (**inner).clone(),
                _ => Ty::Error,
            };
            serde_json::Value::Array(items.iter().map(|v| json_of(v, &inner)).collect())
        }
    }
}

/// A template's text and what each reference stands for. A literal `$` is written `$$`,
/// so `${` always begins a reference or a call.
///
/// A call is written `${FUNC(ARG, …)}`; an argument is a reference's name, a call, or a
/// JSON string literal of plain text, as the node's renderer reads it
/// ([`crate::base::template_functions::render`]).
pub(crate) fn render_template(parts: &[TemplatePart]) -> (String, FxIndexMap<String, TemplateRef>) {
    let mut text = String::new();
    let mut refs = FxIndexMap::default();
    write_parts(parts, &mut text, &mut refs);
    (text, refs)
}

fn write_parts(
    parts: &[TemplatePart],
    text: &mut String,
    refs: &mut FxIndexMap<String, TemplateRef>,
) {
    for part in parts {
        match part {
            TemplatePart::Text(t) => text.push_str(&t.replace('$', "$$")),
            TemplatePart::Ref { name, value } => {
                text.push_str("${");
                text.push_str(name);
                text.push('}');
                note_ref(name, value, refs);
            }
            TemplatePart::Call { func, args } => {
                text.push_str("${");
                write_call(*func, args, text, refs);
                text.push('}');
            }
        }
    }
}

fn write_call(
    func: Func,
    args: &[Vec<TemplatePart>],
    text: &mut String,
    refs: &mut FxIndexMap<String, TemplateRef>,
) {
    text.push_str(func.name());
    text.push('(');
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        match arg.as_slice() {
            [TemplatePart::Ref { name, value }] => {
                text.push_str(name);
                note_ref(name, value, refs);
            }
            [TemplatePart::Call { func, args }] => write_call(*func, args, text, refs),
            parts => {
                // Plain text (the evaluator keeps nothing else in an argument). The
                // renderer reads a string argument as a template: `$` is written `$$`.
                let mut plain = String::new();
                for p in parts {
                    if let TemplatePart::Text(t) = p {
                        plain.push_str(&t.replace('$', "$$"));
                    }
                }
                text.push_str(&serde_json::Value::String(plain).to_string());
            }
        }
    }
    text.push(')');
}

fn note_ref(name: &str, value: &Resolved, refs: &mut FxIndexMap<String, TemplateRef>) {
    let r = match value {
        Resolved::Sealed(s) => TemplateRef::Sealed {
            sealed: (**s).clone(),
        },
        Resolved::Plain(v, ty) => TemplateRef::Value {
            value: text_of(v, ty),
        },
        _ => return,
    };
    refs.entry(name.to_string()).or_insert(r);
}

/// Evaluation, shared by whoever evaluates: a phase's [`Evaluator`], which computes
/// each memoised value on first demand and may refuse, and a manifest's builder
/// ([`super::manifests::Builder`], which reads the values phase's product and never
/// refuses). The provided methods are the rules; an implementation only says where a
/// memoised value comes from and where loop variables are bound.
pub(crate) trait Evaluate<'m> {
    /// What evaluation reads of the mesh.
    fn world(&self) -> World<'_, 'm>;

    /// The value of operator requirement `req` of instance `i`, and where it came from
    /// (`assignment`, `default` or `vault`).
    /// Memoised; E0501 is reported once.
    fn operator_value(&mut self, i: InstanceId, req: &str) -> Evaluation<OperatorValue> {
        let r = self
            .world()
            .module_of(i)
            .and_then(|m| m.scope.requirements.get_index_of(req));
        match r {
            Some(r) => self.operator_memo(i, r as u32),
            // Asked by a requirement's name read from the module's own scope.
            None => Err(self.passed_over(i, "E0104").into()),
        }
    }

    /// The memoised value of operator requirement `r` (its place in the module's scope)
    /// of instance `i`.
    fn operator_memo(&mut self, i: InstanceId, r: u32) -> Evaluation<OperatorValue>;

    /// The memoised value of given field `f` (its place in the contract) of requirement
    /// `r` of instance `i`.
    fn given_memo(&mut self, i: InstanceId, r: u32, f: u32) -> Evaluation;

    /// The memoised answer of `consumer`'s provider to field `f` of its module
    /// requirement `r`.
    fn answer_memo(&mut self, consumer: InstanceId, r: u32, f: u32) -> Evaluation;

    /// The loop variables bound while a `for` template renders, innermost last.
    fn bindings(&self) -> &Vec<super::loops::Binding<'m>>;

    /// The same, to bind and unbind.
    fn bindings_mut(&mut self) -> &mut Vec<super::loops::Binding<'m>>;

    /// Notes that what is being evaluated reads something of the consumer it answers, or
    /// renders a loop (nothing to note for an evaluator that keeps no answer aside).
    fn reads_consumer(&mut self) {}

    /// The proof that the checker reported an error in instance `i`'s module
    /// ([`super::Resolver::checker_error`]).
    fn module_error(&self, i: InstanceId) -> Option<Reported>;

    /// The proof that instance `i` was refused so far, if it was (none for the manifest
    /// builder, which builds no refused instance).
    fn refusal(&self, i: InstanceId) -> Option<Reported>;

    /// What `reference`, written in module `m`, reads, as the checker decided it
    /// (`check::readings`).
    fn reading(&self, m: &'m LoadedModule<'m>, reference: &Reference) -> Reading;

    /// Passes over what the checker refuses with `code` in instance `i`'s module, on the
    /// proof it was reported there ([`super::passed_over`]). A module the checker passed
    /// has no proof: debug builds assert that it never gets here, and a release build
    /// reports the checker's miss ([`Evaluate::missed`]) rather than pass over it in
    /// silence. An instance of no module (its assignment names none the workspace
    /// defines) was refused for it when the mesh was named (E0106): that refusal is the
    /// proof.
    fn passed_over(&mut self, i: InstanceId, code: &'static str) -> Reported {
        let module = match self.world().module_of(i) {
            Some(m) => m.name.as_str(),
            None => match self.refusal(i) {
                Some(told) => return told,
                None => "",
            },
        };
        match super::passed_over(self.module_error(i), code, module) {
            Some(proof) => proof,
            None => self.missed(i, code),
        }
    }

    /// Reports that resolution met, in instance `i`'s module, what the checker refuses
    /// with `code` though it reported no error there (`rules::CheckerMiss`), and returns
    /// the proof. Only a release build gets here ([`Evaluate::passed_over`]).
    fn missed(&mut self, i: InstanceId, code: &'static str) -> Reported;

    /// Evaluates `expr` in instance `i`'s scope.
    fn eval_expr(&mut self, i: InstanceId, ctx: Ctx<'m>, expr: &Expr) -> Evaluation {
        match expr {
            Expr::Str(s) => self.eval_string(i, ctx, s),
            Expr::Int(n) => Ok(Resolved::Plain(Value::Int(n.value), Ty::Int)),
            Expr::Bool(b, _) => Ok(Resolved::Plain(Value::Bool(*b), Ty::Bool)),
            Expr::List(items, _) => {
                let mut values = Vec::with_capacity(items.len());
                let mut inner = Ty::Error;
                for item in items {
                    match self.eval_expr(i, ctx, item)? {
                        Resolved::Plain(v, ty) => {
                            if inner == Ty::Error {
                                inner = ty;
                            }
                            values.push(v);
                        }
                        // A secret or a host path in a list (E0302, E0303).
                        _ => return Err(self.passed_over(i, "E0302 or E0303").into()),
                    }
                }
                Ok(Resolved::Plain(
                    Value::List(values),
                    Ty::List(Box::new(inner)),
                ))
            }
            Expr::Ref(r) => self.eval_ref(i, ctx, r),
            Expr::Call(c) => self.eval_call(i, ctx, c),
            Expr::For(f) => {
                self.reads_consumer();
                self.eval_for(i, ctx, f)
            }
            // A range where a value belongs (E0301, the checker's).
            Expr::Range(_) => Err(self.passed_over(i, "E0301").into()),
            // What the parser could not read: its syntax error was reported.
            Expr::Error(_) => Err(self.passed_over(i, "a syntax error").into()),
        }
    }

    /// A call: applied now when every argument is plain, else kept in a template for the
    /// node host to apply to the secret values (LANGUAGE.md §12.4).
    fn eval_call(&mut self, i: InstanceId, ctx: Ctx<'m>, c: &Call) -> Evaluation {
        let Some(func) = Func::from_name(&c.name.name) else {
            return Err(self.passed_over(i, "E0324").into());
        };
        if c.args.len() != func.arity() {
            return Err(self.passed_over(i, "E0324").into());
        }
        let mut args = Vec::with_capacity(c.args.len());
        for arg in &c.args {
            let value = self.eval_expr(i, ctx, arg)?;
            let parts = match (arg, value) {
                (_, Resolved::HostPath(_)) => return Err(self.passed_over(i, "E0303").into()),
                (_, Resolved::Plain(v, ty)) => vec![TemplatePart::Text(into_text(v, &ty))],
                // Named like any reference of a template: through a loop variable, for
                // its element, so two consumers' arguments never share a name.
                (Expr::Ref(r), value @ Resolved::Sealed(_)) => vec![TemplatePart::Ref {
                    name: self.reference_name(i, r),
                    value,
                }],
                // A nested call that reads a secret.
                (_, Resolved::Template(parts))
                    if matches!(parts.as_slice(), [TemplatePart::Call { .. }]) =>
                {
                    parts
                }
                // A string around a secret (E0324).
                (_, Resolved::Sealed(_) | Resolved::Template(_)) => {
                    return Err(self.passed_over(i, "E0324").into());
                }
            };
            args.push(parts);
        }
        let plain: Option<Vec<String>> = args
            .iter()
            .map(|parts| match parts.as_slice() {
                [TemplatePart::Text(t)] => Some(t.clone()),
                _ => None,
            })
            .collect();
        Ok(match plain {
            Some(texts) => Resolved::Plain(Value::Str(func.apply(&texts)), Ty::String),
            None => Resolved::Template(vec![TemplatePart::Call { func, args }]),
        })
    }

    /// Evaluates a string literal: plain text when no part is secret, else a template.
    fn eval_string(&mut self, i: InstanceId, ctx: Ctx<'m>, s: &StringLit) -> Evaluation {
        // Most strings are text alone: no parts to make and join.
        if let [StrPart::Text(t)] = &*s.parts {
            return Ok(Resolved::Plain(Value::Str(String::from(&**t)), Ty::String));
        }
        // Most of the rest join into plain text: each part appended where it is made, with
        // no list of parts and no copy of each. A part kept for the node (a secret, a call
        // on one) makes a template instead, whose plain references are named too: the
        // string is then evaluated again part by part below. Evaluating twice changes
        // nothing: every value read is memoised, a cycle is reported once, and a part
        // that makes no value makes none on either pass.
        if let Some(text) = self.plain_string(i, ctx, s)? {
            return Ok(Resolved::Plain(Value::Str(text), Ty::String));
        }
        let (parts, kept) = self.evaluated_parts(i, ctx, s)?;
        if kept {
            let parts = self.named(i, parts);
            return self.finished(i, parts);
        }
        // Text and plain values alone (most strings): joined, no part named.
        let mut text = String::new();
        for part in parts {
            match part {
                Evaluated::Text(t) => text.push_str(&t),
                Evaluated::Ref(_, Resolved::Plain(Value::Str(v), _)) => text.push_str(&v),
                Evaluated::Ref(_, Resolved::Plain(v, ty)) => text.push_str(&text_of(&v, &ty)),
                // None is kept: `kept` says so.
                Evaluated::Ref(..) | Evaluated::Parts(_) => {
                    return Err(self.passed_over(i, "E0302 or E0303").into());
                }
            }
        }
        Ok(Resolved::Plain(Value::Str(text), Ty::String))
    }

    /// [`finish_parts`]: parts joined into a value, a part that makes none (a host path,
    /// E0303) passed over.
    fn finished(&mut self, i: InstanceId, parts: Vec<TemplatePart>) -> Evaluation {
        match finish_parts(parts) {
            Some(v) => Ok(v),
            None => Err(self.passed_over(i, "E0303").into()),
        }
    }

    /// String literal `s` as plain text, its parts evaluated in order as
    /// [`Evaluate::evaluated_parts`] does: `Ok(None)` at the first part kept for the
    /// node (the caller makes the template), `Err` where that would make no value.
    fn plain_string(
        &mut self,
        i: InstanceId,
        ctx: Ctx<'m>,
        s: &StringLit,
    ) -> Evaluation<Option<String>> {
        // Room for the text and a short value per interpolation, made once: the string
        // is not grown (and copied) part by part.
        let room = s
            .parts
            .iter()
            .map(|p| match p {
                StrPart::Text(t) => t.len(),
                StrPart::Ref(_) | StrPart::Interp(_) => 16,
            })
            .sum();
        let mut text = String::with_capacity(room);
        for p in &s.parts {
            match p {
                StrPart::Text(t) => text.push_str(t),
                StrPart::Ref(_) | StrPart::Interp(_) => {
                    let Some(interp) = p.interp() else { continue };
                    let value = match (interp.legacy, interp.reference()) {
                        (Some(kind), Some(r)) => {
                            let reference = self.legacy_reference(i, &kind.name, r)?;
                            self.eval_ref(i, ctx, &reference)?
                        }
                        (None, Some(r)) => self.eval_ref(i, ctx, r)?,
                        (_, None) => match self.eval_expr(i, ctx, interp.expr)? {
                            plain @ Resolved::Plain(..) => plain,
                            Resolved::Template(_) => return Ok(None),
                            // A call never gives a host path or a bare secret.
                            Resolved::HostPath(_) | Resolved::Sealed(_) => {
                                return Err(self.passed_over(i, "E0303 or E0324").into());
                            }
                        },
                    };
                    match value {
                        Resolved::Plain(Value::Str(v), _) => text.push_str(&v),
                        // An integer written where it goes, with no string of its own
                        // (a mode is written in octal by `text_of`).
                        Resolved::Plain(Value::Int(n), ty) if ty != Ty::Mode => {
                            use std::fmt::Write as _;
                            write!(text, "{n}").expect("writing to a String never fails");
                        }
                        Resolved::Plain(v, ty) => text.push_str(&text_of(&v, &ty)),
                        Resolved::Sealed(_) => return Ok(None),
                        // A host path is never a value (E0303).
                        Resolved::HostPath(_) | Resolved::Template(_) => {
                            return Err(self.passed_over(i, "E0303").into());
                        }
                    }
                }
            }
        }
        Ok(Some(text))
    }

    /// What a legacy placeholder (`${kind:name}`) written in instance `i`'s module reads:
    /// the reference it stands for, as the checker read it (E0104 otherwise); or, for
    /// `${machine:fact}` in a module with no `host node` requirement, the placeholder's
    /// own reference, which the checker read as a fact of the node
    /// (`Reading::NodeFact`, LANGUAGE.md §5.6: an old form is read as what it stands for).
    fn legacy_reference(
        &mut self,
        i: InstanceId,
        kind: &str,
        r: &Reference,
    ) -> Evaluation<Reference> {
        let found = self
            .world()
            .module_of(i)
            .and_then(|m| m.scope.legacy_reference(kind, r));
        match found {
            Some(reference) => Ok(reference),
            None if kind == "machine" => Ok(r.clone()),
            None => Err(self.passed_over(i, "E0104").into()),
        }
    }

    /// Fact `fact` of the node instance `i` runs on, as a `host node` requirement reads
    /// it: its private name, or the mesh's names. A node with no private name was
    /// refused (E0501), which leaves its assignments out.
    fn node_fact_value(&mut self, i: InstanceId, fact: NodeFact) -> Evaluation {
        let w = self.world();
        let node = &w.nodes[w.instances[i].node];
        match fact {
            NodeFact::PrivateName => match node.private_name.clone() {
                Some(name) => Ok(Resolved::Plain(Value::Str(name), Ty::Hostname)),
                None => match Reported::among(&node.errors) {
                    Some(told) => Err(told.into()),
                    None => Err(self
                        .passed_over(i, "E0501 (a node's `private_name`)")
                        .into()),
                },
            },
            NodeFact::MeshNames => Ok(Resolved::Plain(
                Value::List(w.mesh_names.iter().cloned().map(Value::Str).collect()),
                Ty::List(Box::new(Ty::Hostname)),
            )),
        }
    }

    /// The parts of a string literal, every interpolation evaluated (legacy placeholders
    /// read as the new form they stand for) and every reference named.
    fn string_parts(
        &mut self,
        i: InstanceId,
        ctx: Ctx<'m>,
        s: &StringLit,
    ) -> Evaluation<Vec<TemplatePart>> {
        let (parts, _) = self.evaluated_parts(i, ctx, s)?;
        Ok(self.named(i, parts))
    }

    /// The parts of string literal `s`, every interpolation evaluated (legacy
    /// placeholders read as the new form they stand for), no reference named yet; and
    /// whether any is kept for the node (a secret, a call on one), without which the
    /// parts join into plain text. `Err` when a part makes no value (a host path).
    fn evaluated_parts<'s>(
        &mut self,
        i: InstanceId,
        ctx: Ctx<'m>,
        s: &'s StringLit,
    ) -> Evaluation<(Vec<Evaluated<'s>>, bool)> {
        let mut parts = Vec::with_capacity(s.parts.len());
        let mut kept = false;
        for p in &s.parts {
            match p {
                StrPart::Text(t) => parts.push(Evaluated::Text(String::from(&**t))),
                StrPart::Ref(_) | StrPart::Interp(_) => {
                    let Some(interp) = p.interp() else { continue };
                    let reference = match (interp.legacy, interp.reference()) {
                        (Some(kind), Some(r)) => {
                            Cow::Owned(self.legacy_reference(i, &kind.name, r)?)
                        }
                        (None, Some(r)) => Cow::Borrowed(r),
                        (_, None) => {
                            // Any other expression: a call, applied or kept.
                            match self.eval_expr(i, ctx, interp.expr)? {
                                Resolved::Plain(v, ty) => {
                                    parts.push(Evaluated::Text(into_text(v, &ty)))
                                }
                                Resolved::Template(inner) => {
                                    kept = true;
                                    parts.push(Evaluated::Parts(inner));
                                }
                                // A call never gives a host path or a bare secret.
                                Resolved::HostPath(_) | Resolved::Sealed(_) => {
                                    return Err(self.passed_over(i, "E0303 or E0324").into());
                                }
                            }
                            continue;
                        }
                    };
                    let value = self.eval_ref(i, ctx, &reference)?;
                    match value {
                        Resolved::Plain(..) => {}
                        Resolved::Sealed(_) => kept = true,
                        // A host path is never a value (E0303).
                        Resolved::HostPath(_) | Resolved::Template(_) => {
                            return Err(self.passed_over(i, "E0303").into());
                        }
                    }
                    parts.push(Evaluated::Ref(reference, value));
                }
            }
        }
        Ok((parts, kept))
    }

    /// `parts` as template parts, each reference named as the template names it.
    fn named(&self, i: InstanceId, parts: Vec<Evaluated<'_>>) -> Vec<TemplatePart> {
        let mut out = Vec::with_capacity(parts.len());
        for part in parts {
            match part {
                Evaluated::Text(t) => out.push(TemplatePart::Text(t)),
                Evaluated::Ref(reference, value) => out.push(TemplatePart::Ref {
                    name: self.reference_name(i, &reference),
                    value,
                }),
                Evaluated::Parts(inner) => out.extend(inner),
            }
        }
        out
    }

    /// What `reference` reads in instance `i`'s scope, as the checker decided it
    /// (`check::readings`): a requirement's field or an operator requirement's value, a
    /// loop variable's element or consumer, and inside `provides`, `consumer.*` and
    /// `given.*`. The loop variable's binding is this evaluation's: the innermost of the
    /// reference's first word bound for instance `i`.
    fn eval_ref(&mut self, i: InstanceId, ctx: Ctx<'m>, reference: &Reference) -> Evaluation {
        let Some(m) = self.world().module_of(i) else {
            // Only a module's definition holds a reference.
            return Err(self.passed_over(i, "E0106").into());
        };
        let reading = match self.reading(m, reference) {
            // Refused where the checker read it: the proof that it told why.
            Reading::Refused(told) => return Err(told.into()),
            // Unread by the checker, or reading nothing for a cause it told elsewhere in
            // the module (a contract the workspace lacks, a refused loop).
            Reading::NotRead | Reading::Unresolved => {
                return Err(self.passed_over(i, "E0103, E0104, E0105 or E0318").into());
            }
            reading => reading,
        };
        if matches!(
            reading,
            Reading::Loop(_) | Reading::Consumer(_) | Reading::Given { .. }
        ) {
            self.reads_consumer();
        }
        match reading {
            Reading::NodeFact(fact) => self.node_fact_value(i, fact),
            Reading::Loop(read) => {
                let bound = reference
                    .segments
                    .first()
                    .and_then(|first| super::loops::binding(self.bindings(), i, &first.name));
                let Some((var, _)) = bound else {
                    // The checker read it inside the loop's template, where it is bound.
                    return Err(self
                        .passed_over(i, "E0104 (a loop variable read outside its loop)")
                        .into());
                };
                self.eval_loop_read(i, var, read)
            }
            Reading::OperatorValue { req } => {
                // The place the checker's reading gives is in the module's scope.
                if m.scope.requirements.get_index(req as usize).is_none() {
                    return Err(self.passed_over(i, "E0104").into());
                }
                self.operator_memo(i, req).map(|(v, _)| v)
            }
            Reading::ContractField { req: r, field } => {
                let Some((&req, info)) = m.scope.requirements.get_index(r as usize) else {
                    return Err(self.passed_over(i, "E0104").into());
                };
                self.field_value_at(i, (r, req, info), field)
            }
            Reading::Consumer(field) => {
                let Ctx::Provides { consumer, .. } = ctx else {
                    return Err(self.passed_over(i, "E0318").into());
                };
                self.consumer_field(i, consumer, field)
            }
            Reading::Given { field } => {
                let Ctx::Provides {
                    consumer,
                    requirement,
                    ..
                } = ctx
                else {
                    return Err(self.passed_over(i, "E0318").into());
                };
                self.given_value_at(consumer, requirement, field)
            }
            // Answered above.
            Reading::NotRead | Reading::Refused(_) | Reading::Unresolved => {
                Err(self.passed_over(i, "E0104").into())
            }
        }
    }

    /// Field `field` of consumer `c`, read by instance `i` ([`consumer_text`]). Only a
    /// node's private name can be missing, and then the node's error was reported (a
    /// missing or invalid `private_name`), which leaves its assignments out.
    fn consumer_field(&mut self, i: InstanceId, c: InstanceId, field: ConsumerField) -> Evaluation {
        if let Some(v) = consumer_text(self.world(), c, field) {
            return Ok(v);
        }
        let w = self.world();
        match Reported::among(&w.nodes[w.instances[c].node].errors) {
            Some(told) => Err(told.into()),
            None => Err(self
                .passed_over(i, "E0501 (a node's `private_name`)")
                .into()),
        }
    }

    /// Field `f` (its place in the contract) of contract requirement `req` of instance
    /// `i`, the requirement already found (its place in the module's scope, its name,
    /// what it is): a reference's reading gives both places, so neither is looked up
    /// again by name.
    fn field_value_at(
        &mut self,
        i: InstanceId,
        (r, req, info): (u32, &'m str, &'m ReqInfo<'m>),
        f: u32,
    ) -> Evaluation {
        let found = info
            .contract
            .as_deref()
            .and_then(|c: &'m ContractInfo| c.fields.get_index(f as usize));
        let Some((field, fi)) = found else {
            // The checker's reading gives a field of the requirement's contract.
            return Err(self.passed_over(i, "E0103 or E0105").into());
        };
        if fi.given {
            // As `given_value`: a secret field has no plain value to read.
            if fi.secret {
                return Err(self.withheld(i));
            }
            return self.given_memo(i, r, f);
        }
        let w = self.world();
        let Some(answer) = w.answers[i].get(req) else {
            // Every requirement of an instance that is evaluated is answered, or refused
            // where it is not (the entries, placements and provider choice).
            return Err(self.unanswered_requirement(i));
        };
        match (answer, field.as_str()) {
            (Answer::Directory { path, .. }, "path") | (Answer::Access { path }, "path") => {
                Ok(Resolved::HostPath(path.clone()))
            }
            (Answer::Port { host_port, .. }, "host_port") => {
                Ok(Resolved::Plain(Value::Int(*host_port), Ty::Port))
            }
            (Answer::Node, field) => match NodeFact::of_field(field) {
                Some(fact) => self.node_fact_value(i, fact),
                // A field the `node` contract lacks (E0105).
                None => Err(self.passed_over(i, "E0105").into()),
            },
            (Answer::Identity, "login") => {
                Ok(Resolved::Plain(Value::Str(w.logins[i].clone()), Ty::String))
            }
            (Answer::Identity, "instance") => Ok(Resolved::Plain(
                Value::Str(w.instances[i].name.clone()),
                Ty::String,
            )),
            (Answer::Identity, "module") => Ok(Resolved::Plain(
                Value::Str(w.instances[i].module_name.clone()),
                Ty::String,
            )),
            (&Answer::Module { provider, .. }, _) => {
                // A secret field is a sealed reference; any other is the provider's
                // `provides` answer for this consumer, memoised.
                if fi.secret {
                    let key = w.secret_key(i, req, field);
                    return Ok(Resolved::Sealed(Box::new(SealedRef {
                        by: w.instance_ref(provider),
                        key,
                    })));
                }
                self.answer_memo(i, r, f)
            }
            // A requirement left unresolved was refused where it was answered so; any
            // other pair is a field the standard contract lacks (E0105).
            (Answer::Unresolved, _) => Err(self.unanswered_requirement(i)),
            // An optional requirement read outside `when`.
            (Answer::Absent, _) => Err(self.passed_over(i, "E0320").into()),
            _ => Err(self.passed_over(i, "E0105").into()),
        }
    }

    /// No value for a requirement of instance `i` that has no answer: it was refused
    /// where it was left so (an unplaced host requirement, a missing provider, ...). The
    /// refusal is instance `i`'s own ([`Evaluate::refusal`]); else the module's error
    /// (a requirement of an unknown contract has no answer).
    fn unanswered_requirement(&mut self, i: InstanceId) -> NoValue {
        match self.refusal(i) {
            Some(told) => told.into(),
            None => self.passed_over(i, "E0103").into(),
        }
    }

    /// No value for a given field declared secret of instance `i`'s requirement: its
    /// E0205, told in the contract, is among the module's errors, whose proof is carried
    /// where it is known; where it is not (the manifest builder, a resolver told of no
    /// error), the field still has no plain value ([`NoValue::Withheld`]).
    fn withheld(&self, i: InstanceId) -> NoValue {
        match self.module_error(i) {
            Some(told) => told.into(),
            None => NoValue::Withheld(Withheld(())),
        }
    }

    /// The answer to field `f` (its place in the contract) of module requirement `req`
    /// of `consumer`: a sealed reference for a secret field, else the provider's
    /// `provides` answer evaluated for this consumer, else the contract's default.
    fn module_answer_at(&mut self, consumer: InstanceId, req: &'m str, f: u32) -> Evaluation {
        let w = self.world();
        let Some(&Answer::Module { provider, .. }) = w.answers[consumer].get(req) else {
            // A loop runs over the consumers a provider answers.
            return Err(self.passed_over(consumer, "E0103").into());
        };
        let found = w
            .module_of(consumer)
            .and_then(|m| m.scope.requirements.get_full(req))
            .and_then(|(r, _, info)| {
                let contract: &'m ContractInfo = info.contract.as_deref()?;
                let (field, fi) = contract.fields.get_index(f as usize)?;
                Some((r, field, fi))
            });
        let Some((r, field, fi)) = found else {
            // A consumer answered so has this requirement, of a contract the workspace
            // has, whose field the checker's reading gives.
            return Err(self.passed_over(consumer, "E0104 or E0105").into());
        };
        if fi.secret {
            let key = w.secret_key(consumer, req, field);
            return Ok(Resolved::Sealed(Box::new(SealedRef {
                by: w.instance_ref(provider),
                key,
            })));
        }
        self.answer_memo(consumer, r as u32, f)
    }

    /// Given field `field` of contract requirement `req` of instance `i`: the
    /// assignment's value, else the definition's, else the contract's default, else
    /// refused (E0501). A definition's value that reads a requirement is checked once
    /// resolved (E0304, E0314).
    fn given_value(&mut self, i: InstanceId, req: &'m str, field: &str) -> Evaluation {
        let f = self
            .world()
            .requirement(i, req)
            .and_then(|info| info.contract.as_deref())
            .and_then(|c| c.fields.get_index_of(field));
        match f {
            Some(f) => self.given_value_at(i, req, f as u32),
            // Asked for by the names of the module's own scope and a standard contract.
            None => Err(self.passed_over(i, "E0103 or E0105").into()),
        }
    }

    /// [`Evaluate::given_value`] of field `f`, by its place in the requirement's
    /// contract.
    fn given_value_at(&mut self, i: InstanceId, req: &'m str, f: u32) -> Evaluation {
        let found = self
            .world()
            .module_of(i)
            .and_then(|m| m.scope.requirements.get_full(req))
            .and_then(|(r, _, info)| {
                let contract: &'m ContractInfo = info.contract.as_deref()?;
                Some((r, contract.fields.get_index(f as usize)?.1))
            });
        let Some((r, fi)) = found else {
            return Err(self.passed_over(i, "E0103, E0104 or E0105").into());
        };
        // One notion of taint: a field declared `secret` is secret here as it is to the
        // checker (`target_is_secret` in `check::expressions`), `given` or not. A given
        // secret field is refused (E0205) and has no plain value to read, from the
        // assignment, the definition or a default.
        if fi.secret {
            return Err(self.withheld(i));
        }
        self.given_memo(i, r as u32, f)
    }

    /// Given field `field` of requirement `req` of instance `i`, as text.
    fn given_text(&mut self, i: InstanceId, req: &'m str, field: &str) -> Evaluation<String> {
        match self.given_value(i, req, field)? {
            Resolved::Plain(v, ty) => Ok(into_text(v, &ty)),
            // A given field is plain: the checker refuses anything else (E0302, E0303).
            _ => Err(self.passed_over(i, "E0302 or E0303").into()),
        }
    }

    /// What `read` reads through loop binding `var` (see [`super::loops`]), in instance
    /// `i`'s definition.
    fn eval_loop_read(&mut self, i: InstanceId, var: usize, read: LoopReading) -> Evaluation {
        super::loops::eval_loop_read(self, i, var, read)
    }

    /// Renders `f` in instance `i`'s scope (see [`super::loops`]).
    fn eval_for(&mut self, i: InstanceId, ctx: Ctx<'m>, f: &ForExpr) -> Evaluation {
        super::loops::eval_for(self, i, ctx, f)
    }

    /// The name a template gives `reference` (see [`super::loops`]).
    fn reference_name(&self, i: InstanceId, reference: &Reference) -> String {
        super::loops::reference_name(self, i, reference)
    }
}

/// The evaluator of a phase that computes values (the placements, for a placed port's
/// protocol, and the values phase): it reads `world`, computes each memoised value into
/// `eval` on first demand, and refuses what does not resolve as the phase's refusals.
pub(crate) struct Evaluator<'e, 'r, 'm> {
    pub world: World<'e, 'm>,
    pub phase: &'e mut Phase<'r, 'm>,
    pub eval: &'e mut Eval<'m>,
}

impl<'r, 'm> std::ops::Deref for Evaluator<'_, 'r, 'm> {
    type Target = Phase<'r, 'm>;
    fn deref(&self) -> &Phase<'r, 'm> {
        self.phase
    }
}

impl<'m> std::ops::DerefMut for Evaluator<'_, '_, 'm> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.phase
    }
}

impl<'m> Evaluate<'m> for Evaluator<'_, '_, 'm> {
    fn world(&self) -> World<'_, 'm> {
        self.world
    }

    fn operator_memo(&mut self, i: InstanceId, r: u32) -> Evaluation<OperatorValue> {
        self.demand(Key::Operator(i, r))?;
        let memo = self.eval.values.operator(i, r);
        self.done_memo(i, memo)
    }

    fn given_memo(&mut self, i: InstanceId, r: u32, f: u32) -> Evaluation {
        self.demand(Key::Given(i, r, f))?;
        let memo = self.eval.values.given(i, r, f);
        self.done_memo(i, memo)
    }

    fn answer_memo(&mut self, consumer: InstanceId, r: u32, f: u32) -> Evaluation {
        self.demand(Key::Answer(consumer, r, f))?;
        let memo = self.eval.values.answer(consumer, r, f);
        self.done_memo(consumer, memo)
    }

    fn missed(&mut self, i: InstanceId, code: &'static str) -> Reported {
        let module = self.module_of(i).map_or("", |m| m.name.as_str());
        let d = self.checker_miss(i, module, code);
        self.refuse(i, d)
    }

    fn refusal(&self, i: InstanceId) -> Option<Reported> {
        self.phase.refusal(i)
    }

    fn bindings(&self) -> &Vec<super::loops::Binding<'m>> {
        &self.eval.loop_bindings
    }

    fn bindings_mut(&mut self) -> &mut Vec<super::loops::Binding<'m>> {
        &mut self.eval.loop_bindings
    }

    fn reads_consumer(&mut self) {
        self.eval.read_consumer = true;
    }

    fn module_error(&self, i: InstanceId) -> Option<Reported> {
        self.module_of(i).and_then(|m| self.checker_error(m))
    }

    /// Read on first need: the values phase evaluates expressions of few modules.
    fn reading(&self, m: &'m LoadedModule<'m>, reference: &Reference) -> Reading {
        self.specs_of(m).readings.of(reference)
    }
}

impl<'m> Evaluator<'_, '_, 'm> {
    /// A memo [`Evaluator::demand`] answered `Ok` for: done, so `Some` (a value the
    /// values phase found missing is its own miss, told through the gate).
    fn done_memo<T>(&mut self, i: InstanceId, memo: Option<Evaluation<T>>) -> Evaluation<T> {
        match memo {
            Some(v) => v,
            None => Err(self
                .passed_over(i, "E0313 (a value demanded and not computed)")
                .into()),
        }
    }

    /// The provider's `provides` answer to field `field` of `consumer`'s module
    /// requirement `req`, evaluated for this consumer, else the contract's default.
    ///
    /// An answer that reads nothing of the consumer (`host = here.private_name`) is the
    /// same for every consumer: it is evaluated for the first and kept for the others,
    /// unless its evaluation met a cycle or was deferred (each consumer then evaluates it,
    /// as it would without the copy). Whatever else evaluating it refuses is refused once,
    /// by the memoised values it reads, so the copy changes no diagnostic.
    fn compute_answer(
        &mut self,
        consumer: InstanceId,
        (r, f): (u32, u32),
        at: FieldAt<'m>,
    ) -> Evaluation {
        let (req, info, field, fi) = at;
        let Some(&Answer::Module { provider, .. }) = self.world.answers[consumer].get(req) else {
            // Only a module requirement's answer is demanded (`field_value_at`,
            // `module_answer_at`, `check_answer`).
            return Err(self.passed_over(consumer, "E0103").into());
        };
        let Some(contract) = info.contract.as_deref() else {
            return Err(self.passed_over(consumer, "E0103").into());
        };
        let contract: &'m ContractInfo = contract;
        let provides = self
            .module_of(provider)
            .and_then(|pm| pm.provides.get(contract.name.as_str()).copied());
        match provides {
            Some(p) => match p.answers.iter().find(|a| a.field.name == *field) {
                Some(answer) => {
                    let shared = (provider, std::ptr::from_ref(contract) as usize, f);
                    if let Some(v) = self.eval.shared_answers.get(&shared) {
                        return v.clone();
                    }
                    let outer = std::mem::replace(&mut self.eval.read_consumer, false);
                    let cycles = self.eval.told_cycle.len();
                    let v = self
                        .eval_expr(
                            provider,
                            Ctx::Provides {
                                consumer,
                                requirement: req,
                            },
                            &answer.value,
                        )
                        .and_then(|v| match v {
                            Resolved::Plain(v, _) => Ok(Resolved::Plain(v, fi.ty.clone())),
                            // A secret or host path in a plain answer (E0302, E0303).
                            _ => Err(self.passed_over(provider, "E0302 or E0303").into()),
                        });
                    let alone = !self.eval.read_consumer
                        && self.eval.told_cycle.len() == cycles
                        && self.eval.deferred.is_none();
                    self.eval.read_consumer |= outer;
                    if alone {
                        self.eval.shared_answers.insert(shared, v.clone());
                    }
                    v
                }
                None => match &fi.default {
                    Some(d) => Ok(Resolved::Plain(d.clone(), fi.ty.clone())),
                    None => Err(self
                        .unanswered(consumer, (r, req, info), provider, fi)
                        .into()),
                },
            },
            None => Err(self
                .unanswered(consumer, (r, req, info), provider, fi)
                .into()),
        }
    }

    /// Refuses `consumer` for field `fi` of its requirement `req`, which `provider`
    /// leaves unanswered with no default (E0310), and returns the proof; unless the
    /// provider is left out, on the proof of why (its module's error, or its refusal:
    /// the consumer then waits for it, E0514). Told once, as the answer is memoised, and
    /// where it is computed: every answer is demanded by the values phase
    /// (`check_answer`), so the refusal does not wait on a reader.
    fn unanswered(
        &mut self,
        consumer: InstanceId,
        (_, req, _): (u32, &'m str, &'m ReqInfo<'m>),
        provider: InstanceId,
        fi: &'m crate::check::registry::FieldInfo,
    ) -> Reported {
        let Some(pm) = self.module_of(provider) else {
            // A provider of no module (a seat's holder assigned a module the workspace
            // lacks): refused when the mesh was named, and the consumer waits for it.
            return self.passed_over(provider, "E0106");
        };
        if let Some(told) = self.checker_error(pm) {
            return told;
        }
        if let Some(told) = self.phase.refusal(provider) {
            return told;
        }
        let contract = self
            .requirement(consumer, req)
            .and_then(|info| info.contract_name())
            .unwrap_or("");
        let (who, provider_who) = (self.who(consumer), self.who(provider));
        let rule = Unanswered::ToConsumer {
            provider: &provider_who,
            contract,
            requirement: req,
            who: &who,
            field: &fi.name,
            module: &pm.name,
            provider_head: self.head(provider),
        };
        let d = self.at(self.head(consumer), rule);
        self.refuse(consumer, d)
    }

    /// Whether `key` is being computed (`Some(false)`), done (`Some(true)`) or not yet
    /// asked for (`None`).
    fn memo_done(&self, key: Key) -> Option<bool> {
        self.eval.values.done(key)
    }

    /// E0313 for `key`, once; its proof every time.
    fn report_cycle_of(&mut self, key: Key) -> Reported {
        if let Some(&told) = self.eval.told_cycle.get(&key) {
            return told;
        }
        let told = match key {
            Key::Operator(i, r) => match self.requirement_at(i, r) {
                Some((req, _)) => self.report_cycle(i, req),
                None => self.passed_over(i, "E0104"),
            },
            Key::Given(i, r, f) | Key::Answer(i, r, f) => match self.field_at(i, r, f) {
                Some((req, _, field, _)) => self.report_cycle(i, &format!("{req}.{field}")),
                None => self.passed_over(i, "E0104 or E0105"),
            },
        };
        self.eval.told_cycle.insert(key, told);
        told
    }

    /// The requirement at index `r` of instance `i`'s module scope (a [`Key`]'s).
    fn requirement_at(&self, i: InstanceId, r: u32) -> Option<(&'m str, &'m ReqInfo<'m>)> {
        let (&req, info) = self
            .module_of(i)?
            .scope
            .requirements
            .get_index(r as usize)?;
        Some((req, info))
    }

    /// Requirement `r` and field `f` of its contract (a [`Key`]'s), each with its
    /// declaration.
    fn field_at(&self, i: InstanceId, r: u32, f: u32) -> Option<FieldAt<'m>> {
        let (req, info) = self.requirement_at(i, r)?;
        let contract: &'m ContractInfo = info.contract.as_deref()?;
        let (field, fi) = contract.fields.get_index(f as usize)?;
        Some((req, info, field.as_str(), fi))
    }

    /// Computes `key` into its memo unless it is there. Values read one another to any
    /// depth a definition writes (a chain of 50,000 requirements, each narrowed by the
    /// next), so the call stack is never that deep: past [`STACK_DEPTH`] nested values
    /// the innermost is deferred, everything under way is unwound (its memo entries
    /// dropped, nothing reported), and the outermost call computes the deferred value
    /// first, then asks again. Each value is still computed once in the end, and the
    /// stack holds at most [`STACK_DEPTH`] values at any time; the deferred ones wait on
    /// a stack on the heap. A value that reads one of those waiting values reads itself
    /// (E0313), exactly as one found under way on the call stack does.
    ///
    /// `Ok` when `key`'s memo is done; else the proof of its cycle, or
    /// [`NoValue::Deferred`] while the stack unwinds (what is under way is dropped and
    /// made again).
    pub(super) fn demand(&mut self, key: Key) -> Result<(), NoValue> {
        let deferred = NoValue::Deferred(Deferred(()));
        match self.memo_done(key) {
            Some(true) => return Ok(()),
            Some(false) => return Err(self.report_cycle_of(key).into()),
            None => {}
        }
        if self.eval.deferred.is_some() {
            return Err(deferred); // unwinding: the outermost call asks again
        }
        if self.eval.depth == 0 {
            self.drive(key);
            return Ok(());
        }
        if self.eval.waiting.contains(&key) {
            return Err(self.report_cycle_of(key).into());
        }
        if self.eval.depth >= STACK_DEPTH {
            self.eval.deferred = Some(key);
            return Err(deferred);
        }
        match self.compute_key(key) {
            true => Ok(()),
            false => Err(deferred),
        }
    }

    /// The outermost demand: computes `root`, and first whatever it had to defer.
    fn drive(&mut self, root: Key) {
        // Most values need nothing deferred: computed at once, with no stack on the heap.
        // While `root` is computed its memo entry says it is under way, so it need not
        // wait; once something under it is deferred, it waits as below.
        if self.compute_key(root) {
            return;
        }
        let mut stack = vec![root];
        self.eval.waiting.insert(root);
        if let Some(deeper) = self.eval.deferred.take() {
            self.eval.waiting.insert(deeper);
            stack.push(deeper);
        }
        while let Some(&top) = stack.last() {
            if self.memo_done(top) == Some(true) || self.compute_key(top) {
                stack.pop();
                self.eval.waiting.remove(&top);
            } else if let Some(deeper) = self.eval.deferred.take() {
                self.eval.waiting.insert(deeper);
                stack.push(deeper);
            }
        }
    }

    /// Computes `key` one level deeper; false when something under it was deferred
    /// (its memo entry is dropped again, to be computed once that is known).
    fn compute_key(&mut self, key: Key) -> bool {
        self.eval.depth += 1;
        let done = match key {
            Key::Operator(i, r) => {
                self.eval.values.set_operator(i, r, Some(Memo::InProgress));
                let v = match self.requirement_at(i, r) {
                    Some((req, info)) => self.compute_operator_value(i, req, info),
                    None => Err(self.passed_over(i, "E0104").into()),
                };
                let done = self.eval.deferred.is_none();
                match done {
                    true => self.eval.values.set_operator(i, r, Some(Memo::Done(v))),
                    false => self.eval.values.set_operator(i, r, None),
                };
                done
            }
            Key::Given(i, r, f) => {
                self.eval.values.set_given(i, r, f, Some(Memo::InProgress));
                let v = match self.field_at(i, r, f) {
                    Some(at) => self.compute_given(i, at),
                    None => Err(self.passed_over(i, "E0104 or E0105").into()),
                };
                let done = self.eval.deferred.is_none();
                match done {
                    true => self.eval.values.set_given(i, r, f, Some(Memo::Done(v))),
                    false => self.eval.values.set_given(i, r, f, None),
                };
                done
            }
            Key::Answer(c, r, f) => {
                self.eval.values.set_answer(c, r, f, Some(Memo::InProgress));
                let v = match self.field_at(c, r, f) {
                    Some(at) => self.compute_answer(c, (r, f), at),
                    None => Err(self.passed_over(c, "E0104 or E0105").into()),
                };
                let done = self.eval.deferred.is_none();
                match done {
                    true => self.eval.values.set_answer(c, r, f, Some(Memo::Done(v))),
                    false => self.eval.values.set_answer(c, r, f, None),
                };
                done
            }
        };
        self.eval.depth -= 1;
        done
    }

    fn compute_given(&mut self, i: InstanceId, at: FieldAt<'m>) -> Evaluation {
        let (req, info, field, fi) = at;
        // A key's field is found in the module's scope, of a contract it has.
        let (Some(m), Some(contract)) = (self.module_of(i), info.contract.as_deref()) else {
            return Err(self.passed_over(i, "E0103").into());
        };
        // Most assignments write no given field: no key hashed for them.
        let givens = &self.world.settings[i].givens;
        if let Some(written) = (!givens.is_empty())
            .then(|| givens.get(&(req, field)))
            .flatten()
        {
            // Refused where it was written (E0513): no value, on that proof.
            return match written {
                Ok(v) => Ok(Resolved::Plain(v.clone(), fi.ty.clone())),
                Err(told) => Err((*told).into()),
            };
        }
        if let Some(expr) = info.sets.get(field) {
            let value = match self.eval_expr(i, Ctx::Definition, expr)? {
                Resolved::Plain(v, _) => v,
                _ => return Err(self.passed_over(i, "E0302 or E0303").into()),
            };
            if let Some(unfit) = unfit(&fi.ty, &value, || info.field_constraint(fi)) {
                // A literal is judged where it is written, by the checker (E0304, E0314,
                // with the help), and its module is left out for it.
                if Value::from_literal(expr).is_some() {
                    return Err(self.passed_over(i, "E0304 or E0314").into());
                }
                let who = self.who(i);
                let rule = ValueRefused::Set {
                    requirement: req,
                    field,
                    who: &who,
                    value: &value,
                    unfit,
                    set: (&m.path, expr.span()),
                };
                let d = self.at(self.head(i), rule);
                return Err(self.refuse(i, d).into());
            }
            return Ok(Resolved::Plain(value, fi.ty.clone()));
        }
        if let Some(default) = &fi.default {
            return Ok(Resolved::Plain(default.clone(), fi.ty.clone()));
        }
        let rule = Missing::GivenField {
            requirement: req,
            field,
            instance: &self.instances[i].name,
            node: self.node_name(i),
            contract: &contract.name,
            kind: info.kind.map(|k| k.as_str()).unwrap_or("module"),
            decl: (&m.path, info.ast.span),
            field_decl: (&contract.file, fi.span),
        };
        let d = self.at(self.head(i), rule);
        Err(self.refuse(i, d).into())
    }

    /// Evaluates every requirement of every instance, so each missing value is refused
    /// even where nothing reads it: operator values, given fields, and every plain field
    /// a provider answers (checked against the consumer's narrowing, E0304, E0314).
    pub(super) fn evaluate_requirements(&mut self) {
        // Every instance's own values first, so a provider's refusals are known before
        // its answers are checked for its consumers.
        // By place, not by name: what `operator_value` and `given_value` ask for each.
        // Each is only computed here (its memo is read later), so none is copied out.
        for i in self.instances.ids() {
            self.interrupt();
            let Some(m) = self.module_of(i) else { continue };
            for (r, info) in m.scope.requirements.values().enumerate() {
                if info.operator.is_some() {
                    // Refused or not, the value is memoised; what refuses it told why.
                    let _computed = self.demand(Key::Operator(i, r as u32));
                    continue;
                }
                let Some(contract) = info.contract.as_deref() else {
                    continue;
                };
                for (f, fi) in contract.fields.values().enumerate() {
                    // A secret given field has no plain value (see `given_value`).
                    if fi.given && !fi.secret {
                        let _computed = self.demand(Key::Given(i, r as u32, f as u32));
                    }
                }
            }
        }
        for i in self.instances.ids() {
            self.interrupt();
            let Some(k) = self.known(i) else { continue };
            for (r, (&req, info)) in k.module.scope.requirements.iter().enumerate() {
                let Some(contract) = info.contract.as_deref() else {
                    continue;
                };
                let Some(Answer::Module { provider, .. }) = self.world.answers[i].get(req).cloned()
                else {
                    continue;
                };
                for (f, fi) in contract.fields.values().enumerate() {
                    if fi.given || fi.secret {
                        continue;
                    }
                    self.check_answer(k, (r as u32, req, info), provider, (f as u32, fi));
                }
            }
        }
    }

    /// Checks the answer of `provider` to field `f` of requirement `r` of `k` (neither
    /// given nor secret) against the consumer's narrowing (E0304, E0314). The answer is
    /// evaluated whatever the provider is, and a field it leaves unanswered is refused
    /// then (E0310, [`Evaluator::unanswered`]); it is what `module_answer_at` gives,
    /// found by the places at hand rather than by name again, and read where it is
    /// memoised rather than copied.
    fn check_answer(
        &mut self,
        k: KnownInstance<'m>,
        (r, req, info): (u32, &'m str, &'m ReqInfo<'m>),
        provider: InstanceId,
        (f, fi): (u32, &'m crate::check::registry::FieldInfo),
    ) {
        let i = k.id;
        // Demanded from the top of the stack: done, whatever it gives.
        let _computed = self.demand(Key::Answer(i, r, f));
        let Some(pm) = self.module_of(provider) else {
            let _told = self.passed_over(provider, "E0106");
            return;
        };
        // A provider left out, on the proof of why: this consumer waits for it (E0514).
        if let Some(_told) = self
            .checker_error(pm)
            .or_else(|| self.phase.refusal(provider))
        {
            return;
        }
        let refusal = match self.eval.values.answer_ref(i, r, f) {
            Some(Ok(Resolved::Plain(v, _))) => {
                unfit(&fi.ty, v, || info.field_constraint(fi)).map(|unfit| {
                    let (who, provider_who) = (self.who(i), self.who(provider));
                    let rule = ValueRefused::Answer {
                        provider: &provider_who,
                        requirement: req,
                        field: &fi.name,
                        who: &who,
                        value: v,
                        unfit,
                        provider_head: self.head(provider),
                        decl: (&k.module.path, info.ast.span),
                    };
                    self.at(self.head(i), rule)
                })
            }
            // A secret or host path, passed over where the answer was evaluated.
            Some(Ok(_)) => None,
            // No value, on the proof of why: told where the value it reads was refused
            // (on whichever instance), or here as E0310 when it is unanswered.
            Some(Err(NoValue::Refused(_told))) => None,
            // A given secret field read in the answer, with no proof of its E0205 at
            // hand: no value, as `given_value_at` rules (a resolver told of no error).
            Some(Err(NoValue::Withheld(_))) => None,
            // Demanded from the top of the stack, an answer is done, never put off.
            Some(Err(NoValue::Deferred(_))) | None => {
                let _told = self.passed_over(i, "E0313 (an answer demanded and not computed)");
                None
            }
        };
        if let Some(d) = refusal {
            let _refused = self.refuse(i, d);
        }
    }
}

/// Whether the values phase takes `value` for a field of type `ty` whose effective
/// constraint is `constraint`: [`unfit`] finds no fault. What a check view asks of a given
/// field's literal before it writes another in its place (`db::module_check_view`), so
/// the judgment it keeps is this phase's own.
pub(crate) fn fits(ty: &Ty, value: &Value, constraint: &crate::check::types::Constraint) -> bool {
    unfit(ty, value, || Cow::Borrowed(constraint)).is_none()
}

/// Why `value` is refused for a field of type `ty` whose refinements `constraint` gives:
/// not a valid value of the type (E0314), else outside a refinement (E0304).
fn unfit<'t, 'c>(
    ty: &'t Ty,
    value: &Value,
    constraint: impl FnOnce() -> std::borrow::Cow<'c, crate::check::types::Constraint>,
) -> Option<Unfit<'t>> {
    match validate_literal(ty, value) {
        Err(why) => Some(Unfit::Invalid { ty, why }),
        Ok(()) => constraint()
            .check(value)
            .map(|b| Unfit::Breach(b.to_string())),
    }
}

/// A part of a string literal, evaluated, its reference not yet named: naming one costs
/// a copy of its dotted name, which only a template keeps.
pub(crate) enum Evaluated<'s> {
    Text(String),
    Ref(Cow<'s, Reference>, Resolved),
    /// A call kept for the node, its parts named already.
    Parts(Vec<TemplatePart>),
}

/// Parts joined into a value: a template when any part is sealed or a call kept for the
/// node, else plain text. A part that is neither (a host path) makes no value.
pub(super) fn finish_parts(parts: Vec<TemplatePart>) -> Option<Resolved> {
    let sealed = parts.iter().any(|p| {
        matches!(
            p,
            TemplatePart::Ref {
                value: Resolved::Sealed(_),
                ..
            } | TemplatePart::Call { .. }
        )
    });
    if sealed {
        return Some(Resolved::Template(parts));
    }
    let mut text = String::new();
    for p in &parts {
        match p {
            TemplatePart::Text(t) => text.push_str(t),
            TemplatePart::Ref {
                value: Resolved::Plain(v, ty),
                ..
            } => text.push_str(&text_of(v, ty)),
            TemplatePart::Ref { .. } | TemplatePart::Call { .. } => return None,
        }
    }
    Some(Resolved::Plain(Value::Str(text), Ty::String))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_requirement_and_field_has_a_slot_of_its_own() {
        // Three instances: requirements with 2, 0 and 3 fields; none (an unknown module);
        // one requirement with 1 field.
        let layout = Layout::new([vec![2, 0, 3], vec![], vec![1]]);
        let id = InstanceId::from_index;
        assert_eq!(layout.requirements(), 4);
        assert_eq!(layout.fields(), 6);
        let mut seen = Vec::new();
        for (i, fields) in [(0, vec![2, 0, 3]), (2, vec![1])] {
            for (r, &n) in fields.iter().enumerate() {
                assert!(layout.requirement(id(i), r as u32).is_some());
                for f in 0..n {
                    seen.push(layout.field(id(i), r as u32, f).unwrap());
                }
                // One past the contract's fields is no slot, not the next requirement's.
                assert_eq!(layout.field(id(i), r as u32, n), None);
            }
            assert_eq!(layout.requirement(id(i), fields.len() as u32), None);
        }
        assert_eq!(seen, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(layout.requirement(id(1), 0), None);
        assert_eq!(layout.requirement(id(3), 0), None);
        assert_eq!(layout.field(id(0), u32::MAX, u32::MAX), None);
        let reqs: Vec<_> = [(0, 0), (0, 1), (0, 2), (2, 0)]
            .iter()
            .map(|&(i, r)| layout.requirement(id(i), r).unwrap())
            .collect();
        assert_eq!(reqs, vec![0, 1, 2, 3]);
    }

    /// A memo keeps why a value is missing at no cost: the proof is zero-sized, and a
    /// slot of the memo tables is no larger than the `Option` it replaced.
    #[test]
    fn a_missing_value_keeps_its_reason_in_no_more_room() {
        assert_eq!(std::mem::size_of::<Reported>(), 0);
        assert_eq!(
            std::mem::size_of::<Evaluation>(),
            std::mem::size_of::<Option<Resolved>>()
        );
        assert_eq!(
            std::mem::size_of::<Evaluation<OperatorValue>>(),
            std::mem::size_of::<Option<OperatorValue>>()
        );
    }

    #[test]
    fn modes_are_octal_text() {
        assert_eq!(text_of(&Value::Int(0o750), &Ty::Mode), "0750");
        assert_eq!(text_of(&Value::Int(8), &Ty::Int), "8");
        assert_eq!(
            json_of(&Value::Int(0o640), &Ty::Mode),
            serde_json::json!("0640")
        );
        assert_eq!(json_of(&Value::Int(8), &Ty::Int), serde_json::json!(8));
    }

    #[test]
    fn templates_keep_references_and_escape_dollars() {
        let parts = vec![
            TemplatePart::Text("cost $5 ".into()),
            TemplatePart::Ref {
                name: "db.host".into(),
                value: Resolved::Plain(Value::Str("beta".into()), Ty::Hostname),
            },
        ];
        let (text, refs) = render_template(&parts);
        assert_eq!(text, "cost $$5 ${db.host}");
        assert_eq!(
            refs["db.host"],
            TemplateRef::Value {
                value: "beta".into()
            }
        );
    }
}
