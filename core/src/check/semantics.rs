//! The semantic model of one module: what the checker learns of it, kept.
//!
//! [`module_semantics`] is where a module's scope is decided ([`ScopeTable::build`], the
//! one place) and every reference of the module is resolved: the checker reads the
//! module once, and what it learns (the scope, each reference's reading and type, its
//! diagnostics) is held in a [`ModuleSemantics`] instead of being thrown away. The
//! database keeps it per module (`db::module_semantics`); the file's diagnostics, the
//! resolver's scope and the editor's lookups ([`ModuleSemantics::at`]) read it.

use super::Cx;
use super::meaning::{ConsumerField, LoopRead, Read};
use super::registry::{HostContract, ProviderKind, Registry};
use super::scope::ScopeTable;
use super::types::Ty;
use crate::diagnostics::Diagnostic;
use crate::span::{FilePath, Span};
use crate::syntax::ast;
use std::sync::Arc;

/// What the words of a reference name ([`Read`], owned): requirements and loop
/// variables by index, the words by their place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// The first word names nothing in scope.
    Nothing,
    /// Requirement `req` itself (by its index in the scope).
    Requirement { req: u32 },
    /// An operator requirement's value.
    OperatorValue { req: u32 },
    /// A field of a contract requirement; `known` when the contract has it.
    ContractField { req: u32, field: Span, known: bool },
    /// `consumer` inside `provides`, and the word after it.
    Consumer {
        word: Option<Span>,
        field: Option<ConsumerField>,
    },
    /// `given` inside `provides`, and the field after it.
    Given { field: Option<Span>, known: bool },
    /// Through loop variable `var` (the checker's index of the loop), declared at
    /// `decl` (the variable's name in its `for`).
    Loop {
        var: u32,
        decl: Span,
        read: LoopReads,
    },
}

/// What a reference reads through a loop variable ([`LoopRead`], owned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopReads {
    Whole,
    Meta {
        word: Span,
        field: ConsumerField,
    },
    Given {
        keyword: Span,
        field: Option<Span>,
        known: bool,
    },
    Answer {
        field: Span,
        known: bool,
    },
    Nothing,
}

impl Reads {
    /// What `read` names, owned; `decl` tells where a loop variable is declared.
    pub fn of(read: &Read<'_, '_>, decl: impl FnOnce(usize) -> Span) -> Reads {
        match *read {
            Read::Nothing => Reads::Nothing,
            Read::Requirement { req } => Reads::Requirement { req: req as u32 },
            Read::OperatorValue { req } => Reads::OperatorValue { req: req as u32 },
            Read::ContractField { req, field, info } => Reads::ContractField {
                req: req as u32,
                field: field.span,
                known: info.is_some(),
            },
            Read::Consumer { word, field } => Reads::Consumer {
                word: word.map(|w| w.span),
                field,
            },
            Read::Given { field, info } => Reads::Given {
                field: field.map(|f| f.span),
                known: info.is_some(),
            },
            Read::Loop { var, read } => Reads::Loop {
                var: var as u32,
                decl: decl(var),
                read: match read {
                    LoopRead::Whole => LoopReads::Whole,
                    LoopRead::Meta { word, field } => LoopReads::Meta {
                        word: word.span,
                        field,
                    },
                    LoopRead::Given {
                        keyword,
                        field,
                        info,
                    } => LoopReads::Given {
                        keyword: keyword.span,
                        field: field.map(|f| f.span),
                        known: info.is_some(),
                    },
                    LoopRead::Answer { field, info } => LoopReads::Answer {
                        field: field.span,
                        known: info.is_some(),
                    },
                    LoopRead::Nothing => LoopReads::Nothing,
                },
            },
        }
    }
}

/// One reference of the module, resolved by the checker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The reference as written (a legacy placeholder's: the placeholder's name).
    pub span: Span,
    /// The reference's place among its module's ([`ast::Reference::id`]): where the
    /// table of readings (`check::readings`) holds what it reads.
    pub id: u32,
    /// What its words name.
    pub reads: Reads,
    /// The type of the value read; [`Ty::Error`] when it reads nothing.
    pub ty: Ty,
    /// Whether it reads nothing (the checker reported why, or the cause was reported
    /// where it is written).
    pub refused: bool,
}

/// What the checker learned of one module.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModuleSemantics {
    /// The module's scope, decided once.
    pub scope: Arc<ScopeTable>,
    /// Every reference the checker read, by place; empty unless the model was built
    /// with them (`db::module_references`, the language server's).
    pub references: Vec<Resolved>,
    /// The module's diagnostics (its checks and its literals'), by place.
    pub diagnostics: Vec<Diagnostic>,
    /// Its containers lowered to typed specs, as its checks decided them
    /// (`check::specs`): what resolution builds containers from.
    pub specs: Arc<super::specs::ModuleSpecs>,
}

impl ModuleSemantics {
    /// The reference written over `offset` (its first character to just past its last).
    pub fn at(&self, offset: u32) -> Option<&Resolved> {
        let after = self.references.partition_point(|r| r.span.start <= offset);
        self.references[..after]
            .iter()
            .rev()
            .find(|r| offset <= r.span.end)
    }
}

/// The scope of `module`, decided against `registry`: the one place a module's
/// requirements are looked up and typed (the database's `module_scope` asks it, once per
/// module; so does [`super::check_items_in`], which keeps no database).
pub fn decide_scope(module: &ast::Module, registry: &Registry) -> ScopeTable {
    ScopeTable::build(module, registry)
}

/// The semantic model of `module`, written in `path`, in `scope` (its scope as
/// [`decide_scope`] decided it): its checks run (`std`: the file is the standard library's; `syntax`: the
/// file's syntax errors, see [`super::check_items_in`]). The table of its references
/// is kept only with `keep_references`: `meshc` reads none of it.
pub fn module_semantics(
    path: &FilePath,
    module: &ast::Module,
    scope: Arc<ScopeTable>,
    registry: &Registry,
    std: bool,
    syntax: &super::SyntaxErrors,
    keep_references: bool,
) -> ModuleSemantics {
    let mut cx = Cx::new(path, registry, std, syntax);
    let (mut references, specs) =
        super::module::check_module(&mut cx, module, &scope, keep_references);
    super::definition_rules::check_module_literals(&mut cx, module);
    let mut diagnostics = cx.sink.diagnostics;
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    // A reference read twice (its names again after a refusal) is one entry: the first.
    references.sort_by_key(|r| (r.span.start, r.span.end));
    references.dedup_by_key(|r| r.span);
    ModuleSemantics {
        scope,
        references,
        diagnostics,
        specs: Arc::new(specs),
    }
}

// What the editor asks of a module or a mesh besides its references. Built only when the
// language server asks (`db::module_names`, `db::module_requirements`,
// `db::mesh_semantics`): `meshc check` builds none of it.

/// One requirement of a module by name, as an assignment or a completion reads it: its
/// provider kind, its contract's name, whether it is optional, and the given fields its
/// narrowing sets (an assignment may not set them again, E0513). Holds no place in the
/// text, so an edit that moves only positions leaves it equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequirementName {
    pub name: String,
    pub kind: Option<ProviderKind>,
    /// The provider kind as written, when it names none (shown, never read).
    pub kind_written: Option<String>,
    pub contract: Option<String>,
    pub optional: bool,
    pub fixed: Vec<String>,
}

impl RequirementName {
    /// The host contract this requirement reads (`host port`, `host directory`), if any.
    pub fn host_contract(&self) -> Option<HostContract> {
        if self.kind != Some(ProviderKind::Host) {
            return None;
        }
        self.contract.as_deref().and_then(HostContract::from_name)
    }

    /// `kind contract`, as a completion's detail shows it.
    pub fn describe(&self) -> String {
        let kind = self
            .kind
            .map(|k| k.as_str().to_string())
            .or_else(|| self.kind_written.clone());
        match (kind, &self.contract) {
            (Some(k), Some(c)) => format!("{k} {c}"),
            (Some(k), None) => k,
            _ => String::new(),
        }
    }
}

/// A module's requirements by name, in source order (the first of a duplicated name, as
/// the scope decides them: [`ScopeTable::build`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModuleRequirements {
    pub requirements: Vec<RequirementName>,
}

impl ModuleRequirements {
    /// The requirements of `module`.
    pub fn of(module: &ast::Module) -> ModuleRequirements {
        let mut requirements: Vec<RequirementName> = Vec::new();
        for r in module.requirements() {
            if requirements.iter().any(|q| q.name == r.name.name.as_str()) {
                continue;
            }
            let (contract, fixed) = match &r.body {
                ast::RequirementBody::Contract {
                    contract,
                    narrowing,
                    ..
                } => (
                    contract.as_ref().map(|c| c.name.to_string()),
                    narrowing
                        .iter()
                        .filter(|n| matches!(n.kind, ast::NarrowingKind::Set(_)))
                        .map(|n| n.field.name.to_string())
                        .collect(),
                ),
                ast::RequirementBody::Operator(_) => (None, Vec::new()),
            };
            let kind = r
                .kind
                .as_ref()
                .and_then(|k| ProviderKind::from_name(&k.name));
            requirements.push(RequirementName {
                name: r.name.name.to_string(),
                kind,
                kind_written: r
                    .kind
                    .as_ref()
                    .filter(|_| kind.is_none())
                    .map(|k| k.name.to_string()),
                contract,
                optional: r.optional.is_some(),
                fixed,
            });
        }
        ModuleRequirements { requirements }
    }

    /// Requirement `name`, with its index in the scope.
    pub fn get(&self, name: &str) -> Option<(usize, &RequirementName)> {
        self.requirements
            .iter()
            .enumerate()
            .find(|(_, r)| r.name == name)
    }
}

/// What a loop variable runs over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopOver {
    /// `consumers CONTRACT`: the contract as written (`None` when missing).
    Consumers(Option<String>),
    /// A list-typed reference, as written (`db.hosts`).
    List(String),
    /// Nothing written (reported at the loop).
    Missing,
}

/// A `for` loop of a module: its variable, where it is declared and read, what it runs
/// over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopName {
    pub var: String,
    /// The variable's name in its `for`.
    pub decl: Span,
    /// The template, where the variable is in scope (`None` when missing).
    pub template: Option<Span>,
    pub over: LoopOver,
    /// Where what it runs over is written: the contract's name, or the list's reference.
    pub over_span: Option<Span>,
}

/// Where the names of a module are in scope: its requirements, its loops, its `provides`
/// blocks. What completion and hover ask ([`ModuleNames::scope_at`]) instead of reading
/// the tree for what a name means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleNames {
    pub module: String,
    /// The module, `module` to its closing brace.
    pub span: Span,
    pub requirements: Arc<ModuleRequirements>,
    /// Every loop, a loop before the loops inside it.
    pub loops: Vec<LoopName>,
    /// Each `provides` block and its contract's name.
    pub provides: Vec<(Span, String)>,
    /// The containers and jobs: name, whether a job, its block.
    pub containers: Vec<(String, bool, Span)>,
    /// Each requirement's doc comment, by its index in `requirements`.
    pub requirement_docs: Vec<Option<String>>,
}

impl ModuleNames {
    /// The names of `module` (its requirements as `requirements` holds them).
    pub fn of(module: &ast::Module, requirements: Arc<ModuleRequirements>) -> ModuleNames {
        let loops = module_loops(module)
            .into_iter()
            .map(|f| LoopName {
                var: f.var.name.to_string(),
                decl: f.var.span,
                template: f.template.as_ref().map(|t| t.span),
                over: match &f.iterable {
                    Some(ast::Iterable::Consumers { contract, .. }) => {
                        LoopOver::Consumers(contract.as_ref().map(|c| c.name.to_string()))
                    }
                    Some(ast::Iterable::List(r)) => LoopOver::List(r.dotted()),
                    None => LoopOver::Missing,
                },
                over_span: match &f.iterable {
                    Some(ast::Iterable::Consumers { contract, .. }) => {
                        contract.as_ref().map(|c| c.span)
                    }
                    Some(ast::Iterable::List(r)) => Some(r.span()),
                    None => None,
                },
            })
            .collect();
        ModuleNames {
            module: module.name.name.to_string(),
            span: module.span,
            loops,
            provides: module
                .provides()
                .map(|p| (p.span, p.contract.name.to_string()))
                .collect(),
            containers: module
                .containers()
                .map(|c| (c.name.name.to_string(), c.job, c.span))
                .collect(),
            requirement_docs: requirements
                .requirements
                .iter()
                .map(|q| {
                    module
                        .requirements()
                        .find(|r| r.name.name.as_str() == q.name)
                        .and_then(|r| r.docs.text().map(str::to_string))
                })
                .collect(),
            requirements,
        }
    }

    /// What is in scope at byte `offset`: the requirements, the loop variables whose
    /// template holds it (outermost first), the contract of the `provides` block around it.
    pub fn scope_at(&self, offset: u32) -> ScopeAt<'_> {
        ScopeAt {
            requirements: &self.requirements,
            loops: self
                .loops
                .iter()
                .filter(|l| {
                    l.template
                        .is_some_and(|t| t.start < offset && offset <= t.end)
                })
                .collect(),
            provides: self
                .provides
                .iter()
                .find(|(span, _)| span.start < offset && offset <= span.end)
                .map(|(_, c)| c.as_str()),
        }
    }

    /// The loop declared at `decl`.
    pub fn loop_at(&self, decl: u32) -> Option<&LoopName> {
        self.loops.iter().find(|l| l.decl.start == decl)
    }

    /// The container or job whose block holds `offset`.
    pub fn container_at(&self, offset: u32) -> Option<&(String, bool, Span)> {
        self.containers
            .iter()
            .find(|(_, _, s)| s.start < offset && offset < s.end)
    }
}

/// The names in scope at one place of a module ([`ModuleNames::scope_at`]).
#[derive(Debug, Clone)]
pub struct ScopeAt<'n> {
    pub requirements: &'n ModuleRequirements,
    /// The loop variables in scope, outermost first.
    pub loops: Vec<&'n LoopName>,
    /// The contract of the `provides` block being written, if any.
    pub provides: Option<&'n str>,
}

/// What the first word of a reference names where it is written: the checker's order
/// (`meaning::meaning`): the innermost loop variable of that name, then a requirement,
/// then `consumer` and `given` inside `provides` ([`super::scope::head`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadReads<'n> {
    Loop(&'n LoopName),
    Requirement(usize, &'n RequirementName),
    Consumer,
    /// `given`, and the contract of the `provides` block.
    Given(&'n str),
    Nothing,
}

impl<'n> ScopeAt<'n> {
    /// What `word`, the first word of a reference, names here.
    pub fn head(&self, word: &str) -> HeadReads<'n> {
        if let Some(l) = self.loops.iter().rev().find(|l| l.var == word) {
            return HeadReads::Loop(l);
        }
        let found = self.requirements.get(word);
        match super::scope::head(word, |_| found.is_some(), self.provides.is_some()) {
            super::scope::Head::Requirement => {
                let (i, r) = found.expect("a requirement");
                HeadReads::Requirement(i, r)
            }
            super::scope::Head::Consumer => HeadReads::Consumer,
            super::scope::Head::Given => HeadReads::Given(self.provides.unwrap_or_default()),
            _ => HeadReads::Nothing,
        }
    }

    /// The loop variables in scope, innermost first, a name shadowed by an inner loop
    /// left out.
    pub fn loop_names(&self) -> Vec<&'n LoopName> {
        let mut out: Vec<&LoopName> = Vec::new();
        for l in self.loops.iter().rev() {
            if out.iter().all(|o| o.var != l.var) {
                out.push(l);
            }
        }
        out
    }
}

/// Every `for` of a module, a loop before the loops inside it: whole values, list
/// elements, call arguments and loops inside interpolations (`"${for n in …}"`), also
/// inside another loop's template.
pub fn module_loops(m: &ast::Module) -> Vec<&ast::ForExpr> {
    use ast::{ContainerEntryKind as C, Expr, ModuleEntry, NarrowingKind, RequirementBody};
    fn walk<'a>(e: &'a Expr, out: &mut Vec<&'a ast::ForExpr>) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match e {
                Expr::For(f) => {
                    out.push(f);
                    if let Some(t) = &f.template {
                        stack.extend(t.interpolations().map(|i| i.expr));
                    }
                }
                Expr::List(items, _) => stack.extend(items.iter()),
                Expr::Call(c) => stack.extend(c.args.iter()),
                Expr::Str(s) => stack.extend(s.interpolations().map(|i| i.expr)),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for entry in &m.entries {
        match entry {
            ModuleEntry::Requires(r) => match &r.body {
                RequirementBody::Operator(op) => {
                    if let Some(d) = &op.default {
                        walk(d, &mut out);
                    }
                }
                RequirementBody::Contract { narrowing, .. } => {
                    for n in narrowing {
                        if let NarrowingKind::Set(e) = &n.kind {
                            walk(e, &mut out);
                        }
                    }
                }
            },
            ModuleEntry::Container(c) => {
                for e in &c.entries {
                    match &e.kind {
                        C::Env(env) => env.iter().for_each(|x| walk(&x.value, &mut out)),
                        C::Command(v) | C::ImagePaths(v) => walk(v, &mut out),
                        C::User(u) => walk(&u.uid, &mut out),
                        C::Health(h) => {
                            walk(&h.argv, &mut out);
                            h.options.iter().for_each(|o| walk(&o.value, &mut out))
                        }
                        C::Secret(file) | C::File(file) => walk(&file.value, &mut out),
                        C::Mount(mount) => walk(&mount.source, &mut out),
                        C::Image(_) | C::Publish(_) | C::After(_) => {}
                    }
                }
            }
            ModuleEntry::Provides(p) => p.answers.iter().for_each(|a| walk(&a.value, &mut out)),
            ModuleEntry::Slug(..) => {}
        }
    }
    out
}

/// The new form each of `placeholders` (legacy `${kind:…}` of `module`: the whole
/// placeholder's span, its kind, its reference) stands for, written `${db.host}`, as the
/// module's scope (`table`, [`decide_scope`]) tells, the rule W0402 shows
/// ([`super::scope::ModuleScope::legacy_replacement`]). One that stands for nothing that
/// can be told is left out. What the editor's rewrite asks.
pub fn legacy_rewrites<'p>(
    module: &ast::Module,
    table: &ScopeTable,
    placeholders: impl IntoIterator<Item = (Span, &'p str, &'p ast::Reference)>,
) -> Vec<(Span, String)> {
    let scope = super::scope::ModuleScope::of(module, table);
    placeholders
        .into_iter()
        .filter_map(|(span, kind, reference)| {
            let new = scope.legacy_replacement(kind, reference)?;
            Some((span, format!("${{{new}}}")))
        })
        .collect()
}

/// What a name written in a mesh reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeshReads {
    /// The module an assignment assigns.
    Module,
    /// A node of the mesh.
    Node,
    /// An instance of the mesh, on `node` (empty when no node tells: an assignment that
    /// names none, or a name assigned on several nodes and pinned without one).
    Instance { node: String },
    /// A requirement of `module`, the module an assignment assigns (`known`: the module
    /// has one of that name).
    Requirement { module: String, known: bool },
    /// A field of `contract`, the contract of the requirement a given entry sets.
    Field { contract: String },
    /// A seat.
    Seat,
    /// A word of the language where it stands (`short` on an assignment whose module has
    /// no requirement of that name).
    Keyword,
}

/// One name written in a mesh, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshResolved {
    pub span: Span,
    /// The name as written.
    pub name: String,
    pub reads: MeshReads,
    /// Whether the name is declared here (a node's, an instance's) rather than used.
    pub declares: bool,
    /// The instance an assignment declares by naming its module (`assign postgres to
    /// beta` declares instance `postgres` at the module's name).
    pub implicit: bool,
}

/// What the names of one mesh read, resolved once: the mesh's own names (nodes,
/// instances), the modules it assigns, their requirements and their contracts' fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MeshSemantics {
    /// By place (an implicit instance after the module written at the same place).
    pub references: Vec<MeshResolved>,
    /// The instances the mesh's assignments declare, in source order.
    pub instances: Vec<MeshInstance>,
}

/// An instance an assignment declares: its name, its module, its node (`None` when the
/// assignment names none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshInstance {
    pub name: String,
    pub module: String,
    pub node: Option<String>,
}

impl MeshSemantics {
    /// Every name written over `span`.
    pub fn at_span(&self, span: Span) -> impl Iterator<Item = &MeshResolved> {
        let first = self
            .references
            .partition_point(|r| r.span.start < span.start);
        self.references[first..]
            .iter()
            .take_while(move |r| r.span.start == span.start)
            .filter(move |r| r.span == span)
    }
}

/// The names of `mesh` resolved; `requirements_of` tells a module's requirements (`None`:
/// no module of that name).
pub fn mesh_semantics(
    mesh: &ast::Mesh,
    requirements_of: impl Fn(&str) -> Option<Arc<ModuleRequirements>>,
) -> MeshSemantics {
    use ast::{AssignEntryKind as K, MeshEntry};
    let mut out: Vec<MeshResolved> = Vec::new();
    let mut push = |id: &ast::Ident, reads: MeshReads, declares: bool, implicit: bool| {
        out.push(MeshResolved {
            span: id.span,
            name: id.name.to_string(),
            reads,
            declares,
            implicit,
        })
    };
    // Where each instance lives, for pins that leave the node out.
    let mut instance_nodes: Vec<(&str, Vec<&str>)> = Vec::new();
    for a in mesh.assigns() {
        let name = a.instance_name().name.as_str();
        let node = a.node.as_ref().map_or("", |n| n.name.as_str());
        match instance_nodes.iter_mut().find(|(n, _)| *n == name) {
            Some((_, nodes)) => nodes.push(node),
            None => instance_nodes.push((name, vec![node])),
        }
    }
    let instance = |name: &ast::Ident, node: Option<&ast::Ident>| MeshReads::Instance {
        node: match node {
            Some(n) => n.name.to_string(),
            None => match instance_nodes
                .iter()
                .find(|(n, _)| *n == name.name.as_str())
                .map(|(_, nodes)| nodes.as_slice())
            {
                Some([only]) => (*only).to_string(),
                _ => String::new(),
            },
        },
    };
    for entry in &mesh.entries {
        match entry {
            MeshEntry::Node(n) => push(&n.name, MeshReads::Node, true, false),
            MeshEntry::Seat(s) => {
                push(&s.seat, MeshReads::Seat, false, false);
                if let Some(i) = &s.instance {
                    push(i, instance(i, s.node.as_ref()), false, false);
                }
                if let Some(n) = &s.node {
                    push(n, MeshReads::Node, false, false);
                }
            }
            MeshEntry::Assign(a) => {
                let module = a.module.name.as_str();
                push(&a.module, MeshReads::Module, false, false);
                let declared = MeshReads::Instance {
                    node: a
                        .node
                        .as_ref()
                        .map_or(String::new(), |n| n.name.to_string()),
                };
                match &a.instance {
                    Some(i) => push(i, declared, true, false),
                    None => push(&a.module, declared, true, true),
                }
                if let Some(n) = &a.node {
                    push(n, MeshReads::Node, false, false);
                }
                let reqs = requirements_of(module);
                let found = |id: &ast::Ident| {
                    reqs.as_ref()
                        .and_then(|r| r.get(id.name.as_str()).map(|(_, r)| r.clone()))
                };
                let req = |id: &ast::Ident| MeshReads::Requirement {
                    module: module.to_string(),
                    known: found(id).is_some(),
                };
                for e in &a.entries {
                    match &e.kind {
                        K::Value { name, .. } => {
                            if name.name == "short" && found(name).is_none() {
                                push(name, MeshReads::Keyword, false, false);
                            } else {
                                push(name, req(name), false, false);
                            }
                        }
                        K::Given {
                            requirement, field, ..
                        } => {
                            push(requirement, req(requirement), false, false);
                            if let Some(contract) = found(requirement).and_then(|r| r.contract) {
                                push(field, MeshReads::Field { contract }, false, false);
                            }
                        }
                        K::Pin {
                            requirement,
                            instance: i,
                            node,
                        } => {
                            push(requirement, req(requirement), false, false);
                            push(i, instance(i, node.as_ref()), false, false);
                            if let Some(n) = node {
                                push(n, MeshReads::Node, false, false);
                            }
                        }
                        K::Absent { requirement } => {
                            push(requirement, req(requirement), false, false)
                        }
                        K::Place {
                            requirement, node, ..
                        } => {
                            push(requirement, req(requirement), false, false);
                            if let Some(n) = node {
                                push(n, MeshReads::Node, false, false);
                            }
                        }
                        K::KeepNetwork { .. } | K::Genesis { .. } => {}
                    }
                }
            }
        }
    }
    out.sort_by_key(|r| (r.span.start, r.implicit));
    let instances = mesh
        .assigns()
        .map(|a| MeshInstance {
            name: a.instance_name().name.to_string(),
            module: a.module.name.to_string(),
            node: a.node.as_ref().map(|n| n.name.to_string()),
        })
        .collect();
    MeshSemantics {
        references: out,
        instances,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, Database};

    const TEXT: &str = r#"
module app {
  requires db: module postgres
  requires workers: operator int = 4
  container app {
    image "nginx:1.27"
    env {
      HOST = db.host
      COUNT = "${workers}"
      NOPE = db.hots
    }
  }
}
"#;

    /// The model holds what the checker learned: every reference it read, its reading
    /// and its type, found by place; and the file's diagnostics are the model's.
    #[test]
    fn the_model_keeps_each_reference_its_reading_and_its_type() {
        let (database, ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(TEXT))]);
        let file = ws.files(&database)[1];
        let model = db::module_references(&database, ws, file, 0);
        // The file's checks keep none: `meshc` reads only the diagnostics.
        let lean_model = db::module_semantics(&database, ws, file, 0);
        assert!(lean_model.references.is_empty());
        assert_eq!(lean_model.diagnostics, model.diagnostics);
        let at = |needle: &str| {
            let offset = TEXT.find(needle).unwrap() as u32;
            model.at(offset + 1).expect("a reference there").clone()
        };
        let host = at("db.host");
        assert_eq!(host.ty, Ty::Hostname);
        assert!(!host.refused);
        assert!(matches!(
            host.reads,
            Reads::ContractField {
                req: 0,
                known: true,
                ..
            }
        ));
        let workers = at("workers}");
        assert_eq!(workers.ty, Ty::Int);
        assert_eq!(workers.reads, Reads::OperatorValue { req: 1 });
        let typo = at("db.hots");
        assert!(typo.refused);
        assert_eq!(typo.ty, Ty::Error);
        // Nothing is read between references.
        assert!(model.at(TEXT.find("image").unwrap() as u32).is_none());
        // The refusal is the model's diagnostic, and the file's.
        assert_eq!(model.diagnostics.len(), 1, "{:?}", model.diagnostics);
        let checked = db::check_file(&database, ws, file);
        assert_eq!(*checked, model.diagnostics);
        // The scope is decided once: the model's and resolution's are one.
        let scope = db::module_scope_named(&database, ws, "app").unwrap();
        assert!(Arc::ptr_eq(&scope, &model.scope));
        assert!(Arc::ptr_eq(&scope, &lean_model.scope));
        assert_eq!(scope.requirements.len(), 2);
    }

    const NAMES: &str = r#"
module proxy {
  requires c: module postgres
  requires http: host port { container = 80 }
  provides route { url = "https://${given.public_name}/${consumer.login}" }
  container caddy {
    image "caddy:2.8"
    publish http
    env { DB = c.host }
    file "/etc/caddy/Caddyfile" = for c in consumers route "${c.login}\n"
  }
}
"#;

    /// What the editor asks at a place: the names in scope there and what a first word
    /// reads, in the checker's order (a loop variable before a requirement of its name;
    /// `consumer` and `given` inside `provides` only).
    #[test]
    fn scope_at_a_place_follows_the_checkers_order() {
        let (database, ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(NAMES))]);
        let file = ws.files(&database)[1];
        let names = db::module_names(&database, file, 0).expect("a module");
        assert_eq!(names.module, "proxy");
        let at = |needle: &str| NAMES.find(needle).unwrap() as u32 + 1;
        // Inside the loop's template `c` is the loop variable, over `route`'s consumers.
        let inside = names.scope_at(at("c.login"));
        match inside.head("c") {
            HeadReads::Loop(l) => {
                assert_eq!(l.over, LoopOver::Consumers(Some("route".into())));
                assert_eq!(names.loop_at(l.decl.start), Some(l));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(inside.loop_names().len(), 1);
        assert_eq!(inside.head("consumer"), HeadReads::Nothing);
        // Outside it, `c` is the requirement, of contract `postgres`.
        let env = names.scope_at(at("c.host"));
        match env.head("c") {
            HeadReads::Requirement(0, r) => assert_eq!(r.contract.as_deref(), Some("postgres")),
            other => panic!("{other:?}"),
        }
        assert!(env.loops.is_empty());
        assert_eq!(env.head("given"), HeadReads::Nothing);
        assert_eq!(env.head("nope"), HeadReads::Nothing);
        // Inside `provides`, `given` and `consumer` read the consumer being answered.
        let provides = names.scope_at(at("given.public_name"));
        assert_eq!(provides.head("given"), HeadReads::Given("route"));
        assert_eq!(provides.head("consumer"), HeadReads::Consumer);
        // The host contracts are told by the model, not by matching strings.
        let (_, http) = names.requirements.get("http").unwrap();
        assert_eq!(http.host_contract(), Some(HostContract::Port));
        assert_eq!(http.describe(), "host port");
        assert_eq!(
            names.container_at(at("publish")).map(|c| c.0.as_str()),
            Some("caddy")
        );
    }

    const MESH: &str = r#"
mesh lab {
  node a { private_name = "a.lab.internal" }
  node b { private_name = "b.lab.internal" }
  assign app to a {
    db from pg
    route.public_name = "x.example"
    short = "x"
  }
  assign pg to b
}
"#;

    const APP: &str = r#"
module app {
  requires db: module postgres
  requires route: module route
  container app { image "nginx:1.27" }
}
module pg {
  provides postgres { host = "pg" }
  container pg { image "postgres:16" }
}
"#;

    /// A mesh's names are resolved once, in the core: the requirements of the module an
    /// assignment assigns, their contracts' fields, the instances by their node. An edit
    /// that moves only positions in a module leaves the mesh's model as it was (the same
    /// one, not rebuilt); renaming a requirement changes it.
    #[test]
    fn a_meshs_names_are_resolved_once_and_kept_across_an_edit_that_renames_nothing() {
        use salsa::Setter as _;
        let (mut database, ws) = Database::with_files([
            (FilePath::from("app.mesh"), Arc::from(APP)),
            (FilePath::from("lab.mesh"), Arc::from(MESH)),
        ]);
        let files = ws.files(&database).clone();
        let (app, lab) = (files[1], files[2]);
        let model = db::mesh_semantics(&database, ws, lab, 0);
        let reads = |model: &MeshSemantics, needle: &str| {
            let start = MESH.find(needle).unwrap() as u32;
            model
                .references
                .iter()
                .find(|r| r.span.start == start && !r.implicit)
                .map(|r| r.reads.clone())
        };
        assert_eq!(
            reads(&model, "db from"),
            Some(MeshReads::Requirement {
                module: "app".into(),
                known: true
            })
        );
        assert_eq!(
            reads(&model, "pg\n"),
            Some(MeshReads::Instance { node: "b".into() })
        );
        assert_eq!(
            reads(&model, "public_name"),
            Some(MeshReads::Field {
                contract: "route".into()
            })
        );
        assert_eq!(reads(&model, "short"), Some(MeshReads::Keyword));
        let implicit: Vec<_> = model.references.iter().filter(|r| r.implicit).collect();
        assert_eq!(implicit.len(), 2, "{implicit:?}");
        // A line above the module: positions move, names do not.
        let moved: Arc<str> = Arc::from(format!("\n\n{APP}"));
        app.set_text(&mut database).to(moved);
        let again = db::mesh_semantics(&database, ws, lab, 0);
        assert!(Arc::ptr_eq(&model, &again), "the mesh's model was rebuilt");
        // A requirement renamed: the mesh's `db` now names none.
        let renamed: Arc<str> = Arc::from(APP.replace("requires db:", "requires data:"));
        app.set_text(&mut database).to(renamed);
        let renamed = db::mesh_semantics(&database, ws, lab, 0);
        assert_eq!(
            reads(&renamed, "db from"),
            Some(MeshReads::Requirement {
                module: "app".into(),
                known: false
            })
        );
    }

    /// The editor's rewrite of a legacy placeholder is read in the module's scope: a
    /// `${machine:…}` fact reads the module's `host node` requirement, whatever its name;
    /// one that stands for nothing that can be told (no such requirement) is left out.
    #[test]
    fn legacy_rewrites_are_read_in_the_models_scope() {
        let text = r#"
module app {
  requires db: module postgres
  requires box: host node
  container app {
    image "nginx:1.27"
    env {
      HOST = "${binding:db.host}"
      NAME = "${machine:hostname}"
    }
  }
}
"#;
        let (database, ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(text))]);
        let file = ws.files(&database)[1];
        let parsed = db::parse_file(&database, file);
        let mut placeholders = Vec::new();
        let ast::Item::Module(module) = &parsed.file.items[0] else {
            panic!("a module");
        };
        for interp in module
            .containers()
            .flat_map(|c| c.entries.iter())
            .filter_map(|e| match &e.kind {
                ast::ContainerEntryKind::Env(env) => Some(env.iter()),
                _ => None,
            })
            .flatten()
            .filter_map(|e| match &e.value {
                ast::Expr::Str(s) => Some(s.interpolations()),
                _ => None,
            })
            .flatten()
        {
            if let (Some(kind), Some(reference)) = (interp.legacy, interp.reference()) {
                placeholders.push((interp.span, kind.name.to_string(), reference.clone()));
            }
        }
        assert_eq!(placeholders.len(), 2);
        let rewrites = db::legacy_rewrites(
            &database,
            ws,
            file,
            0,
            placeholders.iter().map(|(s, k, r)| (*s, k.as_str(), r)),
        );
        let new: Vec<&str> = rewrites.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(new, ["${db.host}", "${box.private_name}"]);
        // Without a `host node` requirement the fact stands for nothing that can be told.
        let lean = text.replace("  requires box: host node\n", "");
        let (database, ws) =
            Database::with_files([(FilePath::from("a.mesh"), Arc::from(lean.as_str()))]);
        let file = ws.files(&database)[1];
        let rewrites = db::legacy_rewrites(
            &database,
            ws,
            file,
            0,
            placeholders.iter().map(|(s, k, r)| (*s, k.as_str(), r)),
        );
        assert_eq!(rewrites.len(), 1, "{rewrites:?}");
        // An item that is no module rewrites nothing.
        assert!(db::legacy_rewrites(&database, ws, file, 7, std::iter::empty()).is_empty());
    }
}
