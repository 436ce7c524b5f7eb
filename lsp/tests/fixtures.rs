//! Fixture tests: one directory per feature under `tests/fixtures/`, one case per `.mesh`
//! file (or per directory of files). A case's header comments say what to ask
//! (`// request: hover`) and what to expect (`// expect: …` lines, or the `.expected` file
//! beside it, written with `UPDATE_EXPECT=1`). `$0` marks the cursor. A file `X.mesh.edited`
//! beside `X.mesh` is the text `X.mesh` is changed to before asking. `SHOW_ANSWERS=1`
//! prints every answer.
//!
//! Every case runs through the real server over JSON-RPC, in-process.

mod support;

use meshc_lsp::analysis::tokens::{TOKEN_MODIFIERS, TOKEN_TYPES};
use serde_json::{Value, json};
use support::{Case, TestClient, cases, position, range};

/// Runs a case and renders the server's answer as text.
async fn run(case: &Case) -> String {
    let utf8 = case.get("encoding") == Some("utf-8");
    let mut client = TestClient::start(&case.files, utf8).await;
    let (cursor_file, offset) = case
        .cursor
        .clone()
        .unwrap_or_else(|| (case.files[0].0.clone(), 0));
    let text = case
        .files
        .iter()
        .find(|(f, _)| *f == cursor_file)
        .map(|(_, t)| t.clone())
        .expect("the cursor's file");
    client.open(&cursor_file, &text, 1).await;
    for (file, edited) in &case.edits {
        if *file != cursor_file {
            let original = case
                .files
                .iter()
                .find(|(f, _)| f == file)
                .map(|(_, t)| t.clone())
                .expect("an edited file of the case");
            client.open(file, &original, 1).await;
        }
        client.change(file, edited, 2).await;
    }
    let uri = client.uri(&cursor_file);
    let pos = match case.get("position") {
        // A position the case names outright (one past any end, for robustness).
        Some(p) => {
            let (l, c) = p.split_once(':').expect("`position: LINE:COLUMN`");
            json!({"line": l.parse::<u64>().unwrap(), "character": c.parse::<u64>().unwrap()})
        }
        None => position(&text, offset, utf8),
    };
    let at = json!({"textDocument": {"uri": uri}, "position": pos});
    let request = case.get("request").expect("a `// request:` directive");
    let (kind, arg) = request.split_once(' ').unwrap_or((request, ""));
    let out = match kind {
        "diagnostics" => {
            let mut files: Vec<&String> = case.files.iter().map(|(f, _)| f).collect();
            files.sort();
            let mut out = String::new();
            for f in files {
                out.push_str(&format!("{f}:\n"));
                for d in client.diagnostics_of(f) {
                    out.push_str(&format!("  {d}\n"));
                }
            }
            out
        }
        "hover" => match client.request("textDocument/hover", at).await {
            Ok(Value::Null) => "no hover".into(),
            Ok(h) => format!(
                "{}\n{}",
                range(&h["range"]),
                h["contents"]["value"].as_str().unwrap_or_default()
            ),
            Err(e) => format!("error: {e}"),
        },
        "definition" | "references" | "highlight" => {
            let (method, params) = match kind {
                "definition" => ("textDocument/definition", at),
                "references" => {
                    let mut p = at;
                    p["context"] = json!({"includeDeclaration": true});
                    ("textDocument/references", p)
                }
                _ => ("textDocument/documentHighlight", at),
            };
            match client.request(method, params).await {
                Ok(Value::Array(list)) => {
                    let mut lines: Vec<String> = list
                        .iter()
                        .map(|l| {
                            if l.get("uri").is_some() {
                                client.render_location(l)
                            } else {
                                format!("{} kind {}", range(&l["range"]), l["kind"])
                            }
                        })
                        .collect();
                    lines.sort();
                    lines.join("\n")
                }
                Ok(Value::Null) => "nothing".into(),
                other => format!("{other:?}"),
            }
        }
        "completion" => match client.request("textDocument/completion", at).await {
            Ok(Value::Array(items)) => {
                let mut lines: Vec<String> = items
                    .iter()
                    .map(|i| {
                        // An item that asks for its own place in the list shows it.
                        let sort = i["sortText"]
                            .as_str()
                            .map(|s| format!("[sort {s}] "))
                            .unwrap_or_default();
                        format!(
                            "{} ({}) {sort}{}",
                            i["label"].as_str().unwrap_or_default(),
                            i["kind"],
                            i["detail"].as_str().unwrap_or_default()
                        )
                        .trim_end()
                        .to_string()
                    })
                    .collect();
                lines.sort();
                lines.join("\n")
            }
            other => format!("{other:?}"),
        },
        "rename" => {
            let prepared = client
                .request("textDocument/prepareRename", at.clone())
                .await;
            let mut out = match prepared {
                Ok(p) => format!(
                    "prepare: {} {:?}\n",
                    range(&p["range"]),
                    p["placeholder"].as_str().unwrap_or_default()
                ),
                Err(e) => format!(
                    "prepare refused: {}\n",
                    e["message"].as_str().unwrap_or("?")
                ),
            };
            let mut p = at;
            p["newName"] = json!(arg);
            match client.request("textDocument/rename", p).await {
                Ok(edit) => out.push_str(&client.render_edit(&edit).join("\n")),
                Err(e) => out.push_str(&format!(
                    "rename refused: {}",
                    e["message"].as_str().unwrap_or("?")
                )),
            }
            out
        }
        "formatting" => {
            let p = json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}});
            match client.request("textDocument/formatting", p).await {
                Ok(Value::Array(edits)) if edits.is_empty() => "no edits".into(),
                Ok(Value::Array(edits)) => apply(&text, &edits, utf8),
                Ok(Value::Null) => "no edits".into(),
                Err(e) => format!(
                    "refused ({}): {}",
                    e["code"],
                    e["message"].as_str().unwrap_or("?")
                ),
                other => format!("{other:?}"),
            }
        }
        "code_action" => {
            let p = json!({
                "textDocument": {"uri": uri},
                "range": {"start": pos, "end": pos},
                "context": {"diagnostics": []}
            });
            match client.request("textDocument/codeAction", p).await {
                Ok(Value::Array(actions)) => actions
                    .iter()
                    .map(|a| {
                        let edits = client.render_edit(&a["edit"]).join("\n    ");
                        let diags: Vec<&str> = a["diagnostics"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|d| d["code"].as_str())
                            .collect();
                        format!(
                            "{} [{}] fixes {:?}\n    {edits}",
                            a["title"].as_str().unwrap_or_default(),
                            a["kind"].as_str().unwrap_or_default(),
                            diags
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => format!("{other:?}"),
            }
        }
        "semantic_tokens" => {
            let p = json!({"textDocument": {"uri": uri}});
            match client.request("textDocument/semanticTokens/full", p).await {
                Ok(t) => decode_tokens(&text, &t["data"], utf8),
                Err(e) => format!("error: {e}"),
            }
        }
        "document_symbols" => {
            let p = json!({"textDocument": {"uri": uri}});
            match client.request("textDocument/documentSymbol", p).await {
                Ok(Value::Array(list)) => {
                    let mut out = String::new();
                    render_symbols(&list, 0, &mut out);
                    out
                }
                other => format!("{other:?}"),
            }
        }
        "workspace_symbols" => {
            match client
                .request("workspace/symbol", json!({"query": arg}))
                .await
            {
                Ok(Value::Array(list)) => {
                    let mut lines: Vec<String> = list
                        .iter()
                        .map(|s| {
                            format!(
                                "{} (kind {}) in {} at {}",
                                s["name"].as_str().unwrap_or_default(),
                                s["kind"],
                                s["containerName"].as_str().unwrap_or("-"),
                                client.render_location(&s["location"])
                            )
                        })
                        .collect();
                    lines.sort();
                    lines.join("\n")
                }
                other => format!("{other:?}"),
            }
        }
        "inlay_hints" => {
            let p = json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 10000, "character": 0}}});
            match client.request("textDocument/inlayHint", p).await {
                Ok(Value::Array(list)) => list
                    .iter()
                    .map(|h| format!("{} {}", h["position"], h["label"]))
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => format!("{other:?}"),
            }
        }
        "every" => {
            // Every request at the position; each must answer (a result or an error), and
            // the server must still answer afterwards.
            let mut out = String::new();
            let range_here = json!({"start": pos, "end": pos});
            let requests = [
                ("textDocument/hover", at.clone()),
                ("textDocument/definition", at.clone()),
                ("textDocument/references", {
                    let mut p = at.clone();
                    p["context"] = json!({"includeDeclaration": true});
                    p
                }),
                ("textDocument/documentHighlight", at.clone()),
                ("textDocument/completion", at.clone()),
                ("textDocument/prepareRename", at.clone()),
                ("textDocument/rename", {
                    let mut p = at.clone();
                    p["newName"] = json!("renamed");
                    p
                }),
                (
                    "textDocument/codeAction",
                    json!({"textDocument": {"uri": uri}, "range": range_here, "context": {"diagnostics": []}}),
                ),
                (
                    "textDocument/inlayHint",
                    json!({"textDocument": {"uri": uri}, "range": range_here}),
                ),
                (
                    "textDocument/semanticTokens/full",
                    json!({"textDocument": {"uri": uri}}),
                ),
                (
                    "textDocument/documentSymbol",
                    json!({"textDocument": {"uri": uri}}),
                ),
                (
                    "textDocument/formatting",
                    json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}}),
                ),
                ("workspace/symbol", json!({"query": ""})),
            ];
            for (method, params) in requests {
                let answer = match client.request(method, params).await {
                    Ok(_) => "answered".to_string(),
                    Err(e) => format!("error {}", e["code"]),
                };
                out.push_str(&format!("{method}: {answer}\n"));
            }
            let alive = client
                .request("workspace/symbol", json!({"query": ""}))
                .await
                .is_ok();
            out.push_str(&format!("still serving: {alive}\n"));
            out
        }
        other => panic!("{}: unknown request {other:?}", case.name),
    };
    client.shutdown().await;
    out
}

/// The text after applying `edits` (protocol ranges) to `text`.
fn apply(text: &str, edits: &[Value], utf8: bool) -> String {
    let offset_of = |p: &Value| -> usize {
        let line = p["line"].as_u64().unwrap() as usize;
        let col = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let line_text = text[start..].split('\n').next().unwrap_or("");
        if utf8 {
            return start + col.min(line_text.len());
        }
        let mut units = 0;
        for (i, c) in line_text.char_indices() {
            if units >= col {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line_text.len()
    };
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset_of(&e["range"]["start"]),
                offset_of(&e["range"]["end"]),
                e["newText"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (a, b, t) in spans {
        out.replace_range(a..b, &t);
    }
    out
}

/// Semantic tokens, decoded: one line per token with its text.
fn decode_tokens(text: &str, data: &Value, utf8: bool) -> String {
    let data: Vec<u64> = data
        .as_array()
        .expect("token data")
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let lines: Vec<&str> = text.split('\n').collect();
    let (mut line, mut col) = (0usize, 0usize);
    let mut out = String::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            line += t[0] as usize;
            col = t[1] as usize;
        } else {
            col += t[1] as usize;
        }
        let l = lines[line];
        let slice: String = if utf8 {
            l.get(col..col + t[2] as usize).unwrap_or("?").to_string()
        } else {
            let units: Vec<u16> = l.encode_utf16().collect();
            String::from_utf16_lossy(&units[col..(col + t[2] as usize).min(units.len())])
        };
        let ty = TOKEN_TYPES[t[3] as usize].as_str();
        let mods: Vec<&str> = TOKEN_MODIFIERS
            .iter()
            .enumerate()
            .filter(|(i, _)| t[4] & (1 << i) != 0)
            .map(|(_, m)| m.as_str())
            .collect();
        out.push_str(&format!(
            "{line}:{col} {ty}{} {slice:?}\n",
            if mods.is_empty() {
                String::new()
            } else {
                format!(" [{}]", mods.join(","))
            }
        ));
    }
    out
}

fn render_symbols(list: &[Value], depth: usize, out: &mut String) {
    for s in list {
        out.push_str(&format!(
            "{}{} (kind {}) {} sel {}{}\n",
            "  ".repeat(depth),
            s["name"].as_str().unwrap_or_default(),
            s["kind"],
            range(&s["range"]),
            range(&s["selectionRange"]),
            s["detail"]
                .as_str()
                .map(|d| format!(" — {d}"))
                .unwrap_or_default()
        ));
        if let Some(children) = s["children"].as_array() {
            render_symbols(children, depth + 1, out);
        }
    }
}

async fn feature(name: &str) {
    for case in cases(name) {
        let actual = run(&case).await;
        case.check(&actual);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics() {
    feature("diagnostics").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover() {
    feature("hover").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition() {
    feature("definition").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn references() {
    feature("references").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion() {
    feature("completion").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename() {
    feature("rename").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn formatting() {
    feature("formatting").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_actions() {
    feature("code_actions").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semantic_tokens() {
    feature("semantic_tokens").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symbols() {
    feature("symbols").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inlay_hints() {
    feature("inlay_hints").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utf16() {
    feature("utf16").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robustness() {
    feature("robustness").await;
}
