//! `meshc take` over fixture reports (LANGUAGE.md §13.3): one folder under `tests/take/`
//! per row of the comparison, each with a host report and `expect.json` naming the runs
//! (flags, exit status, codes that must and must not appear, text a diagnostic or the
//! output must hold or must not hold, `--yes` digests and the plan). Every run works on a
//! fresh copy of `tests/take/workspace`. No run may print the found secret value.

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/take")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn diag_text(d: &Value) -> String {
    let mut s = String::new();
    strings(d, &mut s);
    s
}

/// Runs one case; returns its problems.
fn run_case(dir: &Path) -> Vec<String> {
    let spec: Value =
        serde_json::from_slice(&std::fs::read(dir.join("expect.json")).unwrap()).unwrap();
    let instance = spec["instance"].as_str().unwrap();
    let mut digests: HashMap<String, String> = HashMap::new();
    let mut problems = Vec::new();
    let secret_seen = |text: &str| text.contains("0f9c2b7e4d1a8f3c6b5e2d9a7c4f1e8b");
    for run in spec["runs"].as_array().unwrap() {
        let name = run["name"].as_str().unwrap();
        let label = format!("{}/{name}", dir.file_name().unwrap().to_string_lossy());
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().join("ws");
        // A case may name another workspace beside `workspace/`.
        copy_dir(
            &root().join(spec["workspace"].as_str().unwrap_or("workspace")),
            &work,
        );
        let out_dir = tmp.path().join("out");
        let human = run["format"] == "human";
        let report = dir.join("report.json");
        let mut args: Vec<String> = vec![
            "take".into(),
            instance.into(),
            "--node".into(),
            "alpha".into(),
            "lab.mesh".into(),
            ".".into(),
            "--report".into(),
            report.display().to_string(),
            "--out".into(),
            out_dir.display().to_string(),
        ];
        if !human {
            args.extend(["--format".into(), "json".into()]);
        }
        for f in run["flags"].as_array().into_iter().flatten() {
            args.push(f.as_str().unwrap().into());
        }
        if let Some(yes) = run["yes"].as_str() {
            let yes = match yes.strip_prefix('@') {
                Some(r) => digests
                    .get(r)
                    .cloned()
                    .unwrap_or_else(|| panic!("{label}: no digest from {r}")),
                None => yes.to_string(),
            };
            args.extend(["--yes".into(), yes]);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_meshc"))
            .args(&args)
            .current_dir(&work)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let mut say = |p: String| problems.push(format!("{label}: {p}"));
        if out.status.code() != run["exit"].as_i64().map(|c| c as i32) {
            say(format!(
                "exit {:?}, expected {}: {stderr}",
                out.status.code(),
                run["exit"]
            ));
        }
        let plan = out_dir.join(format!("alpha.{instance}.take.json"));
        let plan_text = std::fs::read_to_string(&plan).unwrap_or_default();
        let all = format!("{stdout}\n{stderr}\n{plan_text}");
        for lack in run["output_lacks"].as_array().into_iter().flatten() {
            if all.contains(lack.as_str().unwrap()) {
                say(format!("the output shows {lack}"));
            }
        }
        if secret_seen(&all) {
            say("the found secret value reached the output".into());
        }
        if human {
            let last = stdout.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
            if !last.starts_with("digest sha256:") {
                say(format!("the digest is not printed last: {last:?}"));
            }
        } else {
            let Ok(doc) = serde_json::from_str::<Value>(&stdout) else {
                say(format!("no JSON: {stdout} {stderr}"));
                continue;
            };
            let diags = doc["diagnostics"].as_array().unwrap();
            let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
            for c in run["codes"].as_array().into_iter().flatten() {
                if !codes.contains(&c.as_str().unwrap()) {
                    say(format!("missing {c}; got {codes:?}"));
                }
            }
            let wanted: Vec<&str> = run["codes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c.as_str().unwrap())
                .collect();
            for d in diags {
                if d["severity"] == "error" && !wanted.contains(&d["code"].as_str().unwrap()) {
                    say(format!("unexpected error {}: {}", d["code"], d["message"]));
                }
            }
            for c in run["not_codes"].as_array().into_iter().flatten() {
                if codes.contains(&c.as_str().unwrap()) {
                    say(format!("unexpected {c}"));
                }
            }
            for (code, text) in run["text"].as_object().into_iter().flatten() {
                let t = text.as_str().unwrap();
                if !diags
                    .iter()
                    .any(|d| d["code"] == code.as_str() && diag_text(d).contains(t))
                {
                    say(format!("no {code} mentions {t:?}"));
                }
            }
            let mut blob = stdout.clone();
            strings(&doc, &mut blob);
            for text in run["output_contains"].as_array().into_iter().flatten() {
                if !blob.contains(text.as_str().unwrap()) {
                    say(format!("the output does not show {text}"));
                }
            }
            if let Some(d) = doc["digest"].as_str() {
                digests.insert(name.to_string(), d.to_string());
            }
            if run["digest"] == true
                && !doc["digest"]
                    .as_str()
                    .is_some_and(|d| d.starts_with("sha256:") && d.len() == 71)
            {
                say(format!("no digest: {}", doc["digest"]));
            }
        }
        match run["plan"].as_bool() {
            Some(true) => {
                if serde_json::from_str::<Value>(&plan_text).is_err() {
                    say("no JSON plan was written".into());
                }
                // The plan is the operator's alone (issue 37).
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&plan).map_or(0, |m| m.permissions().mode() & 0o777);
                if mode != 0o600 {
                    say(format!("the plan is written {mode:o}, not 600"));
                }
            }
            _ => {
                if out_dir.exists()
                    && std::fs::read_dir(&out_dir)
                        .unwrap()
                        .any(|e| !e.unwrap().file_name().to_string_lossy().starts_with('.'))
                {
                    say("a plan was written".into());
                }
            }
        }
    }
    problems
}

#[test]
fn every_fixture_report_takes_as_expected() {
    let mut problems = Vec::new();
    let mut cases = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expect.json").exists())
        .collect();
    dirs.sort();
    for d in dirs {
        cases += 1;
        problems.extend(run_case(&d));
    }
    assert!(cases >= 15, "only {cases} take cases found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_fixture_reports_fit_the_shipped_schema() {
    let schema: Value = serde_json::from_str(meshc::take::report::SCHEMA_TEXT).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for e in std::fs::read_dir(root()).unwrap() {
        let report = e.unwrap().path().join("report.json");
        if !report.exists() || report.parent().unwrap().ends_with("malformed_report") {
            continue;
        }
        let v: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        assert!(validator.is_valid(&v), "{}", report.display());
    }
}

/// `meshc genesis` over the take workspace: refused while the forge's `key` is answered by
/// a vault outside the genesis (E0520), written once the vault is part of it.
#[test]
fn genesis_plans_exactly_the_declared_foundation() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("ws");
    copy_dir(&root().join("workspace"), &work);
    let lab = std::fs::read_to_string(work.join("lab.mesh")).unwrap();
    let genesis = |dir: &Path| {
        Command::new(env!("CARGO_BIN_EXE_meshc"))
            .args([
                "genesis", "lab.mesh", ".", "--node", "alpha", "--out", "plan", "--format", "json",
            ])
            .current_dir(dir)
            .output()
            .unwrap()
    };
    let forge_genesis = lab.replace(
        "assign forge to alpha { data at \"/srv/forge\"  http at 20300 }",
        "assign forge to alpha { data at \"/srv/forge\"  http at 20300  genesis }",
    );
    assert_ne!(forge_genesis, lab, "the workspace's forge assignment moved");
    std::fs::write(work.join("lab.mesh"), &forge_genesis).unwrap();
    let out = genesis(&work);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "E0520", "{v}");
    assert!(d["message"].as_str().unwrap().contains("`key`"), "{d}");
    assert!(!work.join("plan").exists(), "a refused plan was written");

    let both = forge_genesis.replace(
        "assign vault to alpha { api at 20820 }",
        "assign vault to alpha { api at 20820  genesis }",
    );
    assert_ne!(
        both, forge_genesis,
        "the workspace's vault assignment moved"
    );
    std::fs::write(work.join("lab.mesh"), &both).unwrap();
    let out = genesis(&work);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: Value =
        serde_json::from_slice(&std::fs::read(work.join("plan/alpha.genesis.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = plan["instances"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["containers"].as_array().unwrap())
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["vault", "forge"], "forge-kept is not genesis");
    assert_eq!(
        plan["networks"],
        serde_json::json!(["alpha_vault", "alpha_forge"])
    );
    assert_eq!(
        plan["images"],
        serde_json::json!([
            "hashicorp/vault:1.17.6",
            "codeberg.org/forgejo/forgejo:9.0.3"
        ])
    );
    let forge = &plan["instances"][1];
    assert_eq!(forge["directories"][0]["path"], "/srv/forge");
    assert_eq!(forge["containers"][0]["mounts"][0]["container"], "/data");
    // Every file is planned with its owner, group and mode (LANGUAGE.md §14.5): the plain
    // one with its content, the sealed one (it reads the vault's secret) as render writes
    // it, from its template and the place of each secret, never a value.
    let files = forge["containers"][0]["files"].as_array().unwrap();
    let targets: Vec<&str> = files
        .iter()
        .map(|f| f["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        targets,
        ["/data/gitea/conf/app.ini", "/data/gitea/conf/secret.ini"]
    );
    for f in files {
        assert_eq!(
            (&f["owner"], &f["group"]),
            (&1000.into(), &1000.into()),
            "{f}"
        );
    }
    assert_eq!(files[0]["mode"], "0644");
    assert!(files[0]["content"].is_string());
    assert_eq!(files[1]["mode"], "0640");
    assert!(files[1].get("content").is_none(), "{}", files[1]);
    assert!(
        files[1]["template"]
            .as_str()
            .unwrap()
            .contains("INTERNAL_TOKEN = ${key.value}"),
        "{}",
        files[1]
    );
    assert_eq!(
        files[1]["references"]["key.value"]["sealed"]["by"]["instance"],
        "vault"
    );
    assert_eq!(forge["directories"][0]["group"], 1000);
}

/// No engine answering is exit 2 with one sentence; so is a host that is not a socket.
#[test]
fn survey_without_an_engine_says_so_in_one_sentence() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("ws");
    copy_dir(&root().join("workspace"), &work);
    for host in [
        format!("unix://{}/no-engine.sock", tmp.path().display()),
        "tcp://127.0.0.1:2375".to_string(),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_meshc"))
            .args([
                "survey",
                "--node",
                "alpha",
                "lab.mesh",
                ".",
                "--docker-host",
                &host,
            ])
            .current_dir(&work)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{host}");
        assert!(out.stdout.is_empty(), "{host}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("meshc: "), "{err}");
    }
}

/// Issue 33, class 8: control and bidirectional characters of a host report (network,
/// member and mount names, a file's lines, the node's name) reach a terminal only as
/// visible escapes, in take's rows and in its diagnostics; JSON escapes them as JSON does.
#[test]
fn report_text_reaches_the_terminal_only_as_visible_escapes() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("ws");
    copy_dir(&root().join("workspace"), &work);
    let mut report: Value =
        serde_json::from_slice(&std::fs::read(root().join("shared_network/report.json")).unwrap())
            .unwrap();
    let c = &mut report["containers"][0];
    c["networks"][1]["name"] = "legacy\u{1b}[2J".into();
    c["networks"][1]["members"] =
        serde_json::json!(["forge", "runner\u{1b}]0;pwn\u{7}", "ci\u{202e}"]);
    c["mounts"][0]["source"] = "/srv/forge\u{1b}[31m".into();
    for f in report["files"].as_array_mut().unwrap() {
        if f["path"] == "/data/gitea/conf/app.ini" {
            f["content"] = "[server]\nHTTP_PORT = 3000\u{9b}2K\u{2067}\n".into();
        }
    }
    let path = tmp.path().join("report.json");
    std::fs::write(&path, serde_json::to_vec(&report).unwrap()).unwrap();
    let raw = ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\u{2067}'];
    let take = |report: &Path, json: bool| {
        let mut args = vec![
            "take".to_string(),
            "forge".into(),
            "--node".into(),
            "alpha".into(),
            "lab.mesh".into(),
            ".".into(),
            "--report".into(),
            report.display().to_string(),
            "--max-age".into(),
            "876000h".into(),
        ];
        if json {
            args.extend(["--format".into(), "json".into()]);
        }
        Command::new(env!("CARGO_BIN_EXE_meshc"))
            .args(&args)
            .current_dir(&work)
            .output()
            .unwrap()
    };
    let out = take(&path, false);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for text in [&stdout, &stderr] {
        assert!(!text.contains(raw), "a raw control character: {text:?}");
    }
    assert!(stdout.contains("legacy\\u{1b}[2J"), "{stdout}");
    assert!(stdout.contains("/srv/forge\\u{1b}[31m"), "{stdout}");
    assert!(
        stdout.contains("HTTP_PORT = 3000\\u{9b}2K\\u{2067}"),
        "{stdout}"
    );
    assert!(stderr.contains("runner\\u{1b}]0;pwn\\u{7}"), "{stderr}");
    assert!(stderr.contains("ci\\u{202e}"), "{stderr}");
    // JSON keeps the text as it is, escaped as JSON escapes it.
    let out = take(&path, true);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut all = String::new();
    strings(&v, &mut all);
    assert!(all.contains("legacy\u{1b}[2J"), "{all}");
    // The node's name of a report for another node, in E0601.
    report["node"] = "alpha\u{1b}[2J\u{202e}".into();
    std::fs::write(&path, serde_json::to_vec(&report).unwrap()).unwrap();
    let out = take(&path, false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains(raw), "{stderr:?}");
    assert!(stderr.contains("alpha\\u{1b}[2J\\u{202e}"), "{stderr}");
}

/// The value every secret below carries: no output may hold it.
const TAKE_MARKER: &str = "Winter2024mk";

/// A found line holding a secret, in one of the shapes a configuration file has: the key
/// in any case, `KEY=value`, `key: value`, a tab, quotes, `export`, a comment, a `\r`.
fn secret_line(i: usize) -> String {
    let keys = [
        "INTERNAL_TOKEN",
        "token",
        "Admin_Password",
        "db-pass",
        "SECRET_KEY",
        "api.key",
    ];
    let before = ["", "  ", "\t", "export ", "# ", "; "];
    let seps = ["=", " = ", "\t", ": ", " ", "  =\t"];
    let quotes = ["", "'", "\""];
    let after = ["", "\r", ","];
    let key = keys[i % keys.len()];
    let key = match i / keys.len() % 3 {
        0 => key.to_string(),
        1 => key.to_ascii_lowercase(),
        _ => key.to_ascii_uppercase(),
    };
    let q = quotes[i / 7 % quotes.len()];
    let (kq, vq) = if i.is_multiple_of(5) {
        ("\"", "\"")
    } else {
        ("", q)
    };
    format!(
        "{}{kq}{key}{kq}{}{vq}{TAKE_MARKER}{i}x{vq}{}",
        before[i / 3 % before.len()],
        seps[i / 2 % seps.len()],
        after[i / 11 % after.len()]
    )
}

/// The secrets property of `check` and `build`, applied to take (issue 33, class 7): for
/// found files holding secret lines of many shapes — in the sealed file and in the plain
/// one — no output of `take` (human stdout and stderr, JSON, the cutover plan) holds a
/// found value. Each shape is also masked where the survey would write it.
#[test]
fn no_found_secret_reaches_any_output_of_take() {
    let base: Value =
        serde_json::from_slice(&std::fs::read(root().join("accepted_secret/report.json")).unwrap())
            .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("ws");
    copy_dir(&root().join("workspace"), &work);
    let run = |args: &[String]| {
        let out = Command::new(env!("CARGO_BIN_EXE_meshc"))
            .args(args)
            .current_dir(&work)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let mut problems = Vec::new();
    // Each shape alone where the survey writes it (in process, fast); then all of them
    // in one found file through every output of take (a run of meshc each).
    for i in 0..72 {
        let line = secret_line(i);
        for (path, declared) in [
            ("/data/gitea/conf/secret.ini", "[security]\n"),
            ("/data/gitea/conf/app.ini", "[server]\nHTTP_PORT = 3000\n"),
        ] {
            let file = meshc::emit::File {
                target: path.into(),
                owner: 1000,
                group: 1000,
                mode: "0640".into(),
                content: path.ends_with("app.ini").then(|| declared.to_string()),
                template: path
                    .ends_with("secret.ini")
                    .then(|| "[security]\nINTERNAL_TOKEN = ${key.value}\n".to_string()),
                references: None,
            };
            let masked = meshc::take::mask_found(&file, &format!("{declared}{line}\n"));
            if masked.contains(TAKE_MARKER) {
                problems.push(format!(
                    "{line:?} in {path}: the survey would write {masked:?}"
                ));
            }
        }
    }
    let all_lines: String = (0..72).map(|i| secret_line(i) + "\n").collect();
    {
        let line = &all_lines;
        for (path, declared) in [
            ("/data/gitea/conf/secret.ini", "[security]\n"),
            ("/data/gitea/conf/app.ini", "[server]\nHTTP_PORT = 3000\n"),
        ] {
            let mut report = base.clone();
            for f in report["files"].as_array_mut().unwrap() {
                if f["path"] == path {
                    f["content"] = format!("{declared}{line}").into();
                }
            }
            let dir = tmp.path().join(format!("case-{}", path.len()));
            std::fs::create_dir_all(&dir).unwrap();
            let report_path = dir.join("report.json");
            std::fs::write(&report_path, serde_json::to_vec(&report).unwrap()).unwrap();
            let args = |extra: &[&str]| {
                let mut a: Vec<String> = [
                    "take",
                    "forge",
                    "--node",
                    "alpha",
                    "lab.mesh",
                    ".",
                    "--max-age",
                    "876000h",
                    "--report",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                a.push(report_path.display().to_string());
                a.push("--out".into());
                a.push(dir.join("plans").display().to_string());
                a.extend(extra.iter().map(|s| s.to_string()));
                a
            };
            let (_, human, human_err) = run(&args(&[]));
            let (_, json, json_err) = run(&args(&["--format", "json"]));
            let (_, replaced, _) = run(&args(&["--format", "json", "--replace", path]));
            let digest = serde_json::from_str::<Value>(&replaced)
                .ok()
                .and_then(|v| v["digest"].as_str().map(String::from))
                .unwrap_or_default();
            let (code, yes, yes_err) = run(&args(&["--replace", path, "--yes", &digest]));
            let plan = std::fs::read_to_string(dir.join("plans/alpha.forge.take.json"))
                .unwrap_or_default();
            if code != Some(0) || plan.is_empty() {
                problems.push(format!(
                    "{line:?} in {path}: no plan written: {yes}{yes_err}"
                ));
            }
            for (what, text) in [
                ("stdout", &human),
                ("stderr", &human_err),
                ("json", &json),
                ("json stderr", &json_err),
                ("--yes stdout", &yes),
                ("--yes stderr", &yes_err),
                ("the plan", &plan),
            ] {
                if text.contains(TAKE_MARKER) {
                    problems.push(format!("{line:?} in {path}: {what} shows it:\n{text}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
