//! The protocol handlers.
//!
//! Two rules keep the server correct under concurrent handlers:
//!
//! - **Edits apply before any `.await`.** A notification locks the state, writes the
//!   database, takes a snapshot and unlocks, all synchronously; the rest (checking,
//!   publishing) happens after. The lock is never held across an `.await`, and no snapshot
//!   lives across one either: a salsa setter waits for every clone to drop.
//! - **Work runs on snapshots, in the blocking pool, under `salsa::Cancelled::catch`.** An
//!   edit cancels every computation on an older revision; a cancelled request is answered
//!   `ContentModified`, a cancelled check is dropped (the edit that cancelled it checks
//!   again). Diagnostics carry their generation and are published only while it is
//!   current, one batch at a time, so an older batch never overwrites a newer one.
//!
//! Every handler runs inside a panic guard: a panic in a request is answered as an internal
//! error and the server goes on.

use crate::analysis::{actions, completion, formatting, hints, hover, navigate, outline, tokens};
use crate::diagnostics::{Presentation, all_diagnostics, file_diagnostics, to_lsp_all};
use crate::scan;
use crate::state::{Snapshot, State};
use crate::stdlib;
use crate::timing;
use futures::FutureExt as _;
use meshc::db::{check_mesh_outcomes, registry};
use meshc::resolve::MeshOutcome;
use meshc::span::FilePath;
use meshc::syntax::line_index::ColumnUnit;
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

/// The language server.
pub struct Backend {
    inner: Arc<Inner>,
}

struct Inner {
    client: Client,
    state: Mutex<State>,
    /// What was last published per document, to publish only what changed. The async lock
    /// also serialises publishing.
    published: tokio::sync::Mutex<HashMap<Uri, Vec<Diagnostic>>>,
    caps: OnceLock<ClientCaps>,
}

#[derive(Debug, Clone, Copy, Default)]
struct ClientCaps {
    presentation: Presentation,
    watch_files: bool,
}

/// The settings a client may pass as `initializationOptions`.
#[derive(Debug, Default)]
struct Settings {
    /// Where the standard library's read-only copy is written.
    std_cache_dir: Option<PathBuf>,
}

impl Settings {
    fn from_json(v: Option<&serde_json::Value>) -> Settings {
        let dir = v
            .and_then(|v| v.get("stdlibCacheDir"))
            .and_then(|d| d.as_str())
            .filter(|d| !d.is_empty())
            .map(PathBuf::from);
        Settings { std_cache_dir: dir }
    }
}

impl Backend {
    /// A server talking to `client`.
    pub fn new(client: Client) -> Backend {
        let std_uri: Uri = stdlib::VIRTUAL_STD_URI.parse().expect("a valid URI");
        Backend {
            inner: Arc::new(Inner {
                client,
                state: Mutex::new(State::new(std_uri)),
                published: tokio::sync::Mutex::new(HashMap::new()),
                caps: OnceLock::new(),
            }),
        }
    }
}

/// Answers a panic inside `fut` as an internal error.
async fn guard<T>(fut: impl Future<Output = Result<T>>) -> Result<T> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(_) => Err(internal("the server failed on this request; it goes on")),
    }
}

/// Keeps a panic inside a notification from ending the server.
async fn guard_notification(fut: impl Future<Output = ()>) {
    let _ = AssertUnwindSafe(fut).catch_unwind().await;
}

fn internal(message: &str) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.to_string().into(),
        data: None,
    }
}

fn refused(message: String) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into(),
        data: None,
    }
}

type Batch = Vec<(Uri, Option<i32>, Vec<Diagnostic>)>;

/// How long after an edit's own check the workspace pass waits for a newer edit.
const WORKSPACE_CHECK_DELAY: std::time::Duration = std::time::Duration::from_millis(10);

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn caps(&self) -> ClientCaps {
        self.caps.get().copied().unwrap_or_default()
    }

    /// Runs `f` on a snapshot in the blocking pool; a newer edit cancels it.
    async fn compute<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Snapshot) -> R + Send + 'static,
    ) -> Result<R> {
        let snap = self.lock().snapshot();
        run_on(snap, f).await
    }

    /// Checks after an edit of `path`: that file first (the one the user looks at), then
    /// the whole workspace, publishing every file whose diagnostics changed.
    async fn check_after_edit(
        self: &Arc<Self>,
        path: FilePath,
        snap: Snapshot,
        mut steps: Option<timing::Steps>,
    ) {
        let generation = snap.generation;
        let how = self.caps().presentation;
        let started = std::time::Instant::now();
        let timed = steps.is_some();
        type Ran = (Batch, std::time::Instant, Option<timing::ThreadTimes>);
        let first = run_on(snap, move |snap| -> Option<Ran> {
            let began = std::time::Instant::now();
            let before = timed.then(timing::ThreadTimes::now).flatten();
            let file = snap.file_at(&path)?;
            let uri = snap.uri_of(&path)?;
            let diags = file_diagnostics(snap, file)
                .iter()
                .flat_map(|d| to_lsp_all(snap, d, how))
                .collect();
            let spent = before
                .zip(timing::ThreadTimes::now())
                .map(|(a, b)| b.since(a));
            Some((vec![(uri, snap.version_of(&path), diags)], began, spent))
        })
        .await;
        match first {
            Ok(Some((batch, began, spent))) => {
                if let Some(s) = &mut steps {
                    // The blocking pool's start, then the check itself.
                    s.mark_at("spawn", began.max(started));
                    s.mark("check");
                    if let Some(t) = spent {
                        s.note(format!(
                            "check ran {:.2} and waited for a core {:.2}",
                            t.ran_ms(),
                            t.waited_ms()
                        ));
                    }
                }
                self.publish(generation, batch, false).await;
                timing::mark(&mut steps, "publish");
                if let Some(s) = &steps {
                    s.report("didChange");
                }
            }
            Ok(None) => {}
            // Cancelled by a newer edit, which checks again.
            Err(_) => return,
        }
        // While the user types, the next edit usually comes within milliseconds: wait a
        // moment before the workspace pass, so it does not start only to be cancelled and
        // take a core from the next edit's own check.
        tokio::time::sleep(WORKSPACE_CHECK_DELAY).await;
        self.check_workspace(generation).await;
    }

    /// Checks the whole workspace as of `generation` and publishes what changed; does
    /// nothing when a newer change has come (it checks again itself).
    async fn check_workspace(self: &Arc<Self>, generation: u64) {
        // What earlier passes computed and nothing reads any more is freed here, on a
        // thread of its own, rather than inside the edit that replaced it.
        let garbage = self.lock().take_garbage();
        if !garbage.is_empty() {
            tokio::task::spawn_blocking(move || drop(garbage));
        }
        let snap = {
            let state = self.lock();
            if state.generation != generation {
                return;
            }
            state.snapshot()
        };
        let how = self.caps().presentation;
        let all = run_on(snap, move |snap| -> (Batch, Vec<Arc<MeshOutcome>>) {
            let mut batch = Vec::new();
            for (path, diags) in all_diagnostics(snap) {
                salsa::Database::unwind_if_revision_cancelled(&snap.db);
                let Some(uri) = snap.uri_of(&path) else {
                    continue;
                };
                let diags: Vec<Diagnostic> = diags
                    .iter()
                    .flat_map(|d| to_lsp_all(snap, d, how))
                    .collect();
                batch.push((uri, snap.version_of(&path), diags));
            }
            // The meshes' outcomes, held beside salsa's memos so that freeing them
            // happens off the next edit's path (see `State::retain`).
            let outcomes = registry(&snap.db, snap.ws)
                .meshes
                .keys()
                .flat_map(|mesh| check_mesh_outcomes(&snap.db, snap.ws, mesh.clone()))
                .collect();
            (batch, outcomes)
        })
        .await;
        if let Ok((batch, outcomes)) = all {
            self.lock().retain(outcomes);
            self.publish(generation, batch, true).await;
            // What this pass replaced is freed now, not inside the next edit.
            let inner = self.clone();
            let _ = tokio::task::spawn_blocking(move || inner.lock().settle(generation)).await;
        }
    }

    /// Publishes `batch` if `generation` is still current. A `complete` batch covers the
    /// whole workspace: documents it leaves out are cleared. A partial batch (one file after
    /// an edit) is published even when unchanged, so the client sees the new version.
    async fn publish(&self, generation: u64, batch: Batch, complete: bool) {
        let mut published = self.published.lock().await;
        if self.lock().generation != generation {
            return;
        }
        // A set: with a warning in each of 100,000 files, finding the stale ones by
        // scanning a list took billions of comparisons a pass.
        let mut seen = HashSet::with_capacity(batch.len());
        for (uri, version, diags) in batch {
            seen.insert(uri.clone());
            let same = published
                .get(&uri)
                .map_or(diags.is_empty(), |old| *old == diags);
            if complete && same {
                continue;
            }
            self.client
                .publish_diagnostics(uri.clone(), diags.clone(), version)
                .await;
            if diags.is_empty() {
                published.remove(&uri);
            } else {
                published.insert(uri, diags);
            }
        }
        if complete {
            let stale: Vec<Uri> = published
                .keys()
                .filter(|u| !seen.contains(u))
                .cloned()
                .collect();
            for uri in stale {
                published.remove(&uri);
                self.client.publish_diagnostics(uri, Vec::new(), None).await;
            }
        }
    }

    /// Reads the workspace folders from disk, checks everything, then says so in the log
    /// (tests and the benchmark wait for that line).
    async fn load_roots(self: &Arc<Self>, roots: Vec<PathBuf>) {
        let files = match tokio::task::spawn_blocking(move || scan::scan(&roots)).await {
            Ok(files) => files,
            Err(_) => return,
        };
        let count = files.len();
        let generation = {
            let mut state = self.lock();
            state.disk_files(files);
            state.generation
        };
        self.check_workspace(generation).await;
        self.client
            .log_message(
                MessageType::INFO,
                format!("meshc-lsp: read and checked {count} .mesh files of the workspace folders"),
            )
            .await;
    }

    /// Without the client's file watcher: walks the workspace folders (paths only), reads
    /// the `.mesh` files that appeared, drops the ones that went, and checks again when
    /// anything changed. Returns whether it did.
    async fn rescan(self: &Arc<Self>) -> bool {
        if self.caps().watch_files {
            return false; // the client's watcher reports created and deleted files
        }
        let (roots, known) = {
            let state = self.lock();
            (state.roots.clone(), state.disk_paths_under_roots())
        };
        if roots.is_empty() {
            return false;
        }
        let found = tokio::task::spawn_blocking(move || {
            let now: HashSet<PathBuf> = scan::paths(&roots).into_iter().collect();
            let known: HashSet<PathBuf> = known.into_iter().collect();
            let added: Vec<(PathBuf, Arc<str>)> = now
                .iter()
                .filter(|p| !known.contains(*p))
                .filter_map(|p| scan::read(p).map(|t| (p.clone(), t)))
                .collect();
            let gone: Vec<PathBuf> = known.into_iter().filter(|p| !now.contains(p)).collect();
            (added, gone)
        })
        .await;
        let Ok((added, gone)) = found else {
            return false;
        };
        if added.is_empty() && gone.is_empty() {
            return false;
        }
        let generation = {
            let mut state = self.lock();
            for path in &gone {
                state.disk_deleted(path);
            }
            if !added.is_empty() {
                state.disk_files(added);
            }
            state.generation
        };
        self.check_workspace(generation).await;
        true
    }

    async fn register_watchers(&self) {
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/*.mesh".into()),
                kind: None,
            }],
        };
        let Ok(options) = serde_json::to_value(options) else {
            return;
        };
        let registration = Registration {
            id: "meshc-watch-mesh-files".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: Some(options),
        };
        let _ = self.client.register_capability(vec![registration]).await;
    }
}

/// Runs `f` on `snap` in the blocking pool under `Cancelled::catch`; the snapshot is
/// dropped there, whatever happens.
async fn run_on<R: Send + 'static>(
    snap: Snapshot,
    f: impl FnOnce(&Snapshot) -> R + Send + 'static,
) -> Result<R> {
    let task =
        tokio::task::spawn_blocking(move || salsa::Cancelled::catch(AssertUnwindSafe(|| f(&snap))));
    match task.await {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(_cancelled)) => Err(Error::content_modified()),
        Err(_panicked) => Err(internal("the server failed on this request; it goes on")),
    }
}

fn roots_of(params: &InitializeParams) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
        .collect();
    #[allow(deprecated)] // Older clients send only `rootUri`.
    if roots.is_empty()
        && let Some(p) = params.root_uri.as_ref().and_then(|u| u.to_file_path())
    {
        roots.push(p.into_owned());
    }
    roots
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        guard(async {
            let caps = &params.capabilities;
            let utf8 = caps
                .general
                .as_ref()
                .and_then(|g| g.position_encodings.as_ref())
                .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
            let publish = caps
                .text_document
                .as_ref()
                .and_then(|t| t.publish_diagnostics.as_ref());
            let client = ClientCaps {
                presentation: Presentation {
                    related_information: publish
                        .and_then(|p| p.related_information)
                        .unwrap_or(false),
                    tags: publish.is_some_and(|p| p.tag_support.is_some()),
                },
                watch_files: caps
                    .workspace
                    .as_ref()
                    .and_then(|w| w.did_change_watched_files.as_ref())
                    .and_then(|w| w.dynamic_registration)
                    .unwrap_or(false),
            };
            let _ = self.inner.caps.set(client);
            let settings = Settings::from_json(params.initialization_options.as_ref());
            let dir = settings
                .std_cache_dir
                .unwrap_or_else(stdlib::default_cache_dir);
            let std_uri = stdlib::std_uri(&dir);
            {
                let mut state = self.inner.lock();
                state.unit = if utf8 {
                    ColumnUnit::Utf8
                } else {
                    ColumnUnit::Utf16
                };
                state.std_uri = std_uri;
                state.roots = roots_of(&params);
            }
            Ok(InitializeResult {
                capabilities: capabilities(utf8),
                server_info: Some(ServerInfo {
                    name: "meshc-lsp".into(),
                    version: Some(env!("CARGO_PKG_VERSION").into()),
                }),
                offset_encoding: None,
            })
        })
        .await
    }

    async fn initialized(&self, _: InitializedParams) {
        let inner = self.inner.clone();
        let roots = inner.lock().roots.clone();
        if inner.caps().watch_files {
            let w = inner.clone();
            // The client answers the registration whenever it likes; nothing waits for it.
            tokio::spawn(async move { w.register_watchers().await });
        }
        tokio::spawn(async move { inner.load_roots(roots).await });
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        guard_notification(async {
            let doc = params.text_document;
            let applied = {
                let mut state = self.inner.lock();
                if state.is_std(&doc.uri) {
                    None
                } else {
                    let path = state.open(&doc.uri, &doc.text, doc.version);
                    Some((path, state.snapshot()))
                }
            };
            if let Some((path, snap)) = applied {
                self.inner.check_after_edit(path, snap, None).await;
            }
            // A file created or deleted outside the editor is noticed on open and on save
            // when the client watches no files for the server.
            self.inner.rescan().await;
        })
        .await
    }

    async fn did_save(&self, _: DidSaveTextDocumentParams) {
        guard_notification(async {
            self.inner.rescan().await;
        })
        .await
    }

    async fn did_change(&self, mut params: DidChangeTextDocumentParams) {
        guard_notification(async {
            // Full sync: the last change holds the whole text.
            let Some(change) = params.content_changes.pop() else {
                return;
            };
            let doc = params.text_document;
            let mut steps = timing::Steps::start();
            let applied = {
                let mut state = self.inner.lock();
                timing::mark(&mut steps, "lock");
                let changed = state.change(&doc.uri, &change.text, doc.version, &mut steps);
                // What `changed` does after the write: the open documents' summaries
                // pinned, their versions, the file map.
                timing::mark(&mut steps, "pin");
                changed.map(|path| (path, state.snapshot()))
            };
            if let Some((path, snap)) = applied {
                self.inner.check_after_edit(path, snap, steps).await;
            }
        })
        .await
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        guard_notification(async {
            let uri = params.text_document.uri;
            let disk = uri
                .to_file_path()
                .filter(|_| uri.scheme().as_str() == "file")
                .and_then(|p| scan::read(&p));
            let generation = {
                let mut state = self.inner.lock();
                if state.is_std(&uri) {
                    return;
                }
                state.close(&uri, disk);
                state.generation
            };
            self.inner.check_workspace(generation).await;
        })
        .await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        guard_notification(async {
            let mut reads = Vec::new();
            for event in params.changes {
                let Some(path) = event.uri.to_file_path().map(|p| p.into_owned()) else {
                    continue;
                };
                if !scan::is_mesh(&path) {
                    continue;
                }
                let text = if event.typ == FileChangeType::DELETED {
                    None
                } else {
                    scan::read(&path)
                };
                reads.push((path, text));
            }
            let generation = {
                let mut state = self.inner.lock();
                for (path, text) in reads {
                    match text {
                        Some(t) => {
                            state.disk_file(&path, t);
                        }
                        None => {
                            state.disk_deleted(&path);
                        }
                    }
                }
                state.generation
            };
            self.inner.check_workspace(generation).await;
        })
        .await
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        guard_notification(async {
            let added: Vec<PathBuf> = params
                .event
                .added
                .iter()
                .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
                .collect();
            let generation = {
                let mut state = self.inner.lock();
                for f in &params.event.removed {
                    if let Some(p) = f.uri.to_file_path() {
                        state.drop_root(&p);
                    }
                }
                state.roots.extend(added.iter().cloned());
                state.generation
            };
            if added.is_empty() {
                self.inner.check_workspace(generation).await;
            } else {
                self.inner.load_roots(added).await;
            }
        })
        .await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        guard(async {
            let p = params.text_document_position_params;
            self.inner
                .compute(move |s| hover::hover(s, &p.text_document.uri, p.position))
                .await
        })
        .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        guard(async {
            let p = params.text_document_position_params;
            let locations = self
                .inner
                .compute(move |s| navigate::definition(s, &p.text_document.uri, p.position))
                .await?;
            Ok((!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations)))
        })
        .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        guard(async {
            let p = params.text_document_position;
            let decl = params.context.include_declaration;
            let locations = self
                .inner
                .compute(move |s| navigate::references(s, &p.text_document.uri, p.position, decl))
                .await?;
            Ok(Some(locations))
        })
        .await
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        guard(async {
            let p = params.text_document_position_params;
            let list = self
                .inner
                .compute(move |s| navigate::highlights(s, &p.text_document.uri, p.position))
                .await?;
            Ok(Some(list))
        })
        .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        guard(async {
            self.inner
                .compute(move |s| {
                    navigate::prepare_rename(s, &params.text_document.uri, params.position)
                })
                .await?
                .map_err(|r| refused(r.0))
        })
        .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        guard(async {
            let p = params.text_document_position;
            let new_name = params.new_name;
            self.inner
                .compute(move |s| navigate::rename(s, &p.text_document.uri, p.position, &new_name))
                .await?
                .map_err(|r| refused(r.0))
        })
        .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        guard(async {
            let p = params.text_document_position;
            let items = self
                .inner
                .compute(move |s| completion::complete(s, &p.text_document.uri, p.position))
                .await?;
            Ok(items.map(CompletionResponse::Array))
        })
        .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        guard(async {
            let uri = params.text_document.uri;
            let symbols = self
                .inner
                .compute(move |s| outline::document_symbols(s, &uri))
                .await?;
            Ok(symbols.map(DocumentSymbolResponse::Nested))
        })
        .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        guard(async {
            let query = params.query;
            let symbols = self
                .inner
                .compute(move |s| outline::workspace_symbols(s, &query))
                .await?;
            Ok(Some(WorkspaceSymbolResponse::Nested(symbols)))
        })
        .await
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        guard(async {
            let uri = params.text_document.uri;
            let answer = self
                .inner
                .compute(move |s| formatting::formatting(s, &uri))
                .await?;
            answer.map_err(|why| Error {
                code: ErrorCode::ServerError(-32803), // RequestFailed (LSP 3.17)
                message: why.into(),
                data: None,
            })
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        guard(async {
            let how = self.inner.caps().presentation;
            let uri = params.text_document.uri;
            let range = params.range;
            let actions = self
                .inner
                .compute(move |s| actions::code_actions(s, &uri, range, how))
                .await?;
            Ok(Some(actions))
        })
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        guard(async {
            let uri = params.text_document.uri;
            let range = params.range;
            let list = self
                .inner
                .compute(move |s| hints::inlay_hints(s, &uri, range))
                .await?;
            Ok(Some(list))
        })
        .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        guard(async {
            let uri = params.text_document.uri;
            let tokens = self.inner.compute(move |s| tokens::full(s, &uri)).await?;
            Ok(tokens.map(SemanticTokensResult::Tokens))
        })
        .await
    }
}

fn capabilities(utf8: bool) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(if utf8 {
            PositionEncodingKind::UTF8
        } else {
            PositionEncodingKind::UTF16
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                // Saves are when files created or deleted outside the editor are noticed
                // (without the client's file watcher); the text is the open document's.
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into(), ":".into()]),
            ..CompletionOptions::default()
        }),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::new("source.fixAll.meshc"),
            ]),
            ..CodeActionOptions::default()
        })),
        inlay_hint_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: tokens::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            },
        )),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_handler_is_answered_as_an_internal_error() {
        let answer: Result<()> = guard(async { panic!("boom") }).await;
        assert_eq!(answer.unwrap_err().code, ErrorCode::InternalError);
    }

    #[tokio::test]
    async fn a_panicking_computation_is_answered_as_an_internal_error() {
        let std_uri: Uri = stdlib::VIRTUAL_STD_URI.parse().unwrap();
        let snap = State::new(std_uri).snapshot();
        let answer: Result<()> = run_on(snap, |_| panic!("boom")).await;
        assert_eq!(answer.unwrap_err().code, ErrorCode::InternalError);
    }

    #[tokio::test]
    async fn a_cancelled_computation_is_answered_content_modified() {
        let std_uri: Uri = stdlib::VIRTUAL_STD_URI.parse().unwrap();
        let snap = State::new(std_uri).snapshot();
        let answer: Result<()> = run_on(snap, |_| {
            std::panic::resume_unwind(Box::new(salsa::Cancelled::PendingWrite))
        })
        .await;
        assert_eq!(answer.unwrap_err().code, ErrorCode::ContentModified);
    }
}
