//! The salsa database the CLI and the language server share. Source files and the
//! workspace are inputs; parsing, the registry, checking and resolution are tracked
//! queries, so an edit re-runs only what depends on the edited file.

use crate::check::registry::{FileSummary, GivenRead, ItemRef, Registry, SummaryInput};
use crate::diagnostics::Diagnostic;
use crate::span::FilePath;
use crate::syntax::{Parsed, ast};
use std::sync::Arc;

pub use crate::base::{STDLIB_PATH, STDLIB_TEXT};
pub use crate::check::registry::ModuleSource;

/// One source text of the workspace.
#[salsa::input]
pub struct SourceFile {
    /// The path as the user named it (or the editor's URI turned into a path).
    #[returns(ref)]
    pub path: FilePath,
    #[returns(ref)]
    pub text: Arc<str>,
    /// The standard library's own file.
    #[returns(copy)]
    pub std: bool,
}

/// Every file of the workspace, the standard library first.
#[salsa::input]
pub struct Workspace {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
    /// Whether meshes resolve from position-free modules ([`module_view`]), as the
    /// language server asks: an edit that moves only positions in an assigned module then
    /// resolves nothing again, at the price of a position-free copy of every assigned
    /// module's tree. `meshc` itself resolves once and reads the trees directly.
    #[default]
    #[returns(copy)]
    pub reuse_resolution: bool,
    /// Whether resolution lists how each module requirement is answered
    /// ([`crate::resolve::MeshOutcome::choices`]), as the language server's hovers and
    /// hints read them. `meshc` itself never reads them: for a large mesh they are tens of
    /// thousands of names copied for nothing.
    #[default]
    #[returns(copy)]
    pub provider_choices: bool,
    /// The summaries of the language server's open documents, as the registry reads
    /// them instead of asking each document's [`file_summary`] (see [`Pinned`]). Empty
    /// for `meshc` itself.
    #[default]
    #[returns(ref)]
    pub pinned: Pinned,
    /// Whether the workspace is only checked (`meshc check`): no manifest is built, so
    /// each module's checks keep no container specs, which resolution reads only to
    /// build manifests (on the dense workload they were megabytes held to the end).
    /// What a mesh's check reads of a module's specs, its readings, is kept. Set when
    /// the workspace is made and never changed, so of high durability there: every
    /// file's checks read it, and a low one would make each of them be confirmed one by
    /// one after every keystroke in the language server.
    #[default]
    #[returns(copy)]
    pub checks_only: bool,
}

/// Summaries pinned by the language server, by file: each equal to the file's
/// [`file_summary`] at every revision (the server pins them again after every change of
/// a text, [`pin_summaries`]). An open document's text changes at every keystroke, with
/// low durability; were the registry to read its summary, the registry and so every
/// file's check would have low durability too, and salsa would walk every file's memo
/// again after each keystroke: a cost that grows with the workspace, not with the edit.
/// Read through this input, set only when a summary changes, the registry and every other
/// file's check keep the durability of the files on disk, and salsa confirms them without
/// walking them ([`workspace_diagnostics`] asks for them by groups).
pub type Pinned = Arc<std::collections::HashMap<SourceFile, Arc<FileSummary>>>;

/// Pins the summaries of `open` (and only of those) for the registry ([`Pinned`]),
/// setting the input only when one differs from what is pinned. Returns whether it did.
pub fn pin_summaries(db: &mut Database, ws: Workspace, open: &[SourceFile]) -> bool {
    use salsa::Setter as _;
    let pinned = ws.pinned(db);
    let summaries: Vec<(SourceFile, Arc<FileSummary>)> =
        open.iter().map(|&f| (f, file_summary(db, f))).collect();
    let same = pinned.len() == summaries.len()
        && summaries
            .iter()
            .all(|(f, s)| pinned.get(f).is_some_and(|p| p == s));
    if same {
        return false;
    }
    ws.set_pinned(db)
        .with_durability(salsa::Durability::MEDIUM)
        .to(Arc::new(summaries.into_iter().collect()));
    true
}

/// The database. Cheap to clone: a clone is a snapshot for another thread.
#[salsa::db]
#[derive(Clone, Default)]
pub struct Database {
    storage: salsa::Storage<Self>,
}

#[salsa::db]
impl salsa::Database for Database {}

impl Database {
    /// A database holding the standard library and `files` (path, text).
    pub fn with_files(
        files: impl IntoIterator<Item = (FilePath, Arc<str>)>,
    ) -> (Database, Workspace) {
        let db = Database::default();
        let mut inputs = vec![std_input(&db)];
        for (path, text) in files {
            inputs.push(SourceFile::new(&db, path, text, false));
        }
        let ws = Workspace::builder(inputs)
            .checks_only_durability(salsa::Durability::HIGH)
            .new(&db);
        (db, ws)
    }

    /// A database holding the standard library and the files `read` gives for `items`,
    /// in the order of `items`. Every core takes files in turn: each file is read, made
    /// an input, parsed and summarised on the thread that read it, while its text is
    /// still in that core's cache, so reading and parsing overlap and no core waits for
    /// the other's half. What `read` refuses comes back in the order of `items`. The
    /// database and the outcome are those of [`Database::with_files`] given the texts
    /// read.
    /// `checks_only` says the workspace is only checked ([`Workspace::checks_only`]).
    pub fn read_files<T: Sync, E: Send>(
        items: &[T],
        checks_only: bool,
        read: impl Fn(&T) -> Result<(FilePath, Arc<str>), E> + Sync,
    ) -> (Database, Workspace, Vec<E>) {
        let db = Database::default();
        let std_file = std_input(&db);
        let made: Vec<Result<SourceFile, E>> = crate::parallel::map_batches_with(
            items,
            FILE_BATCH,
            || db.clone(),
            |snapshot, item| {
                let (path, text) = read(item)?;
                let file = SourceFile::new(snapshot, path, text, false);
                file_summary(snapshot, file);
                Ok(file)
            },
        );
        let mut inputs = Vec::with_capacity(made.len() + 1);
        inputs.push(std_file);
        let mut refused = Vec::new();
        for m in made {
            match m {
                Ok(file) => inputs.push(file),
                Err(e) => refused.push(e),
            }
        }
        let ws = Workspace::builder(inputs)
            .checks_only(checks_only)
            .checks_only_durability(salsa::Durability::HIGH)
            .new(&db);
        (db, ws, refused)
    }
}

/// The standard library's input. It never changes: what reads only it is never
/// revalidated.
fn std_input(db: &Database) -> SourceFile {
    SourceFile::builder(FilePath::from(STDLIB_PATH), Arc::from(STDLIB_TEXT), true)
        .durability(salsa::Durability::HIGH)
        .new(db)
}

/// How many files a thread takes at a time when files are spread over the cores: enough
/// that taking them costs nothing, few enough that the cores finish together.
const FILE_BATCH: usize = 16;

/// Parses one file.
#[salsa::tracked(returns(clone))]
pub fn parse_file(db: &dyn salsa::Database, file: SourceFile) -> Arc<Parsed> {
    Arc::new(crate::syntax::parse(file.path(db), file.text(db)))
}

/// Every file of the workspace parsed, in the workspace's order: its path, its tree, and
/// whether it is the standard library's (what [`Registry::build`] and
/// `check::check_items` take).
pub fn parsed_files(db: &dyn salsa::Database, ws: Workspace) -> Vec<(FilePath, Arc<Parsed>, bool)> {
    ws.files(db)
        .iter()
        .map(|f| (f.path(db).clone(), parse_file(db, *f), f.std(db)))
        .collect()
}

/// What the registry needs of one file: its items' names, kinds and what resolution
/// reads of them, with no position of modules and meshes (rust-analyzer's item tree).
/// It compares equal across an edit that renames nothing, so salsa keeps the registry
/// and every query that reads it.
#[salsa::tracked(returns(clone))]
pub fn file_summary(db: &dyn salsa::Database, file: SourceFile) -> Arc<FileSummary> {
    let parsed = parse_file(db, file);
    Arc::new(FileSummary::of(&parsed.file, file.path(db), file.std(db)))
}

/// The workspace's global names, built from the files' summaries only, read in groups
/// ([`summary_group`]).
#[salsa::tracked(returns(clone))]
pub fn registry(db: &dyn salsa::Database, ws: Workspace) -> Arc<Registry> {
    let groups = ws.files(db).len().div_ceil(SUMMARY_GROUP);
    let parts: Vec<Arc<Vec<GroupEntry>>> = (0..groups).map(|g| summary_group(db, ws, g)).collect();
    Arc::new(Registry::from_summaries(parts.iter().flat_map(|part| {
        part.iter().map(|(path, summary, std)| SummaryInput {
            path,
            summary,
            std: *std,
        })
    })))
}

/// The given fields some module reads as a consumer's ([`GivenRead`]), from the files'
/// summaries by groups as [`registry`] reads them: what a check view keeps of another
/// module's given fields ([`module_check_view`]). Apart from the registry, so an edit that
/// changes it (`given.depth` written in a `provides` answer) leaves the registry, and
/// every file's check that reads it, equal; it is read only by the views of modules that
/// set a given field.
#[salsa::tracked(returns(clone))]
pub fn given_read(db: &dyn salsa::Database, ws: Workspace) -> Arc<GivenRead> {
    let groups = ws.files(db).len().div_ceil(SUMMARY_GROUP);
    let parts: Vec<Arc<Vec<GroupEntry>>> = (0..groups).map(|g| summary_group(db, ws, g)).collect();
    Arc::new(GivenRead::of(
        parts
            .iter()
            .flat_map(|part| part.iter().map(|(_, summary, _)| &**summary)),
    ))
}

/// Whether some module reads given field `field` as a consumer's ([`given_read`]), as a
/// query of its own: a check view depends on the fields its module sets alone, so a
/// keystroke in `given.depth` (each prefix a field name read) makes again only the views
/// of modules that set a field of that name, not every view that sets a given field.
#[salsa::tracked]
fn given_field_read(db: &dyn salsa::Database, ws: Workspace, field: String) -> bool {
    given_read(db, ws).reads(&field)
}

/// How many files' summaries one [`summary_group`] holds.
const SUMMARY_GROUP: usize = 128;

/// One file of a [`summary_group`]: its path, its summary, whether it is the standard
/// library's.
type GroupEntry = (FilePath, Arc<FileSummary>, bool);

/// The summaries of the `group`-th run of [`SUMMARY_GROUP`] files of the workspace.
/// After an edit, salsa confirms the registry by looking at each group instead of each
/// file: a group that holds only files read from disk has their durability and is
/// confirmed without walking its files, so an edit in an open document walks its own
/// group's files, not the workspace's.
#[salsa::tracked(returns(clone))]
fn summary_group(db: &dyn salsa::Database, ws: Workspace, group: usize) -> Arc<Vec<GroupEntry>> {
    let files = ws.files(db);
    let pinned = ws.pinned(db);
    let start = (group * SUMMARY_GROUP).min(files.len());
    let end = (start + SUMMARY_GROUP).min(files.len());
    Arc::new(
        files[start..end]
            .iter()
            .map(|f| {
                let summary = match pinned.get(f) {
                    Some(s) => s.clone(),
                    None => file_summary(db, *f),
                };
                (f.path(db).clone(), summary, f.std(db))
            })
            .collect(),
    )
}

/// The checks of a group of files, in the group's order ([`checked_group`]).
type GroupChecks = Arc<Vec<Arc<Vec<Diagnostic>>>>;

/// How many groups of [`SUMMARY_GROUP`] files the workspace has.
fn groups_of(db: &dyn salsa::Database, ws: Workspace) -> Vec<usize> {
    (0..ws.files(db).len().div_ceil(SUMMARY_GROUP)).collect()
}

/// The checks ([`check_file`]) of the `group`-th run of [`SUMMARY_GROUP`] files, in
/// order. The language server's workspace pass asks for these instead of each file's:
/// after a keystroke salsa confirms a group of files on disk by its durability, so the
/// pass looks at a few hundred groups and at the edited file's, not at every file.
#[salsa::tracked(returns(clone))]
fn checked_group(db: &dyn salsa::Database, ws: Workspace, group: usize) -> GroupChecks {
    let files = ws.files(db);
    let start = (group * SUMMARY_GROUP).min(files.len());
    let end = (start + SUMMARY_GROUP).min(files.len());
    Arc::new(
        files[start..end]
            .iter()
            .map(|f| check_file(db, ws, *f))
            .collect(),
    )
}

/// The definition of module `name`.
pub fn module_source(db: &dyn salsa::Database, ws: Workspace, name: &str) -> Option<ModuleSource> {
    module_source_in(db, &registry(db, ws), ws.files(db), name)
}

/// [`module_source`] with the workspace's registry and files in hand.
fn module_source_in(
    db: &dyn salsa::Database,
    reg: &Registry,
    files: &[SourceFile],
    name: &str,
) -> Option<ModuleSource> {
    let at = reg.modules.get(name)?;
    let file = *files.get(at.file)?;
    Some(ModuleSource {
        path: file.path(db).clone(),
        parsed: parse_file(db, file),
        item: at.item,
    })
}

/// What the checks of one file found ([`file_checks`]): its diagnostics, and the
/// semantic model of each of its modules by item (`None` for what is no module), built
/// without their reference tables ([`module_references`] keeps those).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileChecks {
    pub diagnostics: Arc<Vec<Diagnostic>>,
    pub models: Vec<Option<Arc<crate::check::semantics::ModuleSemantics>>>,
}

/// The checks of one file: syntax, duplicates, its contracts' checks, and its modules'
/// semantic models, built here in one query rather than one query per module (two salsa
/// queries per module, their keys interned, were a tenth of `meshc check`'s
/// instructions).
#[salsa::tracked(returns(clone))]
pub fn file_checks(db: &dyn salsa::Database, ws: Workspace, file: SourceFile) -> Arc<FileChecks> {
    let parsed = parse_file(db, file);
    let reg = registry(db, ws);
    let path = file.path(db);
    let std = file.std(db);
    let mut out = parsed.diagnostics.clone();
    let files = ws.files(db);
    out.extend(reg.diagnostics_in(path, &|index| files.get(index).map(|f| parse_file(db, *f))));
    let mut models = vec![None; parsed.file.items.len()];
    let checks_only = ws.checks_only(db);
    out.extend(crate::check::check_items_with(
        path,
        &parsed.file,
        &reg,
        std,
        &parsed.diagnostics,
        |item, m, errors| {
            let mut model = crate::check::semantics::module_semantics(
                path,
                m,
                module_scope(db, ws, file, item),
                &reg,
                std,
                errors,
                false,
            );
            if checks_only && let Some(specs) = Arc::get_mut(&mut model.specs) {
                // Freed now, not held to the end: nothing builds a container.
                specs.containers = Box::default();
            }
            let model = Arc::new(model);
            models[item] = Some(model.clone());
            model
        },
    ));
    Arc::new(FileChecks {
        diagnostics: Arc::new(out),
        models,
    })
}

/// Every diagnostic of one file that needs no resolution: syntax, duplicates, and the
/// checks of its contracts and modules ([`file_checks`]).
pub fn check_file(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
) -> Arc<Vec<Diagnostic>> {
    file_checks(db, ws, file).diagnostics.clone()
}

/// The scope of the module that is item `item` of `file`, decided once: what its
/// semantic model ([`module_semantics`]) and resolution read. A query of its own, so
/// resolution reads it without waiting for the module's checks, and an edit that moves
/// only positions leaves it equal (it holds none), so what reads it is kept.
#[salsa::tracked(returns(clone))]
pub fn module_scope(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
    item: usize,
) -> Arc<crate::check::scope::ScopeTable> {
    let parsed = parse_file(db, file);
    match parsed.file.items.get(item) {
        Some(ast::Item::Module(m)) => {
            Arc::new(crate::check::semantics::decide_scope(m, &registry(db, ws)))
        }
        _ => Arc::default(),
    }
}

/// The scope of module `name` ([`module_scope`]), where the registry says it is.
pub fn module_scope_named(
    db: &dyn salsa::Database,
    ws: Workspace,
    name: &str,
) -> Option<Arc<crate::check::scope::ScopeTable>> {
    let (file, item) = module_at(db, ws, name)?;
    Some(module_scope(db, ws, file, item))
}

/// The file and the item of module `name`, where the registry says it is.
fn module_at(db: &dyn salsa::Database, ws: Workspace, name: &str) -> Option<(SourceFile, usize)> {
    let at = registry(db, ws).modules.get(name).copied()?;
    Some((*ws.files(db).get(at.file)?, at.item))
}

/// The container specs of the module that is item `item` of `file`, as its semantic
/// model ([`module_semantics`]) lowered them: what resolution builds containers from. A
/// query of its own: the specs hold no position, so an edit that moves only positions
/// leaves them equal and what reads them is kept.
#[salsa::tracked(returns(clone))]
pub fn module_specs(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
    item: usize,
) -> Arc<crate::check::specs::ModuleSpecs> {
    module_semantics(db, ws, file, item).specs.clone()
}

/// The container specs of module `name` ([`module_specs`]), where the registry says it
/// is.
pub fn module_specs_named(
    db: &dyn salsa::Database,
    ws: Workspace,
    name: &str,
) -> Option<Arc<crate::check::specs::ModuleSpecs>> {
    let (file, item) = module_at(db, ws, name)?;
    Some(module_specs(db, ws, file, item))
}

/// The semantic model of the module that is item `item` of `file`
/// (`check::semantics`): its scope decided once, its diagnostics, as its file's checks
/// built it ([`file_checks`]); without the table of its references, which
/// [`module_references`] keeps. An empty model when that item is no module.
pub fn module_semantics(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
    item: usize,
) -> Arc<crate::check::semantics::ModuleSemantics> {
    file_checks(db, ws, file)
        .models
        .get(item)
        .cloned()
        .flatten()
        .unwrap_or_default()
}

/// The semantic model of the module that is item `item` of `file` with every reference
/// it reads resolved and typed, by place ([`ModuleSemantics::at`]): for the language
/// server's index, hover and rename, which alone read the table. A query of its own, so
/// `meshc` never builds it (it was a fifth of check's memory on the dense shape); the
/// checks run again here, the same as in [`file_checks`]. An empty model when that item
/// is no module.
///
/// [`ModuleSemantics::at`]: crate::check::semantics::ModuleSemantics::at
#[salsa::tracked(returns(clone))]
pub fn module_references(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
    item: usize,
) -> Arc<crate::check::semantics::ModuleSemantics> {
    let parsed = parse_file(db, file);
    match parsed.file.items.get(item) {
        Some(ast::Item::Module(m)) => Arc::new(crate::check::semantics::module_semantics(
            file.path(db),
            m,
            module_scope(db, ws, file, item),
            &registry(db, ws),
            file.std(db),
            &syntax_errors(db, file),
            true,
        )),
        _ => Arc::default(),
    }
}

/// Where `file`'s syntax errors are ([`crate::check::SyntaxErrors`]), once per file and
/// revision for [`module_references`], which the language server asks of every module of
/// a file.
#[salsa::tracked(returns(clone))]
fn syntax_errors(db: &dyn salsa::Database, file: SourceFile) -> Arc<crate::check::SyntaxErrors> {
    let parsed = parse_file(db, file);
    Arc::new(crate::check::SyntaxErrors::of(
        file.path(db),
        &parsed.diagnostics,
    ))
}

/// The requirements of the module that is item `item` of `file`, by name and without
/// positions (`check::semantics::ModuleRequirements`): what an assignment's names read.
/// Asked by the language server only; an edit that moves only positions leaves it equal,
/// so a mesh that reads it ([`mesh_semantics`]) is kept.
#[salsa::tracked(returns(clone))]
pub fn module_requirements_at(
    db: &dyn salsa::Database,
    file: SourceFile,
    item: usize,
) -> Arc<crate::check::semantics::ModuleRequirements> {
    let parsed = parse_file(db, file);
    match parsed.file.items.get(item) {
        Some(ast::Item::Module(m)) => Arc::new(crate::check::semantics::ModuleRequirements::of(m)),
        _ => Arc::default(),
    }
}

/// The requirements of module `name` ([`module_requirements_at`]), where the registry
/// says it is.
pub fn module_requirements(
    db: &dyn salsa::Database,
    ws: Workspace,
    name: &str,
) -> Option<Arc<crate::check::semantics::ModuleRequirements>> {
    let (file, item) = module_at(db, ws, name)?;
    Some(module_requirements_at(db, file, item))
}

/// Where the names of the module that is item `item` of `file` are in scope
/// (`check::semantics::ModuleNames`): what completion and hover ask. Built only when the
/// language server asks; `None` when that item is no module.
#[salsa::tracked(returns(clone))]
pub fn module_names(
    db: &dyn salsa::Database,
    file: SourceFile,
    item: usize,
) -> Option<Arc<crate::check::semantics::ModuleNames>> {
    let parsed = parse_file(db, file);
    match parsed.file.items.get(item) {
        Some(ast::Item::Module(m)) => Some(Arc::new(crate::check::semantics::ModuleNames::of(
            m,
            module_requirements_at(db, file, item),
        ))),
        _ => None,
    }
}

/// The names of the mesh that is item `item` of `file`, resolved once
/// (`check::semantics::MeshSemantics`): its nodes and instances, the modules it assigns,
/// their requirements and their contracts' fields. Reads each assigned module's
/// requirements without positions, so an edit inside a module that renames nothing
/// leaves it equal. Built only when the language server asks; empty when that item is no
/// mesh.
#[salsa::tracked(returns(clone))]
pub fn mesh_semantics(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
    item: usize,
) -> Arc<crate::check::semantics::MeshSemantics> {
    let parsed = parse_file(db, file);
    match parsed.file.items.get(item) {
        Some(ast::Item::Mesh(m)) => {
            Arc::new(crate::check::semantics::mesh_semantics(m, |module| {
                module_requirements(db, ws, module)
            }))
        }
        _ => Arc::default(),
    }
}

/// The new forms the legacy placeholders `placeholders` of the module that is item
/// `item` of `file` stand for (`check::semantics::legacy_rewrites`), read in the
/// module's scope. Asked by the language server's rewrite only; nothing when that item is
/// no module.
pub fn legacy_rewrites<'p>(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
    item: usize,
    placeholders: impl IntoIterator<Item = (crate::span::Span, &'p str, &'p ast::Reference)>,
) -> Vec<(crate::span::Span, String)> {
    let parsed = parse_file(db, file);
    match parsed.file.items.get(item) {
        Some(ast::Item::Module(m)) => crate::check::semantics::legacy_rewrites(
            m,
            &module_scope(db, ws, file, item),
            placeholders,
        ),
        _ => Vec::new(),
    }
}

/// The places of one file that may hold a secret (`check::secrets`): every source
/// excerpt and hover shows them masked, whatever else is wrong with the file.
#[salsa::tracked(returns(clone))]
pub fn secret_spans(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
) -> Arc<Vec<crate::span::Span>> {
    let parsed = parse_file(db, file);
    let reg = registry(db, ws);
    // Each module looked up with the registry at hand, not asked for again.
    let sources = ws.files(db);
    let module = |name: &str| module_source_in(db, &reg, sources, name);
    Arc::new(crate::check::secrets::secret_spans(
        file.text(db),
        &parsed,
        &reg,
        &module,
    ))
}

/// The text of `file` as every excerpt and hover shows it: the places
/// [`secret_spans`] finds, and those its diagnostics mark, masked.
pub fn masked_text(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
) -> crate::diagnostics::render::Masked {
    let spans = secret_spans(db, ws, file);
    let diags = check_file(db, ws, file);
    let path = file.path(db);
    crate::diagnostics::render::Masked::new(
        file.text(db),
        spans.iter().copied().chain(
            diags
                .iter()
                .filter(|d| d.file == *path)
                .flat_map(Diagnostic::redacted),
        ),
    )
}

/// Every diagnostic of the workspace: each file's checks, then each mesh's resolution.
/// Files are parsed and then checked on every core (each thread on a snapshot of the
/// database); the meshes resolve on a thread of their own meanwhile, reading a module's
/// errors only when they need them (see [`beside`]).
pub fn workspace_diagnostics(db: &Database, ws: Workspace) -> Vec<Diagnostic> {
    diagnostics_of(db, ws, false)
}

/// [`workspace_diagnostics`] for a process that checks once (`meshc check`): the thread
/// that checks the files also works out every module's errors ahead of the meshes'
/// resolution (see [`check_files_beside`]). Not for the language server: there those
/// memos outlive each edit, and fetching ten thousand of them again on every pass made
/// the next edit's first diagnostics wait (0.8 ms became 3 ms).
pub fn workspace_diagnostics_once(db: &Database, ws: Workspace) -> Vec<Diagnostic> {
    diagnostics_of(db, ws, true)
}

fn diagnostics_of(db: &Database, ws: Workspace, once: bool) -> Vec<Diagnostic> {
    if !once {
        return diagnostics_by_groups(db, ws);
    }
    let files = ws.files(db).clone();
    parse_all(db, &files);
    with_meshes_beside(db, ws, |resolving| {
        let per_file = match resolving {
            // Nothing resolves beside: every core checks files.
            false => parallel_map(db, &files, |db, file| check_file(db, ws, file)),
            true => check_files_beside(db, ws, &files, once),
        };
        per_file.iter().flat_map(|d| d.iter().cloned()).collect()
    })
}

/// [`workspace_diagnostics`] as a process that checks again and again asks for it (the
/// language server): the summaries and the checks by groups of files ([`summary_group`],
/// [`checked_group`]), so that what an edit did not touch is confirmed a group at a time.
/// The same diagnostics, in the same order, as [`workspace_diagnostics_once`].
fn diagnostics_by_groups(db: &Database, ws: Workspace) -> Vec<Diagnostic> {
    let groups = groups_of(db, ws);
    // One group at a time to whichever core is free: a group is already 128 files.
    let each_group = |background: bool, f: &(dyn Fn(&Database, usize) -> GroupChecks + Sync)| {
        let make = || db.clone();
        let each = |snapshot: &Database, &g: &usize| f(snapshot, g);
        match background {
            true => crate::parallel::map_batches_beside(&groups, 1, make, each),
            false => crate::parallel::map_batches_with(&groups, 1, make, each),
        }
    };
    each_group(false, &|db, g| {
        summary_group(db, ws, g);
        Arc::new(Vec::new())
    });
    with_meshes_beside(db, ws, |resolving| {
        // With a mesh resolving beside, in the background of it (see `beside`).
        let per_group = each_group(resolving, &|db, g| checked_group(db, ws, g));
        per_group
            .iter()
            .flat_map(|group| group.iter())
            .flat_map(|d| d.iter().cloned())
            .collect()
    })
}

/// Checks every mesh of the workspace ([`check_mesh`]) on a thread of its own while
/// `files` gives the files' diagnostics here (told whether a mesh resolves beside it);
/// the files' diagnostics, then the meshes'.
fn with_meshes_beside(
    db: &Database,
    ws: Workspace,
    files: impl FnOnce(bool) -> Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let meshes: Vec<String> = registry(db, ws).meshes.keys().cloned().collect();
    let (per_mesh, mut out) = beside(
        db,
        |db| {
            meshes
                .iter()
                .map(|name| check_mesh(db, ws, name.clone()))
                .collect::<Vec<_>>()
        },
        || files(!meshes.is_empty()),
    );
    for outcome in per_mesh {
        out.extend(outcome.diagnostics.iter().cloned());
    }
    out
}

/// Parses and summarises every file of `files` on every core, so the registry (which
/// reads every file's summary) does not parse them one by one.
pub fn parse_all(db: &Database, files: &[SourceFile]) {
    parallel_map(db, files, |db, file| {
        file_summary(db, file);
    });
}

/// Runs `aside` on a thread of its own, on a snapshot of the database, while `here` runs
/// on this one, and returns both results. The two share salsa's memos: a query one of them is computing, the
/// other waits for instead of computing it again. A panic (a cancellation, say) on the
/// other thread resumes here.
pub fn beside<A: Send, B>(
    db: &Database,
    aside: impl FnOnce(&Database) -> A + Send,
    here: impl FnOnce() -> B,
) -> (A, B) {
    let snapshot = db.clone();
    std::thread::scope(|scope| {
        let handle = scope.spawn(move || aside(&snapshot));
        let b = here();
        let a = handle
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (a, b)
    })
}

/// Resolves every mesh of the workspace, as `meshc check` does (with no lock: ports are
/// chosen afresh, which changes no verdict but a port conflict with a lock).
pub fn resolve_all(db: &Database, ws: Workspace) -> Vec<Arc<crate::resolve::MeshOutcome>> {
    let names: Vec<String> = registry(db, ws).meshes.keys().cloned().collect();
    names
        .into_iter()
        .map(|name| resolve_mesh(db, ws, name, crate::resolve::Lock::default()))
        .collect()
}

/// Runs `f` over `items` on every available core, each thread with its own snapshot of
/// the database, and returns the results in the order of `items`.
pub fn parallel_map<T: Copy + Send + Sync, R: Send>(
    db: &Database,
    items: &[T],
    f: impl Fn(&Database, T) -> R + Sync,
) -> Vec<R> {
    map_on_snapshots(db, items, false, f)
}

/// [`parallel_map`] in the background of a thread of [`beside`]
/// ([`crate::parallel::map_batches_beside`]): on one core fewer, and giving way to the
/// thread beside while it spreads its own work, so that the thread beside (a mesh's
/// resolution, the longer of the two) is never the one that waits.
pub fn parallel_map_beside<T: Copy + Send + Sync, R: Send>(
    db: &Database,
    items: &[T],
    f: impl Fn(&Database, T) -> R + Sync,
) -> Vec<R> {
    map_on_snapshots(db, items, true, f)
}

fn map_on_snapshots<T: Copy + Send + Sync, R: Send>(
    db: &Database,
    items: &[T],
    in_background: bool,
    f: impl Fn(&Database, T) -> R + Sync,
) -> Vec<R> {
    let make = || db.clone();
    let each = |snapshot: &Database, &i: &T| f(snapshot, i);
    match in_background {
        true => crate::parallel::map_batches_beside(items, FILE_BATCH, make, each),
        false => crate::parallel::map_batches_with(items, FILE_BATCH, make, each),
    }
}

/// Every file of `files` checked, on the cores that a mesh resolving beside leaves free
/// (see [`beside`]). With `errors_ahead`, the errors of every module follow: the
/// resolution reads them once it comes to leave out what cannot be built, by which time
/// the files are long checked, so the cores here work them out ahead of it (salsa keeps
/// them for it; a module it asks for first is worked out once, by whichever thread asks
/// first).
pub fn check_files_beside(
    db: &Database,
    ws: Workspace,
    files: &[SourceFile],
    errors_ahead: bool,
) -> Vec<Arc<Vec<Diagnostic>>> {
    let checked = parallel_map_beside(db, files, |db, file| check_file(db, ws, file));
    if errors_ahead {
        let names: Vec<String> = registry(db, ws).modules.keys().cloned().collect();
        parallel_map_beside(db, &names.iter().collect::<Vec<_>>(), |db, name| {
            module_errors(db, ws, name.clone());
        });
    }
    checked
}

/// Resolves mesh `mesh` of the workspace against the ports of `lock` (LANGUAGE.md §7):
/// every diagnostic of the mesh, the manifests of its nodes, the new lock and what was
/// left out. An assignment of a module whose definition has errors is left out, listing
/// them. A mesh the workspace does not declare gives an empty outcome.
#[salsa::tracked(returns(clone))]
pub fn resolve_mesh(
    db: &dyn salsa::Database,
    ws: Workspace,
    mesh: String,
    lock: crate::resolve::Lock,
) -> Arc<crate::resolve::MeshOutcome> {
    if ws.reuse_resolution(db) {
        return placed(db, ws, resolve_free(db, ws, mesh, lock, true), true);
    }
    Arc::new(resolve(db, ws, &mesh, &lock, true))
}

/// Resolves mesh `mesh` as `meshc build` writes it, against the ports of `lock`: what
/// [`resolve_mesh`] gives, but each node's manifest goes to `sink` as soon as it is made
/// (the build writes it and its target's files), and the outcome holds no manifest (see
/// [`crate::resolve::build_to`]). It always reads the modules'
/// trees: a build resolves once, so position-free views would only cost memory. Not a
/// query: nothing of it is kept, and a build writes its files once.
pub fn build_mesh(
    db: &dyn salsa::Database,
    ws: Workspace,
    mesh: &str,
    lock: &crate::resolve::Lock,
    sink: &dyn crate::resolve::ManifestSink,
) -> crate::resolve::MeshOutcome {
    resolve_to(db, ws, mesh, lock, true, Some(sink))
}

/// Resolves mesh `mesh` as `meshc check` does: with no lock, and without building the
/// manifests. The diagnostics and what was left out are those [`resolve_mesh`] gives
/// with no lock; the outcome holds no manifest and makes no lock (a check writes none).
#[salsa::tracked(returns(clone))]
pub fn check_mesh(
    db: &dyn salsa::Database,
    ws: Workspace,
    mesh: String,
) -> Arc<crate::resolve::MeshOutcome> {
    if ws.reuse_resolution(db) {
        return placed(
            db,
            ws,
            resolve_free(db, ws, mesh, crate::resolve::Lock::default(), false),
            false,
        );
    }
    Arc::new(resolve(
        db,
        ws,
        &mesh,
        &crate::resolve::Lock::default(),
        false,
    ))
}

fn resolve(
    db: &dyn salsa::Database,
    ws: Workspace,
    mesh: &str,
    lock: &crate::resolve::Lock,
    manifests: bool,
) -> crate::resolve::MeshOutcome {
    resolve_to(db, ws, mesh, lock, manifests, None)
}

/// [`resolve`], or (`sink: Some(…)`) [`crate::resolve::build_to`].
fn resolve_to(
    db: &dyn salsa::Database,
    ws: Workspace,
    mesh: &str,
    lock: &crate::resolve::Lock,
    manifests: bool,
    sink: Option<&dyn crate::resolve::ManifestSink>,
) -> crate::resolve::MeshOutcome {
    debug_assert!(
        !(manifests || sink.is_some()) || !ws.checks_only(db),
        "a workspace only checked keeps no container specs to build manifests from"
    );
    let reg = registry(db, ws);
    let Some(at) = reg.meshes.get(mesh).copied() else {
        return crate::resolve::MeshOutcome::empty(mesh, &FilePath::from(""));
    };
    let file = ws.files(db)[at.file];
    let path = file.path(db).clone();
    let parsed = parse_file(db, file);
    let Some(ast::Item::Mesh(mesh_ast)) = parsed.file.items.get(at.item) else {
        return crate::resolve::MeshOutcome::empty(mesh, &path);
    };
    // Each module looked up with the registry at hand, not asked for again.
    let sources = ws.files(db);
    let module = |name: &str| module_source_in(db, &reg, sources, name);
    let module_errors = |name: &str| module_errors(db, ws, name.to_string()).to_vec();
    // The registry at hand here too: `module_scope_named` would ask for it per module.
    let scope = |name: &str| {
        let at = reg.modules.get(name)?;
        Some(module_scope(db, ws, *sources.get(at.file)?, at.item))
    };
    // Resolved once (the command line's way): the specs are read from the models the
    // checks made, with no query of their own to keep (10,000 more memos in a build).
    let specs = |name: &str| {
        let at = reg.modules.get(name).copied()?;
        let file = *sources.get(at.file)?;
        Some(module_semantics(db, ws, file, at.item).specs.clone())
    };
    let input = crate::resolve::ResolveInput {
        mesh: mesh_ast,
        path: &path,
        registry: &reg,
        module: &module,
        scope: &scope,
        specs: &specs,
        module_errors: &module_errors,
        lock,
        manifests,
        choices: ws.provider_choices(db),
        sink,
        interrupt: &|| db.unwind_if_revision_cancelled(),
    };
    match sink {
        Some(_) => crate::resolve::build_to(&input),
        None => crate::resolve::resolve_mesh(&input),
    }
}

/// Every outcome [`check_mesh`] holds for mesh `mesh`: its own and, when meshes resolve
/// from position-free modules, the one it was placed from (the same when nothing in it
/// points into a module). The language server holds them beside salsa's memos so that
/// freeing a replaced outcome of a large mesh does not happen inside the next edit.
pub fn check_mesh_outcomes(
    db: &dyn salsa::Database,
    ws: Workspace,
    mesh: String,
) -> Vec<Arc<crate::resolve::MeshOutcome>> {
    let placed = check_mesh(db, ws, mesh.clone());
    if !ws.reuse_resolution(db) {
        return vec![placed];
    }
    let free = resolve_free(db, ws, mesh, crate::resolve::Lock::default(), false);
    if Arc::ptr_eq(&free, &placed) {
        vec![placed]
    } else {
        vec![placed, free]
    }
}

/// The errors of module `name`'s definition: those inside it and inside the definition of
/// every contract it requires or provides (a contract in error, a given field declared
/// secret say, must not lend its values to a manifest as if it were fine). `errors_in`
/// gives the errors of a file (by index) inside a span.
fn module_errors_with(
    db: &dyn salsa::Database,
    ws: Workspace,
    reg: &Registry,
    name: &str,
    errors_in: &dyn Fn(usize, crate::span::Span) -> Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let Some(at) = reg.modules.get(name) else {
        return Vec::new();
    };
    let file = ws.files(db)[at.file];
    let parsed = parse_file(db, file);
    let Some(item) = parsed.file.items.get(at.item) else {
        return Vec::new();
    };
    let mut out = errors_in(at.file, item.span());
    let ast::Item::Module(module) = item else {
        return out;
    };
    let mut contracts: Vec<&str> = module
        .requirements()
        .filter_map(ast::Requirement::contract_name)
        .collect();
    contracts.extend(module.provides().map(|p| p.contract.name.as_str()));
    let mut seen: Vec<&str> = Vec::new();
    for c in contracts {
        if seen.contains(&c) {
            continue;
        }
        seen.push(c);
        let Some(info) = reg.contracts.get(c).filter(|i| !i.std) else {
            continue;
        };
        if let Some(at) = reg.contract_items.get(c) {
            out.extend(errors_in(at.file, info.span));
        }
    }
    out
}

/// The error diagnostics of one file, sorted by place.
#[salsa::tracked(returns(clone))]
fn file_errors(db: &dyn salsa::Database, ws: Workspace, file: SourceFile) -> Arc<Vec<Diagnostic>> {
    sorted_errors(db, ws, file)
}

/// What [`file_errors`] holds, for a caller that keeps it itself.
fn sorted_errors(
    db: &dyn salsa::Database,
    ws: Workspace,
    file: SourceFile,
) -> Arc<Vec<Diagnostic>> {
    let path = file.path(db);
    let checked = check_file(db, ws, file);
    let mine = |d: &&Diagnostic| d.is_error() && d.file == *path;
    if !checked.iter().any(|d| mine(&d)) {
        return no_errors();
    }
    let mut errors: Vec<Diagnostic> = checked.iter().filter(mine).cloned().collect();
    errors.sort_by_key(|d| d.span.start);
    Arc::new(errors)
}

/// The errors of a file that has none: one list shared by every such file.
fn no_errors() -> Arc<Vec<Diagnostic>> {
    static NONE: std::sync::OnceLock<Arc<Vec<Diagnostic>>> = std::sync::OnceLock::new();
    NONE.get_or_init(|| Arc::new(Vec::new())).clone()
}

/// The errors of module `name`'s definition (see [`module_errors_with`]) as a query of
/// its own: a clean module's are empty whatever the edit, so what reads them (the
/// resolution of a mesh) is kept.
#[salsa::tracked(returns(clone))]
pub fn module_errors(
    db: &dyn salsa::Database,
    ws: Workspace,
    name: String,
) -> Arc<Vec<Diagnostic>> {
    let reg = registry(db, ws);
    let errors_in = |file_index: usize, span: crate::span::Span| -> Vec<Diagnostic> {
        let Some(&file) = ws.files(db).get(file_index) else {
            return Vec::new();
        };
        let errors = file_errors(db, ws, file);
        let first = errors.partition_point(|d| d.span.start < span.start);
        errors[first..]
            .iter()
            .take_while(|d| d.span.start <= span.end)
            .filter(|d| d.span.end <= span.end)
            .cloned()
            .collect()
    };
    Arc::new(module_errors_with(db, ws, &reg, &name, &errors_in))
}

/// Where a module's position-free tree says it is: diagnostics of resolution that point
/// into a module read through [`module_view`] carry this path, followed by the module's
/// name, and ranks for positions, until [`placed`] puts them in the module's file.
const VIEW_PATH: &str = "\u{0}module view:";

/// What resolution reads of module `name`: its definition with every position replaced
/// by its rank and its doc comments dropped (`syntax::spans::position_free`), alone in a
/// tree of its own. Equal across an edit that moves only positions (a space, a comment,
/// a line above), so a mesh that assigns the module does not resolve again.
#[salsa::tracked(returns(clone))]
pub fn module_view(db: &dyn salsa::Database, ws: Workspace, name: String) -> Option<Arc<Parsed>> {
    view_of(db, ws, &name, true)
}

/// What a resolution without manifests ([`check_mesh`], the language server's) reads of
/// module `name`: its [`module_view`] with its containers' entries dropped
/// ([`without_container_entries`]). Equal across an edit of an entry too (an env value,
/// an image, a file), so such an edit resolves no mesh again: only the manifests read
/// the entries, and what a check refuses in one reaches resolution through the module's
/// errors ([`module_errors`]), which that edit changes.
#[salsa::tracked(returns(clone))]
pub fn module_check_view(
    db: &dyn salsa::Database,
    ws: Workspace,
    name: String,
) -> Option<Arc<Parsed>> {
    view_of(db, ws, &name, false)
}

/// [`module_view`] (with `manifests`) or [`module_check_view`].
fn view_of(
    db: &dyn salsa::Database,
    ws: Workspace,
    name: &str,
    manifests: bool,
) -> Option<Arc<Parsed>> {
    let reg = registry(db, ws);
    let src = module_source_in(db, &reg, ws.files(db), name)?;
    let ast::Item::Module(module) = src.parsed.file.items.get(src.item)? else {
        return None;
    };
    let view = match manifests {
        true => crate::syntax::spans::position_free(module),
        false => {
            let mut module = without_container_entries(module);
            unread_values_made_canonical(&mut module, &reg, &|field| {
                *given_field_read(db, ws, field.to_string())
            });
            crate::syntax::spans::position_free(&module)
        }
    };
    Some(Arc::new(Parsed {
        file: ast::SourceFile {
            items: Box::new([ast::Item::Module(view)]),
        },
        comments: Vec::new(),
        diagnostics: Vec::new(),
    }))
}

/// Makes each value in `module` (a check view, its containers' entries dropped) that
/// the check of a mesh cannot observe one canonical literal, its span kept, so an edit of
/// such a value leaves [`module_check_view`] equal and resolves no mesh again: an unread
/// operator default ([`unread_default_made_canonical`]) and an unread given field's
/// literal ([`unread_givens_made_canonical`]). What reads a value of a module is a
/// reference that names its requirement, in the module (a `provides` answer, a
/// narrowing's set field, a default; a container's entry is read by the manifests only,
/// and dropped here), or, for a given field, another module's `given.FIELD` or
/// `c.given.FIELD` ([`given_read`], asked through `given_read` field by field, for the
/// literal fields the module sets): a requirement whose name no reference left in the
/// view begins with has its values read by nobody but the resolution's own judgments,
/// which each rule below keeps.
fn unread_values_made_canonical(
    module: &mut ast::Module,
    reg: &Registry,
    given_read: &dyn Fn(&str) -> bool,
) {
    /// The first word of every reference of a tree.
    struct Heads(Vec<ast::Name>);
    impl crate::syntax::spans::VisitSpans for Heads {
        fn span(&mut self, _span: &mut crate::span::Span) {}
        fn reference(&mut self, reference: &ast::Reference) {
            if let Some(first) = reference.segments.first() {
                self.0.push(first.name.clone());
            }
        }
    }
    let mut heads = Heads(Vec::new());
    crate::syntax::spans::walk_module(&mut heads, module);
    let givens = unread_givens_made_canonical(module, reg, given_read, &heads.0);
    for entry in module.entries.iter_mut() {
        let ast::ModuleEntry::Requires(r) = entry else {
            continue;
        };
        if heads.0.contains(&r.name.name) {
            continue;
        }
        if let ast::RequirementBody::Operator(op) = &mut r.body {
            unread_default_made_canonical(op);
        }
    }
    for (entry, narrowing, canonical) in givens {
        if let Some(ast::ModuleEntry::Requires(r)) = module.entries.get_mut(entry)
            && let ast::RequirementBody::Contract { narrowing: n, .. } = &mut r.body
            && let Some(n) = n.get_mut(narrowing)
        {
            n.kind = ast::NarrowingKind::Set(canonical);
        }
    }
}

/// Makes an unread operator requirement's literal default canonical (`0`, `false`,
/// `""`). A resolution without manifests evaluates an operator value only to hold it in
/// its memo table; it judges no operator value against its type or constraint (the
/// checker judges a literal default where it is written, and an error there reaches the
/// resolution through [`module_errors`]). So only a default that is a literal (an
/// integer, a boolean, a string with no interpolation) is made canonical; whether a
/// default is written at all (E0501 without one) is kept, and so is every other default.
fn unread_default_made_canonical(op: &mut ast::OperatorBody) {
    match &mut op.default {
        Some(ast::Expr::Int(i)) => i.value = 0,
        Some(ast::Expr::Bool(b, _)) => *b = false,
        Some(ast::Expr::Str(s)) if s.parts.iter().all(|p| matches!(p, ast::StrPart::Text(_))) => {
            s.parts = Box::default();
        }
        _ => {}
    }
}

/// Where [`unread_values_made_canonical`] writes a canonical literal for a given field of
/// `module` that the check of a mesh cannot observe, and the literal: the entry of the
/// requirement, the place of the field's set among its narrowing. A resolution without
/// manifests reads a given field of a module requirement in three ways: a reference
/// (`key.length` in the module, `given.length` or `c.given.length` in its provider), the
/// public names held once (E0507, a field `public_name`), and the values phase's own
/// judgment of the field's value against its type and constraint, the contract's
/// narrowed by the requirement (E0304, E0314; for a literal the checker's too, which
/// reaches the resolution through [`module_errors`]). So a literal (an integer, a
/// boolean, a string with no interpolation) of a given field of a module requirement is
/// made canonical when no reference of the view names the requirement (`heads`), no
/// module reads the field as a consumer's ([`given_read`], by the field's name
/// whatever the contract), the field is no public name, and both the literal and the
/// canonical one fit the field as that judgment (`resolve::fits`) decides: the judgment
/// is then the same either way, and its value read by nobody. A literal out of range is
/// kept as written, so an edit into or out of range resolves again; whether a field is
/// set at all is kept (an assignment's E0513 reads it, the contract's default and E0501
/// read its absence).
fn unread_givens_made_canonical(
    module: &ast::Module,
    reg: &Registry,
    given_read: &dyn Fn(&str) -> bool,
    heads: &[ast::Name],
) -> Vec<(usize, usize, ast::Expr)> {
    let sets = |r: &ast::Requirement| match &r.body {
        ast::RequirementBody::Contract { narrowing, .. } => narrowing
            .iter()
            .any(|n| matches!(n.kind, ast::NarrowingKind::Set(_))),
        ast::RequirementBody::Operator(_) => false,
    };
    // Most modules set no given field: no scope is built for them.
    if !module.requirements().any(sets) {
        return Vec::new();
    }
    // The scope as resolution joins it (its kind, contract, sets and narrowed
    // constraints), decided from this same tree.
    let table = crate::check::scope::ScopeTable::build(module, reg);
    let scope = crate::check::scope::ModuleScope::of(module, &table);
    let mut out = Vec::new();
    for (entry, e) in module.entries.iter().enumerate() {
        let ast::ModuleEntry::Requires(r) = e else {
            continue;
        };
        let ast::RequirementBody::Contract { narrowing, .. } = &r.body else {
            continue;
        };
        // The requirement the scope holds (the first of a name written twice).
        let info = match scope.requirements.get(r.name.name.as_str()) {
            Some(info) if std::ptr::eq(info.ast, r) => info,
            _ => continue,
        };
        if heads.contains(&r.name.name)
            || info.kind != Some(crate::check::registry::ProviderKind::Module)
        {
            continue;
        }
        let Some(contract) = info.contract.as_deref() else {
            continue;
        };
        for (place, n) in narrowing.iter().enumerate() {
            let ast::NarrowingKind::Set(expr) = &n.kind else {
                continue;
            };
            let field = n.field.name.as_str();
            // The set the values phase reads: the field's first.
            if !info
                .sets
                .get(field)
                .is_some_and(|set| std::ptr::eq(*set, expr))
                || field == crate::resolve::PUBLIC_NAME
            {
                continue;
            }
            let Some(fi) = contract.fields.get(field).filter(|fi| fi.given) else {
                continue;
            };
            let Some(value) = crate::check::types::Value::from_literal(expr) else {
                continue;
            };
            // Asked last: only a literal given field's view depends on who reads its
            // name.
            if given_read(field) {
                continue;
            }
            let constraint = info.field_constraint(fi);
            if !crate::resolve::fits(&fi.ty, &value, &constraint) {
                continue;
            }
            if let Some(canonical) = canonical_literal(expr, &fi.ty, &constraint) {
                out.push((entry, place, canonical));
            }
        }
    }
    out
}

/// The canonical literal of `expr`'s kind (an integer, a boolean, a plain string) for a
/// field of type `ty` under `constraint`, its span (and an integer's radix, a string's
/// quotes) kept: the first of a few values made from the constraint alone (the first of
/// its set, its range's ends, `0`, `1`, `false`, `true`, `""`, a string of its least
/// length) that fits, never from `expr`'s own value, so every fitting literal of a field
/// gives the same one. None for another expression, or when none of them fits.
fn canonical_literal(
    expr: &ast::Expr,
    ty: &crate::check::types::Ty,
    constraint: &crate::check::types::Constraint,
) -> Option<ast::Expr> {
    use crate::check::types::Value;
    let first_of = |kind: fn(&Value) -> bool| -> Option<Value> {
        constraint
            .one_of
            .as_ref()?
            .iter()
            .find(|v| kind(v))
            .cloned()
    };
    let candidates: Vec<Value> = match expr {
        ast::Expr::Int(_) => {
            let range = constraint.range.as_ref();
            first_of(|v| matches!(v, Value::Int(_)))
                .into_iter()
                .chain(range.and_then(|b| b.lo).map(Value::Int))
                .chain(range.and_then(|b| b.hi).map(Value::Int))
                .chain([Value::Int(0), Value::Int(1)])
                .collect()
        }
        ast::Expr::Bool(..) => vec![Value::Bool(false), Value::Bool(true)],
        ast::Expr::Str(_) => {
            let least = constraint
                .len
                .as_ref()
                .and_then(|b| b.lo)
                .filter(|&n| (1..=64).contains(&n))
                .unwrap_or(1);
            first_of(|v| matches!(v, Value::Str(_)))
                .into_iter()
                .chain([
                    Value::Str(String::new()),
                    Value::Str("a".repeat(least as usize)),
                ])
                .collect()
        }
        _ => return None,
    };
    let value = candidates
        .into_iter()
        .find(|v| crate::resolve::fits(ty, v, constraint))?;
    let mut canonical = expr.clone();
    match (&mut canonical, value) {
        (ast::Expr::Int(i), Value::Int(v)) => i.value = v,
        (ast::Expr::Bool(b, _), Value::Bool(v)) => *b = v,
        (ast::Expr::Str(s), Value::Str(v)) => {
            s.parts = match v.is_empty() {
                true => Box::default(),
                false => Box::new([ast::StrPart::Text(v.into_boxed_str())]),
            };
        }
        _ => return None,
    }
    Some(canonical)
}

/// `module` as a resolution without manifests reads it: each container keeps its name,
/// its keyword and its span (the names an instance gives its containers, §9, and the
/// E0508 of a container name taken read them), and loses its entries, which only the
/// manifests read (building reads and never refuses: resolution evaluates no entry
/// before them). Its positions are ranked without the entries ([`placed`] ranks the
/// current tree's the same way), so an entry added or removed moves no rank of what is
/// kept.
fn without_container_entries(module: &ast::Module) -> ast::Module {
    let entries = module
        .entries
        .iter()
        .map(|entry| match entry {
            ast::ModuleEntry::Container(c) => ast::ModuleEntry::Container(ast::Container {
                docs: ast::Docs::default(),
                name: c.name.clone(),
                entries: Box::default(),
                job: c.job,
                span: c.span,
            }),
            other => other.clone(),
        })
        .collect();
    ast::Module {
        docs: ast::Docs::default(),
        name: module.name.clone(),
        entries,
        span: module.span,
        references: module.references,
    }
}

/// Resolves mesh `mesh` as [`resolve_mesh`] does (or as [`check_mesh`] does, without
/// manifests), reading modules through [`module_view`] and their errors through
/// [`module_errors`] instead of their files' trees: what it says about a module carries
/// ranks for positions, which [`placed`] turns into the file's.
#[salsa::tracked(returns(clone))]
fn resolve_free(
    db: &dyn salsa::Database,
    ws: Workspace,
    mesh: String,
    lock: crate::resolve::Lock,
    manifests: bool,
) -> Arc<crate::resolve::MeshOutcome> {
    let reg = registry(db, ws);
    let Some(at) = reg.meshes.get(&mesh).copied() else {
        return Arc::new(crate::resolve::MeshOutcome::empty(
            &mesh,
            &FilePath::from(""),
        ));
    };
    let file = ws.files(db)[at.file];
    let path = file.path(db).clone();
    let parsed = parse_file(db, file);
    let Some(ast::Item::Mesh(mesh_ast)) = parsed.file.items.get(at.item) else {
        return Arc::new(crate::resolve::MeshOutcome::empty(&mesh, &path));
    };
    // Each module's view, scope, errors and specs are read through its group's table
    // ([`group_views`] and the others): the resolution then depends on a few queries
    // per group of files instead of a few per module, and after an edit salsa confirms
    // the groups of files on disk by their durability, so an edit that changes nothing
    // the mesh reads (a comment above a module's name) looks at its own group's
    // modules, not at every assigned module (300,000 memos at 100,000 assignments).
    let at = |name: &str| reg.modules.get(name).copied();
    let group = |at: ItemRef| at.file / SUMMARY_GROUP;
    // Each group's tables asked of salsa once per resolution, not once per module and
    // table: a query's look-up (its arguments interned, its memo found and confirmed)
    // costs more than the table's own, 400,000 times at 100,000 modules.
    let groups = ws.files(db).len().div_ceil(SUMMARY_GROUP);
    let (view_tables, error_tables) = (GroupTables::new(groups), GroupTables::new(groups));
    let (scope_tables, spec_tables) = (GroupTables::new(groups), GroupTables::new(groups));
    // Without manifests, the views without the containers' entries: an edit of an entry
    // (an env value) leaves them equal, and the mesh is not resolved again.
    let views = |group: usize| {
        view_tables.get(group, || match manifests {
            true => group_views(db, ws, group),
            false => group_check_views(db, ws, group),
        })
    };
    let module = |name: &str| {
        let view = match at(name).map(|at| (views(group(at)), at)) {
            Some((table, at)) if table.contains_key(&at) => table.get(&at).cloned().flatten(),
            _ if manifests => module_view(db, ws, name.to_string()),
            _ => module_check_view(db, ws, name.to_string()),
        };
        // Joined by hand: `format!` goes through the formatter, once for every module.
        let mut path = String::with_capacity(VIEW_PATH.len() + name.len());
        path.push_str(VIEW_PATH);
        path.push_str(name);
        view.map(|parsed| ModuleSource {
            path: FilePath::from(path),
            parsed,
            item: 0,
        })
    };
    let module_errors = |name: &str| {
        let table = at(name).map(|at| {
            let g = group(at);
            (error_tables.get(g, || group_errors(db, ws, g)), at)
        });
        match table {
            Some((table, at)) if table.contains_key(&at) => {
                table.get(&at).map_or_else(Vec::new, |e| e.to_vec())
            }
            _ => module_errors(db, ws, name.to_string()).to_vec(),
        }
    };
    let scope = |name: &str| {
        let table = at(name).map(|at| {
            let g = group(at);
            (scope_tables.get(g, || group_scopes(db, ws, g)), at)
        });
        match table {
            Some((table, at)) if table.contains_key(&at) => table.get(&at).cloned(),
            _ => module_scope_named(db, ws, name),
        }
    };
    let specs = |name: &str| {
        let table = at(name).map(|at| {
            let g = group(at);
            (spec_tables.get(g, || group_specs(db, ws, g)), at)
        });
        match table {
            Some((table, at)) if table.contains_key(&at) => table.get(&at).cloned(),
            _ => module_specs_named(db, ws, name),
        }
    };
    let input = crate::resolve::ResolveInput {
        mesh: mesh_ast,
        path: &path,
        registry: &reg,
        module: &module,
        scope: &scope,
        specs: &specs,
        module_errors: &module_errors,
        lock: &lock,
        manifests,
        choices: ws.provider_choices(db),
        sink: None,
        interrupt: &|| db.unwind_if_revision_cancelled(),
    };
    Arc::new(crate::resolve::resolve_mesh(&input))
}

/// The tables of one kind of group query that one resolution has asked for, by group:
/// each asked of salsa the first time a module of its group is read.
struct GroupTables<T>(std::cell::RefCell<Vec<Option<GroupTable<T>>>>);

impl<T> GroupTables<T> {
    fn new(groups: usize) -> Self {
        GroupTables(std::cell::RefCell::new(vec![None; groups]))
    }

    /// The `group`-th table, from `ask` unless asked before (a group past the
    /// workspace's files is asked every time).
    fn get(&self, group: usize, ask: impl FnOnce() -> GroupTable<T>) -> GroupTable<T> {
        if let Some(Some(table)) = self.0.borrow().get(group) {
            return table.clone();
        }
        let table = ask();
        if let Some(slot) = self.0.borrow_mut().get_mut(group) {
            *slot = Some(table.clone());
        }
        table
    }
}

/// What one query of a group of files holds for each module the registry places in
/// them, by the module's place ([`group_views`] and the others): the registry gives a
/// name's place, so the tables hold no copy of the names.
type GroupTable<T> = Arc<crate::base::fx_hash::FxHashMap<ItemRef, T>>;

/// `of` for every module the registry places in the `group`-th run of [`SUMMARY_GROUP`]
/// files (given its name, file and item), by place: what each group query of the
/// resolution holds. A module defined twice is the registry's, as its per-module queries
/// find it.
fn group_table<T>(
    db: &dyn salsa::Database,
    ws: Workspace,
    group: usize,
    of: impl Fn(&str, SourceFile, usize) -> T,
) -> GroupTable<T> {
    let reg = registry(db, ws);
    let files = ws.files(db);
    let start = (group * SUMMARY_GROUP).min(files.len());
    let end = (start + SUMMARY_GROUP).min(files.len());
    let mut table = crate::base::fx_hash::FxHashMap::default();
    for (index, &file) in files.iter().enumerate().take(end).skip(start) {
        let parsed = parse_file(db, file);
        for (item, entry) in parsed.file.items.iter().enumerate() {
            let ast::Item::Module(m) = entry else {
                continue;
            };
            let name = m.name.name.as_str();
            let here = ItemRef { file: index, item };
            if reg.modules.get(name) == Some(&here) {
                table.insert(here, of(name, file, item));
            }
        }
    }
    Arc::new(table)
}

/// The position-free views ([`module_view`]) of the modules of the `group`-th run of
/// [`SUMMARY_GROUP`] files, as [`resolve_free`] reads them. Equal across an edit that
/// moves only positions, so the resolution that reads it is kept; a group of files on
/// disk is confirmed by its durability without looking at its modules.
#[salsa::tracked(returns(clone))]
fn group_views(
    db: &dyn salsa::Database,
    ws: Workspace,
    group: usize,
) -> GroupTable<Option<Arc<Parsed>>> {
    group_table(db, ws, group, |name, _, _| {
        module_view(db, ws, name.to_string())
    })
}

/// The views without the containers' entries ([`module_check_view`]) of the modules of a
/// group of files, as [`group_views`] holds their views: what a resolution without
/// manifests reads.
#[salsa::tracked(returns(clone))]
fn group_check_views(
    db: &dyn salsa::Database,
    ws: Workspace,
    group: usize,
) -> GroupTable<Option<Arc<Parsed>>> {
    group_table(db, ws, group, |name, _, _| {
        module_check_view(db, ws, name.to_string())
    })
}

/// The scopes ([`module_scope`]) of the modules of a group of files, as
/// [`group_views`] holds their views.
#[salsa::tracked(returns(clone))]
fn group_scopes(
    db: &dyn salsa::Database,
    ws: Workspace,
    group: usize,
) -> GroupTable<Arc<crate::check::scope::ScopeTable>> {
    group_table(db, ws, group, |_, file, item| {
        module_scope(db, ws, file, item)
    })
}

/// The errors ([`module_errors`]) of the modules of a group of files, as
/// [`group_views`] holds their views.
#[salsa::tracked(returns(clone))]
fn group_errors(
    db: &dyn salsa::Database,
    ws: Workspace,
    group: usize,
) -> GroupTable<Arc<Vec<Diagnostic>>> {
    group_table(db, ws, group, |name, _, _| {
        module_errors(db, ws, name.to_string())
    })
}

/// The container specs ([`module_specs`]) of the modules of a group of files, as
/// [`group_views`] holds their views.
#[salsa::tracked(returns(clone))]
fn group_specs(
    db: &dyn salsa::Database,
    ws: Workspace,
    group: usize,
) -> GroupTable<Arc<crate::check::specs::ModuleSpecs>> {
    group_table(db, ws, group, |_, file, item| {
        module_specs(db, ws, file, item)
    })
}

/// `outcome` with what it says about modules read through [`module_view`] (with
/// `manifests`, else [`module_check_view`]) placed in their files: the path and positions
/// of each such diagnostic and label, read from the module's current tree, ranked as the
/// view was. The same outcome when it says nothing about a module.
fn placed(
    db: &dyn salsa::Database,
    ws: Workspace,
    outcome: Arc<crate::resolve::MeshOutcome>,
    manifests: bool,
) -> Arc<crate::resolve::MeshOutcome> {
    let in_view = |d: &Diagnostic| {
        d.file.starts_with(VIEW_PATH) || d.labels.iter().any(|l| l.file.starts_with(VIEW_PATH))
    };
    let mentions = outcome.diagnostics.iter().any(in_view)
        || outcome
            .left_out
            .iter()
            .any(|l| l.diagnostics.iter().any(in_view));
    if !mentions {
        return outcome;
    }
    let mut places: std::collections::HashMap<
        FilePath,
        Option<(FilePath, crate::syntax::spans::Positions)>,
    > = Default::default();
    let mut place = |file: &mut FilePath,
                     spans: &mut dyn Iterator<Item = &mut crate::span::Span>| {
        let Some(name) = file.strip_prefix(VIEW_PATH) else {
            return;
        };
        let found = places
            .entry(file.clone())
            .or_insert_with(|| {
                let src = module_source(db, ws, name)?;
                let ast::Item::Module(m) = src.parsed.file.items.get(src.item)? else {
                    return None;
                };
                let positions = match manifests {
                    true => crate::syntax::spans::Positions::of(m),
                    false => crate::syntax::spans::Positions::of(&without_container_entries(m)),
                };
                Some((src.path.clone(), positions))
            })
            .clone();
        if let Some((path, positions)) = found {
            *file = path;
            for s in spans {
                *s = positions.place(*s);
            }
        }
    };
    let mut place_all = |d: &mut Diagnostic| {
        let mut redact: Vec<crate::span::Span> = d.redacted().collect();
        place(
            &mut d.file,
            &mut std::iter::once(&mut d.span).chain(redact.iter_mut()),
        );
        if let Some(r) = &mut d.redact {
            *r = redact.into_boxed_slice();
        }
        for l in &mut d.labels {
            place(&mut l.file, &mut std::iter::once(&mut l.span));
        }
    };
    let mut out = (*outcome).clone();
    for d in &mut out.diagnostics {
        place_all(d);
    }
    for l in &mut out.left_out {
        for d in &mut l.diagnostics {
            place_all(d);
        }
    }
    Arc::new(out)
}

#[cfg(test)]
mod incrementality {
    //! Which queries re-run after an edit: salsa's events are recorded across edits and
    //! counted by query.

    use super::*;
    use salsa::Setter as _;
    use std::sync::Mutex;

    const STORE: &str = "contract store for module {\n  url: string\n}\n\nmodule storage {\n  container storage {\n    image \"minio:1.0\"\n  }\n  provides store {\n    url = \"http://storage:9000\"\n  }\n}\n";
    const APPS: &str = "module web {\n  requires store: module store\n  container web {\n    image \"web:1.0\"\n    env { URL = store.url }\n  }\n}\n\nmodule worker {\n  requires store: module store\n  container worker {\n    image \"worker:1.0\"\n    env { URL = store.url }\n  }\n}\n";
    const CRON: &str = "module cron {\n  container cron {\n    image \"cron:1.0\"\n  }\n}\n";
    const MESH: &str = "mesh lab {\n  node alpha { private_name = \"alpha.internal\"  ports = 20000..20999 }\n  assign storage to alpha\n  assign web to alpha\n  assign worker to alpha\n  assign cron to alpha\n}\n";

    /// A database whose executed queries are written to the returned log, by name.
    fn logged() -> (Database, Arc<Mutex<Vec<String>>>) {
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = log.clone();
        let db = Database {
            storage: salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
                if let salsa::EventKind::WillExecute { database_key } = event.kind {
                    let name = format!("{database_key:?}");
                    let name = name.split('(').next().unwrap_or("").to_string();
                    sink.lock().unwrap_or_else(|e| e.into_inner()).push(name);
                }
            }))),
        };
        (db, log)
    }

    /// What a fresh database that resolves from the trees gives for `texts` (path,
    /// text): mesh `lab`'s check and every file's diagnostics, against which the
    /// server's reused resolution is compared after each edit.
    fn fresh_check<P: AsRef<str>>(
        texts: &[(P, String)],
    ) -> (Arc<crate::resolve::MeshOutcome>, Vec<Diagnostic>) {
        let (db, ws) = Database::with_files(
            texts
                .iter()
                .map(|(p, t)| (FilePath::from(p.as_ref()), Arc::from(t.as_str()))),
        );
        (
            check_mesh(&db, ws, "lab".into()),
            workspace_diagnostics(&db, ws),
        )
    }

    /// A logged database (see [`logged`]) holding the standard library and `texts`
    /// (path, text), the workspace of them, and their files in the order given.
    fn logged_workspace(
        texts: &[(&str, &str)],
    ) -> (
        Database,
        Arc<Mutex<Vec<String>>>,
        Workspace,
        Vec<SourceFile>,
    ) {
        let (db, log) = logged();
        let std_file = SourceFile::new(
            &db,
            FilePath::from(STDLIB_PATH),
            Arc::from(STDLIB_TEXT),
            true,
        );
        let files: Vec<SourceFile> = texts
            .iter()
            .map(|(path, text)| {
                SourceFile::new(&db, FilePath::from(*path), Arc::from(*text), false)
            })
            .collect();
        let ws = Workspace::new(
            &db,
            std::iter::once(std_file)
                .chain(files.iter().copied())
                .collect(),
        );
        (db, log, ws, files)
    }

    /// How many times each query ran since the log was last taken.
    fn ran(log: &Mutex<Vec<String>>) -> std::collections::BTreeMap<String, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for name in std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner())) {
            *counts.entry(name).or_insert(0) += 1;
        }
        counts
    }

    fn count(ran: &std::collections::BTreeMap<String, usize>, query: &str) -> usize {
        ran.get(query).copied().unwrap_or(0)
    }

    /// Mesh `lab`'s check and every file's diagnostics.
    type LabCheck = (Arc<crate::resolve::MeshOutcome>, Vec<Diagnostic>);

    /// Asserts that `outcome` leaves instance `instance` out.
    #[track_caller]
    fn assert_left_out(outcome: &crate::resolve::MeshOutcome, instance: &str) {
        assert!(
            outcome.left_out.iter().any(|l| l.instance == instance),
            "{instance} is not left out: {outcome:?}"
        );
    }

    /// Asserts that `outcome` refuses the mesh with a diagnostic whose message says `text`.
    #[track_caller]
    fn assert_refused_saying(outcome: &crate::resolve::MeshOutcome, text: &str) {
        assert!(
            outcome.refused() && outcome.diagnostics.iter().any(|d| d.message.contains(text)),
            "not refused saying {text}: {outcome:?}"
        );
    }

    /// A provider's file (`pool.mesh`), `POOL_USER` and `POOL_MESH` in a logged database
    /// that resolves meshes as the language server does, with the texts a test edits
    /// beside the files, and the first check (which refuses nothing, and is a fresh
    /// database's).
    struct PoolLab {
        db: Database,
        log: Arc<Mutex<Vec<String>>>,
        ws: Workspace,
        files: Vec<SourceFile>,
        texts: [(&'static str, String); 3],
        first: LabCheck,
    }

    /// The provider's file and the user's, by their place in [`PoolLab`].
    const PROVIDER: usize = 0;
    const USER: usize = 1;

    impl PoolLab {
        fn new(provider: &'static str) -> PoolLab {
            Self::with_user(provider, POOL_USER)
        }

        /// [`PoolLab::new`] with the user's file `user` instead of `POOL_USER`.
        fn with_user(provider: &'static str, user: &'static str) -> PoolLab {
            let (mut db, log, ws, files) = logged_workspace(&[
                ("pool.mesh", provider),
                ("user.mesh", user),
                ("lab.mesh", POOL_MESH),
            ]);
            ws.set_reuse_resolution(&mut db).to(true);
            let texts = [
                ("pool.mesh", provider.to_string()),
                ("user.mesh", user.to_string()),
                ("lab.mesh", POOL_MESH.to_string()),
            ];
            let first = Self::check_of(&db, ws);
            ran(&log);
            assert!(!first.0.refused(), "{:?}", first.0);
            assert_eq!(first, fresh_check(&texts));
            PoolLab {
                db,
                log,
                ws,
                files,
                texts,
                first,
            }
        }

        /// Mesh `lab`'s check and every file's diagnostics, as the server asks them.
        fn check_of(db: &Database, ws: Workspace) -> LabCheck {
            (
                check_mesh(db, ws, "lab".into()),
                workspace_diagnostics(db, ws),
            )
        }

        fn check(&self) -> LabCheck {
            Self::check_of(&self.db, self.ws)
        }

        /// How many times each query ran since the last look.
        fn ran(&self) -> std::collections::BTreeMap<String, usize> {
            ran(&self.log)
        }

        /// Replaces `from`, which file `k` holds, by `to` in it.
        fn edit(&mut self, k: usize, from: &str, to: &str) {
            let text = &mut self.texts[k].1;
            assert!(text.contains(from), "`{from}` is not in {text}");
            *text = text.replace(from, to);
            self.files[k]
                .set_text(&mut self.db)
                .to(Arc::from(text.as_str()));
        }

        /// Asserts that the check after an edit resolved nothing again: only the edited
        /// module's check view was made again, the outcome is the first check's own, and
        /// all of it is a fresh database's.
        fn resolved_nothing_again(&self) {
            self.resolved_nothing_again_since(&self.first);
        }

        /// [`PoolLab::resolved_nothing_again`], against the check `before` rather than
        /// the first.
        fn resolved_nothing_again_since(&self, before: &LabCheck) {
            let now = self.check();
            let warm = self.ran();
            assert_eq!(count(&warm, "module_check_view"), 1, "{warm:?}");
            assert_eq!(count(&warm, "resolve_free"), 0, "{warm:?}");
            assert_eq!(count(&warm, "check_mesh"), 0, "{warm:?}");
            assert!(Arc::ptr_eq(&now.0, &before.0));
            assert_eq!(now, fresh_check(&self.texts));
        }

        /// The check after an edit, which resolved the mesh again, once, and is a fresh
        /// database's.
        fn resolved_again(&self) -> LabCheck {
            let now = self.check();
            let warm = self.ran();
            assert_eq!(count(&warm, "resolve_free"), 1, "{warm:?}");
            assert_eq!(now, fresh_check(&self.texts));
            now
        }
    }

    /// A `}` forgotten in a file's first module, as while typing it: the module after it
    /// in the same file stays in the workspace, so the mesh that assigns it still finds
    /// it, and the one error of the file is the forgotten brace's.
    #[test]
    fn a_forgotten_brace_hides_no_module_after_it() {
        let open = APPS.replacen("  }\n}\n\nmodule worker", "}\n\nmodule worker", 1);
        assert_ne!(open, APPS);
        let (db, ws) = Database::with_files(
            [
                ("apps.mesh", open.as_str()),
                ("store.mesh", STORE),
                ("cron.mesh", CRON),
                ("lab.mesh", MESH),
            ]
            .map(|(p, t)| (FilePath::from(p), Arc::from(t))),
        );
        let reg = registry(&db, ws);
        for name in ["web", "worker", "storage", "cron"] {
            assert!(reg.modules.contains_key(name), "{name} is in the workspace");
        }
        let errors: Vec<String> = workspace_diagnostics(&db, ws)
            .into_iter()
            .filter(Diagnostic::is_error)
            .map(|d| format!("{} {:?} {}", d.file, d.code, d.message))
            .collect();
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert!(errors[0].starts_with("apps.mesh E0005"), "{errors:#?}");
    }

    #[test]
    fn an_edit_re_checks_only_what_depends_on_it() {
        let (mut db, log, ws, f) = logged_workspace(&[
            ("apps.mesh", APPS),
            ("store.mesh", STORE),
            ("cron.mesh", CRON),
            ("lab.mesh", MESH),
        ]);
        let (apps, store, cron) = (f[0], f[1], f[2]);
        let files = ws.files(&db).len();

        let first = workspace_diagnostics(&db, ws);
        assert!(
            !first.iter().any(Diagnostic::is_error),
            "the workspace checks clean: {first:?}"
        );
        let cold = ran(&log);
        assert_eq!(count(&cold, "file_checks"), files, "{cold:?}");
        assert_eq!(count(&cold, "check_mesh"), 1, "{cold:?}");

        // A space inside the file's first module moves the second module's name: the
        // file's summary holds no position, so it comes out equal, the registry is kept
        // and no other file re-checks.
        let spaced = APPS.replacen("  container web", "   container web", 1);
        apps.set_text(&mut db).to(Arc::from(spaced.as_str()));
        let after = workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "file_summary"), 1, "{warm:?}");
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 1, "{warm:?}");
        // The mesh reads the edited module's tree, so it resolves again.
        assert_eq!(count(&warm, "check_mesh"), 1, "{warm:?}");
        assert_eq!(after.len(), first.len());

        // A comment above a module: its name moves; only its own file re-checks.
        cron.set_text(&mut db)
            .to(Arc::from(format!("// the nightly job\n{CRON}").as_str()));
        workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 1, "{warm:?}");

        // An env value: the same, and the diagnostics are those of before.
        let valued = spaced.replacen("URL = store.url", "URL = \"http://other:9000\"", 1);
        apps.set_text(&mut db).to(Arc::from(valued.as_str()));
        let after = workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 1, "{warm:?}");
        assert!(!after.iter().any(Diagnostic::is_error), "{after:?}");

        // Nothing changed: nothing runs.
        workspace_diagnostics(&db, ws);
        let idle = ran(&log);
        assert!(idle.is_empty(), "{idle:?}");

        // A renamed requirement is no global name: the registry is kept, only its file
        // re-checks (and the mesh that assigns the module resolves again).
        let renamed_req = spaced
            .replacen(
                "requires store: module store",
                "requires storage: module store",
                1,
            )
            .replacen("URL = store.url", "URL = storage.url", 1);
        apps.set_text(&mut db).to(Arc::from(renamed_req.as_str()));
        let after = workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 1, "{warm:?}");
        assert_eq!(count(&warm, "check_mesh"), 1, "{warm:?}");
        assert!(!after.iter().any(Diagnostic::is_error), "{after:?}");

        // A renamed requirement whose read is left behind: the file's check says so.
        let broken = renamed_req.replacen("URL = storage.url", "URL = store.url", 1);
        apps.set_text(&mut db).to(Arc::from(broken.as_str()));
        let after = workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 1, "{warm:?}");
        assert!(
            after
                .iter()
                .any(|d| d.is_error() && &*d.file == "apps.mesh"),
            "{after:?}"
        );
        apps.set_text(&mut db).to(Arc::from(APPS));
        workspace_diagnostics(&db, ws);
        ran(&log);

        // A renamed contract field changes a global name: every file is checked again,
        // and the modules reading the old name are told.
        store
            .set_text(&mut db)
            .to(Arc::from(STORE.replace("url", "address").as_str()));
        let renamed = workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "registry"), 1, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), files, "{warm:?}");
        let in_apps = renamed
            .iter()
            .filter(|d| d.is_error() && &*d.file == "apps.mesh")
            .count();
        assert_eq!(in_apps, 2, "{renamed:?}");

        // A module defined twice: the registry is built again and the second definition
        // is told where the first is, which it reads from the first file's tree.
        cron.set_text(&mut db)
            .to(Arc::from(format!("{CRON}\nmodule web {{\n}}\n").as_str()));
        let twice = workspace_diagnostics(&db, ws);
        let dup: Vec<&Diagnostic> = twice
            .iter()
            .filter(|d| d.code == crate::diagnostics::Code::E0101)
            .collect();
        assert_eq!(dup.len(), 1, "{twice:?}");
        assert_eq!(&*dup[0].file, "cron.mesh");
        assert_eq!(&*dup[0].labels[0].file, "apps.mesh");
        assert_eq!(
            &APPS[dup[0].labels[0].span.range()],
            "web",
            "the label points at the first definition's name"
        );
    }

    const RES_WEB: &str = "module web {\n  requires store: module store\n  container web {\n    image \"web:1.0\"\n    env {\n      URL = store.url\n      MODE = \"fast\"\n    }\n  }\n}\n";
    const RES_OTHER: &str =
        "module other {\n  container other {\n    image \"other:1.0\"\n  }\n}\n";
    const RES_MESH: &str = "mesh lab {\n  node alpha { private_name = \"alpha.internal\"  ports = 20000..20999 }\n  assign storage to alpha\n  assign web to alpha\n}\n";

    /// The outcome a database that never saw an edit gives for the same texts.
    fn fresh(texts: &[(&str, &str)]) -> Arc<crate::resolve::MeshOutcome> {
        let (db, ws) = Database::with_files(
            texts
                .iter()
                .map(|(path, text)| (FilePath::from(*path), Arc::from(*text))),
        );
        resolve_mesh(&db, ws, "lab".into(), crate::resolve::Lock::default())
    }

    /// The manifest bytes of every node of an outcome, as text.
    fn manifests_text(outcome: &crate::resolve::MeshOutcome) -> String {
        outcome
            .manifests
            .values()
            .map(|m| String::from_utf8(crate::emit::manifest_bytes(m)).unwrap_or_default())
            .collect()
    }

    #[test]
    fn resolution_is_incremental_and_stable() {
        let (mut db, log, ws, f) = logged_workspace(&[
            ("store.mesh", STORE),
            ("web.mesh", RES_WEB),
            ("other.mesh", RES_OTHER),
            ("lab.mesh", RES_MESH),
        ]);
        let (store, web, other, lab) = (f[0], f[1], f[2], f[3]);
        let files = ws.files(&db).len();
        let lock = crate::resolve::Lock::default;
        let resolve = |db: &Database| resolve_mesh(db, ws, "lab".into(), lock());
        let mut texts = [
            ("store.mesh", STORE.to_string()),
            ("web.mesh", RES_WEB.to_string()),
            ("other.mesh", RES_OTHER.to_string()),
            ("lab.mesh", RES_MESH.to_string()),
        ];
        let now = |texts: &[(&str, String)]| {
            fresh(
                &texts
                    .iter()
                    .map(|(p, t)| (*p, t.as_str()))
                    .collect::<Vec<_>>(),
            )
        };

        let first = resolve(&db);
        assert!(!first.refused(), "the mesh builds: {first:?}");
        assert!(manifests_text(&first).contains("fast"), "{first:?}");
        let cold = ran(&log);
        assert_eq!(count(&cold, "resolve_mesh"), 1, "{cold:?}");
        assert_eq!(count(&cold, "registry"), 1, "{cold:?}");
        // The resolution reads the checks of the files of the modules it assigns, and of
        // the contract they use, but not those of a file it never reads.
        assert_eq!(count(&cold, "file_checks"), 2, "{cold:?}");
        assert_eq!(first, now(&texts));

        // Asked again: the memo, not a new outcome.
        let again = resolve(&db);
        assert!(Arc::ptr_eq(&first, &again));
        assert!(ran(&log).is_empty());

        // A space in a module the mesh does not assign: the file parses again, its
        // summary comes out equal, the registry is kept, and the mesh does not resolve
        // again.
        texts[2].1 = RES_OTHER.replacen("  container other", "   container other", 1);
        other.set_text(&mut db).to(Arc::from(texts[2].1.as_str()));
        let after = resolve(&db);
        let warm = ran(&log);
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "file_summary"), 1, "{warm:?}");
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "resolve_mesh"), 0, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 0, "{warm:?}");
        assert!(Arc::ptr_eq(&first, &after));

        // A space in the first module of the workspace, which the mesh assigns: its file
        // parses and checks again and the mesh resolves again, to the same outcome; the
        // other files' checks stand.
        texts[0].1 = STORE.replacen("  container storage", "   container storage", 1);
        store.set_text(&mut db).to(Arc::from(texts[0].1.as_str()));
        let spaced = resolve(&db);
        let warm = ran(&log);
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "resolve_mesh"), 1, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 1, "{warm:?}");
        assert_eq!(spaced, first);
        assert_eq!(spaced, now(&texts));

        // A comment above the mesh moves the mesh's own positions: it resolves again,
        // to what a fresh database gives, and no module's file is checked again.
        texts[3].1 = format!("// the lab\n{RES_MESH}");
        lab.set_text(&mut db).to(Arc::from(texts[3].1.as_str()));
        let commented = resolve(&db);
        let warm = ran(&log);
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "resolve_mesh"), 1, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 0, "{warm:?}");
        assert_ne!(commented.span, first.span);
        assert_eq!(manifests_text(&commented), manifests_text(&first));
        assert_eq!(commented, now(&texts));

        // A changed env value: the manifest carries the new value, as a fresh database's.
        texts[1].1 = RES_WEB.replace("\"fast\"", "\"slow\"");
        web.set_text(&mut db).to(Arc::from(texts[1].1.as_str()));
        let slow = resolve(&db);
        let warm = ran(&log);
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "resolve_mesh"), 1, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 1, "{warm:?}");
        let manifest = manifests_text(&slow);
        assert!(
            manifest.contains("slow") && !manifest.contains("fast"),
            "{manifest}"
        );
        assert!(!slow.refused(), "{slow:?}");
        assert_eq!(slow, now(&texts));

        // A contract field renamed where it is declared only: a global name changes, so
        // every file checks again, and both the provider and the consumer are left out.
        texts[0].1 = texts[0].1.replacen("  url: string", "  address: string", 1);
        store.set_text(&mut db).to(Arc::from(texts[0].1.as_str()));
        let renamed = resolve(&db);
        let warm = ran(&log);
        assert_eq!(count(&warm, "registry"), 1, "{warm:?}");
        assert_eq!(count(&warm, "resolve_mesh"), 1, "{warm:?}");
        let left: Vec<&str> = renamed
            .left_out
            .iter()
            .map(|l| l.instance.as_str())
            .collect();
        assert_eq!(left, ["storage", "web"], "{renamed:?}");
        assert!(renamed.manifests.values().all(|m| {
            let text = String::from_utf8(crate::emit::manifest_bytes(m)).unwrap_or_default();
            !text.contains("web:1.0")
        }));
        assert_eq!(renamed, now(&texts));
        // Every file's own check ran again (the registry changed); the workspace's
        // diagnostics say why.
        let all = workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(
            count(&warm, "file_checks"),
            files - 2,
            "the two read by the resolution already ran: {warm:?}"
        );
        assert!(all.iter().any(|d| d.is_error() && &*d.file == "web.mesh"));

        // The uses renamed too: the mesh builds again, equal to a fresh database's.
        texts[0].1 = texts[0].1.replacen("    url =", "    address =", 1);
        texts[1].1 = texts[1].1.replacen("store.url", "store.address", 1);
        store.set_text(&mut db).to(Arc::from(texts[0].1.as_str()));
        web.set_text(&mut db).to(Arc::from(texts[1].1.as_str()));
        let whole = resolve(&db);
        let warm = ran(&log);
        assert_eq!(count(&warm, "parse_file"), 2, "{warm:?}");
        assert_eq!(count(&warm, "resolve_mesh"), 1, "{warm:?}");
        assert!(!whole.refused(), "{whole:?}");
        assert_eq!(manifests_text(&whole), manifests_text(&slow));
        assert_eq!(whole, now(&texts));
    }

    const REUSE_WEB: &str = "/// The web.\nmodule web {\n  requires store: module store\n  requires workers: operator int in 1..8 = 2\n  container web {\n    image \"web:1.0\"\n    env {\n      URL = store.url\n      WORKERS = \"${workers}\"\n      MODE = \"fast\"\n    }\n  }\n}\n";
    const REUSE_MESH: &str = "mesh lab {\n  node alpha { private_name = \"alpha.internal\"  ports = 20000..20999 }\n  assign storage to alpha\n  assign web to alpha\n  assign web to alpha as web2 { store absent }\n}\n";

    /// With `reuse_resolution` (the language server's setting), a mesh resolves from
    /// position-free modules: an edit that moves only positions in an assigned module
    /// resolves nothing again, and what the mesh says about the module follows it.
    #[test]
    fn reused_resolution_reruns_only_for_what_resolution_reads() {
        let (mut db, log) = logged();
        let std_file = SourceFile::new(
            &db,
            FilePath::from(STDLIB_PATH),
            Arc::from(STDLIB_TEXT),
            true,
        );
        let file = |db: &Database, path: &str, text: &str| {
            SourceFile::new(db, FilePath::from(path), Arc::from(text), false)
        };
        let store = file(&db, "store.mesh", STORE);
        let web = file(&db, "web.mesh", REUSE_WEB);
        let lab = file(&db, "lab.mesh", REUSE_MESH);
        let ws = Workspace::new(&db, vec![std_file, store, web, lab]);
        ws.set_reuse_resolution(&mut db).to(true);
        let mut texts = [
            ("store.mesh", STORE.to_string()),
            ("web.mesh", REUSE_WEB.to_string()),
            ("lab.mesh", REUSE_MESH.to_string()),
        ];
        // The label of the refusal of `store absent`: "required here", in web.mesh.
        let label = |outcome: &crate::resolve::MeshOutcome, text: &str| -> String {
            let d = outcome
                .diagnostics
                .iter()
                .find(|d| d.code == crate::diagnostics::Code::E0326)
                .expect("`store absent` is refused");
            assert_eq!(&*d.labels[0].file, "web.mesh", "{d:?}");
            text[d.labels[0].span.range()].to_string()
        };

        let first = check_mesh(&db, ws, "lab".into());
        let all = workspace_diagnostics(&db, ws);
        let cold = ran(&log);
        assert_eq!(count(&cold, "resolve_free"), 1, "{cold:?}");
        assert_eq!(count(&cold, "module_check_view"), 2, "{cold:?}");
        assert_eq!((first.clone(), all), fresh_check(&texts));
        assert_eq!(label(&first, &texts[1].1), "requires store: module store");

        // A space and a comment inside the assigned module, and a changed doc comment:
        // its view is equal, so the mesh does not resolve again; the diagnostic that
        // points into the module is placed again, at the requirement's new place.
        texts[1].1 = REUSE_WEB
            .replacen("  container web", "   container web", 1)
            .replacen("    env {", "    // the settings\n    env {", 1)
            .replacen("/// The web.", "/// The web server, and more.", 1);
        web.set_text(&mut db).to(Arc::from(texts[1].1.as_str()));
        let spaced = check_mesh(&db, ws, "lab".into());
        let all = workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(count(&warm, "parse_file"), 1, "{warm:?}");
        assert_eq!(count(&warm, "module_check_view"), 1, "{warm:?}");
        assert_eq!(count(&warm, "resolve_free"), 0, "{warm:?}");
        assert_eq!(count(&warm, "check_mesh"), 1, "placed again: {warm:?}");
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!(count(&warm, "file_checks"), 1, "{warm:?}");
        assert_eq!((spaced.clone(), all), fresh_check(&texts));
        assert_ne!(spaced.diagnostics, first.diagnostics, "the label moved");
        assert_eq!(label(&spaced, &texts[1].1), "requires store: module store");

        // A space in the module the mesh reads nothing of by place (storage): the mesh
        // does not resolve again, and nothing is placed again either.
        texts[0].1 = STORE.replacen("  container storage", "   container storage", 1);
        store.set_text(&mut db).to(Arc::from(texts[0].1.as_str()));
        let kept = check_mesh(&db, ws, "lab".into());
        let warm = ran(&log);
        assert_eq!(count(&warm, "module_check_view"), 1, "{warm:?}");
        assert_eq!(count(&warm, "resolve_free"), 0, "{warm:?}");
        assert_eq!(count(&warm, "check_mesh"), 0, "{warm:?}");
        assert!(Arc::ptr_eq(&kept, &spaced));

        // A changed env value is read by the manifests only: the check of the mesh does
        // not resolve again (the diagnostic that points into the module is placed
        // again), and the outcome is a fresh database's; the manifests hold the value.
        texts[1].1 = texts[1].1.replace("\"fast\"", "\"slow\"");
        web.set_text(&mut db).to(Arc::from(texts[1].1.as_str()));
        let slow = check_mesh(&db, ws, "lab".into());
        let all = workspace_diagnostics(&db, ws);
        let warm = ran(&log);
        assert_eq!(count(&warm, "module_check_view"), 1, "{warm:?}");
        assert_eq!(count(&warm, "resolve_free"), 0, "{warm:?}");
        assert_eq!(count(&warm, "check_mesh"), 1, "{warm:?}");
        assert_eq!(count(&warm, "registry"), 0, "{warm:?}");
        assert_eq!((slow.clone(), all), fresh_check(&texts));
        let built = resolve_mesh(&db, ws, "lab".into(), crate::resolve::Lock::default());
        let warm = ran(&log);
        assert_eq!(count(&warm, "module_view"), 2, "{warm:?}");
        assert_eq!(count(&warm, "resolve_free"), 1, "{warm:?}");
        let manifest = manifests_text(&built);
        assert!(
            manifest.contains("slow") && !manifest.contains("fast"),
            "{manifest}"
        );

        // The module's own error (a value out of its range): the assignments are left
        // out, listing the error where the file has it.
        texts[1].1 = texts[1].1.replacen("= 2\n", "= 20\n", 1);
        web.set_text(&mut db).to(Arc::from(texts[1].1.as_str()));
        let broken = check_mesh(&db, ws, "lab".into());
        ran(&log);
        assert_eq!(broken, fresh_check(&texts).0);
        assert_left_out(&broken, "web");
        // A line above it moves the error: placed where the file now has it.
        texts[1].1 = format!("// web\n{}", texts[1].1);
        web.set_text(&mut db).to(Arc::from(texts[1].1.as_str()));
        let moved = check_mesh(&db, ws, "lab".into());
        assert_eq!(moved, fresh_check(&texts).0);
        assert_ne!(moved.left_out, broken.left_out);
    }

    const POOL: &str = "contract pool for module {\n  size: int\n}\n\nmodule provider {\n  container provider {\n    image \"p:1\"\n  }\n  provides pool {\n    size = 50\n  }\n}\n";
    // The requirement after the container: what the mesh says about it is placed past
    // the container's entries, which the check of the mesh does not read.
    const POOL_USER: &str = "module user {\n  container user {\n    image \"u:1\"\n    env {\n      SIZE = \"${small.size}\"\n      MODE = \"fast\"\n    }\n  }\n  requires small: module pool { size in 1..100 }\n}\n";
    const POOL_MESH: &str = "mesh lab {\n  node alpha { private_name = \"alpha.internal\"  ports = 20000..20999 }\n  assign provider to alpha\n  assign user to alpha\n}\n";

    /// The language server's check of a mesh reads no container entry of a module: an
    /// edit of an env value, or an env entry added, resolves nothing again, and a refusal
    /// that points into the module past the container is placed where the file now has
    /// it; a value another module reads through a module requirement, and an env entry
    /// in error, resolve it again. Every outcome and every file's diagnostics are a fresh
    /// database's.
    #[test]
    fn an_env_value_edit_resolves_no_mesh_and_a_provided_value_does() {
        let mut lab = PoolLab::new(POOL);

        // An env value: nothing the check of the mesh reads changed.
        lab.edit(USER, "\"fast\"", "\"slow\"");
        lab.resolved_nothing_again();

        // The provider's answer, which the user's narrowing refuses: the mesh resolves
        // again, once, and refuses the user with a label at its requirement.
        lab.edit(PROVIDER, "size = 50", "size = 500");
        let refused = lab.resolved_again();
        let label = |outcome: &crate::resolve::MeshOutcome, text: &str| -> String {
            let d = outcome
                .diagnostics
                .iter()
                .find(|d| d.labels.iter().any(|l| &*l.file == "user.mesh"))
                .unwrap_or_else(|| panic!("the answer 500 is refused: {outcome:?}"));
            let l = d.labels.iter().find(|l| &*l.file == "user.mesh");
            text[l.map(|l| l.span.range()).unwrap_or_default()].to_string()
        };
        assert!(
            label(&refused.0, &lab.texts[USER].1).starts_with("requires small"),
            "{:?}",
            refused.0
        );

        // An env entry added above the requirement: no rank of what the check reads
        // moves, so nothing resolves again; the label is placed again, at the
        // requirement's new place.
        lab.edit(USER, "      MODE", "      EXTRA = \"more\"\n      MODE");
        let added = lab.check();
        let warm = lab.ran();
        assert_eq!(count(&warm, "resolve_free"), 0, "{warm:?}");
        assert_eq!(count(&warm, "check_mesh"), 1, "placed again: {warm:?}");
        assert_ne!(
            added.0.diagnostics, refused.0.diagnostics,
            "the label moved"
        );
        assert!(label(&added.0, &lab.texts[USER].1).starts_with("requires small"));
        assert_eq!(added, fresh_check(&lab.texts));

        // The answer back in range, and an env value in error (a field the contract
        // lacks): the module's errors changed, so the mesh resolves again and leaves the
        // user out, listing the error.
        lab.edit(PROVIDER, "size = 500", "size = 50");
        lab.edit(USER, "${small.size}", "${small.sizes}");
        let broken = lab.resolved_again();
        assert_left_out(&broken.0, "user");
    }

    const CAPPED: &str = "contract pool for module {\n  size: int\n}\n\nmodule provider {\n  requires cap: operator int in 1..1000 = 50\n  requires spare: operator int in 1..1000 = 7\n  requires label: operator string = \"x\"\n  container provider {\n    image \"p:1\"\n    env {\n      SPARE = \"${spare}\"\n      LABEL = \"${label} of ${spare}\"\n    }\n  }\n  provides pool {\n    size = cap\n  }\n}\n";

    /// The language server's check of a mesh: an operator default that nothing but a
    /// container reads (`spare`, `label`) is edited without resolving the mesh again;
    /// one a `provides` answer reads (`cap`, which the user's narrowing then refuses)
    /// resolves it again, and so does a default the checker refuses (out of its range),
    /// which leaves the provider out. Every outcome and every file's diagnostics are a
    /// fresh database's, which resolves from the files' own trees.
    #[test]
    fn an_unread_operator_default_edit_resolves_no_mesh_and_a_provided_one_does() {
        let mut lab = PoolLab::new(CAPPED);

        // Defaults only a container reads, an integer and a string: nothing resolves.
        for (from, to) in [("= 7", "= 9"), ("= \"x\"", "= \"a longer label\"")] {
            lab.edit(PROVIDER, from, to);
            lab.resolved_nothing_again();
        }

        // The default the provider answers with, out of the user's narrowing: the mesh
        // resolves again and refuses the user.
        lab.edit(PROVIDER, "= 50", "= 500");
        let refused = lab.resolved_again();
        assert_refused_saying(&refused.0, "500");

        // Back in range: resolved again, and no refusal left.
        lab.edit(PROVIDER, "= 500", "= 60");
        let back = lab.resolved_again();
        assert!(!back.0.refused(), "{:?}", back.0);

        // An unread default out of its own range: the checker's error leaves the
        // provider out, so the mesh resolves again.
        lab.edit(PROVIDER, "= 9", "= 2000");
        let broken = lab.resolved_again();
        assert_left_out(&broken.0, "provider");
    }

    const GIVEN_POOL: &str = "contract pool for module {\n  given size: int in 1..100 = 10\n  given label: string = \"x\"\n  given depth: int in 1..100 = 5\n  limit: int\n}\n\nmodule provider {\n  container provider {\n    image \"p:1\"\n  }\n  provides pool {\n    limit = given.depth\n  }\n}\n";
    // `depth` is read by the provider's answer, which the requirement narrows; the
    // container's read of `size` is the manifests'.
    const GIVEN_USER: &str = "module user {\n  container user {\n    image \"u:1\"\n    env {\n      SIZE = \"${small.size}\"\n    }\n  }\n  requires small: module pool { size = 64  label = \"a\"  depth = 8  limit in 1..50 }\n}\n";

    /// The language server's check of a mesh: a given field's literal that no reference
    /// the check evaluates reads (`size`, read by a container only; `label`), edited
    /// within what the field takes, resolves no mesh again; an edit out of the
    /// contract's range, and any edit of a
    /// field the provider's answer reads (`given.depth`, which the user's narrowing of
    /// that answer then refuses), resolve it again. Every outcome and every file's
    /// diagnostics are a fresh database's, which resolves from the files' own trees.
    #[test]
    fn an_unread_given_field_edit_resolves_no_mesh_and_a_read_or_refused_one_does() {
        let mut lab = PoolLab::with_user(GIVEN_POOL, GIVEN_USER);

        // Unread given fields within what they take: nothing resolves.
        for (from, to) in [
            ("size = 64", "size = 65"),
            ("size = 65", "size = 1"),
            ("label = \"a\"", "label = \"a longer label\""),
        ] {
            lab.edit(USER, from, to);
            lab.resolved_nothing_again();
        }

        // Out of the contract's range: the checker's error leaves the user out.
        lab.edit(USER, "size = 1", "size = 200");
        let broken = lab.resolved_again();
        assert_left_out(&broken.0, "user");
        // Back in range: resolved again, as the first check.
        lab.edit(USER, "size = 200", "size = 64");
        let back = lab.resolved_again();
        assert_eq!(back.0, lab.first.0);

        // The field the provider answers with, within the contract and the user's
        // narrowing of the answer: resolved again, and refused by nothing.
        lab.edit(USER, "depth = 8", "depth = 9");
        let read = lab.resolved_again();
        assert!(!read.0.refused(), "{:?}", read.0);
        // Past the user's narrowing of the answer (the contract takes it): refused.
        lab.edit(USER, "depth = 9", "depth = 60");
        let refused = lab.resolved_again();
        assert_refused_saying(&refused.0, "60");

        // The provider now answers with `size`: its own view changed, and `size` is read
        // as a consumer's from then on, so the user's view keeps its value and an edit
        // of it resolves again, refused or not.
        lab.edit(USER, "depth = 60", "depth = 8");
        lab.edit(PROVIDER, "given.depth", "given.size");
        let switched = lab.resolved_again();
        assert!(switched.0.refused(), "64 is past 1..50: {:?}", switched.0);
        lab.edit(USER, "size = 64", "size = 30");
        let fits = lab.resolved_again();
        assert!(!fits.0.refused(), "{:?}", fits.0);
        // And `depth`, read by nobody now, no longer resolves it.
        lab.edit(USER, "depth = 8", "depth = 99");
        lab.resolved_nothing_again_since(&fits);
    }

    /// Which given fields' literals a check view makes canonical: those of a module
    /// requirement that no reference of the view names, that no module reads as a
    /// consumer's (`given.FIELD`, `c.given.FIELD`), that are no public name and that fit
    /// the field (the contract's constraint narrowed by the requirement), each to a value
    /// of its own that fits too; and no other.
    #[test]
    fn a_check_view_makes_canonical_only_the_given_literals_no_check_observes() {
        let contract = "contract pool for module {\n  given size: int in 16..100 = 20\n  given mode: string in {\"fast\", \"slow\"} = \"fast\"\n  given on: bool = false\n  given read: int = 1\n  given looped: int = 1\n  given public_name: string = \"a\"\n  given names: list<string> = []\n  given host: hostname = \"h\"\n  given host_name: string len 3.. = \"abc\"\n  answer: int\n}\n";
        let reader = "module reader {\n  provides pool {\n    answer = given.read\n  }\n  requires n: operator string = \"${for c in consumers pool \"${c.given.looped}\"}\"\n}\n";
        let text = "module m {\n  requires a: module pool { size = 64  mode = \"slow\"  on = true  read = 3  looped = 4  public_name = \"p\"  names = [\"n\"]  host = \"db.internal\"  host_name = \"abcdef\" }\n  requires b: module pool { size = 64 }\n  requires c: module pool { size = 99  size in 16..50 }\n  requires d: module pool { size = 7 }\n  requires e: operator int = 1\n  requires f: module pool { size = e }\n  provides pool {\n    answer = b.size\n  }\n}\n";
        let parse = |path: &str, text: &str| crate::syntax::parse(&FilePath::from(path), text);
        let files = [
            (FilePath::from("c.mesh"), parse("c.mesh", contract)),
            (FilePath::from("r.mesh"), parse("r.mesh", reader)),
            (FilePath::from("m.mesh"), parse("m.mesh", text)),
        ];
        let reg = Registry::build(files.iter().map(|(path, parsed)| {
            crate::check::registry::RegistryInput {
                path,
                file: &parsed.file,
                std: false,
            }
        }));
        let summaries: Vec<FileSummary> = files
            .iter()
            .map(|(path, parsed)| FileSummary::of(&parsed.file, path, false))
            .collect();
        let read = GivenRead::of(&summaries);
        assert_eq!(read.fields(), ["looped", "read"]);
        let Some(ast::Item::Module(module)) = files[2].1.file.items.first() else {
            panic!("a module: {:?}", files[2].1.diagnostics);
        };
        let mut view = without_container_entries(module);
        unread_values_made_canonical(&mut view, &reg, &|field| read.reads(field));
        let set = |m: &ast::Module, req: &str, field: &str| -> Option<ast::Expr> {
            m.requirements().find_map(|r| match &r.body {
                ast::RequirementBody::Contract { narrowing, .. } if r.name.name == req => {
                    narrowing.iter().find_map(|n| match &n.kind {
                        ast::NarrowingKind::Set(e) if n.field.name == field => Some(e.clone()),
                        _ => None,
                    })
                }
                _ => None,
            })
        };
        let literal = |req: &str, field: &str| {
            set(&view, req, field).and_then(|e| crate::check::types::Value::from_literal(&e))
        };
        use crate::check::types::Value;
        // Unread and fitting: each made the first value of its own that fits, its span
        // kept.
        for (req, field, canonical) in [
            ("a", "size", Value::Int(16)),
            ("a", "mode", Value::Str("fast".into())),
            ("a", "on", Value::Bool(false)),
            ("a", "host", Value::Str("a".into())),
            ("a", "host_name", Value::Str("aaa".into())),
        ] {
            assert_eq!(literal(req, field), Some(canonical), "{req}.{field}");
            let (kept, was) = (set(&view, req, field), set(module, req, field));
            assert_eq!(kept.map(|e| e.span()), was.map(|e| e.span()));
        }
        // Kept as written: read by another module as a consumer's (`given.read`, a
        // loop's `c.given.looped`), a public name, a list, a requirement some kept
        // reference names (`b.size` in an answer), out of the requirement's own
        // narrowing (`c`) or of the contract's range (`d`), not a literal (`f`).
        for (req, field) in [
            ("a", "read"),
            ("a", "looped"),
            ("a", "public_name"),
            ("a", "names"),
            ("b", "size"),
            ("c", "size"),
            ("d", "size"),
            ("f", "size"),
        ] {
            assert_eq!(
                set(&view, req, field),
                set(module, req, field),
                "{req}.{field}"
            );
        }
    }

    /// Which operator defaults a check view makes canonical: a literal one no reference
    /// left in the view names (read by a container only, or by nothing), and no other:
    /// not one a `provides` answer, a narrowing's set field or another default's
    /// interpolation reads, nor one that is not a plain literal (a list, an
    /// interpolation).
    #[test]
    fn a_check_view_makes_canonical_only_the_defaults_no_kept_reference_reads() {
        let text = "module m {\n  requires a: operator int = 5\n  requires b: operator string = \"b\"\n  requires c: operator bool = true\n  requires d: operator int = 6\n  requires e: operator string = \"e\"\n  requires f: operator int = 7\n  requires g: operator string = \"${a} and ${e}\"\n  requires h: operator list<string> = [\"h\"]\n  requires i: operator list<string> = [\"i\"]\n  requires k: operator int = 8\n  requires db: module pool { size = d }\n  container m {\n    image \"m:1\"\n    env {\n      K = \"${k} ${b} ${c}\"\n      I = \"${for x in i \"${x}\"}\"\n    }\n  }\n  provides pool {\n    size = f\n    names = \"${for x in h \"${x}\"}\"\n  }\n}\n";
        let parsed = crate::syntax::parse(&FilePath::from("m.mesh"), text);
        let Some(ast::Item::Module(module)) = parsed.file.items.first() else {
            panic!("a module: {:?}", parsed.diagnostics);
        };
        let mut view = without_container_entries(module);
        unread_values_made_canonical(&mut view, &Registry::default(), &|_| false);
        let default = |m: &ast::Module, name: &str| -> Option<ast::Expr> {
            m.requirements().find_map(|r| match &r.body {
                ast::RequirementBody::Operator(op) if r.name.name == name => op.default.clone(),
                _ => None,
            })
        };
        let canonical = |name: &str| default(&view, name) != default(module, name);
        // Read by a container only: made canonical, spans kept.
        for name in ["b", "c", "k"] {
            assert!(canonical(name), "{name}: {:?}", default(&view, name));
            let (kept, was) = (default(&view, name), default(module, name));
            assert_eq!(kept.map(|e| e.span()), was.map(|e| e.span()));
        }
        assert!(matches!(
            default(&view, "c"),
            Some(ast::Expr::Bool(false, _))
        ));
        // Read by an expression the check evaluates, or not a plain literal: kept.
        for name in ["a", "d", "e", "f", "g", "h", "i"] {
            assert!(!canonical(name), "{name}: {:?}", default(&view, name));
        }
    }

    /// The standard library and `texts` as the language server makes its workspace: the
    /// files and the pinned summaries of medium durability.
    fn as_the_server_makes_it(
        db: &Database,
        texts: &[(FilePath, String)],
    ) -> (Vec<SourceFile>, Workspace) {
        let mut files = vec![
            SourceFile::builder(FilePath::from(STDLIB_PATH), Arc::from(STDLIB_TEXT), true)
                .durability(salsa::Durability::HIGH)
                .new(db),
        ];
        for (path, text) in texts {
            files.push(
                SourceFile::builder(path.clone(), Arc::from(text.as_str()), false)
                    .durability(salsa::Durability::MEDIUM)
                    .new(db),
            );
        }
        let ws = Workspace::builder(files.clone())
            .files_durability(salsa::Durability::MEDIUM)
            .pinned_durability(salsa::Durability::MEDIUM)
            .checks_only_durability(salsa::Durability::HIGH)
            .new(db);
        (files, ws)
    }

    /// The language server's workspace with a mesh assigning every module: a comment above
    /// the open module's name changes nothing the mesh reads, and confirming the mesh's
    /// resolution looks at the open file's group of modules only (before, at every
    /// assigned module's view, scope and errors: 300,000 memos and 132 ms of CPU an edit
    /// at 100,000 assignments); so does an env value, which only the manifests read.
    #[test]
    fn a_comment_above_an_assigned_module_confirms_the_resolution_by_groups() {
        let events: Arc<Mutex<Vec<(bool, String)>>> = Arc::default();
        let sink = events.clone();
        let mut db = Database {
            storage: salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
                let (ran, key) = match event.kind {
                    salsa::EventKind::WillExecute { database_key } => (true, database_key),
                    salsa::EventKind::DidValidateMemoizedValue { database_key } => {
                        (false, database_key)
                    }
                    _ => return,
                };
                let name = format!("{key:?}");
                let name = name.split('(').next().unwrap_or("").to_string();
                sink.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((ran, name));
            }))),
        };
        // What ran and what was confirmed since the last call.
        let take = || std::mem::take(&mut *events.lock().unwrap_or_else(|e| e.into_inner()));
        // How many times each of `queries` ran in `log`, and how many of their memos were
        // confirmed.
        let count = |log: &[(bool, String)], queries: &[&str]| {
            let of = |ran: bool| {
                log.iter()
                    .filter(|(r, q)| *r == ran && queries.contains(&q.as_str()))
                    .count()
            };
            (of(true), of(false))
        };
        let modules = 4 * SUMMARY_GROUP;
        let module = |i: usize, value: &str| {
            format!(
                "module m{i} {{\n  container m{i} {{\n    image \"m:1\"\n    env {{ MODE = \"{value}\" }}\n  }}\n}}\n"
            )
        };
        let mut texts: Vec<(FilePath, String)> = (0..modules)
            .map(|i| (FilePath::from(format!("m{i:04}.mesh")), module(i, "fast")))
            .collect();
        let mut mesh = String::from(
            "mesh lab {\n  node alpha { private_name = \"alpha.internal\"  ports = 20000..29999 }\n",
        );
        for i in 0..modules {
            mesh.push_str(&format!("  assign m{i} to alpha\n"));
        }
        mesh.push_str("}\n");
        texts.push((FilePath::from("zz-lab.mesh"), mesh));
        let (files, ws) = as_the_server_makes_it(&db, &texts);
        ws.set_reuse_resolution(&mut db)
            .with_durability(salsa::Durability::HIGH)
            .to(true);
        let open = files[1 + SUMMARY_GROUP + 3];
        let open_at = SUMMARY_GROUP + 3;
        let type_into = |db: &mut Database, texts: &mut Vec<(FilePath, String)>, text: String| {
            texts[open_at].1 = text.clone();
            open.set_text(db)
                .with_durability(salsa::Durability::LOW)
                .to(Arc::from(text));
            pin_summaries(db, ws, &[open]);
        };
        let per_module = ["module_check_view", "module_scope", "module_errors"];
        type_into(&mut db, &mut texts, module(open_at, "fast"));
        let first = check_mesh(&db, ws, "lab".into());
        assert!(!first.refused(), "the mesh resolves: {first:?}");
        assert_eq!(
            (first.clone(), workspace_diagnostics(&db, ws)),
            fresh_check(&texts)
        );
        take();

        // Typing `text` into the open module keeps the resolution: no resolution runs, the
        // per-module queries that run or are confirmed are those of the open file's group,
        // and the outcome is still a fresh database's.
        let keeps = |db: &mut Database, texts: &mut Vec<(FilePath, String)>, text: String| {
            type_into(db, texts, text);
            let kept = check_mesh(db, ws, "lab".into());
            let log = take();
            assert_eq!(count(&log, &["resolve_free"]).0, 0);
            let (ran, confirmed) = count(&log, &per_module);
            assert!(ran <= per_module.len(), "{ran} per-module queries ran");
            assert!(
                confirmed <= per_module.len() * SUMMARY_GROUP,
                "{confirmed} per-module memos confirmed for {modules} assigned modules"
            );
            assert!(Arc::ptr_eq(&kept, &first));
            assert_eq!((kept, workspace_diagnostics(db, ws)), fresh_check(texts));
        };
        // A comment above the open module's name.
        keeps(
            &mut db,
            &mut texts,
            format!("// the module\n{}", module(open_at, "fast")),
        );
        // An env value, which only the manifests read.
        keeps(
            &mut db,
            &mut texts,
            format!("// the module\n{}", module(open_at, "slow")),
        );
    }

    /// After an edit of a file of low durability (an open document) among many of medium
    /// (read from disk), confirming the registry looks at the summaries of the edited
    /// file's group only: the other groups are confirmed by their durability.
    #[test]
    fn an_edit_confirms_the_registry_by_groups() {
        let validated: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = validated.clone();
        let mut db = Database {
            storage: salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
                if let salsa::EventKind::DidValidateMemoizedValue { database_key } = event.kind {
                    let name = format!("{database_key:?}");
                    let name = name.split('(').next().unwrap_or("").to_string();
                    sink.lock().unwrap_or_else(|e| e.into_inner()).push(name);
                }
            }))),
        };
        let count = |log: &Mutex<Vec<String>>, query: &str| {
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            let n = log.iter().filter(|q| *q == query).count();
            log.clear();
            n
        };
        let modules = 4 * SUMMARY_GROUP;
        let texts: Vec<(FilePath, String)> = (0..modules)
            .map(|i| {
                let text =
                    format!("module m{i} {{\n  container m{i} {{\n    image \"m:{i}\"\n  }}\n}}\n");
                (FilePath::from(format!("m{i:04}.mesh")), text)
            })
            .collect();
        let (files, ws) = as_the_server_makes_it(&db, &texts);
        let open = files[2];
        open.set_text(&mut db)
            .with_durability(salsa::Durability::LOW)
            .to(Arc::from(
                "module m1 {\n  container m1 {\n    image \"m:1\"\n  }\n}\n",
            ));
        let before = registry(&db, ws);
        count(&validated, "file_summary");

        // A space in the open document: its summary is equal, the registry is kept.
        open.set_text(&mut db)
            .with_durability(salsa::Durability::LOW)
            .to(Arc::from(
                "module m1 {\n   container m1 {\n    image \"m:1\"\n  }\n}\n",
            ));
        let after = registry(&db, ws);
        assert!(Arc::ptr_eq(&before, &after));
        let summaries = count(&validated, "file_summary");
        assert!(
            summaries < SUMMARY_GROUP,
            "{summaries} summaries looked at for {modules} files"
        );
    }

    /// The language server's workspace pass after a keystroke in an open document whose
    /// summary is pinned: the other files' checks are confirmed by groups, not one by one
    /// (before the pin, every keystroke looked at every file's check: 100,000 memos in a
    /// workspace of 100,000 files); a renamed module is still seen by every file.
    #[test]
    fn a_keystroke_in_a_pinned_document_confirms_the_other_checks_by_groups() {
        let events: Arc<Mutex<Vec<(bool, String)>>> = Arc::default();
        let sink = events.clone();
        let mut db = Database {
            storage: salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
                let (ran, key) = match event.kind {
                    salsa::EventKind::WillExecute { database_key } => (true, database_key),
                    salsa::EventKind::DidValidateMemoizedValue { database_key } => {
                        (false, database_key)
                    }
                    _ => return,
                };
                let name = format!("{key:?}");
                let name = name.split('(').next().unwrap_or("").to_string();
                sink.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((ran, name));
            }))),
        };
        // How many times `query` ran, and how many of its memos were confirmed.
        let count = |query: &str| {
            let mut log = events.lock().unwrap_or_else(|e| e.into_inner());
            let ran = log.iter().filter(|(r, q)| *r && q == query).count();
            let confirmed = log.iter().filter(|(r, q)| !*r && q == query).count();
            log.clear();
            (ran, confirmed)
        };
        let modules = 4 * SUMMARY_GROUP;
        let module = |i: usize, image: &str| {
            format!("module m{i} {{\n  container m{i} {{\n    image \"{image}\"\n  }}\n}}\n")
        };
        let mut texts: Vec<(FilePath, String)> = (0..modules)
            .map(|i| (FilePath::from(format!("m{i:04}.mesh")), module(i, "m:1")))
            .collect();
        // The last file uses the first file's module, so renaming it is an error there.
        texts[modules - 1].1 = "module user {\n  requires m: module m0\n  container user {\n    image \"u:1\"\n  }\n}\n".to_string();
        let (files, ws) = as_the_server_makes_it(&db, &texts);
        let open = files[1];
        let fresh = |texts: &[(FilePath, String)]| {
            let (db, ws) = Database::with_files(
                texts
                    .iter()
                    .map(|(p, t)| (p.clone(), Arc::from(t.as_str()))),
            );
            workspace_diagnostics(&db, ws)
        };
        let type_into = |db: &mut Database, texts: &mut Vec<(FilePath, String)>, text: String| {
            texts[0].1 = text.clone();
            open.set_text(db)
                .with_durability(salsa::Durability::LOW)
                .to(Arc::from(text));
            pin_summaries(db, ws, &[open])
        };
        assert!(
            type_into(&mut db, &mut texts, module(0, "m:2")),
            "pinned at first"
        );
        assert_eq!(workspace_diagnostics(&db, ws), fresh(&texts));
        count("file_checks");

        // A keystroke that renames nothing: the pin stays, the edited file alone is
        // checked again, and the other files' checks are confirmed a group at a time.
        assert!(!type_into(&mut db, &mut texts, module(0, "m:3")));
        assert_eq!(workspace_diagnostics(&db, ws), fresh(&texts));
        let (ran, confirmed) = count("file_checks");
        assert_eq!(ran, 1);
        assert!(
            confirmed < SUMMARY_GROUP,
            "{confirmed} checks confirmed one by one for {modules} files"
        );

        // A renamed module: pinned again, and the file that uses it sees it gone.
        let renamed = module(0, "m:3").replace("module m0", "module zero");
        assert!(type_into(&mut db, &mut texts, renamed));
        let after = workspace_diagnostics(&db, ws);
        assert_eq!(after, fresh(&texts));
        assert!(
            after.iter().any(|d| &*d.file == "m0511.mesh"),
            "the user of m0 is told: {after:?}"
        );
    }
}

#[cfg(test)]
mod cancellation {
    //! A mesh's resolution gives way to an edit: salsa's input write waits for every other
    //! handle of the database to drop, so a resolution that checked for cancellation only
    //! when it asked a query (while its modules load) held the edit for the rest of its
    //! phases, seconds at 100,000 assignments.

    use super::*;
    use salsa::Setter as _;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    const MODULES: usize = 300;

    /// Salsa's cancellation checks counted, the writer's flag seen, and a hook that runs
    /// at every check.
    #[derive(Default)]
    struct Watch {
        checks: AtomicUsize,
        flag_set: AtomicBool,
        at_check: std::sync::Mutex<Option<Hook>>,
    }

    /// What runs at a cancellation check, given its number.
    type Hook = Box<dyn Fn(usize) + Send>;

    fn watched(watch: Arc<Watch>) -> (Database, Workspace, SourceFile) {
        let db = Database {
            storage: salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
                match event.kind {
                    salsa::EventKind::WillCheckCancellation => {
                        let n = watch.checks.fetch_add(1, Ordering::SeqCst) + 1;
                        if let Some(hook) = &*watch.at_check.lock().unwrap() {
                            hook(n);
                        }
                    }
                    salsa::EventKind::DidSetCancellationFlag => {
                        watch.flag_set.store(true, Ordering::SeqCst);
                    }
                    _ => {}
                }
            }))),
        };
        let mut mesh = String::from(
            "mesh lab {\n  node alpha { private_name = \"alpha.internal\"  ports = 20000..20999 }\n",
        );
        let mut inputs = vec![std_input(&db)];
        for i in 0..MODULES {
            let text =
                format!("module m{i} {{\n  container m{i} {{\n    image \"m:{i}\"\n  }}\n}}\n");
            inputs.push(SourceFile::new(
                &db,
                FilePath::from(format!("m{i:04}.mesh")),
                Arc::from(text),
                false,
            ));
            mesh.push_str(&format!("  assign m{i} to alpha\n"));
        }
        mesh.push_str("}\n");
        let lab = SourceFile::new(&db, FilePath::from("lab.mesh"), Arc::from(mesh), false);
        inputs.push(lab);
        let ws = Workspace::new(&db, inputs);
        (db, ws, lab)
    }

    /// What stops a resolution's interrupt (see below).
    struct Stop;

    /// A resolution calls its interrupt once for each module it loads, then at every
    /// instance of each phase (names, entries, logins, placements, provider choice,
    /// values, public names, what is left out), where it asks no query: stopped at any of
    /// those calls, it unwinds out of the resolution.
    #[test]
    fn every_phase_of_a_resolution_polls_its_interrupt() {
        let (db, ws, lab) = watched(Arc::default());
        let reg = registry(&db, ws);
        let parsed = parse_file(&db, lab);
        let Some(ast::Item::Mesh(mesh)) = parsed.file.items.first() else {
            panic!("lab.mesh holds a mesh")
        };
        let path = lab.path(&db).clone();
        let sources = ws.files(&db);
        let module = |name: &str| module_source_in(&db, &reg, sources, name);
        let scope = |name: &str| module_scope_named(&db, ws, name);
        let specs = |name: &str| module_specs_named(&db, ws, name);
        // No query in the phases: what polls there is the interrupt alone.
        let no_errors = |_: &str| Vec::new();
        let calls = std::cell::Cell::new(0usize);
        let stop_at = std::cell::Cell::new(usize::MAX);
        let interrupt = || {
            calls.set(calls.get() + 1);
            if calls.get() == stop_at.get() {
                std::panic::panic_any(Stop);
            }
        };
        let lock = crate::resolve::Lock::default();
        let input = crate::resolve::ResolveInput {
            mesh,
            path: &path,
            registry: &reg,
            module: &module,
            scope: &scope,
            specs: &specs,
            module_errors: &no_errors,
            lock: &lock,
            manifests: true,
            choices: false,
            sink: None,
            interrupt: &interrupt,
        };
        let whole = crate::resolve::resolve_mesh(&input);
        assert!(!whole.refused(), "{:?}", whole.diagnostics);
        let total = calls.get();
        assert!(
            total >= 9 * MODULES,
            "{total} calls for {MODULES} assignments: the phases do not poll"
        );
        for at in (MODULES + 1..=total).step_by(MODULES / 3) {
            calls.set(0);
            stop_at.set(at);
            let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::resolve::resolve_mesh(&input)
            }));
            match stopped {
                Err(payload) => assert!(payload.is::<Stop>(), "stopped at call {at}"),
                Ok(_) => panic!("the resolution ran past call {at} of {total}"),
            }
        }
    }

    /// An edit that comes while a mesh resolves, past the loading of its modules, is not
    /// held until the resolution ends: the resolution sees the edit's cancellation at its
    /// next check and unwinds, and the write goes through.
    #[test]
    fn an_edit_during_a_long_resolution_cancels_it() {
        let watch = Arc::new(Watch::default());
        let (mut db, ws, lab) = watched(watch.clone());
        let (mid_tx, mid_rx) = std::sync::mpsc::channel::<usize>();
        let mid_tx = std::sync::Mutex::new(mid_tx);
        let flag_watch = watch.clone();
        // Past the loading (a few checks a module) and well before the end (more than
        // ten a module): the resolution is in its phases. It waits there until the edit
        // has raised salsa's cancellation flag, so the test does not depend on timing.
        let at = 6 * MODULES;
        let started = watch.checks.load(Ordering::SeqCst);
        *watch.at_check.lock().unwrap() = Some(Box::new(move |n| {
            if n == started + at {
                let _ = mid_tx.lock().unwrap().send(n);
                let t0 = std::time::Instant::now();
                while !flag_watch.flag_set.load(Ordering::SeqCst)
                    && t0.elapsed() < std::time::Duration::from_secs(30)
                {
                    std::thread::yield_now();
                }
            }
        }));
        let snapshot = db.clone();
        let resolving = std::thread::spawn(move || {
            let out = salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
                check_mesh(&snapshot, ws, "lab".into());
            }));
            drop(snapshot);
            out.is_err()
        });
        let n = mid_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the resolution reached its phases");
        let edited: Arc<str> = Arc::from(format!("{}\n", lab.text(&db)));
        lab.set_text(&mut db).to(edited);
        let unwound_at = watch.checks.load(Ordering::SeqCst);
        assert!(resolving.join().unwrap(), "the resolution was cancelled");
        // It unwound at one of its next checks, not at the end of its phases.
        assert!(
            unwound_at - n < 10,
            "waited at check {n}, unwound by check {unwound_at}"
        );
        *watch.at_check.lock().unwrap() = None;
        let outcome = check_mesh(&db, ws, "lab".into());
        assert!(!outcome.refused(), "{:?}", outcome.diagnostics);
    }
}
