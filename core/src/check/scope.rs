//! What names mean inside one module: its requirements, their contracts and narrowed
//! constraints, and what a `req.field` reference reads. Shared by the checker (which
//! reports what does not resolve) and the resolver (which evaluates what does).

use super::meaning::{Contract, Form, LoopForm, LoopRefusal, Names, Read, meaning};
use super::registry::{
    ContractInfo, FieldInfo, HostContract, MeshContract, ProviderKind, Registry,
};
use super::types::{Constraint, Ty};
use crate::base::name_map::NameMap;
use crate::span::{FilePath, Span};
use crate::syntax::ast::{self, Expr, NarrowingKind, Reference, Requirement, RequirementBody};
use std::sync::Arc;

/// What the first word of a reference names. This is the one rule every reader of a
/// reference follows (the checker's [`ModuleScope::lookup`] and its fast path, the
/// language server's index and completion): a requirement of the module first, so a
/// requirement may be called `consumer`; then, inside `provides` only, `consumer` and
/// `given`; anything else names nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// A requirement of the module.
    Requirement,
    /// `consumer`, inside `provides`: the consumer being answered.
    Consumer,
    /// `given`, inside `provides`: what the consumer gave.
    Given,
    /// `consumer` or `given` outside `provides` (E0318).
    OutsideProvides,
    /// No requirement of that name (E0104).
    Unknown,
}

/// The fields of `consumer` inside `provides`, all strings.
pub const CONSUMER_FIELDS: &[&str] = &["login", "instance", "module"];

/// What `first`, the first word of a reference, names in a module whose requirements
/// `is_requirement` tells, inside a `provides` block or not. Needs no registry, so the
/// language server's index asks it without depending on any contract.
pub fn head(first: &str, is_requirement: impl FnOnce(&str) -> bool, in_provides: bool) -> Head {
    if is_requirement(first) {
        return Head::Requirement;
    }
    match (first, in_provides) {
        ("consumer", true) => Head::Consumer,
        ("given", true) => Head::Given,
        ("consumer" | "given", false) => Head::OutsideProvides,
        _ => Head::Unknown,
    }
}

/// An operator requirement's type, secrecy and constraint (its type's, refined), as its
/// module's scope decided them once ([`ScopeTable::build`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorFacts {
    pub ty: Ty,
    pub secret: bool,
    pub constraint: Constraint,
}

/// An operator requirement's type, refinements and default: its facts (read through
/// `Deref`: `op.ty`, `op.constraint`) shared with the scope's table rather than copied,
/// since a scope is made for every module checked and again for every module resolved.
#[derive(Debug, Clone)]
pub struct OperatorInfo<'a> {
    facts: Arc<OperatorFacts>,
    pub default: Option<&'a Expr>,
}

impl std::ops::Deref for OperatorInfo<'_> {
    type Target = OperatorFacts;

    fn deref(&self) -> &OperatorFacts {
        &self.facts
    }
}

/// One requirement of a module, its contract looked up.
#[derive(Debug, Clone)]
pub struct ReqInfo<'a> {
    pub ast: &'a Requirement,
    /// The provider kind, when it is one of the four.
    pub kind: Option<ProviderKind>,
    /// The host contract of a host requirement ([`ReqFacts::host`]).
    host: Option<HostContract>,
    /// The mesh contract of a mesh requirement ([`ReqFacts::mesh`]).
    mesh: Option<MeshContract>,
    /// The contract, for module, host and mesh requirements whose contract exists.
    pub contract: Option<Arc<ContractInfo>>,
    /// For an operator requirement.
    pub operator: Option<OperatorInfo<'a>>,
    /// Given fields the definition sets (`owner = 1000`), in source order.
    pub sets: Fields<'a, &'a Expr>,
    /// Refinements the definition adds, by field.
    pub narrowed: Fields<'a, Vec<&'a ast::Refinement>>,
}

/// A few values by field name, in source order: what a requirement's narrowing sets or
/// refines. A requirement narrows a handful of fields at most, so a list searched in
/// order is smaller and as fast as a hash table.
#[derive(Debug, Clone)]
pub struct Fields<'a, V>(Vec<(&'a str, V)>);

impl<V> Default for Fields<'_, V> {
    fn default() -> Self {
        Fields(Vec::new())
    }
}

impl<'a, V> Fields<'a, V> {
    /// The value of field `name`.
    pub fn get(&self, name: &str) -> Option<&V> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Whether field `name` has a value.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Whether no field has a value.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of field `name`, `make` inserting it when there is none.
    fn get_or_insert_with(&mut self, name: &'a str, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.0.iter().position(|(n, _)| *n == name) {
            Some(at) => at,
            None => {
                self.0.push((name, make()));
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }

    /// Every field and its value, in source order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &V)> {
        self.0.iter().map(|(n, v)| (*n, v))
    }
}

impl<'a> ReqInfo<'a> {
    /// The requirement's name.
    pub fn name(&self) -> &'a str {
        &self.ast.name.name
    }

    /// Whether the requirement is optional: a module requirement written `NAME?`
    /// (LANGUAGE.md §12.2). A `?` on any other kind is refused (E0321) and means nothing.
    pub fn is_optional(&self) -> bool {
        self.ast.optional.is_some() && self.kind == Some(ProviderKind::Module)
    }

    /// What the requirement is to [`meaning`]: an operator value, or a contract's fields
    /// (the registry's contract, or unresolved when it has none).
    pub fn form(&self) -> Form<'_> {
        match (&self.operator, &self.contract) {
            (Some(_), _) => Form::Operator,
            (None, Some(c)) => Form::Contract(Contract::Known(c)),
            (None, None) => Form::Contract(Contract::Unresolved),
        }
    }

    /// The contract's name as written, when the requirement names one.
    pub fn contract_name(&self) -> Option<&'a str> {
        self.ast.contract_name()
    }

    /// The host contract the requirement names, when it is a host requirement of one.
    pub fn host_contract(&self) -> Option<HostContract> {
        self.host
    }

    /// The mesh contract the requirement names, when it is a mesh requirement of one.
    pub fn mesh_contract(&self) -> Option<MeshContract> {
        self.mesh
    }

    /// The effective constraint of `field`: the contract's, narrowed by this requirement.
    /// Most fields are not narrowed: theirs is the contract's own, borrowed (a large mesh
    /// asks for it once per answer to every consumer).
    pub fn field_constraint<'f>(&self, field: &'f FieldInfo) -> std::borrow::Cow<'f, Constraint> {
        let Some(refs) = self.narrowed.get(field.name.as_str()) else {
            return std::borrow::Cow::Borrowed(&field.constraint);
        };
        let mut c = field.constraint.clone();
        let owned: Vec<ast::Refinement> = refs.iter().map(|r| (*r).clone()).collect();
        c.refine(&owned);
        std::borrow::Cow::Owned(c)
    }
}

/// The requirements of one module.
#[derive(Debug, Clone)]
pub struct ModuleScope<'a> {
    pub module: &'a ast::Module,
    pub requirements: Requirements<'a>,
}

/// A module's requirements by name, in source order (see [`NameMap`]: a module has a
/// handful, and a scope is made for every module checked and every module resolved).
pub type Requirements<'a> = NameMap<'a, ReqInfo<'a>>;

/// What a reference reads.
#[derive(Debug, Clone, PartialEq)]
pub enum RefTarget {
    /// A field of a contract requirement: `db.host`.
    Field {
        requirement: String,
        field: FieldInfo,
        /// Where the field was declared (for "declared secret here").
        contract_file: FilePath,
    },
    /// An operator requirement's own value: `workers`.
    Operator {
        requirement: String,
        ty: Ty,
        secret: bool,
        /// The requirement's span, where a secret operator value is declared.
        span: Span,
    },
    /// `consumer.login`, `consumer.instance`, `consumer.module` inside `provides`.
    Consumer(String),
    /// `given.FIELD` inside `provides`: what the consumer set.
    Given(FieldInfo),
}

impl RefTarget {
    /// The type of the value read.
    pub fn ty(&self) -> Ty {
        match self {
            RefTarget::Field { field, .. } | RefTarget::Given(field) => field.ty.clone(),
            RefTarget::Operator { ty, .. } => ty.clone(),
            RefTarget::Consumer(_) => Ty::String,
        }
    }
}

/// Why a reference does not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefError {
    /// The first segment names no requirement (E0104).
    UnknownRequirement {
        name: String,
        span: Span,
        suggestion: Option<String>,
    },
    /// The field is not in the contract (E0105).
    UnknownField {
        requirement: String,
        contract: String,
        field: String,
        span: Span,
        suggestion: Option<String>,
    },
    /// `req` alone, where a field is needed (E0105).
    MissingField {
        requirement: String,
        contract: String,
        span: Span,
    },
    /// A field read further (`db.host.x`), or a field of an operator value (E0105).
    TooDeep { span: Span, what: String },
    /// `consumer` or `given` outside `provides` (E0318).
    OutsideProvides { span: Span, word: String },
    /// A list element's loop variable `var` read with a field (E0105).
    ElementField { var: usize, span: Span },
    /// A consumer's loop variable `var` read as something it does not have (E0105).
    ConsumerLoop {
        var: usize,
        contract: String,
        span: Span,
        why: LoopRefusal,
    },
    /// Nothing to tell: the requirement's contract is unknown or broken, or the loop's
    /// iterable was refused (already reported elsewhere).
    Unresolved,
}

/// Where a reference is read: the provides block of `contract`, a provides block of a
/// contract the workspace lacks (E0103, told at the block), or anywhere else.
#[derive(Debug, Clone, Copy)]
pub enum RefContext<'c> {
    Definition,
    Provides(&'c ContractInfo),
    /// `consumer` and its fields are in place; `given` reads nothing, silently.
    ProvidesUnknown,
}

/// The names a module's scope holds, read in `ctx`, with no loop variable: the
/// [`Names`] [`ModuleScope::lookup`] and the resolver read.
pub struct InScope<'s, 'a, 'c> {
    pub scope: &'s ModuleScope<'a>,
    pub ctx: RefContext<'c>,
}

impl<'s, 'a: 's, 'c> Names<'s> for InScope<'s, 'a, 'c>
where
    'c: 's,
{
    fn loop_var(&self, _: &str) -> Option<(usize, LoopForm<'s>)> {
        None
    }

    fn requirement(&self, word: &str) -> Option<(usize, Form<'s>)> {
        let (idx, _, r) = self.scope.requirements.get_full(word)?;
        Some((idx, r.form()))
    }

    fn provides(&self) -> Option<Contract<'s>> {
        match self.ctx {
            RefContext::Definition => None,
            RefContext::Provides(c) => Some(Contract::Known(c)),
            RefContext::ProvidesUnknown => Some(Contract::Unresolved),
        }
    }

    fn closest_requirement(&self, word: &str) -> Option<String> {
        crate::diagnostics::closest(word, self.scope.requirements.keys().copied())
            .map(str::to_string)
    }
}

/// What a module's scope decides of one requirement, owned: the contract looked up in
/// the registry, an operator's type and refinements read. Holds no place in the text,
/// so an edit that moves only positions leaves it equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReqFacts {
    /// The requirement's place among the module's requirements (`Module::requirements`).
    pub ordinal: u32,
    pub kind: Option<ProviderKind>,
    pub contract: Option<Arc<ContractInfo>>,
    /// The host contract a host requirement names, decided once with the rest of the
    /// table: resolution asks it of every requirement of every instance, in several
    /// phases, and reading it from the requirement's tree touched that tree each time.
    pub host: Option<HostContract>,
    /// The mesh contract a mesh requirement names (`identity`), decided with it.
    pub mesh: Option<MeshContract>,
    /// An operator requirement's type, secrecy and constraint (shared with every scope
    /// [`ModuleScope::of`] joins from this table).
    pub operator: Option<Arc<OperatorFacts>>,
}

/// A module's scope as decided once, by [`ScopeTable::build`]: one entry per requirement
/// name (the first of a duplicated name; E0102 is the checker's), in source order. Owned,
/// so the semantic model (`check::semantics`) holds it; [`ModuleScope::of`] joins it with
/// the module's tree for a reader.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScopeTable {
    pub requirements: Vec<ReqFacts>,
}

/// Up to how many requirements [`ScopeTable::build`] finds duplicated names by a scan.
const FEW_REQUIREMENTS: usize = 16;

impl ScopeTable {
    /// Decides the scope of `module`: the one place a module's requirements are looked up
    /// in the registry and their types read. Called by the semantic model only.
    pub(crate) fn build(module: &ast::Module, registry: &Registry) -> ScopeTable {
        let count = module.requirements().count();
        let mut requirements = Vec::with_capacity(count);
        // The names met so far: a module has a handful of requirements, which a scan
        // finds faster than a hash table is built (that table was a third of the build);
        // a module with very many is hashed.
        let mut names: Vec<&str> = Vec::with_capacity(count.min(FEW_REQUIREMENTS));
        let mut seen: crate::base::fx_hash::FxHashSet<&str> = Default::default();
        for (ordinal, r) in module.requirements().enumerate() {
            let name = r.name.name.as_str();
            let again = if count <= FEW_REQUIREMENTS {
                names.contains(&name) || {
                    names.push(name);
                    false
                }
            } else {
                !seen.insert(name)
            };
            if again {
                continue;
            }
            let kind = r
                .kind
                .as_ref()
                .and_then(|k| ProviderKind::from_name(&k.name));
            // The contract the host or the mesh answers, when it is one of theirs.
            let named = r.contract_name();
            let host = named
                .filter(|_| kind == Some(ProviderKind::Host))
                .and_then(HostContract::from_name);
            let mesh = named
                .filter(|_| kind == Some(ProviderKind::Mesh))
                .and_then(MeshContract::from_name);
            let mut facts = ReqFacts {
                ordinal: ordinal as u32,
                kind,
                contract: None,
                host,
                mesh,
                operator: None,
            };
            match &r.body {
                RequirementBody::Operator(op) => {
                    let crate::syntax::ast::OperatorBody {
                        ty, refinements, ..
                    } = &**op;
                    let t = ty
                        .as_ref()
                        .map(|t| Ty::from_ast(t).unwrap_or(Ty::Error))
                        .unwrap_or(Ty::Error);
                    let mut constraint = Constraint::of_type(&t);
                    constraint.refine(refinements);
                    let secret = ty.as_ref().is_some_and(|t| t.secret.is_some());
                    constraint.secret = secret;
                    facts.operator = Some(Arc::new(OperatorFacts {
                        ty: t,
                        secret,
                        constraint,
                    }));
                }
                RequirementBody::Contract { contract, .. } => {
                    facts.contract = contract
                        .as_ref()
                        .and_then(|c| registry.contracts.get(c.name.as_str()).cloned());
                }
            }
            requirements.push(facts);
        }
        ScopeTable { requirements }
    }
}

impl<'a> ModuleScope<'a> {
    /// The scope of `module` as `table` decided it (`table` was built from this module,
    /// or from its position-free copy): the facts joined with the requirements' trees.
    /// Decides nothing.
    pub fn of(module: &'a ast::Module, table: &ScopeTable) -> ModuleScope<'a> {
        // Sized once: a large mesh holds a scope per assigned module, and a table grown
        // by doubling holds up to twice what it needs.
        let mut requirements = Requirements::with_capacity(table.requirements.len());
        let mut facts = table.requirements.iter().peekable();
        for (ordinal, r) in module.requirements().enumerate() {
            let Some(f) = facts.next_if(|f| f.ordinal as usize == ordinal) else {
                continue;
            };
            let mut info = ReqInfo {
                ast: r,
                kind: f.kind,
                host: f.host,
                mesh: f.mesh,
                contract: f.contract.clone(),
                operator: None,
                sets: Fields::default(),
                narrowed: Fields::default(),
            };
            match &r.body {
                RequirementBody::Operator(op) => {
                    if let Some(o) = &f.operator {
                        info.operator = Some(OperatorInfo {
                            facts: o.clone(),
                            default: op.default.as_ref(),
                        });
                    }
                }
                RequirementBody::Contract { narrowing, .. } => {
                    // Sized once: most requirements set a field or two, and a scope is
                    // made for every module checked and again for every one resolved.
                    let sets = narrowing
                        .iter()
                        .filter(|n| matches!(n.kind, NarrowingKind::Set(_)))
                        .count();
                    info.sets = Fields(Vec::with_capacity(sets));
                    for n in narrowing {
                        match &n.kind {
                            NarrowingKind::Set(e) => {
                                info.sets.get_or_insert_with(n.field.name.as_str(), || e);
                            }
                            NarrowingKind::Refine(rs) => {
                                info.narrowed
                                    .get_or_insert_with(n.field.name.as_str(), Vec::new)
                                    .extend(rs.iter());
                            }
                        }
                    }
                }
            }
            // The table holds each name once.
            requirements.push(r.name.name.as_str(), info);
        }
        ModuleScope {
            module,
            requirements,
        }
    }

    /// What `reference` reads, or why it reads nothing, read with no loop variable in
    /// scope: [`super::meaning::meaning`] over this scope, its contracts looked up.
    pub fn lookup(
        &self,
        reference: &Reference,
        ctx: RefContext<'_>,
    ) -> Result<RefTarget, RefError> {
        let names = InScope { scope: self, ctx };
        let m = meaning(reference, &names);
        if let Some(e) = m.refusal {
            return Err(e);
        }
        let req = |idx: usize| self.requirements.get_index(idx).map(|(_, r)| r);
        match m.read {
            Read::OperatorValue { req: idx } => {
                let r = req(idx).ok_or(RefError::Unresolved)?;
                let op = r.operator.as_ref().ok_or(RefError::Unresolved)?;
                Ok(RefTarget::Operator {
                    requirement: r.name().to_string(),
                    ty: op.ty.clone(),
                    secret: op.secret,
                    span: r.ast.span,
                })
            }
            Read::ContractField {
                req: idx,
                info: Some(field),
                ..
            } => {
                let r = req(idx).ok_or(RefError::Unresolved)?;
                let contract = r.contract.as_ref().ok_or(RefError::Unresolved)?;
                Ok(RefTarget::Field {
                    requirement: r.name().to_string(),
                    field: field.clone(),
                    contract_file: contract.file.clone(),
                })
            }
            Read::Consumer {
                field: Some(field), ..
            } => Ok(RefTarget::Consumer(field.word().to_string())),
            Read::Given {
                info: Some(field), ..
            } => Ok(RefTarget::Given(field.clone())),
            _ => Err(RefError::Unresolved),
        }
    }

    /// The new form a legacy placeholder `${kind:…}` stands for, as text (`db.host`), when
    /// one can be told. `${machine:fact}` reads a fact of a `host node` requirement.
    pub fn legacy_replacement(&self, kind: &str, reference: &Reference) -> Option<String> {
        let dotted = reference.dotted();
        match kind {
            "binding" | "setting" => Some(dotted),
            "port" => Some(format!("{dotted}.host_port")),
            "secret" => Some(format!("{dotted}.value")),
            "machine" => {
                let node_req = self
                    .requirements
                    .values()
                    .find(|r| r.host_contract() == Some(HostContract::Node))?;
                let fact = super::readings::NodeFact::legacy_field(&dotted);
                Some(format!("{}.{fact}", node_req.name()))
            }
            _ => None,
        }
    }

    /// The reference a legacy placeholder reads, in the new form, parsed.
    pub fn legacy_reference(&self, kind: &str, reference: &Reference) -> Option<Reference> {
        let text = self.legacy_replacement(kind, reference)?;
        let segments = text
            .split('.')
            .map(|s| ast::Ident {
                name: s.into(),
                span: reference.span(),
            })
            .collect();
        // The placeholder's place: what the checker read it as is found there.
        Some(Reference {
            segments,
            id: reference.id,
        })
    }
}

#[cfg(test)]
mod tests {
    //! [`ModuleScope::lookup`] is the checker's slow path (it is asked why a reference
    //! reads nothing), so its answers for references that do read something are held
    //! here, with the guards that tell a field from a field read further.

    use super::*;
    use crate::db::{self, Database};
    use crate::syntax::ast::{Ident, Item};

    const TEXT: &str = r#"
contract pool for module {
  size: int
  given tag: string
}

module a {
  requires db: module postgres
  requires pl: module pool { size in 1..100 }
  requires workers: operator int = 4
  requires data: host directory
  requires box: host node
}

module b {
  requires db: module postgres
  requires data: host directory
}
"#;

    fn reference(dotted: &str) -> Reference {
        let span = Span::new(0, 0);
        Reference {
            segments: dotted
                .split('.')
                .map(|s| Ident {
                    name: s.into(),
                    span,
                })
                .collect(),
            id: 0,
        }
    }

    /// Runs `f` with the scope of `module` of [`TEXT`] and the workspace's registry.
    fn with_scope(module: &str, f: impl FnOnce(&ModuleScope<'_>, &Registry)) {
        let (database, ws) = Database::with_files([(FilePath::from("case.mesh"), Arc::from(TEXT))]);
        let file = ws.files(&database)[1];
        let parsed = db::parse_file(&database, file);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let registry = db::registry(&database, ws);
        let m = parsed
            .file
            .items
            .iter()
            .find_map(|i| match i {
                Item::Module(m) if m.name.name == module => Some(m),
                _ => None,
            })
            .expect("the module is in the text");
        let table = ScopeTable::build(m, &registry);
        f(&ModuleScope::of(m, &table), &registry);
    }

    fn too_deep(r: Result<RefTarget, RefError>) -> bool {
        matches!(r, Err(RefError::TooDeep { .. }))
    }

    /// A duplicated requirement name keeps its first declaration, whether the module has
    /// few requirements (found by a scan) or many (hashed).
    #[test]
    fn a_duplicated_requirement_keeps_the_first_in_a_small_and_a_large_module() {
        for extra in [1, 2 * FEW_REQUIREMENTS] {
            let mut text = String::from("module m {\n  requires x: operator int = 1\n");
            for i in 0..extra {
                text.push_str(&format!("  requires r{i}: operator int = 1\n"));
            }
            text.push_str("  requires x: operator string = \"a\"\n}\n");
            let (database, ws) =
                Database::with_files([(FilePath::from("m.mesh"), Arc::from(text.as_str()))]);
            let file = ws.files(&database)[1];
            let parsed = db::parse_file(&database, file);
            let Some(Item::Module(m)) = parsed.file.items.first() else {
                panic!("a module: {:?}", parsed.diagnostics);
            };
            let table = ScopeTable::build(m, &db::registry(&database, ws));
            assert_eq!(table.requirements.len(), extra + 1, "{extra} others");
            let first = &table.requirements[0];
            assert_eq!(first.ordinal, 0);
            assert!(matches!(
                first.operator.as_deref(),
                Some(OperatorFacts { ty: Ty::Int, .. })
            ));
            assert!(
                table
                    .requirements
                    .iter()
                    .all(|f| f.ordinal as usize <= extra)
            );
        }
    }

    #[test]
    fn requirements_read_as_an_operator_value_or_one_field() {
        with_scope("a", |scope, registry| {
            let def = RefContext::Definition;
            match scope.lookup(&reference("workers"), def) {
                Ok(RefTarget::Operator {
                    requirement,
                    ty,
                    secret,
                    ..
                }) => assert_eq!(
                    (requirement.as_str(), ty, secret),
                    ("workers", Ty::Int, false)
                ),
                other => panic!("`workers` read {other:?}"),
            }
            assert!(too_deep(scope.lookup(&reference("workers.count"), def)));
            let host = registry.contracts["postgres"].fields["host"].clone();
            match scope.lookup(&reference("db.host"), def) {
                Ok(RefTarget::Field {
                    requirement, field, ..
                }) => assert_eq!((requirement.as_str(), field), ("db", host)),
                other => panic!("`db.host` read {other:?}"),
            }
            assert!(too_deep(scope.lookup(&reference("db.host.name"), def)));
            assert!(matches!(
                scope.lookup(&reference("db"), def),
                Err(RefError::MissingField { .. })
            ));
            assert!(matches!(
                scope.lookup(&reference("consumer.login"), def),
                Err(RefError::OutsideProvides { .. })
            ));
        });
    }

    #[test]
    fn consumer_and_given_read_one_field_inside_provides() {
        with_scope("a", |scope, registry| {
            let pool = registry.contracts["pool"].clone();
            let ctx = RefContext::Provides(&pool);
            for w in ["login", "instance", "module"] {
                assert_eq!(
                    scope.lookup(&reference(&format!("consumer.{w}")), ctx),
                    Ok(RefTarget::Consumer(w.to_string()))
                );
            }
            assert!(too_deep(scope.lookup(&reference("consumer.login.x"), ctx)));
            assert!(too_deep(scope.lookup(&reference("consumer"), ctx)));
            match scope.lookup(&reference("consumer.logn"), ctx) {
                Err(RefError::UnknownField {
                    field, suggestion, ..
                }) => assert_eq!(
                    (field.as_str(), suggestion.as_deref()),
                    ("logn", Some("login"))
                ),
                other => panic!("`consumer.logn` read {other:?}"),
            }
            assert!(too_deep(scope.lookup(&reference("consumer.logn.x"), ctx)));
            assert_eq!(
                scope.lookup(&reference("given.tag"), ctx),
                Ok(RefTarget::Given(pool.fields["tag"].clone()))
            );
            assert!(too_deep(scope.lookup(&reference("given.tag.x"), ctx)));
            assert!(too_deep(scope.lookup(&reference("given"), ctx)));
            // `size` is the provider's answer, not a given field.
            assert!(matches!(
                scope.lookup(&reference("given.size"), ctx),
                Err(RefError::UnknownField { .. })
            ));
        });
    }

    #[test]
    fn a_narrowed_field_has_the_narrowed_constraint() {
        with_scope("a", |scope, registry| {
            let size = &registry.contracts["pool"].fields["size"];
            assert_eq!(size.constraint.range, None);
            let narrowed = scope.requirements["pl"].field_constraint(size);
            assert_eq!(
                narrowed.range,
                Some(super::super::types::Bounds {
                    lo: Some(1),
                    hi: Some(100)
                })
            );
            let port = &registry.contracts["postgres"].fields["port"];
            assert_eq!(
                *scope.requirements["db"].field_constraint(port),
                port.constraint
            );
        });
    }

    #[test]
    fn machine_placeholders_read_the_host_node_requirement() {
        with_scope("a", |scope, _| {
            let r = |d: &str| scope.legacy_replacement("machine", &reference(d));
            // Not `data`, the host requirement declared before it.
            assert_eq!(r("hostname").as_deref(), Some("box.private_name"));
            assert_eq!(r("name").as_deref(), Some("box.private_name"));
            assert_eq!(r("mesh_names").as_deref(), Some("box.mesh_names"));
            assert_eq!(
                scope
                    .legacy_replacement("port", &reference("http"))
                    .as_deref(),
                Some("http.host_port")
            );
            assert_eq!(
                scope
                    .legacy_replacement("secret", &reference("key"))
                    .as_deref(),
                Some("key.value")
            );
            assert_eq!(scope.legacy_replacement("other", &reference("x")), None);
        });
        // A module with a host requirement but no `host node` has no fact to read.
        with_scope("b", |scope, _| {
            assert_eq!(
                scope.legacy_replacement("machine", &reference("hostname")),
                None
            );
        });
    }
}

#[cfg(test)]
mod head_tests {
    use super::*;

    #[test]
    fn a_requirement_comes_first_then_consumer_and_given_inside_provides() {
        let reqs = |w: &str| matches!(w, "db" | "consumer");
        assert_eq!(head("db", reqs, false), Head::Requirement);
        // A requirement may be called `consumer`: it wins, inside `provides` too.
        assert_eq!(head("consumer", reqs, true), Head::Requirement);
        assert_eq!(head("consumer", |_| false, true), Head::Consumer);
        assert_eq!(head("given", reqs, true), Head::Given);
        assert_eq!(head("given", reqs, false), Head::OutsideProvides);
        assert_eq!(head("consumer", |_| false, false), Head::OutsideProvides);
        assert_eq!(head("dbx", reqs, true), Head::Unknown);
    }
}
