//! Every request at many places of every catalogue file answers without an internal error:
//! the server's features meet real definitions and meshes, not only fixtures.

mod support;

use serde_json::json;
use std::path::Path;
use support::{TestClient, position};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_across_the_catalogue_never_fail_inside() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalogue");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the catalogue") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "mesh") {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            files.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    files.sort();
    assert!(!files.is_empty());
    let mut client = TestClient::start(&files, false).await;
    // The catalogue checks clean, so the server publishes nothing but empty lists.
    for (name, _) in &files {
        assert!(
            client.diagnostics_of(name).is_empty(),
            "{name}: {:?}",
            client.diagnostics_of(name)
        );
    }
    let mut asked = 0;
    for (name, text) in &files {
        let uri = client.uri(name);
        for method in [
            "textDocument/semanticTokens/full",
            "textDocument/documentSymbol",
        ] {
            let answer = client
                .request(method, json!({"textDocument": {"uri": uri}}))
                .await;
            assert!(answer.is_ok(), "{name}: {method}: {answer:?}");
        }
        // Every eleventh byte that starts a character.
        for offset in (0..text.len())
            .step_by(11)
            .filter(|o| text.is_char_boundary(*o))
        {
            let at =
                json!({"textDocument": {"uri": uri}, "position": position(text, offset, false)});
            for method in [
                "textDocument/hover",
                "textDocument/definition",
                "textDocument/completion",
                "textDocument/prepareRename",
            ] {
                let answer = client.request(method, at.clone()).await;
                if let Err(e) = &answer {
                    assert_ne!(e["code"], -32603, "{name} at byte {offset}: {method}: {e}");
                }
                asked += 1;
            }
        }
    }
    assert!(asked > 1000, "{asked} requests");
    client.shutdown().await;
}
