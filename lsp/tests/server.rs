//! Behaviour that is about the server rather than one feature: documents overriding the
//! disk, watched files, several folders, stale results under concurrent edits, and the
//! real binary on stdio.

mod support;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use support::TestClient;

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const BROKEN: &str = "module broken {\n  requires db module postgres\n}\n";
const FINE: &str = "module fine {\n  requires db: module postgres\n  container c {\n    image \"app:1.0\"\n    env { HOST = db.host }\n  }\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_files_are_checked_without_being_opened() {
    let client =
        TestClient::start(&files(&[("a.mesh", BROKEN), ("sub/b.mesh", FINE)]), false).await;
    assert_eq!(client.diagnostics_of("a.mesh").len(), 1);
    assert!(client.diagnostics_of("sub/b.mesh").is_empty());
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_document_overrides_the_disk_and_closing_reverts() {
    let mut client = TestClient::start(&files(&[("a.mesh", BROKEN)]), false).await;
    assert_eq!(client.diagnostics_of("a.mesh").len(), 1);
    client.open("a.mesh", FINE, 1).await;
    assert!(client.diagnostics_of("a.mesh").is_empty());
    let last = client.published.last().unwrap();
    assert_eq!(last.version, Some(1));
    let uri = client.uri("a.mesh");
    client
        .notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    // The disk still holds the broken text.
    assert_eq!(client.diagnostics_of("a.mesh").len(), 1);
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsaved_buffer_outside_the_folders_is_checked_and_cleared_on_close() {
    let mut client = TestClient::start(&[], false).await;
    let uri = "untitled:Untitled-1";
    client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "mesh", "version": 1, "text": BROKEN}}),
        )
        .await;
    assert_eq!(client.diagnostics[uri].len(), 1);
    client
        .notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert!(client.diagnostics[uri].is_empty());
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watched_file_events_are_read_from_disk() {
    let mut client = TestClient::start(&files(&[("a.mesh", FINE)]), false).await;
    let created = client.root.join("new.mesh");
    std::fs::write(&created, BROKEN).unwrap();
    let uri = client.uri("new.mesh");
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": uri, "type": 1}]}),
        )
        .await;
    assert_eq!(client.diagnostics_of("new.mesh").len(), 1);
    std::fs::remove_file(&created).unwrap();
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": uri, "type": 3}]}),
        )
        .await;
    assert!(client.diagnostics_of("new.mesh").is_empty());
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_watchers_are_registered_when_the_client_can() {
    let mut caps = support::capabilities(false);
    caps["workspace"]["didChangeWatchedFiles"] = json!({"dynamicRegistration": true});
    let mut client = TestClient::start_with(&files(&[("a.mesh", FINE)]), caps, false, None).await;
    client
        .wait_for(|c| {
            c.server_requests
                .iter()
                .any(|(m, _)| m == "client/registerCapability")
        })
        .await;
    let (_, params) = &client.server_requests[0];
    let registration = &params["registrations"][0];
    assert_eq!(registration["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(
        registration["registerOptions"]["watchers"][0]["globPattern"],
        "**/*.mesh"
    );
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_folder_joins_the_workspace() {
    let mut client = TestClient::start(&files(&[("a.mesh", FINE)]), false).await;
    let other = tempfile::tempdir().unwrap();
    let other_root = other.path().canonicalize().unwrap();
    std::fs::write(other_root.join("c.mesh"), BROKEN).unwrap();
    let folder = client.uri_of(&other_root);
    client
        .notify(
            "workspace/didChangeWorkspaceFolders",
            json!({"event": {"added": [{"uri": folder, "name": "other"}], "removed": []}}),
        )
        .await;
    let c = client.uri_of(&other_root.join("c.mesh"));
    assert_eq!(client.diagnostics[&c].len(), 1);
    client
        .notify(
            "workspace/didChangeWorkspaceFolders",
            json!({"event": {"added": [], "removed": [{"uri": folder, "name": "other"}]}}),
        )
        .await;
    assert!(client.diagnostics[&c].is_empty());
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_edits_never_publish_an_older_version_after_a_newer_one() {
    let mut client = TestClient::start(&files(&[("a.mesh", FINE)]), false).await;
    client.open("a.mesh", FINE, 1).await;
    let uri = client.uri("a.mesh");
    let mut handles = Vec::new();
    for version in 2..=40 {
        let text = if version % 2 == 0 { BROKEN } else { FINE };
        let params = json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]});
        handles.push(
            client
                .notify_detached("textDocument/didChange", params)
                .await,
        );
    }
    client.drive(futures::future::join_all(handles)).await;
    let versions: Vec<i64> = client
        .published
        .iter()
        .filter(|p| p.uri == uri)
        .filter_map(|p| p.version)
        .collect();
    assert!(
        versions.windows(2).all(|w| w[0] <= w[1]),
        "versions went back: {versions:?}"
    );
    // The last edit (version 40, the broken text) is what the client sees.
    assert_eq!(versions.last(), Some(&40));
    assert_eq!(client.diagnostics_of("a.mesh").len(), 1);
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standard_library_copy_inside_a_folder_is_not_a_workspace_file() {
    let mut client =
        TestClient::start_with_std_dir(&files(&[("a.mesh", FINE)]), false, Some("cache")).await;
    let uri = client.uri("a.mesh");
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 24}});
    let def = client.request("textDocument/definition", at).await.unwrap();
    let std_uri = def[0]["uri"].as_str().unwrap().to_string();
    assert!(std_uri.starts_with(&client.uri("cache/std-")), "{std_uri}");
    // Found on disk under the folder, the copy is still only the standard library: no
    // contract is defined twice.
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": std_uri, "type": 1}]}),
        )
        .await;
    assert!(
        client.diagnostics.values().all(|d| d.is_empty()),
        "{:?}",
        client.diagnostics
    );
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_older_than_the_document_is_ignored() {
    let mut client = TestClient::start(&files(&[("a.mesh", FINE)]), false).await;
    client.open("a.mesh", FINE, 5).await;
    client.change("a.mesh", BROKEN, 3).await;
    assert!(client.diagnostics_of("a.mesh").is_empty());
    client.shutdown().await;
}

fn send(stdin: &mut impl Write, v: &Value) {
    let s = v.to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{s}", s.len()).unwrap();
    stdin.flush().unwrap();
}

fn recv(out: &mut impl BufRead) -> Value {
    let mut len = 0;
    loop {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.trim().parse().unwrap();
        }
    }
    let mut buf = vec![0; len];
    out.read_exact(&mut buf).unwrap();
    serde_json::from_slice(&buf).unwrap()
}

/// The binary speaks the protocol on stdio: it answers, survives garbage, and exits.
#[test]
fn the_binary_serves_stdio() {
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshc-lsp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "capabilities": {},
            "initializationOptions": {"stdlibCacheDir": cache.path().to_string_lossy()}
        }}),
    );
    let init = recv(&mut out);
    assert_eq!(init["result"]["serverInfo"]["name"], "meshc-lsp");
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    let uri = "untitled:x";
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "mesh", "version": 1, "text": "\u{0}\u{1} module {{{{ ${"
        }}}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": uri}, "position": {"line": 4_000_000, "character": 9}
        }}),
    );
    // Skip notifications until the hover's answer.
    loop {
        let m = recv(&mut out);
        if m["id"] == 2 {
            assert!(m.get("result").is_some() || m.get("error").is_some());
            break;
        }
    }
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}),
    );
    loop {
        if recv(&mut out)["id"] == 3 {
            break;
        }
    }
    send(&mut stdin, &json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unused_and_old_forms_are_tagged_by_their_codes() {
    // W0001 (a requirement never read) is unnecessary code; W0402 (an old placeholder)
    // is deprecated; W0002 (an image without a tag) is neither.
    let text = "module a {\n  requires workers: operator int = 4\n  requires title: operator string = \"Welcome\"\n  container a {\n    image \"nginx\"\n    env { TITLE = \"${setting:title}\" }\n  }\n}\n";
    let client = TestClient::start(&files(&[("a.mesh", text)]), false).await;
    let uri = client.uri("a.mesh");
    let list = client.diagnostics[&uri].as_slice();
    let tags_of = |code: &str| -> Value {
        list.iter()
            .find(|d| d["code"] == code)
            .unwrap_or_else(|| panic!("no {code} in {list:?}"))["tags"]
            .clone()
    };
    assert_eq!(tags_of("W0001"), json!([1]));
    assert_eq!(tags_of("W0402"), json!([2]));
    assert_eq!(tags_of("W0002"), Value::Null);
    client.shutdown().await;
}

const MESH_WITH_HELLO: &str =
    "mesh lab {\n  node beta { private_name = \"beta.lab.internal\" }\n  assign hello to beta\n}\n";
const HELLO: &str = "module hello {\n  container hello {\n    image \"nginx:1.27\"\n  }\n}\n";

/// Whether the mesh's diagnostics say `hello` is an unknown module.
fn says_unknown_hello(client: &TestClient) -> bool {
    client
        .diagnostics_of("lab.mesh")
        .iter()
        .any(|d| d.contains("E0106") && d.contains("unknown module `hello`"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_file_watcher_files_made_outside_the_editor_are_noticed_on_save() {
    // The test client announces no `didChangeWatchedFiles` dynamic registration.
    let mut client = TestClient::start(&files(&[("lab.mesh", MESH_WITH_HELLO)]), false).await;
    assert!(
        client
            .server_requests
            .iter()
            .all(|(m, _)| m != "client/registerCapability")
    );
    client.open("lab.mesh", MESH_WITH_HELLO, 1).await;
    assert!(
        says_unknown_hello(&client),
        "{:?}",
        client.diagnostics_of("lab.mesh")
    );

    // Made on disk, behind the server's back: nothing is noticed until a save or open.
    std::fs::create_dir_all(client.root.join("mods")).unwrap();
    std::fs::write(client.root.join("mods/hello.mesh"), HELLO).unwrap();
    let uri = client.uri("lab.mesh");
    let save = json!({"textDocument": {"uri": uri}});
    client.notify("textDocument/didSave", save.clone()).await;
    assert!(
        !says_unknown_hello(&client),
        "{:?}",
        client.diagnostics_of("lab.mesh")
    );
    assert!(
        client.diagnostics_of("lab.mesh").is_empty(),
        "{:?}",
        client.diagnostics_of("lab.mesh")
    );

    // Deleted behind its back: the next save notices, and the mesh's error comes back.
    std::fs::remove_file(client.root.join("mods/hello.mesh")).unwrap();
    client.notify("textDocument/didSave", save).await;
    assert!(
        says_unknown_hello(&client),
        "{:?}",
        client.diagnostics_of("lab.mesh")
    );
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_file_watcher_files_made_outside_the_editor_are_noticed_on_open() {
    let mut client = TestClient::start(&files(&[("lab.mesh", MESH_WITH_HELLO)]), false).await;
    assert!(says_unknown_hello(&client));
    std::fs::write(client.root.join("hello.mesh"), HELLO).unwrap();
    client.open("lab.mesh", MESH_WITH_HELLO, 1).await;
    assert!(
        !says_unknown_hello(&client),
        "{:?}",
        client.diagnostics_of("lab.mesh")
    );
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_file_watcher_the_server_leaves_it_to_the_client() {
    let mut caps = support::capabilities(false);
    caps["workspace"]["didChangeWatchedFiles"] = json!({"dynamicRegistration": true});
    let mut client =
        TestClient::start_with(&files(&[("lab.mesh", MESH_WITH_HELLO)]), caps, false, None).await;
    std::fs::write(client.root.join("hello.mesh"), HELLO).unwrap();
    let uri = client.uri("lab.mesh");
    client
        .notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    // The client's watcher would report the file; the server does not walk for it.
    assert!(
        says_unknown_hello(&client),
        "{:?}",
        client.diagnostics_of("lab.mesh")
    );
    client.shutdown().await;
}
