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
        copy_dir(&root().join("workspace"), &work);
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
