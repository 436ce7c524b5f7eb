//! Resolution of a mesh (LANGUAGE.md §6–§9): every requirement of every assignment is
//! answered, or refused with a diagnostic naming what is missing and what would answer
//! it. What resolves is built into one manifest per node; an assignment with a refusal is
//! left out of its node's manifest, and so is every consumer waiting for it (E0514).
//!
//! The resolver is pure: it reads the mesh's tree, the registry and module definitions
//! through [`ResolveInput`] and returns a [`MeshOutcome`]. It never panics on broken
//! input: what does not resolve evaluates to nothing, and the assignment that needed it
//! is left out with a diagnostic.
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
pub(crate) use evaluate::Values;
pub(crate) use ids::{IdVec, InstanceId, NodeId, Nodes};
pub use lock::Lock;

use crate::check::registry::ModuleSource;
use crate::check::registry::Registry;
use crate::check::scope::ModuleScope;
use crate::check::types::Value;
use crate::diagnostics::rules::PortsRefused;
use crate::diagnostics::{Code, Diagnostic, Reported, Rule, Severity};
use crate::emit::{By, Manifest};
use crate::span::{FilePath, Span};
use crate::syntax::ast;
pub(crate) use fx_hash::FxIndexMap;
use fx_hash::{FxHashMap, FxHashSet};
use indexmap::IndexMap;

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
    /// Where [`build_files`] puts each file as soon as its bytes are made; without one,
    /// the outcome holds them ([`MeshOutcome::files`]).
    pub sink: Option<&'a dyn FileSink>,
}

/// Where a build's files go, one at a time, as each node's are made: called from the
/// thread that made them, in any order, each name once (`NODE.json`, and
/// `NODE/compose.yaml` for Compose). The caller writes them; resolution does no I/O.
pub trait FileSink: Sync {
    /// Takes the bytes of file `name` (a buffer the thread reuses for the next file).
    fn put(&self, name: &str, bytes: &[u8]);
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
    /// The ports this build chose, for `<mesh file>.lock`; its `written` is the record
    /// it was given (see [`MeshOutcome::lock_to_write`]).
    pub lock: Lock,
    /// What each instance of this build writes (containers and their file paths), for
    /// the lock's `written`; empty when resolved without manifests.
    pub written:
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<String>>>,
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
    /// The facts of every node of the mesh, in its order (for `--target compose`).
    pub nodes: Vec<NodeFacts>,
    /// The bytes of every file a build writes, in the order it writes them: each node's
    /// `NODE.json` in the mesh's node order, then (for `--target compose`) each node's
    /// `NODE/compose.yaml`. Filled by [`build_files`] only, which leaves
    /// [`MeshOutcome::manifests`] empty.
    pub files: Vec<(String, Vec<u8>)>,
}

/// How one module requirement of one built assignment is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderChoice {
    /// The consuming instance, its node and module.
    pub node: String,
    pub instance: String,
    pub module: String,
    /// The requirement, as the module names it.
    pub requirement: String,
    /// The instance that answers it and by which rule; `None` when the requirement is
    /// absent (optional with no provider, or declined).
    pub provider: Option<(crate::emit::InstanceRef, By)>,
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
            files: Vec::new(),
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
/// the outcome holds no manifest but the bytes of every file the build writes
/// ([`MeshOutcome::files`]), and everything else [`resolve_mesh`] gives. Each node's
/// manifest is built, serialised and dropped on its own, so the build holds the bytes of
/// its manifests and never all their trees at once. The bytes are those
/// [`crate::emit::manifest_bytes`] and [`crate::emit::compose::compose_yaml`] give for
/// the manifests of [`resolve_mesh`]. With `input.sink`, each file goes there instead
/// as soon as it is made, and the outcome holds none.
pub fn build_files(input: &ResolveInput<'_>, compose: bool) -> MeshOutcome {
    resolve_as(input, Output::Files { compose })
}

/// What a resolution makes of the manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// None (`meshc check`): every value is still evaluated, so the diagnostics are the
    /// same.
    Nothing,
    /// The manifests, in [`MeshOutcome::manifests`].
    Manifests,
    /// The bytes of the files a build writes, in [`MeshOutcome::files`].
    Files { compose: bool },
}

fn resolve_as(input: &ResolveInput<'_>, output: Output) -> MeshOutcome {
    // Load every assigned module once; their trees outlive the resolver, which borrows them.
    let mut sources: FxIndexMap<String, ModuleSource> = FxIndexMap::default();
    for a in input.mesh.assigns() {
        let name = a.module.name.as_str();
        if sources.contains_key(name) {
            continue;
        }
        if let Some(src) = (input.module)(name) {
            sources.insert(name.to_string(), src);
        }
    }
    // Each module's scope is read on its own (10,000 modules in a large mesh): on every
    // core, in the order of first assignment whatever the number of threads.
    let found: Vec<(&String, &ModuleSource, &ast::Module)> = sources
        .iter()
        .filter_map(|(name, src)| Some((name, src, module_of(src)?)))
        .collect();
    crate::base::process::mark("resolve.sources");
    let registry = input.registry;
    let loaded: Vec<LoadedModule<'_>> = crate::parallel::map_chunks(&found, 256, |part| {
        part.iter()
            .map(|&(name, src, ast)| LoadedModule::new(name, src, ast, registry))
            .collect()
    });
    let modules: FxIndexMap<String, LoadedModule<'_>> = loaded
        .into_iter()
        .enumerate()
        .map(|(index, mut m)| {
            m.index = index;
            (m.name.clone(), m)
        })
        .collect();
    crate::base::process::mark("resolve.loaded");
    let outcome = Resolver::new(input, &modules, output).run();
    crate::base::process::release(modules);
    drop(found);
    crate::base::process::release(sources);
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
        registry: &'m Registry,
    ) -> LoadedModule<'m> {
        let mut provides = FxIndexMap::default();
        for p in ast.provides() {
            provides.entry(p.contract.name.as_str()).or_insert(p);
        }
        LoadedModule {
            name: name.to_string(),
            path: src.path.clone(),
            ast,
            scope: ModuleScope::new(ast, registry),
            provides,
            index: 0,
            slug: identity::module_slug(ast),
        }
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
/// placements phase fills the host, mesh and operator requirements, the provider choice
/// the module requirements and secret operator values; read only after.
pub(crate) type Answers<'m> = IdVec<InstanceId, FxHashMap<&'m str, Answer>>;

/// (requirement, secret field) → the key the provider keeps it under, for the keys that
/// are not in their usual form (see [`World::secret_key`]); a secret operator value's
/// field is `""`. Most instances hold none, so a large mesh keeps no table per instance.
pub(crate) type SecretKeys<'m> = FxHashMap<(&'m str, &'m str), String>;

/// The refusals one phase raises: per instance, in the order raised. Each phase returns
/// its own; an instance's refusals are those of every phase, in the phases' order.
#[derive(Default)]
pub(crate) struct Refusals(IdVec<InstanceId, Vec<Diagnostic>>);

impl Refusals {
    /// No refusal yet, for a mesh of `len` instances.
    pub fn new(len: usize) -> Refusals {
        Refusals(IdVec::filled(len, Vec::new()))
    }

    /// Records a refusal of instance `i`.
    pub fn push(&mut self, i: InstanceId, diagnostic: Diagnostic) {
        self.0[i].push(diagnostic);
    }

    /// The refusals of instance `i` (none when this phase has not run).
    pub fn of(&self, i: InstanceId) -> &[Diagnostic] {
        self.0.get(i).map_or(&[], Vec::as_slice)
    }
}

/// The entries phase's product: what each assignment writes in its braces, judged, and
/// the refusals of what it writes wrongly.
#[derive(Default)]
pub(crate) struct Entries<'m> {
    pub settings: IdVec<InstanceId, Settings<'m>>,
    pub refusals: Refusals,
}

/// The placements phase's product (its answers are in [`Resolver::answers`]): the ports
/// chosen, and the refusals of host requirements (E0501, E0510, E0511, E0518, E0519), with
/// those of the given values a placed port's protocol reads.
#[derive(Default)]
pub(crate) struct Placements {
    pub ports: Ports,
    pub refusals: Refusals,
}

/// The provider choice's product (its answers are in [`Resolver::answers`]): the keys
/// of sealed secrets not in their usual form, whom each instance waits for, and the
/// refusals of requirements no provider answers (E0502–E0505, E0515).
#[derive(Default)]
pub(crate) struct Choices<'m> {
    pub secret_keys: IdVec<InstanceId, SecretKeys<'m>>,
    /// Instances whose answers each one waits for (providers, seat holders).
    pub waits_for: IdVec<InstanceId, Vec<InstanceId>>,
    pub refusals: Refusals,
}

/// What is left out (the last phase before the manifests): each instance's flag, and the
/// refusals of those waiting for a left-out instance (E0514).
#[derive(Default)]
pub(crate) struct LeftOutSet {
    pub flags: IdVec<InstanceId, bool>,
    pub refusals: Refusals,
}

/// The identities phase's product: every instance's login (§8), and the refusals of
/// logins that do not fit (E0513) or are alike (E0509).
#[derive(Default)]
pub(crate) struct Identities {
    /// The login of each instance (empty for an unknown module).
    pub logins: IdVec<InstanceId, String>,
    /// Refused by a diagnostic another instance holds: the first of a group of alike
    /// logins (E0509), reported once for the whole group.
    pub refused_with: IdVec<InstanceId, Option<InstanceId>>,
    pub refusals: Refusals,
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

/// A mesh being resolved. Its phases run in the one order [`Resolver::run`] writes;
/// each fills what the next reads (see docs/resolution.md, "Order of work"):
///
/// 1. names: [`Resolver::nodes`], [`Resolver::instances`], [`Resolver::seats`], the
///    providers of each contract, and the mesh's own diagnostics;
/// 2. entries and identities: each instance's [`Settings`] and login;
/// 3. placements: host answers, and the lock's ports ([`Ports`], returned);
/// 4. provider choice: module answers and the keys of sealed secrets;
/// 5. values: every value an instance's manifest can read, computed once through
///    [`evaluate::Eval`] and returned as an immutable product ([`Values`]);
/// 6. what is left out;
/// 7. the manifests, node by node on every core, from `&self` and the values alone
///    ([`manifests::build`]): building reads and never refuses.
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
    /// The names phase's refusals of instances (an unknown module, E0106).
    pub name_refusals: Refusals,
    /// The entries phase's product.
    pub entries: Entries<'m>,
    /// The identities phase's product.
    pub identities: Identities,
    /// The answers the placements and the provider choice give.
    pub answers: Answers<'m>,
    /// The placements phase's product.
    pub placements: Placements,
    /// The provider choice's product.
    pub choices: Choices<'m>,
    /// The values phase's refusals.
    pub value_refusals: Refusals,
    /// What is left out.
    pub left_out: LeftOutSet,
    /// The refusals of the phase under way; each phase takes them into its product.
    pending: Refusals,
    /// (consumer, provider) pairs already told E0514.
    pub told_waiting: FxHashSet<(InstanceId, InstanceId)>,
    /// The evaluator's memo and stack, while the values phase runs.
    pub eval: evaluate::Eval<'m>,
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
    /// of instance `i` (see [`InstanceState::secret_key`]).
    /// `<login>/<field>` (`<login>/<req>` for an operator value, `field` `""`), unless
    /// [`Resolver::allocate_secret_keys`] had to choose another.
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

impl<'m> Resolver<'m> {
    fn new(
        input: &'m ResolveInput<'m>,
        modules: &'m FxIndexMap<String, LoadedModule<'m>>,
        output: Output,
    ) -> Resolver<'m> {
        Resolver {
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
            name_refusals: Refusals::default(),
            entries: Entries::default(),
            identities: Identities::default(),
            answers: IdVec::default(),
            placements: Placements::default(),
            choices: Choices::default(),
            value_refusals: Refusals::default(),
            left_out: LeftOutSet::default(),
            pending: Refusals::default(),
            told_waiting: FxHashSet::default(),
            eval: evaluate::Eval::default(),
        }
    }

    /// Every phase, in order.
    fn run(mut self) -> MeshOutcome {
        use crate::base::process::mark;
        // 1. Names.
        self.collect_nodes();
        self.mesh_names = self
            .nodes
            .values()
            .filter_map(|n| n.private_name.clone())
            .collect();
        self.collect_instances();
        self.collect_seats();
        mark("resolve.names");
        // 2. Entries and identities.
        self.entries = self.judge_entries();
        self.identities = self.assign_logins(&self.entries);
        let n = self.instances.len();
        self.pending = Refusals::new(n);
        // Each instance's answers sized once: one per requirement of its module.
        self.answers = self
            .instances
            .iter()
            .map(|inst| {
                let requirements = inst.module.map_or(0, |m| m.scope.requirements.len());
                FxHashMap::with_capacity_and_hasher(requirements, Default::default())
            })
            .collect();
        // The memo tables, sized once: the placements phase already reads given values.
        self.eval.values = Values::new(self.instances.iter().map(|inst| inst.module));
        mark("resolve.entries");
        // 3. Placements.
        let ports = self.place_host_requirements();
        self.placements = Placements {
            ports,
            refusals: self.take_refusals(),
        };
        mark("resolve.placements");
        // 4. Provider choice.
        let waits_for = self.choose_providers();
        let secret_keys = self.allocate_secret_keys();
        self.choices = Choices {
            secret_keys,
            waits_for,
            refusals: self.take_refusals(),
        };
        mark("resolve.choice");
        // 5. Values: every value computed, then frozen.
        self.evaluate_requirements();
        self.check_public_names();
        let values: Values = std::mem::take(&mut self.eval).finish();
        self.value_refusals = self.take_refusals();
        mark("resolve.values");
        // 6. What is left out.
        self.left_out = self.leave_out_refused();
        mark("resolve.left_out");
        // 7. The manifests, from the products above.
        let ports = std::mem::take(&mut self.placements.ports);
        let outcome = self.assemble(&values, ports);
        mark("resolve.assembled");
        crate::base::process::release((self, values));
        outcome
    }

    /// The refusals of the phase that just ended.
    pub(super) fn take_refusals(&mut self) -> Refusals {
        std::mem::replace(&mut self.pending, Refusals::new(self.instances.len()))
    }

    /// What evaluation reads of this mesh.
    pub fn world(&self) -> World<'_, 'm> {
        World {
            registry: self.registry,
            nodes: &self.nodes,
            instances: &self.instances,
            mesh_names: &self.mesh_names,
            settings: &self.entries.settings,
            logins: &self.identities.logins,
            answers: &self.answers,
            secret_keys: &self.choices.secret_keys,
            left_out: (self.left_out.flags.len() == self.instances.len())
                .then_some(&self.left_out.flags),
        }
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

    /// "`forge` on `alpha`".
    pub fn who(&self, i: InstanceId) -> String {
        let inst = &self.instances[i];
        format!("`{}` on `{}`", inst.name, self.nodes[inst.node].name)
    }

    /// The node name of instance `i`.
    pub fn node_name(&self, i: InstanceId) -> &str {
        self.world().node_name(i)
    }

    /// Instance `i`'s own refusals, every phase's in the phases' order.
    pub fn own_refusals(&self, i: InstanceId) -> impl Iterator<Item = &Diagnostic> {
        self.name_refusals
            .of(i)
            .iter()
            .chain(self.entries.refusals.of(i))
            .chain(self.identities.refusals.of(i))
            .chain(self.placements.refusals.of(i))
            .chain(self.choices.refusals.of(i))
            .chain(self.value_refusals.of(i))
            .chain(self.left_out.refusals.of(i))
            .chain(self.pending.of(i))
    }

    /// Whether instance `i` is refused by the mesh (its own refusals, or its group's).
    pub fn is_refused(&self, i: InstanceId) -> bool {
        self.own_refusals(i).next().is_some() || self.identities.refused_with[i].is_some()
    }

    /// Every refusal of instance `i`: its own, then the one it shares with its group.
    pub fn refusals_of(&self, i: InstanceId) -> Vec<Diagnostic> {
        let mut all: Vec<Diagnostic> = self.own_refusals(i).cloned().collect();
        if let Some(j) = self.identities.refused_with[i] {
            all.extend(
                self.identities
                    .refusals
                    .of(j)
                    .iter()
                    .filter(|d| d.code == Code::E0509)
                    .cloned(),
            );
        }
        all
    }

    /// Refuses instance `i` with `diagnostic` (a rule's, built by [`Resolver::at`] or a
    /// lookup such as [`Resolver::find_instance`]), and returns the proof: the one way an
    /// instance is refused outside the entries phase.
    pub fn refuse(&mut self, i: InstanceId, diagnostic: Diagnostic) -> Reported {
        Reported::record(&mut self.pending.0[i], diagnostic)
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
        self.world().requirement(i, name)
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
