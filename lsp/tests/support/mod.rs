//! A test client: drives the real server in-process over JSON-RPC (`LspService` as a tower
//! service), keeps what the server sends (diagnostics, log lines) and renders answers as
//! stable text for fixtures.

#![allow(dead_code)]

use futures::{FutureExt as _, StreamExt as _};
use meshc_lsp::Backend;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tower::{Service, ServiceExt};
use tower_lsp_server::jsonrpc::Request;
use tower_lsp_server::{ClientSocket, LspService};

/// The cursor marker in fixture files.
pub const CURSOR: &str = "$0";

/// One `textDocument/publishDiagnostics`, in arrival order.
#[derive(Debug, Clone)]
pub struct Published {
    pub uri: String,
    pub version: Option<i64>,
    pub diagnostics: Vec<Value>,
}

pub struct TestClient {
    service: LspService<Backend>,
    /// What the server sends. Read while any handler runs: its channel holds one message,
    /// so a server whose messages nobody reads waits.
    socket: ClientSocket,
    next_id: i64,
    pub root: PathBuf,
    _dir: tempfile::TempDir,
    /// Every publish, in order.
    pub published: Vec<Published>,
    /// The latest diagnostics per URI.
    pub diagnostics: HashMap<String, Vec<Value>>,
    pub logs: Vec<String>,
    /// Requests the server sent to the client (method, params).
    pub server_requests: Vec<(String, Value)>,
    /// The standard library's URI, as the server announced it in go-to-definition answers.
    pub std_dir: PathBuf,
}

/// Client capabilities: UTF-16 positions unless `utf8`, related information shown.
pub fn capabilities(utf8: bool) -> Value {
    let encodings = if utf8 {
        json!(["utf-8", "utf-16"])
    } else {
        json!(["utf-16"])
    };
    json!({
        "general": {"positionEncodings": encodings},
        "textDocument": {
            "publishDiagnostics": {"relatedInformation": true, "tagSupport": {"valueSet": [1, 2]}},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true}
        },
        "workspace": {"workspaceFolders": true}
    })
}

impl TestClient {
    /// Writes `files` (relative path, text) into a fresh workspace folder, starts the server
    /// on it, and waits until it has read and checked the folder.
    pub async fn start(files: &[(String, String)], utf8: bool) -> TestClient {
        Self::start_with_std_dir(files, utf8, None).await
    }

    /// Like [`TestClient::start`], with the standard library's copy written to the
    /// workspace-relative directory `std_dir` instead of a cache beside the workspace.
    pub async fn start_with_std_dir(
        files: &[(String, String)],
        utf8: bool,
        std_dir: Option<&str>,
    ) -> TestClient {
        Self::start_with(files, capabilities(utf8), utf8, std_dir).await
    }

    /// Starts the server with the client capabilities `caps`.
    pub async fn start_with(
        files: &[(String, String)],
        caps: Value,
        utf8: bool,
        std_dir: Option<&str>,
    ) -> TestClient {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir
            .path()
            .canonicalize()
            .expect("canonical root")
            .join("ws");
        std::fs::create_dir_all(&root).unwrap();
        for (rel, text) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        let std_dir = match std_dir {
            Some(rel) => root.join(rel),
            None => dir.path().join("cache"),
        };
        let (service, socket) = LspService::new(Backend::new);
        let mut client = TestClient {
            service,
            socket,
            next_id: 1,
            root: root.clone(),
            _dir: dir,
            published: Vec::new(),
            diagnostics: HashMap::new(),
            logs: Vec::new(),
            server_requests: Vec::new(),
            std_dir: std_dir.clone(),
        };
        let root_uri = client.uri_of(&root);
        let init = client
            .request(
                "initialize",
                json!({
                    "capabilities": caps,
                    "workspaceFolders": [{"uri": root_uri, "name": "ws"}],
                    "initializationOptions": {"stdlibCacheDir": std_dir.to_string_lossy()},
                }),
            )
            .await
            .expect("initialize answers");
        let encoding = init["capabilities"]["positionEncoding"].clone();
        assert_eq!(encoding, json!(if utf8 { "utf-8" } else { "utf-16" }));
        client.notify("initialized", json!({})).await;
        client
            .wait_for(|c| c.logs.iter().any(|l| l.contains("read and checked")))
            .await;
        client
    }

    /// The `file:` URI of `path`.
    pub fn uri_of(&self, path: &Path) -> String {
        tower_lsp_server::ls_types::Uri::from_file_path(path)
            .expect("an absolute path")
            .as_str()
            .to_string()
    }

    /// The URI of a workspace file by its relative path.
    pub fn uri(&self, rel: &str) -> String {
        self.uri_of(&self.root.join(rel))
    }

    /// A short, stable name for a URI: the workspace-relative path, or `<std>`.
    pub fn short(&self, uri: &str) -> String {
        if uri.contains("/std-") && uri.ends_with(".mesh") || uri.starts_with("meshc-std:") {
            return "<std>".into();
        }
        let root = self.uri_of(&self.root);
        if let Some(rel) = uri.strip_prefix(&format!("{root}/")) {
            return rel.to_string();
        }
        if uri.contains("/std-") || uri.starts_with("meshc-std:") {
            return "<std>".into();
        }
        uri.to_string()
    }

    /// Runs `fut` while reading what the server sends, then takes in what is left.
    pub async fn drive<F: Future>(&mut self, fut: F) -> F::Output {
        let mut fut = std::pin::pin!(fut);
        let mut open = true;
        loop {
            tokio::select! {
                biased;
                out = &mut fut => {
                    self.drain();
                    return out;
                }
                msg = self.socket.next(), if open => match msg {
                    Some(m) => self.take(m),
                    None => open = false,
                },
            }
        }
    }

    /// Sends a request and returns its result, or its error object.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.next_id;
        self.next_id += 1;
        let req = Request::build(method.to_string())
            .params(params)
            .id(id)
            .finish();
        let fut = self.service.ready().await.expect("service ready").call(req);
        let resp = self
            .drive(fut)
            .await
            .expect("the server is running")
            .expect("a response");
        let (_, result) = resp.into_parts();
        result.map_err(|e| serde_json::to_value(e).unwrap())
    }

    /// Sends a notification; returns once the server has handled it (in-process, the
    /// handler's future completes with it, checks included).
    pub async fn notify(&mut self, method: &str, params: Value) {
        let req = Request::build(method.to_string()).params(params).finish();
        let fut = self.service.ready().await.expect("service ready").call(req);
        let _ = self.drive(fut).await;
    }

    /// Sends a notification without waiting for its handler (concurrent edits); await the
    /// handles with [`TestClient::drive`].
    pub async fn notify_detached(
        &mut self,
        method: &str,
        params: Value,
    ) -> tokio::task::JoinHandle<()> {
        let req = Request::build(method.to_string()).params(params).finish();
        let fut = self.service.ready().await.expect("service ready").call(req);
        tokio::spawn(async move {
            let _ = fut.await;
        })
    }

    /// Takes in what the server has sent and nobody read yet.
    pub fn drain(&mut self) {
        while let Some(Some(msg)) = self.socket.next().now_or_never() {
            self.take(msg);
        }
    }

    fn take(&mut self, msg: Request) {
        let params = msg.params().cloned().unwrap_or(Value::Null);
        match msg.method() {
            "textDocument/publishDiagnostics" => {
                let uri = params["uri"].as_str().unwrap_or_default().to_string();
                let diagnostics = params["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                self.diagnostics.insert(uri.clone(), diagnostics.clone());
                self.published.push(Published {
                    uri,
                    version: params["version"].as_i64(),
                    diagnostics,
                });
            }
            "window/logMessage" => {
                self.logs
                    .push(params["message"].as_str().unwrap_or_default().to_string());
            }
            method if msg.id().is_some() => {
                self.server_requests.push((method.to_string(), params));
            }
            _ => {}
        }
    }

    /// Waits (at most ten seconds) until `pred` holds.
    pub async fn wait_for(&mut self, pred: impl Fn(&TestClient) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            self.drain();
            if pred(self) {
                return;
            }
            match tokio::time::timeout_at(deadline, self.socket.next()).await {
                Ok(Some(msg)) => self.take(msg),
                Ok(None) => panic!("the server's socket closed"),
                Err(_) => panic!("timed out; logs: {:?}", self.logs),
            }
        }
    }

    pub async fn open(&mut self, rel: &str, text: &str, version: i64) {
        let uri = self.uri(rel);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "mesh", "version": version, "text": text}}),
        )
        .await;
    }

    pub async fn change(&mut self, rel: &str, text: &str, version: i64) {
        let uri = self.uri(rel);
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        )
        .await;
    }

    /// The latest diagnostics of a workspace file, rendered one per line.
    pub fn diagnostics_of(&self, rel: &str) -> Vec<String> {
        let uri = self.uri(rel);
        self.diagnostics
            .get(&uri)
            .map(|list| list.iter().map(|d| self.render_diagnostic(d)).collect())
            .unwrap_or_default()
    }

    pub fn render_diagnostic(&self, d: &Value) -> String {
        let mut s = format!(
            "{} {} {}: {}",
            range(&d["range"]),
            d["severity"],
            d["code"].as_str().unwrap_or("?"),
            d["message"].as_str().unwrap_or_default()
        );
        for r in d["relatedInformation"].as_array().into_iter().flatten() {
            s.push_str(&format!(
                "\n    related {}:{} {}",
                self.short(r["location"]["uri"].as_str().unwrap_or_default()),
                range(&r["location"]["range"]),
                r["message"].as_str().unwrap_or_default()
            ));
        }
        s
    }

    /// A location as `file:L:C..L:C` (protocol positions: zero-based).
    pub fn render_location(&self, l: &Value) -> String {
        format!(
            "{}:{}",
            self.short(l["uri"].as_str().unwrap_or_default()),
            range(&l["range"])
        )
    }

    /// A workspace edit as one line per text edit, sorted.
    pub fn render_edit(&self, edit: &Value) -> Vec<String> {
        let mut out = Vec::new();
        for (uri, edits) in edit["changes"].as_object().into_iter().flatten() {
            for e in edits.as_array().into_iter().flatten() {
                out.push(format!(
                    "{}:{} -> {:?}",
                    self.short(uri),
                    range(&e["range"]),
                    e["newText"].as_str().unwrap_or_default()
                ));
            }
        }
        out.sort();
        out
    }

    pub async fn shutdown(mut self) {
        let _ = self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
    }
}

/// `L:C..L:C` of a protocol range.
pub fn range(r: &Value) -> String {
    format!(
        "{}:{}..{}:{}",
        r["start"]["line"], r["start"]["character"], r["end"]["line"], r["end"]["character"]
    )
}

/// The protocol position of byte `offset` in `text`, in UTF-16 units or bytes.
pub fn position(text: &str, offset: usize, utf8: bool) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = if utf8 {
        offset - line_start
    } else {
        before[line_start..].encode_utf16().count()
    };
    json!({"line": line, "character": col})
}

/// One fixture case: its files (marker removed), the file and offset of the cursor, and
/// the directives of its header comments.
pub struct Case {
    pub name: String,
    pub files: Vec<(String, String)>,
    /// Texts after an edit (`NAME.mesh.edited` beside `NAME.mesh`).
    pub edits: Vec<(String, String)>,
    pub cursor: Option<(String, usize)>,
    pub directives: Vec<(String, String)>,
    /// The expected rendering, from `CASE.expected` (single file) or `DIR/expected`.
    pub expected_path: PathBuf,
}

impl Case {
    /// The value of directive `key` (the first one).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.directives
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of directive `key`.
    pub fn all(&self, key: &str) -> Vec<&str> {
        self.directives
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Compares `actual` with the case's expected text (or its `expect:` lines). With
    /// `UPDATE_EXPECT=1` the expected file is written instead.
    pub fn check(&self, actual: &str) {
        if std::env::var_os("SHOW_ANSWERS").is_some() {
            eprintln!("--- {}\n{actual}", self.name);
        }
        let wanted = self.all("expect");
        let unwanted = self.all("expect-not");
        if !wanted.is_empty() || !unwanted.is_empty() {
            for w in wanted {
                assert!(
                    actual.contains(w),
                    "{}: expected to find {w:?} in:\n{actual}",
                    self.name
                );
            }
            for w in unwanted {
                assert!(
                    !actual.contains(w),
                    "{}: expected not to find {w:?} in:\n{actual}",
                    self.name
                );
            }
            return;
        }
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            // Rewriting the expectation asserts nothing: never in CI.
            assert!(
                !std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false")),
                "UPDATE_EXPECT rewrites expectations instead of asserting them; refused under CI"
            );
            std::fs::write(&self.expected_path, actual).unwrap();
            return;
        }
        let expected = std::fs::read_to_string(&self.expected_path).unwrap_or_else(|_| {
            panic!(
                "{}: no {} (run with UPDATE_EXPECT=1 to write it); actual:\n{actual}",
                self.name,
                self.expected_path.display()
            )
        });
        assert_eq!(
            expected.trim_end(),
            actual.trim_end(),
            "{}: the answer differs from {}",
            self.name,
            self.expected_path.display()
        );
    }
}

/// The one reader of fixture headers, shared with the compiler's fixture runners.
#[path = "../../../compiler/tests/support/header.rs"]
mod header;

/// The keys a language-server fixture's header may write; another key that reads like
/// one (`expct:`, `reqest:`) fails the case.
const KEYS: &[&str] = &["request", "expect", "expect-not", "encoding", "position"];

/// The header directives of a file, as (key, value).
fn directives(name: &str, text: &str) -> Vec<(String, String)> {
    header::directives(text, KEYS)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .into_iter()
        .map(|d| (d.key, d.value))
        .collect()
}

/// Every case of the fixture directory `lsp/tests/fixtures/<feature>`: each `.mesh` file
/// is a case, and each directory is a case made of its `.mesh` files.
pub fn cases(feature: &str) -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(feature);
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|_| panic!("no fixture directory {}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut out = Vec::new();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let (sources, expected_path): (BTreeMap<String, String>, PathBuf) = if path.is_dir() {
            let mut files = BTreeMap::new();
            for f in std::fs::read_dir(&path).unwrap() {
                let f = f.unwrap().path();
                let fname = f.file_name().unwrap().to_string_lossy().to_string();
                if fname.ends_with(".mesh") || fname.ends_with(".mesh.edited") {
                    files.insert(fname, std::fs::read_to_string(&f).unwrap());
                }
            }
            (files, path.join("expected"))
        } else if name.ends_with(".mesh") {
            let mut files = BTreeMap::new();
            files.insert(name.clone(), std::fs::read_to_string(&path).unwrap());
            (files, path.with_extension("expected"))
        } else {
            continue;
        };
        let mut case = Case {
            name: format!("{feature}/{name}"),
            files: Vec::new(),
            edits: Vec::new(),
            cursor: None,
            directives: Vec::new(),
            expected_path,
        };
        for (fname, text) in sources {
            if let Some(base) = fname.strip_suffix(".edited") {
                case.edits.push((base.to_string(), text));
                continue;
            }
            case.directives.extend(directives(&case.name, &text));
            let text = match text.find(CURSOR) {
                Some(at) => {
                    case.cursor = Some((fname.clone(), at));
                    text.replacen(CURSOR, "", 1)
                }
                None => text,
            };
            case.files.push((fname, text));
        }
        out.push(case);
    }
    assert!(!out.is_empty(), "no cases in {}", dir.display());
    out
}
