//! Secrets stay secret in the editor too: with the workspace of
//! `compiler/tests/secrets/` (marker literals written everywhere a secret can be written
//! wrongly), and with random workspaces of the compiler's secrets oracle
//! (`compiler/tests/secret_programs/`), no published diagnostic, no hover anywhere in the
//! files, no document or workspace symbol, inlay hint, completion or code action holds a
//! marker.

mod support;

#[path = "../../compiler/tests/secret_programs/mod.rs"]
mod secret_programs;

use serde_json::json;
use support::TestClient;

const FILES: [(&str, &str); 3] = [
    (
        "defs.mesh",
        include_str!("../../compiler/tests/secrets/defs.mesh"),
    ),
    (
        "lab.mesh",
        include_str!("../../compiler/tests/secrets/lab.mesh"),
    ),
    (
        "wrong_lines.mesh",
        include_str!("../../compiler/tests/secrets/wrong_lines.mesh"),
    ),
];

/// Asserts `answer` (any response) holds no `marker`.
fn assert_clean(marker: &str, what: &str, answer: &serde_json::Value) {
    let shown = answer.to_string();
    assert!(!shown.contains(marker), "{what} shows a secret: {shown}");
}

/// What the sweep saw, for the caller to check it meant something.
struct Seen {
    published: usize,
    hovers: usize,
    symbols: usize,
}

/// Opens `files` in a server and asks everything a client asks, asserting no answer
/// holds `marker`.
async fn sweep(files: &[(String, String)], marker: &str) -> Seen {
    let mut client = TestClient::start(files, false).await;
    for (rel, text) in files {
        client.open(rel, text, 1).await;
    }
    client
        .wait_for(|c| {
            files
                .iter()
                .all(|(rel, _)| c.diagnostics.contains_key(&c.uri(rel)))
        })
        .await;
    let mut seen = Seen {
        published: 0,
        hovers: 0,
        symbols: 0,
    };
    for (uri, list) in &client.diagnostics {
        for d in list {
            seen.published += 1;
            assert_clean(marker, &format!("{uri}: a diagnostic"), d);
        }
    }
    for (rel, text) in files {
        let uri = client.uri(rel);
        let doc = json!({"uri": uri});
        // A hover at the start of every word.
        let starts: Vec<usize> = text
            .char_indices()
            .filter(|&(i, c)| {
                (c.is_ascii_alphanumeric() || c == '_')
                    && text[..i]
                        .chars()
                        .next_back()
                        .is_none_or(|p| !(p.is_ascii_alphanumeric() || p == '_' || p == '-'))
            })
            .map(|(i, _)| i)
            .collect();
        for offset in starts {
            let answer = client
                .request(
                    "textDocument/hover",
                    json!({"textDocument": doc, "position": support::position(text, offset, false)}),
                )
                .await
                .unwrap_or_default();
            if !answer.is_null() {
                seen.hovers += 1;
            }
            assert_clean(
                marker,
                &format!("{rel} at byte {offset}: the hover"),
                &answer,
            );
        }
        let lines = text.lines().count() as u32 + 1;
        let whole =
            json!({"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}});
        let answer = client
            .request("textDocument/documentSymbol", json!({"textDocument": doc}))
            .await
            .unwrap_or_default();
        seen.symbols += answer.as_array().map_or(0, Vec::len);
        assert_clean(marker, &format!("{rel}: the outline"), &answer);
        let answer = client
            .request(
                "textDocument/inlayHint",
                json!({"textDocument": doc, "range": whole}),
            )
            .await
            .unwrap_or_default();
        assert_clean(marker, &format!("{rel}: the inlay hints"), &answer);
        let answer = client
            .request(
                "textDocument/codeAction",
                json!({"textDocument": doc, "range": whole, "context": {"diagnostics": []}}),
            )
            .await
            .unwrap_or_default();
        assert_clean(marker, &format!("{rel}: the code actions"), &answer);
        for (line, l) in text.lines().enumerate() {
            let answer = client
                .request(
                    "textDocument/completion",
                    json!({"textDocument": doc, "position": {"line": line, "character": l.len()}}),
                )
                .await
                .unwrap_or_default();
            assert_clean(marker, &format!("{rel}:{line}: completion"), &answer);
        }
    }
    let answer = client
        .request("workspace/symbol", json!({"query": ""}))
        .await
        .unwrap_or_default();
    assert_clean(marker, "the workspace symbols", &answer);
    client.shutdown().await;
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_answer_holds_a_secret() {
    let files: Vec<(String, String)> = FILES
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let seen = sweep(&files, "S3CR3T").await;
    assert!(
        seen.published > 10,
        "only {} diagnostics published",
        seen.published
    );
    assert!(seen.hovers > 10, "only {} hovers answered", seen.hovers);
    assert!(seen.symbols >= 6, "only {} top-level symbols", seen.symbols);
}

/// The compiler's secrets oracle through the server: random workspaces declaring secrets
/// with markers, damaged. `MESHC_SECRET_SEEDS=N` runs N workspaces (12 by default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_workspaces_show_no_secret() {
    let n: u64 = std::env::var("MESHC_SECRET_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let mut published = 0;
    for seed in 0..n {
        let (files, _) = secret_programs::secret_workspace(seed.wrapping_mul(7919) + 1);
        published += sweep(&files, secret_programs::MARKER).await.published;
    }
    assert!(
        published > n as usize,
        "only {published} diagnostics published"
    );
}
