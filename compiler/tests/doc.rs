//! `meshc doc` on the catalogue: a page per module and contract in HTML and Markdown,
//! every link leading to a page that exists, and for each contract the modules that
//! provide it and those that require it, as the definitions say.

use std::collections::BTreeSet;
use std::path::PathBuf;

#[path = "support/command.rs"]
mod command;
use command::{meshc, repo_root};

/// `(keyword, name)` of every item the catalogue's files declare, read from the text.
fn declared(keyword: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(repo_root().join("catalogue")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix(&format!("{keyword} ")) {
                out.insert(rest.split_whitespace().next().unwrap().to_string());
            }
        }
    }
    out
}

fn links(page: &str, open: &str, close: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(i) = rest.find(open) {
        rest = &rest[i + open.len()..];
        out.push(rest[..rest.find(close).unwrap()].to_string());
    }
    out
}

#[test]
fn the_catalogue_has_a_page_per_item_and_every_link_leads_somewhere() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("reference");
    let run = meshc(
        &repo_root(),
        &["doc", "catalogue", "--out", dir.to_str().unwrap()],
    );
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let modules = declared("module");
    assert!(modules.len() > 20);
    let mut contracts = declared("contract");
    let std = std::fs::read_to_string(repo_root().join("stdlib-contracts/std.mesh")).unwrap();
    for line in std.lines() {
        if let Some(rest) = line.strip_prefix("contract ") {
            contracts.insert(rest.split_whitespace().next().unwrap().to_string());
        }
    }
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for m in &modules {
        for ext in ["html", "md"] {
            assert!(
                dir.join(format!("module.{m}.{ext}")).is_file(),
                "no page for module {m}"
            );
        }
        assert!(
            index.contains(&format!("href=\"module.{m}.html\"")),
            "index lacks {m}"
        );
    }
    for c in &contracts {
        for ext in ["html", "md"] {
            assert!(
                dir.join(format!("contract.{c}.{ext}")).is_file(),
                "no page for contract {c}"
            );
        }
    }
    let pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(pages.len(), 2 * (1 + modules.len() + contracts.len()));
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let targets = if page.extension().unwrap() == "html" {
            assert!(text.starts_with("<!doctype html>"));
            links(&text, "href=\"", '"')
        } else {
            links(&text, "](", ')')
        };
        for t in targets {
            assert!(
                dir.join(&t).is_file(),
                "{}: `{t}` leads nowhere",
                page.display()
            );
        }
    }
    // Providers and consumers, as the definitions say.
    let postgres = std::fs::read_to_string(dir.join("contract.postgres.md")).unwrap();
    let provided_by = postgres
        .split("## Provided by")
        .nth(1)
        .unwrap()
        .split("## Required by")
        .next()
        .unwrap();
    let mut providers = BTreeSet::new();
    for e in std::fs::read_dir(repo_root().join("catalogue")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        if text.contains("provides postgres {") {
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("module "))
                .unwrap();
            providers.insert(name.split_whitespace().next().unwrap().to_string());
        }
    }
    assert!(providers.len() >= 2);
    for p in &providers {
        assert!(
            provided_by.contains(&format!("[{p}](module.{p}.md)")),
            "{postgres}"
        );
    }
    assert!(
        postgres.contains("- [forgejo](module.forgejo.md) (`db`)"),
        "{postgres}"
    );
    let route = std::fs::read_to_string(dir.join("contract.route.md")).unwrap();
    assert!(route.contains("the holder of the seat `proxy`"), "{route}");
    assert!(
        route.contains("`public_name` — given: the consumer sets it"),
        "{route}"
    );
    // A module's page holds its doc comments, requirements as written and containers.
    let forgejo = std::fs::read_to_string(dir.join("module.forgejo.html")).unwrap();
    assert!(forgejo.contains("Forgejo, a self-hosted software forge"));
    assert!(forgejo.contains("requires db: module postgres { password len 32.. }"));
    assert!(forgejo.contains("<a href=\"contract.postgres.html\">postgres</a>"));
    // The container's image as the definition pins it, read from the file so a moved pin
    // moves the expectation with it.
    let definition = std::fs::read_to_string(repo_root().join("catalogue/forgejo.mesh")).unwrap();
    let image = definition
        .lines()
        .find_map(|l| l.trim().strip_prefix("image \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("forgejo.mesh names its image");
    assert!(
        image.starts_with("codeberg.org/forgejo/forgejo:"),
        "{image}"
    );
    assert!(
        forgejo.contains(&format!("<code>{image}</code>")),
        "the page does not show `{image}`"
    );
}

#[test]
fn a_file_that_does_not_parse_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.mesh"), "module broken {\n").unwrap();
    let run = meshc(dir.path(), &["doc", "--out", "reference"]);
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("E0005"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!dir.path().join("reference").exists());
}

/// The reference shows a requirement or field as written, with every value written for a
/// secret masked as in an excerpt: a secret default and its set, a narrowing of a secret
/// field, a secret field's pattern and default. Plain values stay shown.
#[test]
fn the_reference_shows_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.mesh"),
        r#"/// A documented app.
module app {
  /// The token.
  requires tok: operator secret string in {"Q9SECRETqD1", "Q9SECRETqD2"} = "Q9SECRETqD3"
  requires up: module sealed { tok = "Q9SECRETqD6" }
  requires level: operator string = "plainvalue"
  container app {
    image "nginx:1.27"
    secret "/run/secrets/t" = tok
    secret "/run/secrets/u" = up.tok
    env { LEVEL = level }
  }
}

/// Sealed.
contract sealed for module {
  tok: secret string matches "Q9SECRETqD7.*" = "Q9SECRETqD8"
}
"#,
    )
    .unwrap();
    let run = meshc(dir.path(), &["doc", ".", "--out", "reference"]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut all = String::from_utf8_lossy(&run.stdout).into_owned();
    all.push_str(&String::from_utf8_lossy(&run.stderr));
    for e in std::fs::read_dir(dir.path().join("reference")).unwrap() {
        all.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap());
    }
    assert!(!all.contains("Q9SECRETq"), "{all}");
    assert!(all.contains("‹secret›"), "{all}");
    assert!(all.contains("plainvalue"), "{all}");
}

/// Doc comments are Markdown, rendered: their backticks become code in the HTML pages
/// (the index's summaries too) and never show raw.
#[test]
fn doc_comments_are_rendered_not_shown_raw() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("reference");
    let run = meshc(
        &repo_root(),
        &["doc", "catalogue", "--out", dir.to_str().unwrap()],
    );
    assert_eq!(run.status.code(), Some(0));
    let mut docs = 0;
    let mut code = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "html") {
            continue;
        }
        let page = std::fs::read_to_string(&p).unwrap();
        for block in page.split("<div class=\"docs\">").skip(1) {
            let block = &block[..block.find("</div>").unwrap()];
            docs += 1;
            code += block.matches("<code>").count();
            assert!(
                !block.contains('`'),
                "{}: a raw backtick in {block}",
                p.display()
            );
        }
        if p.file_name().unwrap() == "index.html" {
            for li in page.split("<li>").skip(1) {
                let li = &li[..li.find("</li>").unwrap()];
                assert!(!li.contains('`'), "index: a raw backtick in {li}");
            }
        }
    }
    assert!(docs > 100, "{docs} doc comments");
    assert!(code > 50, "{code} code spans");
    // The Markdown pages keep the comments' Markdown as written.
    let md = std::fs::read_to_string(dir.join("contract.clickhouse.md")).unwrap();
    assert!(md.contains("`database`"), "{md}");
}
