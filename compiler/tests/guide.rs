//! The language guide (docs/guide/src) is tested as a user reads it:
//!
//! - every ```mesh block is checked: alone (`mesh`), with the catalogue beside it
//!   (`mesh,catalogue`), or as a deliberate error whose code is named
//!   (`mesh,error=E0302`: that code must be reported); a block that is a file of a
//!   page's workspace (`file=PATH`) is checked by the page's replay;
//! - a page with ```console blocks is replayed in a temporary folder holding a copy of
//!   the catalogue: blocks marked `file=PATH` write PATH, and each `$ COMMAND` runs with
//!   this meshc first on PATH and must print exactly the lines below it.
//!   `MESHC_BLESS=1` rewrites those lines from what the commands print instead;
//! - every link between pages leads to a page that exists, and SUMMARY.md lists every
//!   page;
//! - no page points outside the repository's guide for what it explains.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/command.rs"]
mod command;
use command::repo_root;

fn guide() -> PathBuf {
    repo_root().join("docs/guide/src")
}

fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&guide(), &mut out);
    out.sort();
    assert!(out.len() > 5, "the guide has pages");
    out
}

/// A fenced block: its info string, its text, and the byte range of the text.
struct Block {
    info: String,
    text: String,
    line: usize,
    range: std::ops::Range<usize>,
}

fn blocks(page: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut open: Option<(String, usize, usize)> = None;
    for (n, line) in page.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_end();
        match &open {
            None if trimmed.starts_with("```") => {
                open = Some((trimmed[3..].trim().to_string(), at + line.len(), n + 1));
            }
            Some((info, start, first)) if trimmed == "```" => {
                out.push(Block {
                    info: info.clone(),
                    text: page[*start..at].to_string(),
                    line: *first,
                    range: *start..at,
                });
                open = None;
            }
            _ => {}
        }
        at += line.len();
    }
    assert!(open.is_none(), "a fenced block is not closed");
    out
}

fn words(info: &str) -> Vec<&str> {
    info.split([',', ' ']).filter(|w| !w.is_empty()).collect()
}

fn attr<'a>(info: &'a str, key: &str) -> Option<&'a str> {
    words(info)
        .into_iter()
        .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
}

fn meshc_json(dir: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .args(["--format", "json"])
        .current_dir(dir)
        .output()
        .expect("meshc runs");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "meshc printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        out.status.code(),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn error_codes(v: &serde_json::Value) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_mesh_example_checks_or_fails_as_it_says() {
    let catalogue = repo_root().join("catalogue");
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(guide()).unwrap().display().to_string();
        for b in blocks(&text) {
            let w = words(&b.info);
            if w.first() != Some(&"mesh") {
                assert!(
                    !b.info.starts_with("mesh"),
                    "{name}:{}: unknown block kind `{}`",
                    b.line,
                    b.info
                );
                continue;
            }
            for word in &w[1..] {
                assert!(
                    *word == "catalogue" || word.starts_with("error=") || word.starts_with("file="),
                    "{name}:{}: unknown mark `{word}` (mesh, catalogue, error=CODE, file=PATH)",
                    b.line
                );
            }
            if attr(&b.info, "file").is_some() {
                // A file of a page's workspace: the page's replay checks it with the
                // rest of that workspace (see the next test).
                assert!(
                    text.contains("\n$ meshc check"),
                    "{name}:{}: a `file=` block on a page that never runs `meshc check`",
                    b.line
                );
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("example.mesh"), &b.text).unwrap();
            // An example shows what it is about and nothing else: no warning either.
            let mut args = vec!["check", "--deny", "warnings", "example.mesh"];
            let cat = catalogue.to_str().unwrap();
            if w.contains(&"catalogue") {
                args.push(cat);
            }
            let (code, v, stderr) = meshc_json(dir.path(), &args);
            let errors = error_codes(&v);
            match attr(&b.info, "error") {
                Some(expected) => {
                    assert!(
                        errors.iter().any(|c| c == expected),
                        "{name}:{}: the example should be refused with {expected}, got {errors:?}\n{}",
                        b.line,
                        b.text
                    );
                    assert_eq!(code, Some(1), "{name}:{}", b.line);
                }
                None => {
                    assert!(
                        errors.is_empty(),
                        "{name}:{}: the example is refused: {v}\n{stderr}\n{}",
                        b.line,
                        b.text
                    );
                    assert_eq!(code, Some(0), "{name}:{}", b.line);
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} examples");
}

/// Trailing spaces are not part of what a reader sees (ariadne pads some lines).
fn shown(s: &str) -> String {
    s.lines().map(|l| format!("{}\n", l.trim_end())).collect()
}

#[test]
fn the_pages_with_commands_print_what_they_show() {
    let bless = std::env::var_os("MESHC_BLESS").is_some();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_meshc")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut replayed = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let all = blocks(&text);
        if !all.iter().any(|b| b.info == "console") {
            continue;
        }
        let name = page.strip_prefix(guide()).unwrap().display().to_string();
        let root = tempfile::tempdir().unwrap();
        copy_dir(
            &repo_root().join("catalogue"),
            &root.path().join("catalogue"),
        );
        let mut cwd = root.path().to_path_buf();
        let mut rewritten = text.clone();
        // Replacements are applied from the end so earlier ranges stay valid.
        let mut replacements: Vec<(std::ops::Range<usize>, String)> = Vec::new();
        for b in &all {
            if let Some(file) = attr(&b.info, "file") {
                std::fs::write(cwd.join(file), &b.text).unwrap();
                continue;
            }
            if b.info != "console" {
                continue;
            }
            let mut printed_block = String::new();
            let mut expected_block = String::new();
            let mut commands: Vec<(String, String)> = Vec::new();
            for line in b.text.lines() {
                if let Some(cmd) = line.strip_prefix("$ ") {
                    commands.push((cmd.to_string(), String::new()));
                } else {
                    let last = commands
                        .last_mut()
                        .unwrap_or_else(|| panic!("{name}:{}: output before a `$`", b.line));
                    last.1.push_str(line);
                    last.1.push('\n');
                }
            }
            for (cmd, expected) in commands {
                let printed = if let Some(dir) = cmd.strip_prefix("cd ") {
                    cwd = cwd.join(dir.trim());
                    assert!(cwd.is_dir(), "{name}: `{cmd}`: no such folder");
                    String::new()
                } else {
                    // The commands are meant to succeed, but for a `meshc check` showing an
                    // error on purpose: the comparison of the output judges both.
                    let out = Command::new("sh")
                        .arg("-c")
                        .arg(format!("{cmd} 2>&1"))
                        .current_dir(&cwd)
                        .env("PATH", &path)
                        .env("NO_COLOR", "1")
                        .output()
                        .expect("sh runs");
                    String::from_utf8_lossy(&out.stdout).into_owned()
                };
                printed_block.push_str(&format!("$ {cmd}\n{}", shown(&printed)));
                expected_block.push_str(&format!("$ {cmd}\n{expected}"));
                replayed += 1;
                if !bless {
                    assert_eq!(
                        shown(&printed),
                        shown(&expected),
                        "{name}:{}: `{cmd}` prints something else than the page shows \
                         (MESHC_BLESS=1 rewrites the page)",
                        b.line
                    );
                }
            }
            if printed_block != expected_block {
                replacements.push((b.range.clone(), printed_block));
            }
        }
        if bless && !replacements.is_empty() {
            for (range, new) in replacements.into_iter().rev() {
                rewritten.replace_range(range, &new);
            }
            std::fs::write(&page, rewritten).unwrap();
        }
    }
    assert!(replayed >= 5, "only {replayed} commands replayed");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn links_lead_to_pages_and_the_summary_lists_every_page() {
    let summary = std::fs::read_to_string(guide().join("SUMMARY.md")).unwrap();
    for page in pages() {
        let rel = page.strip_prefix(guide()).unwrap().display().to_string();
        if rel != "SUMMARY.md" {
            assert!(
                summary.contains(&format!("]({rel})")),
                "SUMMARY.md does not list {rel}"
            );
        }
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let file = target.split('#').next().unwrap();
            if file.is_empty() {
                continue;
            }
            let resolved = page.parent().unwrap().join(file);
            assert!(
                resolved.exists(),
                "{rel}: the link `{target}` leads nowhere"
            );
            // Nothing a reader needs lives outside the repository.
            let canonical = std::fs::canonicalize(&resolved).unwrap();
            assert!(
                canonical.starts_with(std::fs::canonicalize(repo_root()).unwrap()),
                "{rel}: `{target}` is outside the repository"
            );
        }
        for outside in ["LANGUAGE.md", "../shared", "seeds/", "ADR "] {
            assert!(
                !text.contains(outside),
                "{rel}: names `{outside}`, which a user of the repository does not have"
            );
        }
    }
}

/// The targets of Markdown links `[text](target)`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].to_string());
        }
    }
    out
}

#[test]
fn explain_texts_cite_the_guide_and_nothing_a_user_lacks() {
    let dir = repo_root().join("core/src/diagnostics/explain");
    let mut cited = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        for outside in ["ADR ", "LANGUAGE.md", "seeds/", "issue 0", "issue 1"] {
            assert!(
                !text.contains(outside),
                "{name}: cites `{outside}`, which a user does not have"
            );
        }
        let mut rest = text.as_str();
        while let Some(i) = rest.find("docs/guide/") {
            let tail = &rest[i..];
            let end = tail
                .find(|c: char| c.is_whitespace() || c == ')' || c == ',' || c == '`')
                .unwrap_or(tail.len());
            let path = tail[..end].trim_end_matches('.');
            let file = path.split('#').next().unwrap();
            assert!(
                repo_root().join(file).is_file(),
                "{name}: `{path}` does not exist"
            );
            cited += 1;
            rest = &tail[end..];
        }
    }
    assert!(cited >= 10, "explain texts cite the guide {cited} times");
}

#[test]
fn every_check_is_listed_with_the_page_that_explains_it() {
    let checks = std::fs::read_to_string(guide().join("reference/checks.md")).unwrap();
    let dir = repo_root().join("core/src/diagnostics/explain");
    let mut codes: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".md")
                .to_string()
        })
        .collect();
    codes.sort();
    assert!(codes.len() > 50);
    for code in &codes {
        let row = checks
            .lines()
            .find(|l| l.starts_with(&format!("| {code} |")))
            .unwrap_or_else(|| panic!("reference/checks.md does not list {code}"));
        let explain = std::fs::read_to_string(dir.join(format!("{code}.md"))).unwrap();
        let page = row
            .rsplit("](")
            .next()
            .unwrap()
            .trim_end_matches(" |")
            .trim_end_matches(')');
        assert!(
            explain.contains(&format!("docs/guide/src/reference/{page}")),
            "{code}: `meshc explain` should cite the page reference/checks.md gives ({page})"
        );
    }
}

/// The contracts a file declares: name, kind, first sentence of the docs, and each field
/// as written (its doc comments left out, spaces collapsed).
struct Declared {
    name: String,
    kind: String,
    what: String,
    fields: Vec<String>,
}

fn declared_contracts(path: &str, text: &str) -> Vec<Declared> {
    use meshc::syntax::ast::Item;
    let parsed = meshc::syntax::parse(&meshc::span::FilePath::from(path), text);
    assert!(parsed.diagnostics.is_empty(), "{path} parses");
    parsed
        .file
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Contract(c) => Some(c),
            _ => None,
        })
        .map(|c| Declared {
            name: c.name.name.to_string(),
            kind: c
                .kind
                .as_ref()
                .map(|k| k.name.to_string())
                .unwrap_or_default(),
            what: first_sentence(c.docs.text().unwrap_or("")),
            fields: c
                .fields
                .iter()
                .map(|f| {
                    let written = &text[f.span.start as usize..f.span.end as usize];
                    let code: Vec<&str> = written
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.starts_with("//"))
                        .collect();
                    code.join(" ")
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect(),
        })
        .collect()
}

fn first_sentence(docs: &str) -> String {
    let flat = docs.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(i) => flat[..=i].to_string(),
        None => flat,
    }
}

/// Which modules of the catalogue provide each contract, in the order of their files.
fn catalogue_providers() -> std::collections::BTreeMap<String, Vec<String>> {
    use meshc::syntax::ast::Item;
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join("catalogue"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mesh"))
        .collect();
    files.sort();
    let mut out: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let parsed = meshc::syntax::parse(&meshc::span::FilePath::from("c.mesh"), &text);
        for item in parsed.file.items.iter() {
            if let Item::Module(m) = item {
                for p in m.provides() {
                    out.entry(p.contract.name.to_string())
                        .or_default()
                        .push(m.name.name.to_string());
                }
            }
        }
    }
    out
}

/// A Markdown table of `contracts`, with the catalogue's modules that provide each.
fn contract_table(contracts: &[Declared]) -> String {
    let providers = catalogue_providers();
    let code = |s: &str| format!("`{}`", s.replace('|', "\\|"));
    let mut s = String::from(
        "| contract | for | what | fields | provided in the catalogue by |\n| --- | --- | --- | --- | --- |\n",
    );
    for c in contracts {
        let by = providers
            .get(&c.name)
            .map(|m| m.iter().map(|m| code(m)).collect::<Vec<_>>().join(", "))
            .unwrap_or_else(|| {
                match c.kind.as_str() {
                    "host" => "meshc, from the node",
                    "mesh" => "meshc, from the mesh",
                    _ => "none",
                }
                .to_string()
            });
        s.push_str(&format!(
            "| {} | {} | {} | {} | {by} |\n",
            code(&c.name),
            c.kind,
            c.what.replace('|', "\\|"),
            c.fields
                .iter()
                .map(|f| code(f))
                .collect::<Vec<_>>()
                .join("<br>"),
        ));
    }
    s
}

/// Replaces the text between `begin` and `end` in `page` (a file under the repository)
/// with `generated`, or asserts it is already that; `MESHC_BLESS=1` rewrites it.
fn generated_between(page: &Path, begin: &str, end: &str, generated: &str) {
    let text = std::fs::read_to_string(page).unwrap();
    let start = text
        .find(begin)
        .unwrap_or_else(|| panic!("{}: no `{begin}`", page.display()))
        + begin.len();
    let stop = start
        + text[start..]
            .find(end)
            .unwrap_or_else(|| panic!("{}: no `{end}`", page.display()));
    if text[start..stop] == *generated {
        return;
    }
    if std::env::var_os("MESHC_BLESS").is_some() {
        let mut new = text.clone();
        new.replace_range(start..stop, generated);
        std::fs::write(page, new).unwrap();
        return;
    }
    panic!(
        "{}: the generated list differs from the library (MESHC_BLESS=1 rewrites it):\n--- written\n{}\n--- from the library\n{generated}",
        page.display(),
        &text[start..stop]
    );
}

const TABLE_BEGIN: &str = "by compiler/tests/guide.rs (MESHC_BLESS=1 rewrites it). -->\n";
const TABLE_END: &str = "\n<!-- end of the generated table -->";

/// The guide's contracts page lists every contract of the embedded standard library and
/// of the catalogue, generated from their text; `meshc explain E0103` names every
/// standard contract. A contract added to either, or a field changed, fails this test
/// until the lists are written again (`MESHC_BLESS=1`).
#[test]
fn the_contract_lists_are_the_librarys() {
    let std = declared_contracts("std.mesh", meshc::base::STDLIB_TEXT);
    assert!(
        std.iter().any(|c| c.name == "mysql"),
        "the library has mysql"
    );
    let page = guide().join("reference/contracts.md");
    generated_between(
        &page,
        &format!("<!-- standard contracts generated from stdlib-contracts/std.mesh {TABLE_BEGIN}"),
        TABLE_END,
        &format!("\n{}", contract_table(&std)),
    );
    let catalogue_text =
        std::fs::read_to_string(repo_root().join("catalogue/contracts.mesh")).unwrap();
    let catalogue = declared_contracts("contracts.mesh", &catalogue_text);
    assert!(catalogue.len() >= 5);
    generated_between(
        &page,
        &format!("<!-- catalogue contracts generated from catalogue/contracts.mesh {TABLE_BEGIN}"),
        TABLE_END,
        &format!("\n{}", contract_table(&catalogue)),
    );
    // The explain text's sentence, by kind.
    let names = |kind: &str| {
        let n: Vec<String> = std
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| format!("`{}`", c.name))
            .collect();
        match n.len() {
            0 => String::new(),
            1 => n[0].clone(),
            k => format!("{} and {}", n[..k - 1].join(", "), n[k - 1]),
        }
    };
    let paragraph = wrap(&format!(
        "The standard contracts are always available. Answered by a module: {}. \
         Answered by the host: {}. Answered by the mesh: {}.",
        names("module"),
        names("host"),
        names("mesh")
    ));
    let explain = repo_root().join("core/src/diagnostics/explain/E0103.md");
    generated_between(
        &explain,
        "(`requires db: module mysql`).\n\n",
        "\n\nAny other contract",
        &paragraph,
    );
}

/// Words filled into lines of at most 88 characters, as the explain texts are written.
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 88 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out
}

/// The mesh blocks of an explain text, each with the heading it stands under.
fn explain_blocks(text: &str) -> Vec<(String, Block)> {
    let mut out = Vec::new();
    for b in blocks(text) {
        let before = &text[..b.range.start];
        let heading = before
            .lines()
            .rev()
            .find(|l| l.starts_with("## "))
            .unwrap_or("")
            .to_string();
        out.push((heading, b));
    }
    out
}

/// The codes `meshc check --deny warnings` reports for `files`, written into a folder of
/// their own (with the catalogue beside them when asked).
fn codes_of(files: &[&str], catalogue: bool) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec![
        "check".to_string(),
        "--deny".to_string(),
        "warnings".to_string(),
    ];
    for (k, text) in files.iter().enumerate() {
        let name = format!("block{k}.mesh");
        std::fs::write(tmp.path().join(&name), text).unwrap();
        args.push(name);
    }
    if catalogue {
        args.push(repo_root().join("catalogue").display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (_, v, _) = meshc_json(tmp.path(), &args);
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

/// Every example of `meshc explain` is a good example. The blocks under `## Example`,
/// checked together, draw the code (an error's example draws no warning besides); the
/// blocks under `## Fix` draw nothing, warnings denied (a fix that is a mesh alone is
/// checked with the example's modules, which it assigns). The codes `meshc take` and
/// `meshc genesis` report are not `meshc check`'s to draw: their examples must check
/// clean too.
#[test]
fn every_explain_example_draws_its_code_and_every_fix_checks_clean() {
    let dir = repo_root().join("core/src/diagnostics/explain");
    // The codes `meshc take` and `meshc genesis` report: their rules' file names them.
    let take_rules =
        std::fs::read_to_string(repo_root().join("core/src/diagnostics/rules/take.rs")).unwrap();
    let take_codes: Vec<String> = take_rules
        .split("Code::")
        .skip(1)
        .map(|s| {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect()
        })
        .collect();
    assert!(take_codes.iter().any(|c| c == "E0601"));
    let mut failures = Vec::new();
    let mut fixes = 0;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        let code = p.file_stem().unwrap().to_string_lossy().into_owned();
        let take = take_codes.contains(&code);
        let text = std::fs::read_to_string(&p).unwrap();
        let mut example: Vec<(Block, bool)> = Vec::new();
        let mut fix: Vec<(Block, bool)> = Vec::new();
        for (heading, b) in explain_blocks(&text) {
            let w = words(&b.info);
            if w.first() != Some(&"mesh") {
                continue;
            }
            let catalogue = w.contains(&"catalogue");
            match heading.as_str() {
                "## Example" => example.push((b, catalogue)),
                "## Fix" => fix.push((b, catalogue)),
                _ => {}
            }
        }
        if !example.is_empty() {
            let found = codes_of(
                &example
                    .iter()
                    .map(|(b, _)| b.text.as_str())
                    .collect::<Vec<_>>(),
                example.iter().any(|(_, c)| *c),
            );
            let line = example[0].0.line;
            if take {
                if !found.is_empty() {
                    failures.push(format!(
                        "{code}: the example at line {line} draws {found:?}"
                    ));
                }
            } else if !found.contains(&code) {
                failures.push(format!(
                    "{code}: the example at line {line} draws {found:?}, not {code}"
                ));
            } else if code.starts_with('E') && found.iter().any(|c| c.starts_with('W')) {
                failures.push(format!(
                    "{code}: the example at line {line} also draws {found:?}"
                ));
            }
        }
        if !fix.is_empty() {
            fixes += 1;
            // A fix that is a mesh alone assigns the example's modules.
            let is_mesh = |text: &str| text.trim_start().starts_with("mesh ");
            let mut files: Vec<&str> = if fix.iter().all(|(b, _)| is_mesh(&b.text)) {
                example
                    .iter()
                    .filter(|(b, _)| !is_mesh(&b.text))
                    .map(|(b, _)| match b.text.find("\nmesh ") {
                        Some(i) => &b.text[..=i],
                        None => b.text.as_str(),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            files.extend(fix.iter().map(|(b, _)| b.text.as_str()));
            let found = codes_of(&files, fix.iter().chain(&example).any(|(_, c)| *c));
            if !found.is_empty() {
                failures.push(format!(
                    "{code}: the fix at line {} draws {found:?}",
                    fix[0].0.line
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} examples are not good examples:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(fixes >= 60, "only {fixes} fixes checked");
}

/// The README and the project's docs name nothing a user of the repository lacks: the
/// language's specification and its decision records are not in it (the guide is).
#[test]
fn the_docs_point_at_the_guide_not_at_files_a_user_lacks() {
    let mut pages = vec![repo_root().join("README.md")];
    for e in std::fs::read_dir(repo_root().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p);
        }
    }
    assert!(pages.len() > 10);
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for outside in ["LANGUAGE.md", "ARCHITECTURE.md", "ADR 0"] {
            assert!(
                !text.contains(outside),
                "{}: names `{outside}`, which a user of the repository does not have",
                page.display()
            );
        }
    }
}

/// The guide's highlighting of mesh blocks (docs/guide/mesh-highlight.js, wired into
/// book.toml) knows every keyword of the language's table and every type name; a word
/// added to either fails here until the grammar is written again (`MESHC_BLESS=1`).
#[test]
fn the_guides_highlighting_knows_every_keyword() {
    let book = std::fs::read_to_string(repo_root().join("docs/guide/book.toml")).unwrap();
    assert!(book.contains("additional-js = [\"mesh-highlight.js\"]"));
    let mut keywords: Vec<&str> = meshc::syntax::keywords::KEYWORDS
        .iter()
        .filter(|k| {
            !matches!(
                k.kind,
                meshc::syntax::keywords::Kind::Literal | meshc::syntax::keywords::Kind::Type
            ) || k.word == "secret"
        })
        .map(|k| k.word)
        .collect();
    keywords.sort();
    keywords.dedup();
    let mut types: Vec<&str> = meshc::check::types::TYPE_NAMES.to_vec();
    types.extend(["list", "secret"]);
    types.sort();
    types.dedup();
    let generated = format!(
        "\n  var keywords = \"{}\";\n  var types = \"{}\";\n",
        keywords.join(" "),
        types.join(" ")
    );
    generated_between(
        &repo_root().join("docs/guide/mesh-highlight.js"),
        "MESHC_BLESS=1 rewrites it)",
        "  // KEYWORDS-END",
        &generated,
    );
}
