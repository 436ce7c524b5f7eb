//! Secrets stay secret in the editor too: with the workspace of
//! `compiler/tests/secrets/` (marker literals written everywhere a secret can be written
//! wrongly), no published diagnostic, no hover anywhere in its files, no document or
//! workspace symbol, inlay hint, completion or code action holds a marker.

mod support;

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

/// Asserts `answer` (any response) holds no marker.
fn assert_clean(what: &str, answer: &serde_json::Value) {
    let shown = answer.to_string();
    assert!(!shown.contains(MARKER), "{what} shows a secret: {shown}");
}

const MARKER: &str = "S3CR3T";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics_and_hovers_hold_no_secret() {
    let files: Vec<(String, String)> = FILES
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let mut client = TestClient::start(&files, false).await;
    for (rel, text) in FILES {
        client.open(rel, text, 1).await;
    }
    client
        .wait_for(|c| {
            FILES
                .iter()
                .all(|(rel, _)| !c.diagnostics_of(rel).is_empty())
        })
        .await;
    let mut published = 0;
    for (uri, list) in &client.diagnostics {
        for d in list {
            published += 1;
            let text = d.to_string();
            assert!(
                !text.contains(MARKER),
                "{uri}: a diagnostic holds a secret: {text}"
            );
        }
    }
    assert!(published > 10, "only {published} diagnostics published");
    // A hover at the start of every word of both files.
    let mut hovers = 0;
    for (rel, text) in FILES {
        let uri = client.uri(rel);
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
                    json!({"textDocument": {"uri": uri}, "position": support::position(text, offset, false)}),
                )
                .await
                .unwrap_or_default();
            if !answer.is_null() {
                hovers += 1;
            }
            let shown = answer.to_string();
            assert!(
                !shown.contains(MARKER),
                "{rel} at byte {offset}: the hover shows a secret: {shown}"
            );
        }
    }
    assert!(hovers > 10, "only {hovers} hovers answered");
    // Every other answer that quotes the source.
    let mut symbols = 0;
    for (rel, text) in FILES {
        let uri = client.uri(rel);
        let doc = json!({"uri": uri});
        let lines = text.lines().count() as u32 + 1;
        let whole =
            json!({"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}});
        let answer = client
            .request("textDocument/documentSymbol", json!({"textDocument": doc}))
            .await
            .unwrap_or_default();
        symbols += answer.as_array().map_or(0, Vec::len);
        assert_clean(&format!("{rel}: the outline"), &answer);
        let answer = client
            .request(
                "textDocument/inlayHint",
                json!({"textDocument": doc, "range": whole}),
            )
            .await
            .unwrap_or_default();
        assert_clean(&format!("{rel}: the inlay hints"), &answer);
        let answer = client
            .request(
                "textDocument/codeAction",
                json!({"textDocument": doc, "range": whole, "context": {"diagnostics": []}}),
            )
            .await
            .unwrap_or_default();
        assert_clean(&format!("{rel}: the code actions"), &answer);
        for (line, l) in text.lines().enumerate() {
            let answer = client
                .request(
                    "textDocument/completion",
                    json!({"textDocument": doc, "position": {"line": line, "character": l.len()}}),
                )
                .await
                .unwrap_or_default();
            assert_clean(&format!("{rel}:{line}: completion"), &answer);
        }
    }
    assert!(symbols >= 6, "only {symbols} top-level symbols");
    let answer = client
        .request("workspace/symbol", json!({"query": ""}))
        .await
        .unwrap_or_default();
    assert_clean("the workspace symbols", &answer);
    client.shutdown().await;
}
