//! Quick fixes end to end, over JSON-RPC: code actions are asked with the cursor on the
//! diagnostic's line but outside its span (where editors ask), the chosen action's edit is
//! applied to the document as a client would, and the server's next diagnostics no longer
//! hold the one it fixed.

mod support;

use serde_json::{Value, json};
use support::TestClient;

/// Byte offset of a protocol position (UTF-16 columns) in `text`.
fn offset(text: &str, pos: &Value) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let character = pos["character"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// Applies the text edits of `edit` for `uri` to `text`, last first.
fn apply(text: &str, edit: &Value, uri: &str) -> String {
    let mut edits: Vec<(usize, usize, String)> = edit["changes"][uri]
        .as_array()
        .expect("edits of this document")
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"]),
                offset(text, &e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (s, e, new) in edits {
        out.replace_range(s..e, &new);
    }
    out
}

/// The codes of the document's latest diagnostics (the Hint copies of help lines aside).
fn codes(client: &TestClient, rel: &str) -> Vec<String> {
    client.diagnostics[&client.uri(rel)]
        .iter()
        .filter(|d| d["severity"] != 4)
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Opens `text` as `rel`, checks that `code` is reported on the line holding `line_has`,
/// asks for code actions at column 0 of that line (outside the diagnostic's span), applies
/// the action whose title starts with `title`, and returns the new text and the codes the
/// server reports for it.
async fn fix(text: &str, line_has: &str, code: &str, title: &str) -> (String, Vec<String>) {
    let rel = "fix.mesh";
    let mut client = TestClient::start(&[(rel.to_string(), text.to_string())], false).await;
    client.open(rel, text, 1).await;
    let uri = client.uri(rel);
    let line = text[..text.find(line_has).expect("the line")]
        .matches('\n')
        .count();
    let diag = client.diagnostics[&uri]
        .iter()
        .find(|d| d["code"] == code && d["severity"] != 4)
        .unwrap_or_else(|| panic!("no {code} in {:?}", client.diagnostics_of(rel)))
        .clone();
    assert_eq!(diag["range"]["start"]["line"], line, "{diag}");
    assert!(
        diag["range"]["start"]["character"].as_u64().unwrap() > 0,
        "column 0 must lie outside the span: {diag}"
    );
    let at = json!({"line": line, "character": 0});
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": at, "end": at},
                   "context": {"diagnostics": []}}),
        )
        .await
        .expect("code actions");
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["title"].as_str())
        .collect();
    let action = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with(title))
        .unwrap_or_else(|| panic!("no action {title:?} among {titles:?}"))
        .clone();
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"][0]["code"], code, "{action}");
    let fixed = apply(text, &action["edit"], &uri);
    client.change(rel, &fixed, 2).await;
    let after = codes(&client, rel);
    client.shutdown().await;
    (fixed, after)
}

const SECRET_IN_ENV: &str = "module app {
  requires db: module postgres
  container app {
    image \"registry.lan/app:1.0\"
    user 1000
    env {
      HOST = db.host
      PASSWORD = db.password
    }
  }
}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e0302_moves_the_secret_into_a_secret_file() {
    let (fixed, after) = fix(
        SECRET_IN_ENV,
        "PASSWORD =",
        "E0302",
        "Deliver `db.password`",
    )
    .await;
    assert!(!after.contains(&"E0302".to_string()), "{after:?}\n{fixed}");
    assert!(after.is_empty(), "{after:?}\n{fixed}");
    assert!(
        fixed.contains("    secret \"/run/secrets/db_password\" = db.password\n"),
        "{fixed}"
    );
    assert!(!fixed.contains("PASSWORD"), "{fixed}");
    // The edit is in the formatter's layout: formatting the result changes nothing.
    assert_eq!(
        meshc::fmt::format(&"fix.mesh".into(), &fixed).unwrap(),
        fixed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e0302_of_the_only_env_entry_replaces_the_env_block() {
    let text = SECRET_IN_ENV.replace("      HOST = db.host\n", "");
    let (fixed, after) = fix(&text, "PASSWORD =", "E0302", "Deliver `db.password`").await;
    assert!(after.is_empty(), "{after:?}\n{fixed}");
    assert!(!fixed.contains("env"), "{fixed}");
    assert_eq!(
        meshc::fmt::format(&"fix.mesh".into(), &fixed).unwrap(),
        fixed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e0302_marks_the_entry_exposed() {
    let (fixed, after) = fix(
        SECRET_IN_ENV,
        "PASSWORD =",
        "E0302",
        "Mark `PASSWORD` exposed",
    )
    .await;
    assert!(!after.contains(&"E0302".to_string()), "{after:?}\n{fixed}");
    assert!(after.is_empty(), "{after:?}\n{fixed}");
    assert!(
        fixed.contains("PASSWORD = db.password exposed \""),
        "{fixed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e0512_takes_the_secret_operator_value_out_of_the_mesh() {
    let text = "module keeper {
  requires api: host port { container = 8200 }
  container keeper {
    image \"hashicorp/vault:1.17.6\"
    publish api
  }
  provides secret {}
}

module app {
  requires api_key: operator secret string
  container app {
    image \"nginx:1.27\"
    user 1000
    secret \"/run/secrets/api_key\" = api_key
  }
}

mesh lab {
  node alpha { private_name = \"alpha.lab.internal\" }
  seat vault = keeper on alpha
  assign keeper to alpha
  assign app to alpha { api_key = \"placeholder-key-1234\" }
}
";
    let (fixed, after) = fix(text, "assign app", "E0512", "Remove `api_key`").await;
    assert!(!after.contains(&"E0512".to_string()), "{after:?}\n{fixed}");
    assert!(fixed.contains("  assign app to alpha\n}"), "{fixed}");
    assert!(!fixed.contains("placeholder-key"), "{fixed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn did_you_mean_replaces_the_name() {
    let text = SECRET_IN_ENV.replace("HOST = db.host", "HOST = db.hots");
    let (fixed, after) = fix(
        &text,
        "HOST = db.hots",
        "E0105",
        "Replace `hots` with `host`",
    )
    .await;
    assert!(!after.contains(&"E0105".to_string()), "{after:?}\n{fixed}");
    assert!(fixed.contains("HOST = db.host\n"), "{fixed}");
}
