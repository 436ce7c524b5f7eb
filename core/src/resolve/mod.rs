//! Resolution of a mesh (LANGUAGE.md §6–§9): every requirement of every assignment is
//! answered, or refused with a diagnostic naming what is missing and what would answer
//! it. What resolves is built into one manifest per node; an assignment with a refusal is
//! left out of its node's manifest, and so is every consumer waiting for it (E0514).
//!
//! The resolver is pure: it reads the mesh's tree, the registry and module definitions
//! through [`ResolveInput`] and returns a [`MeshOutcome`]. It never panics on broken
//! input: what does not resolve evaluates to no value, on the proof of the diagnostic
//! that says why ([`evaluate::NoValue`]), and the assignment that needed it is left out.
//!
//! The work is split by concept:
//! - [`mesh_names`]: nodes, instances and seats (E0101, E0102, E0106–E0109, E0508, E0515);
//! - [`assignments`]: the entries of each assignment, judged where written (E0102, E0107,
//!   E0512, E0513, E0516, E0517);
//! - [`identity`]: slugs, short forms and logins (E0509);
//! - [`host`]: node facts, directories, accesses and ports (E0506, E0510, E0511, E0518,
//!   E0519);
//! - [`provider_order`]: which instance answers a module requirement (E0502–E0505, E0515);
//! - [`operator`] and [`evaluate`]: operator values, given fields, provider answers and
//!   expressions (E0501, E0304, E0314);
//! - [`public_names`]: public names held once (E0507);
//! - [`left_out`]: what is left out, and who waits for it (E0514);
//! - [`containers`] and [`manifests`]: the manifests of §9.

mod assignments;
mod containers;
mod evaluate;
pub use crate::base::fx_hash;
mod host;
mod identity;
mod ids;
mod left_out;
pub mod lock;
mod loops;
mod manifests;
mod mesh_names;
mod operator;
mod provider_order;
mod public_names;

pub use crate::emit::NodeFacts;
pub use assignments::system_place;
pub(crate) use evaluate::{Values, fits};
pub(crate) use ids::{IdVec, InstanceId, NodeId, Nodes};
pub use lock::Lock;
pub(crate) use public_names::PUBLIC_NAME;

use crate::check::registry::ModuleSource;
use crate::check::registry::Registry;
use crate::check::scope::{ModuleScope, ScopeTable};
use crate::check::specs::ModuleSpecs;
use crate::check::types::Value;
use crate::diagnostics::rules::PortsRefused;
use crate::diagnostics::{Code, Diagnostic, Reported, Rule, Severity};
use crate::emit::{By, Manifest};
use crate::span::{FilePath, Span};
use crate::syntax::ast;
pub(crate) use fx_hash::FxIndexMap;
use fx_hash::{FxHashMap, FxHashSet};
use indexmap::IndexMap;
use std::sync::Arc;

/// Everything resolution reads. No I/O: the caller looks modules up.
pub struct ResolveInput<'a> {
    /// The mesh to resolve.
    pub mesh: &'a ast::Mesh,
    /// The file the mesh is written in (diagnostics point there).
    pub path: &'a FilePath,
    /// The workspace's global names.
    pub registry: &'a Registry,
    /// The definition of a module, by name.
    pub module: &'a dyn Fn(&str) -> Option<ModuleSource>,
    /// The scope of a module, by name, as its semantic model decided it
    /// (`db::module_scope`): resolution decides no scope of its own.
    pub scope: &'a dyn Fn(&str) -> Option<Arc<ScopeTable>>,
    /// The container specs of a module, by name, as its semantic model lowered them
    /// (`db::module_specs`): read only when the manifests are built.
    pub specs: &'a dyn Fn(&str) -> Option<Arc<ModuleSpecs>>,
    /// The error diagnostics of a module's definition; an assignment of a module with
    /// errors is left out, listing them.
    pub module_errors: &'a dyn Fn(&str) -> Vec<Diagnostic>,
    /// The ports a previous build chose.
    pub lock: &'a Lock,
    /// Whether to build the manifests (`meshc build`). Without them (`meshc check`) the
    /// outcome holds no manifest and no instance is built: every value that can refuse
    /// (operator values, given fields, providers' answers) is still evaluated, as a build
    /// evaluates it, so the diagnostics are the same either way.
    pub manifests: bool,
    /// Whether to list how each module requirement is answered
    /// ([`MeshOutcome::choices`]); without it the list is empty.
    pub choices: bool,
    /// Where [`build_to`] hands each node's manifest as soon as it is made; without one,
    /// the outcome holds them ([`MeshOutcome::manifests`]).
    pub sink: Option<&'a dyn ManifestSink>,
    /// Called at every instance of each phase that goes through them all, on the
    /// resolving thread: the database's cancellation check (`db.rs`), which unwinds the
    /// resolution when an edit has come. Without it a large mesh's resolution reaches a
    /// query only while its modules load, and an edit waits seconds for every handle of
    /// the database to drop (salsa's input write). Never returns a value: it unwinds or
    /// does nothing (`&|| {}` where nothing cancels).
    pub interrupt: &'a dyn Fn(),
}

/// Where a build's manifests go, one at a time, as each node's is made: called from the
/// thread that built it, in any order, once per node, with the facts of every node of the
/// mesh. The manifest's digest is not yet taken: a sink that writes the manifest works it
/// out in the same walk ([`crate::emit::write_pretty_with_digest`]). Resolution names no
/// file and does no I/O; what a build writes of each manifest is the caller's (the build
/// of `crate::target`).
pub trait ManifestSink: Sync {
    /// Takes node `manifest.node`'s manifest.
    fn node(&self, manifest: Manifest, nodes: &[NodeFacts]);

    /// Where node `node`'s manifest is written as it is built, if the sink takes it so
    /// ([`ManifestSink::node_written`]) rather than whole: a node's instances are then
    /// never held together, each written and dropped as soon as it is built.
    fn writer(&self, _node: &str) -> Option<crate::emit::ManifestWriter<'_>> {
        None
    }

    /// Takes node `manifest.node`'s manifest whose instances `instances` wrote, in order
    /// as they were built; `manifest.instances` is empty. Called only with the writer
    /// [`ManifestSink::writer`] gave.
    fn node_written(
        &self,
        manifest: Manifest,
        instances: crate::emit::ManifestWriter<'_>,
        nodes: &[NodeFacts],
    );
}

/// What resolving one mesh gives: every diagnostic, the manifests of its nodes, the new
/// lock and what was left out.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshOutcome {
    /// The mesh's name.
    pub mesh: String,
    /// The file the mesh is written in.
    pub path: FilePath,
    /// The mesh's name in that file.
    pub span: Span,
    /// Every diagnostic of the mesh, in source order of what it is about. A module's own
    /// errors are not repeated here (they are the checker's); they are listed in
    /// [`MeshOutcome::left_out`].
    pub diagnostics: Vec<Diagnostic>,
    /// One manifest per node, in the mesh's node order, digests filled in (none when
    /// resolved without manifests, as `meshc check` does).
    pub manifests: IndexMap<String, Manifest>,
    /// The ports this build chose, for `<mesh file>.lock` (none when resolved without
    /// manifests, as `meshc check` does: it writes no lock); its `written` is left empty
    /// (the record of this build is [`MeshOutcome::written`], the one it was given the
    /// input's; see [`MeshOutcome::lock_to_write`]): a large mesh's record is not copied.
    pub lock: Lock,
    /// What each instance of this build writes (containers and their file paths), for
    /// the lock's `written`; empty when resolved without manifests.
    pub written: std::collections::BTreeMap<String, lock::WrittenBy>,
    /// Every assignment left out, with why.
    pub left_out: Vec<LeftOutAssignment>,
    /// Every port the lock held that this build moved, and why, in words
    /// (LANGUAGE.md §12.6); `meshc build` prints each as a note.
    pub port_moves: Vec<String>,
    /// How each module requirement of every built assignment is answered, node by node in
    /// the mesh's order and in source order within a node (the order of the manifests).
    /// Filled with or without manifests, so the editor's hovers and hints read
    /// `db::check_mesh` (above this layer) instead of building manifests; empty unless
    /// the input asks for them ([`ResolveInput::choices`]).
    pub choices: Vec<ProviderChoice>,
    /// The facts of every node of the mesh, in its order (for the targets).
    pub nodes: Vec<NodeFacts>,
}

/// How one module requirement of one built assignment is answered.
///
/// Its names are shared text: a large mesh has a choice for every module requirement of
/// every instance (300,000 at 100,000 modules), made again at each resolution the editor
/// asks for, and a copy of every name of each would be six allocations a choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderChoice {
    /// The consuming instance, its node and module.
    pub node: Arc<str>,
    pub instance: Arc<str>,
    pub module: Arc<str>,
    /// The requirement, as the module names it.
    pub requirement: Arc<str>,
    /// The instance that answers it and by which rule; `None` when the requirement is
    /// absent (optional with no provider, or declined).
    pub provider: Option<(ChoiceRef, By)>,
}

/// The node and name of the instance that answers a [`ProviderChoice`], as shared text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceRef {
    pub node: Arc<str>,
    pub instance: Arc<str>,
}

/// An assignment that was left out, and every reason.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOutAssignment {
    /// The node as written on the assignment (it may be unknown).
    pub node: String,
    pub instance: String,
    pub module: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl MeshOutcome {
    /// An outcome with nothing in it, for a mesh that could not be found.
    pub fn empty(mesh: &str, path: &FilePath) -> MeshOutcome {
        MeshOutcome {
            mesh: mesh.to_string(),
            path: path.clone(),
            span: Span::default(),
            diagnostics: Vec::new(),
            manifests: IndexMap::new(),
            lock: Lock::default(),
            written: Default::default(),
            left_out: Vec::new(),
            port_moves: Vec::new(),
            choices: Vec::new(),
            nodes: Vec::new(),
        }
    }

    /// The text of [`MeshOutcome::lock_to_write`], made without copying it.
    pub fn lock_text(&self) -> String {
        Lock::text(&self.lock.ports, &self.written)
    }

    /// The lock a build writes: the ports chosen and what each instance wrote.
    pub fn lock_to_write(&self) -> Lock {
        let mut lock = self.lock.clone();
        lock.written = self.written.clone();
        lock
    }

    /// Whether any diagnostic of the mesh is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Whether `meshc build` must exit 1: an error, or anything left out.
    pub fn refused(&self) -> bool {
        self.has_errors() || !self.left_out.is_empty()
    }

    /// For `meshc build --locked`: one diagnostic (E0510) when the lock this build would
    /// write differs from `previous`, naming every change. Empty when the lock stands.
    pub fn locked_refusals(&self, previous: &Lock) -> Vec<Diagnostic> {
        let changes = previous.changes(&self.lock);
        if changes.is_empty() {
            return Vec::new();
        }
        let rule = PortsRefused::Locked {
            mesh: &self.mesh,
            changes: crate::diagnostics::capped_join(&changes, "; "),
        };
        vec![rule.at(&self.path, self.span)]
    }
}

/// Resolves `input.mesh`: checks its nodes, seats and assignments, answers every
/// requirement, and builds the manifests of what resolved.
pub fn resolve_mesh(input: &ResolveInput<'_>) -> MeshOutcome {
    let output = match input.manifests {
        true => Output::Manifests,
        false => Output::Nothing,
    };
    resolve_as(input, output)
}

/// Resolves `input.mesh` as `meshc build` writes it (whatever `input.manifests` says):
/// each node's manifest is built and handed to `input.sink` on the thread that built it,
/// so the build never holds all the manifests at once; the outcome holds none of them and
/// everything else [`resolve_mesh`] gives. The manifests are those of [`resolve_mesh`],
/// their digests not yet taken. Without a sink, the outcome holds them as
/// [`resolve_mesh`]'s does.
pub fn build_to(input: &ResolveInput<'_>) -> MeshOutcome {
    resolve_as(input, Output::Sent)
}

/// What a resolution makes of the manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// None (`meshc check`): every value is still evaluated, so the diagnostics are the
    /// same.
    Nothing,
    /// The manifests, in [`MeshOutcome::manifests`].
    Manifests,
    /// Each node's manifest handed to the input's sink as it is made.
    Sent,
}

fn resolve_as(input: &ResolveInput<'_>, output: Output) -> MeshOutcome {
    crate::base::process::mark("resolve.start");
    // Load every assigned module once; their trees outlive the resolver, which borrows them.
    // Keyed by the names the mesh's text holds, not copies of them, and sized once: at
    // 100,000 modules each doubling would move every entry again.
    let mut sources: FxIndexMap<&str, (ModuleSource, Arc<ScopeTable>)> =
        FxIndexMap::with_capacity_and_hasher(input.mesh.assigns().count(), Default::default());
    for a in input.mesh.assigns() {
        (input.interrupt)();
        let name = a.module.name.as_str();
        if sources.contains_key(name) {
            continue;
        }
        if let Some(src) = (input.module)(name)
            && let Some(scope) = (input.scope)(name)
        {
            sources.insert(name, (src, scope));
        }
    }
    // Each module's scope is read on its own (10,000 modules in a large mesh): on every
    // core, in the order of first assignment whatever the number of threads.
    let found: Vec<(&str, &ModuleSource, &ScopeTable, &ast::Module)> = sources
        .iter()
        .filter_map(|(&name, (src, scope))| Some((name, src, &**scope, module_of(src)?)))
        .collect();
    crate::base::process::mark("resolve.sources");
    // Each part moved straight into the table: joined first, every loaded module would
    // be moved twice, into fresh memory each time (tens of megabytes at 100,000).
    let parts: Vec<Vec<LoadedModule<'_>>> = crate::parallel::map_parts(&found, 256, |part| {
        part.iter()
            .map(|&(name, src, scope, ast)| LoadedModule::new(name, src, ast, scope))
            .collect()
    });
    let mut modules: FxIndexMap<String, LoadedModule<'_>> =
        FxIndexMap::with_capacity_and_hasher(found.len(), Default::default());
    for mut m in parts.into_iter().flatten() {
        m.index = modules.len();
        modules.insert(m.name.clone(), m);
    }
    crate::base::process::mark("resolve.loaded");
    let outcome = run(input, &modules, output);
    crate::base::process::release(modules);
    drop(found);
    crate::base::process::release(sources);
    crate::base::process::mark("resolve.released");
    outcome
}

/// `parts` joined by `/`: a lock's key, a directory's default path. Made for every
/// assignment of a large mesh, several times over, so without the formatting machinery.
pub(crate) fn slash_joined(parts: &[&str]) -> String {
    let len = parts.iter().map(|p| p.len() + 1).sum::<usize>();
    let mut out = String::with_capacity(len);
    for (k, part) in parts.iter().enumerate() {
        if k > 0 {
            out.push('/');
        }
        out.push_str(part);
    }
    out
}

/// The meshes declared in the file `path`, in source order: what `meshc build FILE`
/// builds.
pub fn meshes_in(registry: &Registry, path: &str) -> Vec<String> {
    registry
        .meshes
        .iter()
        .filter(|(_, at)| {
            registry
                .files
                .get(at.file)
                .is_some_and(|f| f.as_ref() == path)
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// The module definition `src` names, when its item is one.
fn module_of(src: &ModuleSource) -> Option<&ast::Module> {
    match src.parsed.file.items.get(src.item) {
        Some(ast::Item::Module(m)) => Some(m),
        _ => None,
    }
}

/// A module definition as resolution reads it.
pub(crate) struct LoadedModule<'m> {
    pub name: String,
    pub path: FilePath,
    pub ast: &'m ast::Module,
    pub scope: ModuleScope<'m>,
    /// Its containers, as its semantic model lowered them: read just before the
    /// manifests are assembled ([`LoadedModule::read_specs`]), never when none is built.
    pub specs: std::sync::OnceLock<Arc<ModuleSpecs>>,
    /// `provides` blocks by contract (the first of a contract wins).
    pub provides: FxIndexMap<&'m str, &'m ast::Provides>,
    /// The module's place among the mesh's loaded modules (its errors' place in
    /// [`Resolver::errors_of`]'s table).
    index: usize,
    /// The module's slug (§8).
    pub slug: String,
}

impl<'m> LoadedModule<'m> {
    /// Module `ast`, the definition `src` names (its place among the mesh's modules is
    /// set once every module is loaded).
    fn new(
        name: &str,
        src: &'m ModuleSource,
        ast: &'m ast::Module,
        scope: &ScopeTable,
    ) -> LoadedModule<'m> {
        let mut provides = FxIndexMap::default();
        for p in ast.provides() {
            provides.entry(p.contract.name.as_str()).or_insert(p);
        }
        LoadedModule {
            name: name.to_string(),
            path: src.path.clone(),
            ast,
            scope: ModuleScope::of(ast, scope),
            specs: std::sync::OnceLock::new(),
            provides,
            index: 0,
            slug: identity::module_slug(ast),
        }
    }

    /// The container specs of every module of `modules`, read once, before the
    /// manifests are assembled. Not while the modules load: the specs come from the
    /// modules' checks (`db::module_semantics`), which `meshc build` runs beside the
    /// resolution, and the phases before the manifests read only the readings of the
    /// modules whose requirement or `provides` expressions they evaluate
    /// ([`Resolver::specs_of`]), so asking for all then would make the resolution wait
    /// for checks the other core is still running.
    fn read_specs(input: &ResolveInput<'_>, modules: &FxIndexMap<String, LoadedModule<'m>>) {
        for m in modules.values() {
            (input.interrupt)();
            // Set once per resolution: the values phase read some already.
            m.specs
                .get_or_init(|| (input.specs)(&m.name).unwrap_or_default());
        }
    }

    /// Its containers' specs ([`LoadedModule::read_specs`]); none before they are read.
    pub fn containers(&self) -> &[crate::check::specs::ContainerSpec] {
        self.specs.get().map_or(&[], |s| &s.containers)
    }

    /// What `reference`, one of this module's, reads as the checker decided it, once the
    /// specs are read ([`Resolver::specs_of`]); [`Reading::NotRead`] before.
    ///
    /// [`Reading::NotRead`]: crate::check::readings::Reading::NotRead
    pub fn reading(&self, reference: &ast::Reference) -> crate::check::readings::Reading {
        self.specs
            .get()
            .map_or(Default::default(), |s| s.readings.of(reference))
    }
}

/// A node of the mesh, its entries read.
pub(crate) struct NodeInfo<'m> {
    pub name: String,
    pub ast: &'m ast::Node,
    /// `None` when missing or invalid (reported).
    pub private_name: Option<String>,
    /// `private_address`: the node's IP address on the private network, if written.
    pub private_address: Option<String>,
    pub root: String,
    pub ports: (i64, i64),
    pub short: String,
    /// `adopted = true`: the node was in use before the mesh (LANGUAGE.md §13.4).
    pub adopted: bool,
    /// Instances on this node by name.
    pub instances: FxHashMap<String, InstanceId>,
    /// The errors of the node's own entries; its assignments are left out, listing them.
    pub errors: Vec<Diagnostic>,
}

/// What an assignment writes in its braces, judged.
#[derive(Default)]
pub(crate) struct Settings<'m> {
    /// Operator values: requirement → literal value, or the proof it was refused where
    /// it is written.
    pub values: FxHashMap<&'m str, Result<Value, Reported>>,
    /// Given fields: (requirement, field) → literal value, or the proof it was refused.
    pub givens: FxHashMap<(&'m str, &'m str), Result<Value, Reported>>,
    /// Pins: requirement → the pinned instance, or the proof the pin was refused.
    pub pins: FxHashMap<&'m str, Result<(InstanceId, Span), Reported>>,
    /// Placements: requirement → where.
    pub places: FxHashMap<&'m str, Placement>,
    /// `short = "stg"`.
    pub short: Option<String>,
    /// Optional requirements declined with `NAME absent`.
    pub absent: FxHashSet<&'m str>,
    /// `keep_network "NAME"`: found networks the instance's containers stay on (§13.4).
    pub keep_networks: Vec<String>,
    /// `genesis`: the instance is part of the bootstrap plan (§13.5).
    pub genesis: bool,
}

/// A placement written on an assignment.
#[derive(Debug, Clone)]
pub(crate) enum Placement {
    /// `data at "/mnt/disk2/forge"` (on the instance's own node).
    Path(String, Span),
    /// `http at 8080`.
    Port(i64, Span),
    /// A placement already refused (E0107, E0506, E0513): the requirement stays
    /// unresolved.
    Refused(Reported),
}

/// How one requirement of an instance was answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    Operator,
    /// A secret operator value, delivered to the vault this instance holds the seat of.
    SecretOperator {
        vault: InstanceId,
    },
    Directory {
        path: String,
        placed: bool,
    },
    Access {
        path: String,
    },
    Port {
        host_port: i64,
        placed: bool,
    },
    Node,
    Identity,
    Module {
        provider: InstanceId,
        by: By,
    },
    /// An optional module requirement with no provider, or declined with `absent`
    /// (LANGUAGE.md §12.2): its `when` entries are left out.
    Absent,
    /// Refused or broken: reads nothing.
    Unresolved,
}

/// An instance whose module is known: what every check of a requirement, an entry or an
/// answer of the module works on, so none of them asks again whether there is a module.
#[derive(Clone, Copy)]
pub(crate) struct KnownInstance<'m> {
    pub id: InstanceId,
    pub module: &'m LoadedModule<'m>,
}

/// One assignment of the mesh with a known node and a name of its own on it.
pub(crate) struct InstanceState<'m> {
    pub assign: &'m ast::Assign,
    pub name: String,
    pub module_name: String,
    pub node: NodeId,
    /// The loaded module; `None` for an unknown module (E0106).
    pub module: Option<&'m LoadedModule<'m>>,
}

/// How each requirement of each instance is answered: requirement → answer. The
/// placements phase makes the table with the host, mesh and operator answers
/// ([`Placements::answers`]), one for every requirement of each known instance's module
/// in the scope's order, and hands it to the provider choice, which answers the module
/// requirements and secret operator values in place and owns it from then on
/// ([`Choices::answers`]): one phase writes it at a time, and every later phase reads it.
/// An instance's answers are a [`NameMap`](crate::base::name_map::NameMap), searched by
/// a scan: a module has a handful of requirements, and a hash table of eight answers
/// took sixteen slots, for every instance of a large mesh.
pub(crate) type Answers<'m> = IdVec<InstanceId, crate::base::name_map::NameMap<'m, Answer>>;

/// Sets instance `i`'s answer to requirement `req`, the `at`-th of its module's scope.
/// An instance's answers hold its module's requirements in the scope's order (the
/// placements write them so), so the answer is written at its place without looking the
/// name up: at 100,000 modules the names' text lies out of every cache.
pub(crate) fn set_answer<'m>(
    answers: &mut Answers<'m>,
    i: InstanceId,
    at: usize,
    req: &str,
    answer: Answer,
) {
    let held = &mut answers[i];
    debug_assert_eq!(
        held.get_index(at).map(|(name, _)| *name),
        Some(req),
        "the answers follow the scope's order"
    );
    held[at] = answer;
}

/// (requirement, secret field) → the key the provider keeps it under, for the keys that
/// are not in their usual form (see [`World::secret_key`]); a secret operator value's
/// field is `""`. Most instances hold none, so a large mesh keeps no table per instance.
pub(crate) type SecretKeys<'m> = FxHashMap<(&'m str, &'m str), String>;

/// The refusals one phase raises: per instance, in the order raised. Each phase hands its
/// own to the [`Ledger`] when it ends.
///
/// Kept by instance in a table of the refused ones only: most phases refuse few
/// instances or none, and a list per instance of the mesh, for each of the eight phases,
/// was tens of megabytes made and walked at every resolution of a 100,000-module mesh.
#[derive(Default)]
pub(crate) struct Refusals(FxHashMap<InstanceId, Vec<Diagnostic>>);

impl Refusals {
    /// Records a refusal of instance `i`.
    pub fn push(&mut self, i: InstanceId, diagnostic: Diagnostic) {
        self.0.entry(i).or_default().push(diagnostic);
    }

    /// Records refusal `diagnostic` of instance `i`, and returns the proof.
    fn record(&mut self, i: InstanceId, diagnostic: Diagnostic) -> Reported {
        Reported::record(self.0.entry(i).or_default(), diagnostic)
    }

    /// The refusals of instance `i`.
    pub fn of(&self, i: InstanceId) -> &[Diagnostic] {
        if self.0.is_empty() {
            return &[];
        }
        self.0.get(&i).map_or(&[], Vec::as_slice)
    }
}

/// Every refusal of the phases that have ended, phase by phase in the order they ran:
/// what "is this instance refused" reads, and the one place an instance's refusals are
/// listed in order.
pub(crate) struct Ledger<'a> {
    phases: Vec<Refusals>,
    /// Refused by a diagnostic another instance holds: the members of a group of alike
    /// logins after the first (E0509, the identities phase's).
    shared: &'a IdVec<InstanceId, Option<InstanceId>>,
}

impl<'a> Ledger<'a> {
    /// A ledger with no phase ended yet; `shared` says who is refused by whose E0509.
    fn new(shared: &'a IdVec<InstanceId, Option<InstanceId>>) -> Ledger<'a> {
        Ledger {
            phases: Vec::with_capacity(8),
            shared,
        }
    }

    /// The refusals of the phase that just ended.
    fn close(&mut self, refusals: Refusals) {
        self.phases.push(refusals);
    }

    /// Instance `i`'s own refusals, every phase's in the phases' order.
    pub fn own(&self, i: InstanceId) -> impl Iterator<Item = &Diagnostic> {
        self.phases.iter().flat_map(move |p| p.of(i))
    }

    /// Whether instance `i` is refused by the mesh (its own refusals, or its group's).
    pub fn is_refused(&self, i: InstanceId) -> bool {
        self.own(i).next().is_some() || self.shared.get(i).is_some_and(Option::is_some)
    }

    /// The proof that instance `i` is refused by the mesh, if it is ([`Ledger::is_refused`]):
    /// its own refusal, or its group's E0509.
    pub fn refusal(&self, i: InstanceId) -> Option<Reported> {
        Reported::among(self.own(i)).or_else(|| match self.shared.get(i) {
            Some(&Some(j)) => Reported::among(self.own(j).filter(|d| d.code == Code::E0509)),
            _ => None,
        })
    }

    /// Every refusal of instance `i`: its own, then the one it shares with its group.
    pub fn refusals_of(&self, i: InstanceId) -> Vec<Diagnostic> {
        let mut all: Vec<Diagnostic> = self.own(i).cloned().collect();
        if let Some(&Some(j)) = self.shared.get(i) {
            all.extend(self.own(j).filter(|d| d.code == Code::E0509).cloned());
        }
        all
    }
}

/// A phase under way: it reads the mesh's names (through [`Resolver`]) and the refusals
/// of the phases before it, and keeps its own, which it hands to the [`Ledger`] when it
/// ends. [`Phase::refuse`] is the one way an instance is refused after the entries.
pub(crate) struct Phase<'r, 'm> {
    r: &'r Resolver<'m>,
    earlier: &'r Ledger<'r>,
    refusals: Refusals,
}

impl<'r, 'm> Phase<'r, 'm> {
    fn new(r: &'r Resolver<'m>, earlier: &'r Ledger<'r>) -> Phase<'r, 'm> {
        Phase {
            r,
            earlier,
            refusals: Refusals::default(),
        }
    }

    /// Refuses instance `i` with `diagnostic` (a rule's, built by [`Resolver::at`] or a
    /// lookup such as [`Resolver::find_instance`]), and returns the proof.
    pub fn refuse(&mut self, i: InstanceId, diagnostic: Diagnostic) -> Reported {
        self.refusals.record(i, diagnostic)
    }

    /// Whether instance `i` is refused, by an earlier phase or by this one so far.
    pub fn is_refused(&self, i: InstanceId) -> bool {
        self.earlier.is_refused(i) || !self.refusals.of(i).is_empty()
    }

    /// Passes over what the checker refuses with `code` in instance `i`'s module `m`,
    /// through the gate ([`Resolver::gate`]): its proof, or `i` refused with the miss.
    pub fn passed_over(
        &mut self,
        i: InstanceId,
        m: &LoadedModule<'_>,
        code: &'static str,
    ) -> Reported {
        match self.r.gate(i, m, code) {
            Ok(proof) => proof,
            Err(miss) => self.refuse(i, miss),
        }
    }

    /// The proof that instance `i` is refused, by an earlier phase or by this one so
    /// far, if it is ([`Phase::is_refused`]).
    pub fn refusal(&self, i: InstanceId) -> Option<Reported> {
        self.earlier
            .refusal(i)
            .or_else(|| Reported::among(self.refusals.of(i)))
    }

    /// The phase's refusals, for the ledger.
    fn end(self) -> Refusals {
        self.refusals
    }
}

impl<'m> std::ops::Deref for Phase<'_, 'm> {
    type Target = Resolver<'m>;
    fn deref(&self) -> &Resolver<'m> {
        self.r
    }
}

/// Makes a phase's state (a struct `NAME<'a, 'm>` with a field `phase: Phase<'a, 'm>`)
/// read the mesh and refuse through its [`Phase`].
macro_rules! runs_as_phase {
    ($name:ident) => {
        impl<'a, 'm> std::ops::Deref for $name<'a, 'm> {
            type Target = super::Phase<'a, 'm>;
            fn deref(&self) -> &super::Phase<'a, 'm> {
                &self.phase
            }
        }

        impl<'m> std::ops::DerefMut for $name<'_, 'm> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.phase
            }
        }
    };
}
pub(crate) use runs_as_phase;

/// The entries phase's product: what each assignment writes in its braces, judged.
pub(crate) struct Entries<'m> {
    pub settings: IdVec<InstanceId, Settings<'m>>,
}

/// The identities phase's product: every instance's login (§8), and who is refused by
/// another's E0509 (the [`Ledger`] reads it).
pub(crate) struct Identities {
    /// The login of each instance (empty for an unknown module).
    pub logins: IdVec<InstanceId, String>,
    /// Refused by a diagnostic another instance holds: the first of a group of alike
    /// logins (E0509), reported once for the whole group.
    pub refused_with: IdVec<InstanceId, Option<InstanceId>>,
}

/// The placements phase's product: the host, mesh and operator answers, and the ports
/// chosen.
pub(crate) struct Placements<'m> {
    pub answers: Answers<'m>,
    pub ports: Ports,
}

/// The provider choice's product: every answer (the placements' and the module
/// requirements'), the keys of sealed secrets not in their usual form, and whom each
/// instance waits for.
pub(crate) struct Choices<'m> {
    pub answers: Answers<'m>,
    pub secret_keys: IdVec<InstanceId, SecretKeys<'m>>,
    /// Instances whose answers each one waits for (providers, seat holders).
    pub waits_for: IdVec<InstanceId, Vec<InstanceId>>,
}

/// What is left out (the last phase before the manifests): each instance's flag.
pub(crate) struct LeftOutSet {
    pub flags: IdVec<InstanceId, bool>,
}

/// An assignment dropped before it became an instance: an unknown node (E0107) or a name
/// already taken on its node (E0508).
pub(crate) struct Dropped {
    pub node: String,
    pub node_index: Option<NodeId>,
    pub instance: String,
    pub module: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// The state of one seat of the standard library in this mesh.
#[derive(Debug, Clone)]
pub(crate) enum SeatState {
    /// Held by this instance, which provides what the seat delivers.
    Held(InstanceId),
    /// The seat line is wrong (reported at the line, with this code); consumers are
    /// refused naming it.
    Broken { code: Code, span: Span, why: String },
}

/// What evaluation reads of a mesh, whoever evaluates: the values phase (which fills the
/// memo tables) or a manifest's builder (which only reads them). Shared references only,
/// so a node's manifest can be built on any thread.
#[derive(Clone, Copy)]
pub(crate) struct World<'a, 'm> {
    pub registry: &'m Registry,
    pub nodes: &'a Nodes<'m>,
    pub instances: &'a IdVec<InstanceId, InstanceState<'m>>,
    pub mesh_names: &'a [String],
    /// What each assignment writes (the entries phase's).
    pub settings: &'a IdVec<InstanceId, Settings<'m>>,
    /// Each instance's login (the identities phase's).
    pub logins: &'a IdVec<InstanceId, String>,
    /// How each requirement is answered.
    pub answers: &'a Answers<'m>,
    /// The keys of sealed secrets not in their usual form (empty before the choice).
    pub secret_keys: &'a IdVec<InstanceId, SecretKeys<'m>>,
    /// What is left out; `None` until it is known (while values are computed, every
    /// instance counts as built).
    pub left_out: Option<&'a IdVec<InstanceId, bool>>,
}

impl<'a, 'm> World<'a, 'm> {
    /// The loaded module of instance `i`, if its module is known.
    pub fn module_of(self, i: InstanceId) -> Option<&'m LoadedModule<'m>> {
        self.instances[i].module
    }

    /// The requirement `name` of instance `i`'s module, with its declaration.
    pub fn requirement(
        self,
        i: InstanceId,
        name: &str,
    ) -> Option<&'m crate::check::scope::ReqInfo<'m>> {
        self.module_of(i)?.scope.requirements.get(name)
    }

    /// The node name of instance `i`.
    pub fn node_name(self, i: InstanceId) -> &'a str {
        &self.nodes[self.instances[i].node].name
    }

    /// The node and instance name of instance `i`.
    pub fn instance_ref(self, i: InstanceId) -> crate::emit::InstanceRef {
        crate::emit::InstanceRef {
            node: self.node_name(i).to_string(),
            instance: self.instances[i].name.clone(),
        }
    }

    /// The key under which the provider of requirement `req` keeps secret field `field`
    /// of instance `i`: `<login>/<field>` (`<login>/<req>` for an operator value, `field`
    /// `""`), unless the provider choice had to choose another ([`Choices::secret_keys`]).
    pub fn secret_key(self, i: InstanceId, req: &str, field: &str) -> String {
        let login = &self.logins[i];
        match self.secret_keys.get(i).and_then(|k| k.get(&(req, field))) {
            Some(key) => key.clone(),
            None if field.is_empty() => format!("{login}/{req}"),
            None => format!("{login}/{field}"),
        }
    }

    /// Whether instance `i` is left out (never, until that is known).
    pub fn is_left_out(self, i: InstanceId) -> bool {
        self.left_out.is_some_and(|l| l[i])
    }

    /// Whether requirement `req` of instance `i` is absent: an optional requirement with
    /// no provider, or declined.
    pub fn is_absent(self, i: InstanceId, req: &str) -> bool {
        matches!(self.answers[i].get(req), Some(Answer::Absent))
    }
}

/// The placements phase's product: the ports this build chose, for the lock, and the
/// lock's ports it moved.
#[derive(Default)]
pub(crate) struct Ports {
    pub lock: Lock,
    /// Ports of the given lock this build moved, with why (LANGUAGE.md §12.6).
    pub moves: Vec<String>,
}

/// A mesh being resolved: what resolution reads, and the names phase's product (nodes,
/// instances, seats, the providers of each contract, the mesh's own diagnostics), never
/// changed once [`Resolver::name`] has made it. Every later phase is a function of it and
/// of the products of the phases before, and returns its own product; [`run`] writes
/// the one order (see docs/resolution.md, "Order of work"):
///
/// 1. names: [`Resolver::name`];
/// 2. entries ([`Entries`]) and identities ([`Identities`]);
/// 3. placements: host answers and the lock's ports ([`Placements`]);
/// 4. provider choice: module answers and the keys of sealed secrets ([`Choices`]);
/// 5. values: every value an instance's manifest can read, computed once through an
///    [`evaluate::Evaluator`] and frozen ([`Values`]);
/// 6. what is left out ([`LeftOutSet`]);
/// 7. the manifests, node by node on every core, from the products above alone
///    ([`manifests`]): building reads and never refuses.
///
/// Each phase's refusals go to the [`Ledger`] as it ends, in this order.
pub(crate) struct Resolver<'m> {
    /// What resolution reads; never changed.
    pub input: &'m ResolveInput<'m>,
    pub mesh: &'m ast::Mesh,
    pub path: &'m FilePath,
    pub registry: &'m Registry,
    pub modules: &'m FxIndexMap<String, LoadedModule<'m>>,
    /// What this resolution makes of the manifests.
    pub output: Output,
    /// The errors of each loaded module (the checker's), by the module's place, read on
    /// first need: resolution reads them only to leave assignments out, so the checker
    /// may still be checking other files on other cores while this mesh resolves.
    module_errors: Vec<std::cell::OnceCell<Vec<Diagnostic>>>,
    /// Contract → workspace modules providing it, read from the workspace on first need.
    workspace_providers: std::cell::OnceCell<FxHashMap<String, Vec<String>>>,
    pub nodes: Nodes<'m>,
    pub instances: IdVec<InstanceId, InstanceState<'m>>,
    pub dropped: Vec<Dropped>,
    /// Seat → its holder, for seats a line of this mesh names.
    pub seats: FxHashMap<String, SeatState>,
    /// Contract → instances whose module provides it, in source order.
    pub providers: FxHashMap<String, Vec<InstanceId>>,
    /// (contract, node) → instances on that node whose module provides the contract.
    pub providers_on_node: FxHashMap<(&'m str, NodeId), Vec<InstanceId>>,
    /// The private name of every node, in node order (the `mesh_names` fact).
    pub mesh_names: Vec<String>,
    /// Diagnostics about the mesh itself (nodes, seats), in source order.
    pub mesh_diags: Vec<Diagnostic>,
}

/// The gate of every place where resolution passes over what the checker refuses in a
/// module's definition (a host path read as a value, E0303; an unknown contract, E0103;
/// ...), `code` naming it: resolution goes on only with `proof`, the checker's error
/// reported in that module ([`Resolver::checker_error`]), which leaves the module's
/// assignments out, so what is passed over never reaches a manifest and no refusal goes
/// untold. A module the checker passed never reaches a gate: debug builds, and so every
/// test, assert it (rustc's delayed bug); a release build passes over it still, as it
/// did before the gate.
pub(crate) fn passed_over(
    proof: Option<Reported>,
    code: &'static str,
    module: &str,
) -> Option<Reported> {
    debug_assert!(
        proof.is_some(),
        "resolution passed over {code} in module `{module}`, in which the checker reported no error"
    );
    proof
}

/// Every phase, in order (see [`Resolver`]).
fn run<'m>(
    input: &'m ResolveInput<'m>,
    modules: &'m FxIndexMap<String, LoadedModule<'m>>,
    output: Output,
) -> MeshOutcome {
    use crate::base::process::mark;
    // 1. Names.
    let (r, name_refusals) = Resolver::name(input, modules, output);
    let r = &r;
    mark("resolve.names");
    r.interrupt();
    // 2. Entries and identities.
    let (entries, entry_refusals) = r.judge_entries();
    let (identities, login_refusals) = r.assign_logins(&entries);
    let mut ledger = Ledger::new(&identities.refused_with);
    ledger.close(name_refusals);
    ledger.close(entry_refusals);
    ledger.close(login_refusals);
    // The memo tables, sized once: the placements phase already reads given values.
    let mut eval = evaluate::Eval::new(Values::new(r.instances.iter().map(|i| i.module)));
    mark("resolve.entries");
    r.interrupt();
    // 3. Placements.
    let (placements, refusals) =
        r.place_host_requirements(&ledger, &entries, &identities, &mut eval);
    ledger.close(refusals);
    mark("resolve.placements");
    r.interrupt();
    // 4. Provider choice.
    let Placements { answers, ports } = placements;
    let (choices, refusals) = r.choose_providers(&ledger, &entries, &identities, answers);
    ledger.close(refusals);
    mark("resolve.choice");
    r.interrupt();
    // 5. Values: every value computed, then frozen.
    let mut phase = Phase::new(r, &ledger);
    let mut evaluator = evaluate::Evaluator {
        world: r.world(&entries, &identities, &choices, None),
        phase: &mut phase,
        eval: &mut eval,
    };
    evaluator.evaluate_requirements();
    evaluator.check_public_names();
    let refusals = phase.end();
    let values: Values = eval.finish();
    ledger.close(refusals);
    mark("resolve.values");
    r.interrupt();
    // 6. What is left out.
    let (left_out, refusals) = r.leave_out_refused(&ledger, &choices.waits_for);
    ledger.close(refusals);
    mark("resolve.left_out");
    r.interrupt();
    // 7. The manifests, from the products above.
    if output != Output::Nothing {
        LoadedModule::read_specs(input, modules);
    }
    let world = r.world(&entries, &identities, &choices, Some(&left_out));
    let outcome = r.assemble(
        world,
        &ledger,
        &choices.waits_for,
        &left_out,
        &values,
        ports,
    );
    mark("resolve.assembled");
    crate::base::process::release(ledger);
    crate::base::process::release((entries, identities, choices, left_out, values));
    outcome
}

impl<'m> Resolver<'m> {
    /// The names phase: reads the mesh's nodes, instances and seats, and returns what
    /// every later phase reads, with the refusals of instances (an unknown module,
    /// E0106).
    fn name(
        input: &'m ResolveInput<'m>,
        modules: &'m FxIndexMap<String, LoadedModule<'m>>,
        output: Output,
    ) -> (Resolver<'m>, Refusals) {
        let mut r = Resolver {
            input,
            output,
            mesh: input.mesh,
            path: input.path,
            registry: input.registry,
            modules,
            module_errors: (0..modules.len())
                .map(|_| std::cell::OnceCell::new())
                .collect(),
            workspace_providers: std::cell::OnceCell::new(),
            nodes: Nodes::default(),
            instances: IdVec::default(),
            dropped: Vec::new(),
            seats: FxHashMap::default(),
            providers: FxHashMap::default(),
            providers_on_node: FxHashMap::default(),
            mesh_names: Vec::new(),
            mesh_diags: Vec::new(),
        };
        r.collect_nodes();
        r.mesh_names = r
            .nodes
            .values()
            .filter_map(|n| n.private_name.clone())
            .collect();
        let refusals = r.collect_instances();
        r.collect_seats();
        (r, refusals)
    }

    /// What evaluation reads of this mesh, once the provider choice has ended (and, with
    /// `left_out`, once that is known).
    pub fn world<'a>(
        &'a self,
        entries: &'a Entries<'m>,
        identities: &'a Identities,
        choices: &'a Choices<'m>,
        left_out: Option<&'a LeftOutSet>,
    ) -> World<'a, 'm> {
        self.world_of(
            entries,
            identities,
            &choices.answers,
            &choices.secret_keys,
            left_out.map(|l| &l.flags),
        )
    }

    /// What evaluation reads of this mesh, from its parts (the placements read the
    /// answers they have given so far, before any secret has a key).
    pub fn world_of<'a>(
        &'a self,
        entries: &'a Entries<'m>,
        identities: &'a Identities,
        answers: &'a Answers<'m>,
        secret_keys: &'a IdVec<InstanceId, SecretKeys<'m>>,
        left_out: Option<&'a IdVec<InstanceId, bool>>,
    ) -> World<'a, 'm> {
        World {
            registry: self.registry,
            nodes: &self.nodes,
            instances: &self.instances,
            mesh_names: &self.mesh_names,
            settings: &entries.settings,
            logins: &identities.logins,
            answers,
            secret_keys,
            left_out,
        }
    }

    /// Lets a newer revision of the database cancel this resolution here
    /// ([`ResolveInput::interrupt`]).
    pub fn interrupt(&self) {
        (self.input.interrupt)();
    }

    /// The errors of module `m`'s definition (the checker's).
    pub fn errors_of(&self, m: &LoadedModule<'_>) -> &[Diagnostic] {
        self.module_errors[m.index].get_or_init(|| {
            (self.input.module_errors)(&m.name)
                .into_iter()
                .filter(|d| d.severity == Severity::Error)
                .collect()
        })
    }

    /// The proof that the checker reported an error in module `m`'s definition (or in a
    /// contract it names), which leaves every assignment of `m` out, listing it: what
    /// resolution passes over in `m` rests on it ([`passed_over`]).
    pub fn checker_error(&self, m: &LoadedModule<'_>) -> Option<Reported> {
        Reported::among(self.errors_of(m))
    }

    /// Module `m`'s specs and readings, read now unless they were. The values phase
    /// evaluates a few expressions of a module's requirements and `provides` blocks,
    /// and asks for that module's then; the others are read just before the manifests
    /// ([`LoadedModule::read_specs`]), so resolution waits for no check it does not need.
    pub fn specs_of<'x>(&self, m: &'x LoadedModule<'_>) -> &'x ModuleSpecs {
        m.specs
            .get_or_init(|| (self.input.specs)(&m.name).unwrap_or_default())
    }

    /// The gate of a phase before the values ([`passed_over`]): passing over what the
    /// checker refuses with `code` in instance `i`'s module `m` rests on the proof that
    /// it was reported there. Without one (a release build; a debug build asserts) it
    /// gives the checker's miss to refuse `i` with ([`Resolver::checker_miss`]), so
    /// nothing is passed over untold ([`Phase::passed_over`]).
    pub fn gate(
        &self,
        i: InstanceId,
        m: &LoadedModule<'_>,
        code: &'static str,
    ) -> Result<Reported, Diagnostic> {
        passed_over(self.checker_error(m), code, &m.name)
            .ok_or_else(|| self.checker_miss(i, &m.name, code))
    }

    /// CheckerMiss: resolution met, in instance `i`'s module `module`, what the checker
    /// refuses with `code` though it reported no error there; told at the assignment.
    pub fn checker_miss(&self, i: InstanceId, module: &str, code: &'static str) -> Diagnostic {
        let rule = crate::diagnostics::rules::CheckerMiss { what: code, module };
        self.at(self.head(i), rule)
    }

    /// The loaded module of instance `i`, if its module is known.
    pub fn module_of(&self, i: InstanceId) -> Option<&'m LoadedModule<'m>> {
        self.instances[i].module
    }

    /// Instance `i` with its module, if its module is known.
    pub fn known(&self, i: InstanceId) -> Option<KnownInstance<'m>> {
        self.instances[i]
            .module
            .map(|module| KnownInstance { id: i, module })
    }

    /// Whether this resolution makes the lock a build writes ([`MeshOutcome::lock`]): a
    /// check writes none, so it makes none.
    pub(crate) fn writes_lock(&self) -> bool {
        self.output != Output::Nothing
    }

    /// "`forge` on `alpha`".
    pub fn who(&self, i: InstanceId) -> String {
        let inst = &self.instances[i];
        format!("`{}` on `{}`", inst.name, self.nodes[inst.node].name)
    }

    /// The node name of instance `i`.
    pub fn node_name(&self, i: InstanceId) -> &str {
        &self.nodes[self.instances[i].node].name
    }

    /// The diagnostic of `rule` broken at `span` of the mesh's file.
    pub fn at(&self, span: Span, rule: impl Rule) -> Diagnostic {
        rule.at(self.path, span)
    }

    /// The place an assignment is named: `assign MODULE to NODE [as INSTANCE]`.
    pub fn head(&self, i: InstanceId) -> Span {
        assign_head(self.instances[i].assign)
    }

    /// The requirement `name` of instance `i`'s module, with its declaration.
    pub fn requirement(
        &self,
        i: InstanceId,
        name: &str,
    ) -> Option<&'m crate::check::scope::ReqInfo<'m>> {
        self.module_of(i)?.scope.requirements.get(name)
    }
}

/// Every diagnostic of a mesh, in the one order an outcome gives them: by where each is
/// in the mesh's file, and at one place in the order they come: first the mesh's own
/// (nodes, seats, assignments dropped), then each instance's refusals in source order,
/// then one E0514 per left-out provider others wait for (`waiting`). A waiting
/// instance's own E0514 is not repeated here: it stays among that instance's refusals,
/// which its `left_out` entry lists.
pub(crate) fn order_diagnostics<'a>(
    mesh: &[Diagnostic],
    refusals: impl IntoIterator<Item = impl IntoIterator<Item = &'a Diagnostic>>,
    waiting: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let mut all: Vec<Diagnostic> = mesh.to_vec();
    for own in refusals {
        all.extend(own.into_iter().filter(|d| d.code != Code::E0514).cloned());
    }
    all.extend(waiting);
    // Stable: diagnostics at one place keep the order above.
    all.sort_by_key(|d| d.span.start);
    all
}

/// `assign MODULE to NODE [as INSTANCE]`: the span of an assignment's first line.
pub(crate) fn assign_head(a: &ast::Assign) -> Span {
    let mut s = a.module.span;
    if let Some(n) = &a.node {
        s = s.to(n.span);
    }
    if let Some(i) = &a.instance {
        s = s.to(i.span);
    }
    Span::new(a.span.start as usize, s.end as usize)
}

#[cfg(test)]
mod tests {
    use super::ids::Id;
    use super::*;
    use crate::diagnostics::rules::{LoginsAlike, UnknownModule};

    /// A refusal at `at` (E0106, or E0509 with `alike`), as the resolver's rules build it.
    fn refusal(at: usize, alike: bool) -> Diagnostic {
        let (path, span) = (FilePath::from("m.mesh"), Span::new(at, at + 1));
        match alike {
            true => LoginsAlike {
                login: "a_b",
                who: "`a` on `n`",
                others: "`b` on `n`",
                heads: Vec::new(),
            }
            .at(&path, span),
            false => UnknownModule {
                module: "m",
                closest: None,
            }
            .at(&path, span),
        }
    }

    /// The ledger lists an instance's refusals phase by phase, in the order the phases
    /// ended; a member of a group of alike logins is refused by its first member's E0509
    /// (and by nothing else of that member's).
    #[test]
    fn the_ledger_keeps_the_phases_order_and_shares_a_groups_refusal() {
        let (a, b, c) = (
            InstanceId::from_index(0),
            InstanceId::from_index(1),
            InstanceId::from_index(2),
        );
        let shared: IdVec<InstanceId, Option<InstanceId>> =
            [None, Some(a), None].into_iter().collect();
        let mut ledger = Ledger::new(&shared);
        let mut names = Refusals::default();
        names.push(a, refusal(1, false));
        let mut logins = Refusals::default();
        logins.push(a, refusal(2, true));
        let mut later = Refusals::default();
        later.push(a, refusal(3, false));
        later.push(c, refusal(4, false));
        // A phase keeps each instance's refusals in the order raised, among others'.
        later.push(a, refusal(6, false));
        ledger.close(names);
        ledger.close(logins);
        ledger.close(later);
        let starts = |v: Vec<&Diagnostic>| v.iter().map(|d| d.span.start).collect::<Vec<_>>();
        assert_eq!(starts(ledger.own(a).collect()), [1, 2, 3, 6]);
        assert_eq!(starts(ledger.own(c).collect()), [4]);
        assert_eq!(starts(ledger.refusals_of(b).iter().collect()), [2]);
        assert_eq!(ledger.refusals_of(b)[0].code, Code::E0509);
        assert!(ledger.own(b).next().is_none());
        assert!(ledger.is_refused(a) && ledger.is_refused(b) && ledger.is_refused(c));
        // A phase's refusals are the ledger's once the phase is closed into it.
        let nothing: IdVec<InstanceId, Option<InstanceId>> = IdVec::filled(3, None);
        let mut quiet = Ledger::new(&nothing);
        quiet.close(Refusals::default());
        let mut own = Refusals::default();
        own.push(b, refusal(5, false));
        assert!(!quiet.is_refused(b) && !own.of(b).is_empty());
        quiet.close(own);
        assert!(quiet.is_refused(b) && !quiet.is_refused(a));
    }
}
