//! Edit-to-diagnostics latency of the language server on a generated workspace.
//!
//! ```text
//! cargo bench -p meshc-lsp --bench latency [-- --modules 1000 --edits 200 --open 500 --mesh]
//! ```
//!
//! `--open K` opens module K (by default the middle one); `--mesh` adds provider modules
//! and a mesh of 20 nodes assigning every module, so each edit of a module also resolves
//! the mesh again in the workspace pass, and adds a series that renames a requirement of
//! the open module (and its reads).
//!
//! Writes a workspace of generated modules (`meshc::workload`'s flavour `Server`: about
//! 1 KB each, six requirements, twelve env entries with interpolation, a port, a
//! directory, secret files) to a temporary directory, starts the server in-process, opens
//! one file, then applies one-line edits and measures the time from sending `didChange`
//! to receiving that version's `publishDiagnostics`.
//! Three series: "idle" waits for the whole-workspace check to finish before the next
//! edit; "back-to-back" edits again as soon as the file's diagnostics arrive, so every
//! workspace check is cancelled by the next edit; "edit above the module's name" inserts a
//! line at the top of the file, which moves a global name, so the registry changes and
//! every file is checked again. Prints the median and the 95th percentile of each, and for
//! an idle series the process's CPU time per edit (edit and workspace pass). A
//! benchmark, not a test: it asserts nothing about time.
//!
//! With `--mesh`, a series also changes the open module's operator default (`workers`'
//! `= 4`), a value the mesh's check evaluates but, read by a container only, never
//! observes, so it resolves no mesh again (nor does the `value` series' env value, which
//! only the manifests read); the `given` series changes a given field (`key`'s
//! `length = 64`) within the contract's range, which the check judges but nothing reads,
//! so it resolves no mesh again either; and the `given-read` series changes it where an
//! operator default the check evaluates reads it (`= key.length`), so the whole mesh
//! resolves again at each edit.
//!
//! `--series NAME` runs only one series (`value`, `back-to-back`, `above`, `rename`,
//! `default`, `given`, `given-read`) and
//! skips references and rename: for a profiler to see one kind of edit alone. `--each`
//! prints every sample too. Each series starts from the file's first text (an edit
//! outside the series). `--marks` prints, after the series, the median time of each phase
//! of the resolutions they ran (the resolver's step marks, `base::process::mark`).

use futures::StreamExt as _;

// The server in process with the allocator the `meshc-lsp` binary runs on.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use meshc_lsp::Backend;
use meshc_workload::workload::{EDITED, Flavour, Workload};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tower::{Service, ServiceExt};
use tower_lsp_server::LspService;
use tower_lsp_server::jsonrpc::Request;

fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

/// The value given after `name`, if any.
fn text_arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Client {
    service: LspService<Backend>,
    rx: UnboundedReceiver<(Instant, Request)>,
    next_id: i64,
}

impl Client {
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let req = Request::build(method.to_string())
            .params(params)
            .id(self.next_id)
            .finish();
        self.next_id += 1;
        let resp = self
            .service
            .ready()
            .await
            .expect("ready")
            .call(req)
            .await
            .expect("running")
            .expect("a response");
        resp.into_parts().1.expect("a result")
    }

    /// Sends a notification and returns its handler as a task (not awaited).
    async fn notify(&mut self, method: &str, params: Value) -> tokio::task::JoinHandle<()> {
        let req = Request::build(method.to_string()).params(params).finish();
        let fut = self.service.ready().await.expect("ready").call(req);
        tokio::spawn(async move {
            let _ = fut.await;
        })
    }

    /// Waits for a message `pred` accepts; returns when it arrived.
    async fn wait(&mut self, pred: impl Fn(&Request) -> bool) -> Instant {
        loop {
            let (at, msg) = tokio::time::timeout(Duration::from_secs(120), self.rx.recv())
                .await
                .expect("an answer within two minutes")
                .expect("the server is running");
            if pred(&msg) {
                return at;
            }
        }
    }
}

fn is_publish(msg: &Request, uri: &str, version: i64) -> bool {
    msg.method() == "textDocument/publishDiagnostics"
        && msg.params().is_some_and(|p| {
            p["uri"].as_str() == Some(uri) && p["version"].as_i64() == Some(version)
        })
}

/// CPU time of this process (the server and the bench's client, every thread), user and
/// system, in milliseconds, from fields 14 and 15 of `/proc/self/stat` (clock ticks of
/// 1/100 s); `None` off Linux. Coarse: read around a whole series, not one edit.
fn cpu_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some((fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?) * 10)
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(name: &str, mut samples: Vec<Duration>) {
    if flag("--each") {
        let each: Vec<String> = samples
            .iter()
            .map(|d| format!("{:.1}", millis(*d)))
            .collect();
        println!("{name}, each in ms: {}", each.join(" "));
    }
    samples.sort();
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:<58} median {:>8.2} ms   p95 {:>8.2} ms   max {:>8.2} ms   ({} edits)",
        millis(pick(0.5)),
        millis(pick(0.95)),
        millis(*samples.last().unwrap()),
        samples.len()
    );
}

/// The median time of each phase of the resolutions marked so far: from each
/// `resolve.start` mark to the next marks of the same resolution.
fn resolution_phases() {
    let marks = meshc::base::process::marks();
    let mut phases: Vec<(&'static str, Vec<Duration>)> = Vec::new();
    let mut last: Option<Instant> = None;
    let mut runs = 0;
    for meshc::base::process::Mark { what, at, .. } in marks {
        if what == "resolve.start" {
            last = Some(at);
            runs += 1;
            continue;
        }
        let Some(before) = last.filter(|_| what.starts_with("resolve.")) else {
            continue;
        };
        match phases.iter_mut().find(|(name, _)| *name == what) {
            Some((_, times)) => times.push(at - before),
            None => phases.push((what, vec![at - before])),
        }
        last = Some(at);
    }
    println!("resolutions marked: {runs}");
    for (name, mut times) in phases {
        times.sort();
        println!(
            "{name:<58} median {:>8.2} ms   max {:>8.2} ms",
            millis(times[times.len() / 2]),
            millis(*times.last().unwrap())
        );
    }
}

fn write_workspace(root: &Path, workload: &Workload, with_mesh: bool) -> usize {
    let mut bytes = 0;
    for i in 0..workload.services {
        let text = workload.service(i);
        bytes += text.len();
        std::fs::write(root.join(workload.service_file(i)), text).expect("write a module");
    }
    if with_mesh {
        let providers = workload.providers().expect("the workload has providers");
        std::fs::write(root.join(workload.providers_file()), providers)
            .expect("write the providers");
        let mesh = workload.mesh().expect("the workload has a mesh");
        std::fs::write(root.join(workload.mesh_file()), mesh).expect("write the mesh");
    }
    bytes
}

fn main() {
    // The binary's runtime and allocator setting, before any thread starts:
    // `MIMALLOC_PURGE_DELAY=10` in the environment measures the allocator's own default.
    meshc_lsp::runtime().expect("a runtime").block_on(run());
}

async fn run() {
    let modules = arg("--modules", 1000);
    let edits = arg("--edits", 200);
    let with_mesh = flag("--mesh");
    let open = arg("--open", modules / 2).min(modules.saturating_sub(1));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path().canonicalize().expect("canonical").join("ws");
    std::fs::create_dir_all(&root).expect("workspace folder");
    let workload = Workload::new(Flavour::Server, modules);
    let bytes = write_workspace(&root, &workload, with_mesh);
    println!(
        "workspace: {modules} modules, {:.1} KB per module on average{}; module {open} opened",
        bytes as f64 / modules as f64 / 1024.0,
        if with_mesh {
            format!(
                ", a mesh of {} nodes assigning every module",
                workload.nodes()
            )
        } else {
            String::new()
        }
    );

    let (service, socket) = LspService::new(Backend::new);
    let (tx, rx) = unbounded_channel();
    tokio::spawn(socket.for_each(move |m| {
        let _ = tx.send((Instant::now(), m));
        async {}
    }));
    let mut client = Client {
        service,
        rx,
        next_id: 1,
    };
    let uri_of = |p: &Path| {
        tower_lsp_server::ls_types::Uri::from_file_path(p)
            .expect("absolute")
            .as_str()
            .to_string()
    };
    let started = Instant::now();
    client
        .request(
            "initialize",
            json!({
                "capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": true}}},
                "workspaceFolders": [{"uri": uri_of(&root), "name": "ws"}],
                "initializationOptions": {"stdlibCacheDir": dir.path().join("cache").to_string_lossy()},
            }),
        )
        .await;
    // The handlers run as tasks; the messages they send say when they are done.
    drop(client.notify("initialized", json!({})).await);
    let loaded = client
        .wait(|m| {
            m.method() == "window/logMessage"
                && m.params().is_some_and(|p| {
                    p["message"]
                        .as_str()
                        .unwrap_or("")
                        .contains("read and checked")
                })
        })
        .await;
    println!(
        "{:<58} {:>8.2} ms",
        "start-up: read and check the workspace",
        millis(loaded - started)
    );

    let target = root.join(workload.service_file(open));
    let uri = uri_of(&target);
    let text = std::fs::read_to_string(&target).expect("the opened file");
    let opened = Instant::now();
    let handler = client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "mesh", "version": 1, "text": text}}),
        )
        .await;
    let at = client.wait(|m| is_publish(m, &uri, 1)).await;
    println!(
        "{:<58} {:>8.2} ms",
        "didOpen -> publishDiagnostics",
        millis(at - opened)
    );
    // The workspace pass the opening started ends before the first edit, so that no
    // series pays for it.
    handler.await.expect("the handler ran");
    println!(
        "{:<58} {:>8.2} ms",
        "didOpen -> workspace checked",
        millis(opened.elapsed())
    );

    let mut version = 1;
    // Edits inside the module's body leave every global name where it was; an edit above
    // the module's name moves it, so the registry changes and every file is checked again.
    let mut series = vec!["value", "back-to-back", "above"];
    if with_mesh {
        series.extend(["rename", "default", "given", "given-read"]);
    }
    let only = text_arg("--series");
    if let Some(only) = &only {
        series.retain(|s| s == only);
    }
    if flag("--marks") {
        meshc::base::process::mark_steps();
    }
    for kind in series {
        let idle = kind != "back-to-back";
        // Each series starts from the file's first text, by an edit of its own outside
        // the series: otherwise a series' first edit also undoes the last series' change
        // (an env value, so the mesh resolves again inside the comment's series), and the
        // document's first edit makes its text of low durability, which confirms every
        // memo of the workspace once (seconds at 100,000 modules with a mesh).
        version += 1;
        let params = json!({
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]
        });
        let handler = client.notify("textDocument/didChange", params).await;
        handler.await.expect("the handler ran");
        let mut samples = Vec::with_capacity(edits);
        let mut workspace_checks = Vec::new();
        let mut handlers = Vec::new();
        let cpu_before = cpu_ms();
        for k in 0..edits {
            version += 1;
            let edited = match kind {
                // A requirement renamed, and its read: no global name changes.
                "rename" => {
                    let name = format!("workers_{}", k % 2);
                    text.replace("requires workers:", &format!("requires {name}:"))
                        .replace("${workers}", &format!("${{{name}}}"))
                }
                // A line of alternating length, so every edit moves the name again.
                "above" => format!("//{}\n{text}", " edit".repeat(k % 2 + 1)),
                // The operator's default, which the check of the mesh evaluates.
                "default" => text.replace(
                    "requires workers: operator int in 1..64 = 4",
                    &format!("requires workers: operator int in 1..64 = {}", 5 + k % 2),
                ),
                // A given field of a module requirement, which the check evaluates
                // and judges against the contract, and which nothing else reads.
                "given" => text.replace(
                    "requires key: module secret { length = 64 }",
                    &format!("requires key: module secret {{ length = {} }}", 65 + k % 2),
                ),
                // The same field, read by an operator default the check evaluates.
                "given-read" => text.replace(
                    "requires key: module secret { length = 64 }",
                    &format!(
                        "requires key: module secret {{ length = {} }}\n  requires key_length: operator int = key.length",
                        65 + k % 2
                    ),
                ),
                _ => text.replace(EDITED, &format!("      LOG_LEVEL = \"info-{k}\"")),
            };
            assert_ne!(edited, text, "the {kind} series' edit applies");
            let params = json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": edited}]
            });
            let sent = Instant::now();
            let handler = client.notify("textDocument/didChange", params).await;
            let at = client.wait(|m| is_publish(m, &uri, version)).await;
            samples.push(at - sent);
            if idle {
                handler.await.expect("the handler ran");
                workspace_checks.push(sent.elapsed());
            } else {
                handlers.push(handler);
            }
        }
        futures::future::join_all(handlers).await;
        let cpu = cpu_before.zip(cpu_ms()).map(|(a, b)| b.saturating_sub(a));
        let series = match kind {
            "rename" => "idle, renamed requirement",
            "default" => "idle, operator default",
            "given" => "idle, given field",
            "given-read" => "idle, given field read",
            "back-to-back" => "back-to-back",
            "above" => "idle, edit above the module's name",
            _ => "idle",
        };
        summary(
            &format!("didChange -> publishDiagnostics ({series})"),
            samples,
        );
        if idle {
            summary(
                &format!("didChange -> workspace checked ({series})"),
                workspace_checks,
            );
            // Every edit of an idle series runs to the end of its workspace pass, so this
            // is what one edit costs the server in all.
            if let Some(cpu) = cpu {
                println!(
                    "{:<58} {:>8.2} ms",
                    format!("server CPU per edit ({series})"),
                    cpu as f64 / edits as f64
                );
            }
        }
    }

    if flag("--marks") {
        resolution_phases();
    }
    if only.is_some() {
        return;
    }
    // Requests that read every file: the first one indexes the workspace, later ones
    // reuse the indexes. The document goes back to its first text first.
    version += 1;
    let params = json!({
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"text": text}]
    });
    client
        .notify("textDocument/didChange", params)
        .await
        .await
        .expect("the handler ran");
    let line = text
        .lines()
        .position(|l| l.contains("DB_HOST = db.host"))
        .expect("the DB_HOST line");
    let column = text.lines().nth(line).unwrap().find("host").unwrap();
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": column},
                    "context": {"includeDeclaration": true}});
    for run in ["first", "second"] {
        let sent = Instant::now();
        let refs = client.request("textDocument/references", at.clone()).await;
        println!(
            "{:<58} {:>8.2} ms   ({} places)",
            format!("references to `postgres.host` ({run})"),
            millis(sent.elapsed()),
            refs.as_array().map_or(0, Vec::len)
        );
    }
    let sent = Instant::now();
    let edit = client
        .request("textDocument/rename", {
            let mut p = at.clone();
            p["position"]["character"] = json!(column - 3);
            p["newName"] = json!("database");
            p
        })
        .await;
    println!(
        "{:<58} {:>8.2} ms   ({} edits)",
        "rename requirement `db` of the open module",
        millis(sent.elapsed()),
        edit["changes"][&uri].as_array().map_or(0, Vec::len)
    );
}
