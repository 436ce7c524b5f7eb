//! The secrets oracle, as a bounded property test run in CI: for random workspaces that
//! declare secrets with marker values everywhere a secret can be written, rightly or
//! wrongly, and then damage them (`secret_programs`), no marker reaches any output:
//! `meshc check` in every format, the manifests `meshc build` writes, what it lists as
//! left out, the lock, and `meshc fmt`'s errors; and for random Compose projects
//! (`secret_programs::compose`), everything `meshc import compose` prints or writes.
//! `PROPTEST_CASES=N` asks for a longer run.

mod secret_programs;

use meshc::db::{self, Database};
use meshc::diagnostics::{Diagnostic, render};
use meshc::resolve::Lock;
use meshc::span::FilePath;
use proptest::prelude::*;
use secret_programs::{MARKER, secret_workspace};
use std::collections::HashMap;
use std::sync::Arc;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// Fails with the output and the workspace when `output` holds a marker.
fn clean(what: &str, output: &str, files: &[(String, String)]) -> Result<(), TestCaseError> {
    if let Some(at) = output.find(MARKER) {
        let line_start = output[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = output[at..].find('\n').map_or(output.len(), |i| at + i);
        let workspace: String = files.iter().map(|(p, t)| format!("--- {p}\n{t}")).collect();
        return Err(TestCaseError::fail(format!(
            "{what} shows a secret: {}\n\n{workspace}",
            &output[line_start..line_end]
        )));
    }
    Ok(())
}

/// Every rendering of `diags`.
fn rendered(diags: &[Diagnostic], sources: &HashMap<FilePath, Arc<str>>) -> Vec<(String, String)> {
    vec![
        ("human".into(), render::to_human(diags, sources, false)),
        ("json".into(), render::to_json(diags, sources).to_string()),
        (
            "sarif".into(),
            render::to_sarif(diags, sources, "0").to_string(),
        ),
    ]
}

fn no_marker_anywhere(seed: u64) -> Result<(), TestCaseError> {
    let (files, markers) = secret_workspace(seed);
    prop_assert!(markers > 3);
    let inputs: Vec<(FilePath, Arc<str>)> = files
        .iter()
        .map(|(p, t)| (FilePath::from(p.as_str()), Arc::from(t.as_str())))
        .collect();
    let mut sources: HashMap<FilePath, Arc<str>> = inputs.iter().cloned().collect();
    sources.insert(FilePath::from(db::STDLIB_PATH), Arc::from(db::STDLIB_TEXT));
    let (database, ws) = Database::with_files(inputs.iter().cloned());
    // `meshc check`, every format.
    let diags = db::workspace_diagnostics(&database, ws);
    for (format, out) in rendered(&diags, &sources) {
        clean(&format!("check --format {format}"), &out, &files)?;
    }
    // `meshc build`: the manifests, what they leave out, the lock.
    let meshes: Vec<String> = db::registry(&database, ws).meshes.keys().cloned().collect();
    for mesh in meshes {
        let outcome = db::resolve_mesh(&database, ws, mesh.clone(), Lock::default());
        for (node, m) in &outcome.manifests {
            let bytes = meshc::emit::manifest_bytes(m);
            clean(
                &format!("the manifest of {node}"),
                &String::from_utf8_lossy(&bytes),
                &files,
            )?;
        }
        let left: Vec<Diagnostic> = outcome
            .left_out
            .iter()
            .flat_map(|l| l.diagnostics.iter().cloned())
            .chain(outcome.diagnostics.iter().cloned())
            .collect();
        for (format, out) in rendered(&left, &sources) {
            clean(&format!("build of {mesh} --format {format}"), &out, &files)?;
        }
        clean("the lock", &outcome.lock_to_write().to_text(), &files)?;
    }
    // `meshc fmt`'s errors, each file on its own as `meshc fmt FILE` reads it.
    for (path, text) in &inputs {
        if let Err(errors) = meshc::fmt::format(path, text) {
            let mut one: HashMap<FilePath, Arc<str>> = HashMap::new();
            one.insert(path.clone(), text.clone());
            for (format, out) in rendered(&errors, &one) {
                clean(&format!("fmt {path} --format {format}"), &out, &files)?;
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn no_secret_reaches_any_output(seed in any::<u64>()) {
        no_marker_anywhere(seed)?;
    }
}

/// The generator writes what it means to: markers in every kind of place, some damage.
#[test]
fn the_generator_writes_markers_in_every_place() {
    let mut all = String::new();
    for seed in 0..64 {
        let (files, _) = secret_workspace(seed);
        for (_, t) in files {
            all.push_str(&t);
        }
    }
    for shape in [
        "tok: secret string",
        "op.x = \"Q9",
        "op at \"Q9",
        "up.tok = ",
        "assign app to nowhere",
        "assign nosuch to",
        " in {\"Q9",
        " matches \"Q9",
        "exposed",
        "\"\"\"",
        "given tok",
    ] {
        assert!(all.contains(shape), "never generated: {shape}");
    }
}

/// `meshc import compose` of a random project holding marker secrets: what it prints on
/// stdout (the report for people), on stderr (each problem), and every file it writes
/// (the modules, the mesh, `import-report.json`) hold no marker, whether the import
/// succeeds or is refused.
fn no_marker_in_import(seed: u64) -> Result<(), TestCaseError> {
    let p = secret_programs::compose::secret_compose(seed);
    prop_assert!(p.markers > 0);
    let read = |path: &str| -> Result<String, meshc::import::files::Unread> {
        p.env_files
            .iter()
            .find(|(n, _)| path == format!("/srv/p/{n}"))
            .map(|(_, t)| t.clone())
            .ok_or(meshc::import::files::Unread {
                missing: true,
                reason: "no such file".into(),
            })
    };
    let request = meshc::import::Request {
        text: &p.compose,
        shown: "compose.yaml",
        dir: "/srv/p",
        default_name: "p",
        dotenv: Some(&p.dotenv),
        read: &read,
    };
    let mut inputs = vec![
        ("compose.yaml".to_string(), p.compose.clone()),
        (".env".to_string(), p.dotenv.clone()),
    ];
    inputs.extend(p.env_files.iter().cloned());
    match meshc::import::import_compose(&request) {
        Ok(imported) => {
            clean("import's report on stdout", &imported.summary, &inputs)?;
            for (name, text) in &imported.files {
                clean(&format!("the written {name}"), text, &inputs)?;
            }
            clean("the report", &imported.report.to_string(), &inputs)?;
        }
        Err(problems) => {
            for problem in problems {
                clean("a problem on stderr", &problem.message, &inputs)?;
                clean("a problem's service", &problem.service, &inputs)?;
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn no_secret_reaches_any_import_output(seed in any::<u64>()) {
        no_marker_in_import(seed)?;
    }
}

/// The Compose generator writes what it means to: markers in each kind of place, and
/// projects that import as well as ones refused.
#[test]
fn the_compose_generator_writes_markers_in_every_place() {
    let mut all = String::new();
    let (mut ok, mut refused) = (0, 0);
    for seed in 0..64 {
        let p = secret_programs::compose::secret_compose(seed);
        all.push_str(&p.compose);
        all.push_str(&p.dotenv);
        for (_, t) in &p.env_files {
            all.push_str(t);
        }
        let read = |_: &str| -> Result<String, meshc::import::files::Unread> {
            Err(meshc::import::files::Unread {
                missing: true,
                reason: "no such file".into(),
            })
        };
        let request = meshc::import::Request {
            text: &p.compose,
            shown: "compose.yaml",
            dir: "/srv/p",
            default_name: "p",
            dotenv: Some(&p.dotenv),
            read: &read,
        };
        match meshc::import::import_compose(&request) {
            Ok(_) => ok += 1,
            Err(_) => refused += 1,
        }
    }
    for shape in [
        "Bearer Q9",
        "Authorization: Bearer Q9",
        "@o12.ingest.sentry.io",
        "hooks.slack.com",
        "token=Q9",
        "ghp_Q9",
        "xoxb-Q9",
        "://app:Q9",
        "BORG_PASSPHRASE",
        "MYSQL_PWD",
        "env_file:",
        "--password",
        "x${Q9",
        "is not a line",
        "has no equals sign",
    ] {
        assert!(all.contains(shape), "never generated: {shape}");
    }
    assert!(ok > 0 && refused > 0, "{ok} imported, {refused} refused");
}
