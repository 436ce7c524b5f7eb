//! Secrets stay secret in the editor too: with the workspace of
//! `compiler/tests/secrets/` (marker literals written everywhere a secret can be written
//! wrongly), no published diagnostic and no hover anywhere in its files holds a marker.

mod support;

use serde_json::json;
use support::TestClient;

const FILES: [(&str, &str); 2] = [
    (
        "defs.mesh",
        include_str!("../../compiler/tests/secrets/defs.mesh"),
    ),
    (
        "lab.mesh",
        include_str!("../../compiler/tests/secrets/lab.mesh"),
    ),
];

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
    client.shutdown().await;
}
